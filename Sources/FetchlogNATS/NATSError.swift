import CNATS
import Foundation

/// A nats.c call that failed: which call, its status, JetStream's error code when the
/// server gave one, and the library's own last error text (what the server said).
public struct NATSError: Error, Equatable, CustomStringConvertible, Sendable {
    public let operation: String
    /// `natsStatus` as nats.c numbers it.
    public let status: Int32
    /// JetStream's API error code (10071 wrong last sequence, 10059 stream not found, …); 0 when none.
    public let jetStreamCode: Int32
    public let message: String

    /// JetStream's code for a publish whose `Nats-Expected-Last-Subject-Sequence` did not hold.
    public static let wrongLastSequence: Int32 = 10071
    /// JetStream's code for a stream that does not exist.
    public static let streamNotFound: Int32 = 10059
    /// JetStream's code for a message that does not exist.
    public static let noMessageFound: Int32 = 10037

    public var isTimeout: Bool { status == Int32(NATS_TIMEOUT.rawValue) }
    public var isNoResponders: Bool { status == Int32(NATS_NO_RESPONDERS.rawValue) }
    /// A failure that passes: no answer in time, no responder while a stream elects its
    /// leader, the connection lost and being remade, JetStream briefly unavailable.
    public var isTransient: Bool {
        let transient: [natsStatus] = [NATS_TIMEOUT, NATS_NO_RESPONDERS, NATS_CONNECTION_DISCONNECTED, NATS_STALE_CONNECTION, NATS_NOT_YET_CONNECTED]
        return transient.contains { Int32($0.rawValue) == status } || jetStreamCode == 10008
    }
    /// nats.c dropped messages of a subscription that did not keep up (its pending limit
    /// passed): what was dropped was not lost from the stream; read again from where you are.
    public var isSlowConsumer: Bool { status == Int32(NATS_SLOW_CONSUMER.rawValue) }
    public var isNotFound: Bool { status == Int32(NATS_NOT_FOUND.rawValue) || jetStreamCode == Self.noMessageFound || jetStreamCode == Self.streamNotFound }

    public var description: String {
        var text = "\(operation) failed: \(message)"
        if jetStreamCode != 0 { text += " (JetStream error \(jetStreamCode))" }
        if isNoResponders { text += "; JetStream is not answering: is the server running with -js, and is the stream's leader elected?" }
        if isTimeout { text += "; no answer in time: the server may be down or the stream without a leader" }
        return text
    }
}

/// Throws a `NATSError` unless `status` is `NATS_OK`.
func check(_ status: natsStatus, _ operation: @autoclosure () -> String, jetStream code: jsErrCode = jsErrCode(rawValue: 0)) throws(NATSError) {
    guard status != NATS_OK else { return }
    var last = NATS_OK
    // nats.c prefixes its detail with where it was raised, "(conn.c:2088): ": not for people.
    let raw = nats_GetLastError(&last).map { String(cString: $0) } ?? ""
    let detail = raw.replacingOccurrences(of: #"\([A-Za-z_]+\.c:[0-9]+\): "#, with: "", options: .regularExpression)
    let text = String(cString: natsStatus_GetText(status))
    throw NATSError(operation: operation(), status: Int32(status.rawValue), jetStreamCode: Int32(code.rawValue),
                    message: detail.isEmpty || detail == text ? text : "\(text): \(detail)")
}
