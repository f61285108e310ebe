import CNATS
import Foundation
import Synchronization

/// One connection to a NATS cluster (any of `servers`), with its JetStream context.
///
/// nats.c objects are thread-safe; this class owns them and destroys them once. Calls
/// block the calling thread (publish waits for the stream's ack): call them off the
/// cooperative pool or accept the wait. Reconnection is nats.c's own (`maxReconnects`
/// attempts, `reconnectWait` apart); a call made while disconnected fails with a timeout
/// or "no responders", never hangs past its `timeout`.
///
/// `@unchecked Sendable`: nats.c connections and JetStream contexts may be used from any thread.
public final class NATSConnection: @unchecked Sendable {
    public struct Options: Sendable {
        /// How long one request (a publish's ack, a stream look-up, a fetch) may wait.
        public var timeout: Duration = .seconds(5)
        public var maxReconnects: Int32 = 60
        public var reconnectWait: Duration = .milliseconds(250)
        /// Shown to the server (`nats server report connections`).
        public var name = "fetchlog"
        /// The JetStream domain to address (`$JS.<domain>.API`): a client of a leaf node
        /// reaches the hub cluster's JetStream through the hub's domain.
        public var domain: String?
        /// Told once when the connection to the server is lost (nats.c then reconnects by
        /// itself, and a call waits for it or times out): a command that waits says why.
        public var onConnectionLost: (@Sendable (String) -> Void)?
        public init() {}
    }

    private let connection: OpaquePointer
    private let jetStream: OpaquePointer
    /// Refusals of asynchronous publishes, reported by nats.c's callback.
    private let asyncFailures = AsyncFailures()
    /// Says a lost connection (nats.c's disconnected callback), once, never while closing.
    private let connectionEvents: ConnectionEvents
    public let servers: [String]
    /// The JetStream domain addressed, when one was given.
    public let domain: String?
    let timeoutMilliseconds: Int64

    public init(servers: [String], options: Options = Options()) throws(NATSError) {
        guard !servers.isEmpty else {
            throw NATSError(operation: "connect", status: Int32(NATS_INVALID_ARG.rawValue), jetStreamCode: 0, message: "no server URL given")
        }
        self.servers = servers
        self.domain = options.domain
        connectionEvents = ConnectionEvents(servers: servers, handler: options.onConnectionLost)
        timeoutMilliseconds = options.timeout.milliseconds
        var opts: OpaquePointer?
        try check(natsOptions_Create(&opts), "natsOptions_Create")
        defer { natsOptions_Destroy(opts) }
        var cStrings = servers.map { strdup($0) }
        defer { cStrings.forEach { free($0) } }
        let status = cStrings.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) {
                natsOptions_SetServers(opts, $0, Int32(buffer.count))
            }
        }
        try check(status, "natsOptions_SetServers(\(servers.joined(separator: ",")))")
        try check(natsOptions_SetTimeout(opts, timeoutMilliseconds), "natsOptions_SetTimeout")
        try check(natsOptions_SetName(opts, options.name), "natsOptions_SetName")
        try check(natsOptions_SetMaxReconnect(opts, options.maxReconnects), "natsOptions_SetMaxReconnect")
        let wait = options.reconnectWait.milliseconds
        try check(natsOptions_SetReconnectWait(opts, wait), "natsOptions_SetReconnectWait")
        if options.onConnectionLost != nil {
            // nats.c runs connection callbacks on a thread of its own, possibly after this
            // object is gone: the callbacks hold the box (retained here, released by the
            // closed callback, nats.c's last).
            let events = Unmanaged.passRetained(connectionEvents).toOpaque()
            try check(natsOptions_SetDisconnectedCB(opts, { _, closure in
                guard let closure else { return }
                Unmanaged<ConnectionEvents>.fromOpaque(closure).takeUnretainedValue().lost()
            }, events), "natsOptions_SetDisconnectedCB")
            try check(natsOptions_SetClosedCB(opts, { _, closure in
                guard let closure else { return }
                Unmanaged<ConnectionEvents>.fromOpaque(closure).release()
            }, events), "natsOptions_SetClosedCB")
        }
        var nc: OpaquePointer?
        try check(natsConnection_Connect(&nc, opts), "connect to \(servers.joined(separator: ","))")
        var jsOptions = jsOptions()
        jsOptions_Init(&jsOptions)
        jsOptions.Wait = timeoutMilliseconds
        jsOptions.PublishAsync.MaxPending = 4096
        jsOptions.PublishAsync.ErrHandler = { _, failure, closure in
            guard let failure, let closure else { return }
            let failures = Unmanaged<AsyncFailures>.fromOpaque(closure).takeUnretainedValue()
            failures.record(status: failure.pointee.Err, code: failure.pointee.ErrCode,
                            text: failure.pointee.ErrText.map { String(cString: $0) } ?? "")
        }
        jsOptions.PublishAsync.ErrHandlerClosure = Unmanaged.passUnretained(asyncFailures).toOpaque()
        // nats.c builds its API prefix from the domain during the call; the copy lives until then.
        let cDomain = options.domain.map { strdup($0) }
        defer { cDomain.map { free($0) } }
        if let cDomain { jsOptions.Domain = UnsafePointer(cDomain) }
        var js: OpaquePointer?
        do {
            try check(natsConnection_JetStream(&js, nc, &jsOptions), "natsConnection_JetStream")
        } catch {
            natsConnection_Destroy(nc)
            throw error
        }
        connection = nc!
        jetStream = js!
    }

    deinit {
        connectionEvents.close()
        jsCtx_Destroy(jetStream)
        natsConnection_Close(connection)
        natsConnection_Destroy(connection)
    }

    /// True while the connection is up (not reconnecting, not closed).
    public var isConnected: Bool { natsConnection_Status(connection) == NATS_CONN_STATUS_CONNECTED }

    /// The URL of the server this connection is on now.
    public var connectedServer: String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard natsConnection_GetConnectedUrl(connection, &buffer, buffer.count) == NATS_OK else { return nil }
        let url = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return url.isEmpty ? nil : url
    }

    // MARK: Streams

    /// What a stream says about itself.
    public struct StreamInfo: Sendable, Equatable {
        public let name: String
        public let subjects: [String]
        public let replicas: Int
        public let messages: UInt64
        public let bytes: UInt64
        public let firstSeq: UInt64
        public let lastSeq: UInt64
        /// The server leading the stream (clustered streams only).
        public let leader: String?
        /// How long the stream remembers a `Nats-Msg-Id` (its duplicate window).
        public let duplicateWindow: Duration
    }

    /// Creates the stream when it does not exist; returns what it is (an existing stream
    /// is returned as it is, not changed).
    public func ensureStream(name: String, subjects: [String], replicas: Int = 1, duplicateWindow: Duration = .seconds(120)) throws(NATSError) -> StreamInfo {
        do { return try streamInfo(name) } catch where error.isNotFound {}
        var config = jsStreamConfig()
        jsStreamConfig_Init(&config)
        var cSubjects = subjects.map { strdup($0) }
        defer { cSubjects.forEach { free($0) } }
        let cName = strdup(name)
        defer { free(cName) }
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var code = jsErrCode(rawValue: 0)
        let status = cSubjects.withUnsafeMutableBufferPointer { buffer -> natsStatus in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) { subjectPointers in
                config.Name = UnsafePointer(cName)
                config.Subjects = subjectPointers
                config.SubjectsLen = Int32(buffer.count)
                config.Replicas = Int64(replicas)
                config.Storage = js_FileStorage
                config.Duplicates = Int64(duplicateWindow.components.seconds) * 1_000_000_000 + duplicateWindow.components.attoseconds / 1_000_000_000
                return js_AddStream(&info, jetStream, &config, nil, &code)
            }
        }
        try check(status, "create stream \(name)", jetStream: code)
        defer { jsStreamInfo_Destroy(info) }
        return Self.streamInfo(info!)
    }

    public func streamInfo(_ name: String) throws(NATSError) -> StreamInfo {
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var code = jsErrCode(rawValue: 0)
        try check(js_GetStreamInfo(&info, jetStream, name, nil, &code), "stream info \(name)", jetStream: code)
        defer { jsStreamInfo_Destroy(info) }
        return Self.streamInfo(info!)
    }

    /// Removes the message at `seq` of `stream` (tests use it to tear a sequence).
    public func deleteMessage(stream: String, seq: UInt64) throws(NATSError) {
        var code = jsErrCode(rawValue: 0)
        try check(js_DeleteMsg(jetStream, stream, seq, nil, &code), "delete message \(seq) of \(stream)", jetStream: code)
    }

    /// The most one message may carry on this connection (the server's `max_payload`).
    public var maxPayload: Int { Int(natsConnection_GetMaxPayload(connection)) }

    public func deleteStream(_ name: String) throws(NATSError) {
        var code = jsErrCode(rawValue: 0)
        try check(js_DeleteStream(jetStream, name, nil, &code), "delete stream \(name)", jetStream: code)
    }

    private static func streamInfo(_ info: UnsafeMutablePointer<jsStreamInfo>) -> StreamInfo {
        let config = info.pointee.Config!.pointee
        let subjects = (0 ..< Int(config.SubjectsLen)).compactMap { config.Subjects[$0].map { String(cString: $0) } }
        let duplicates = config.Duplicates
        return StreamInfo(name: String(cString: config.Name), subjects: subjects, replicas: Int(config.Replicas),
                          messages: info.pointee.State.Msgs, bytes: info.pointee.State.Bytes,
                          firstSeq: info.pointee.State.FirstSeq, lastSeq: info.pointee.State.LastSeq,
                          leader: info.pointee.Cluster?.pointee.Leader.map { String(cString: $0) },
                          duplicateWindow: .nanoseconds(duplicates))
    }

    // MARK: Publishing

    /// The stream's answer to a publish: where the message is, and whether it was a
    /// duplicate of one the stream already held (same `Nats-Msg-Id` within its window).
    public struct PublishAck: Sendable, Equatable {
        public let stream: String
        public let seq: UInt64
        public let duplicate: Bool
    }

    /// Publishes `data` on `subject` and waits for the stream's ack (the message is then
    /// committed: stored on a quorum of the stream's replicas).
    ///
    /// - `messageID`: `Nats-Msg-Id`, so a retried publish within the duplicate window is stored once.
    /// - `expectedLastSubjectSeq`: `Nats-Expected-Last-Subject-Sequence`: the stream refuses
    ///   the message (`NATSError.wrongLastSequence`) unless the last message on `subject` is
    ///   at that seq (0: none yet) — one writer per subject, in order.
    public func publish(subject: String, data: [UInt8], headers: [(String, String)] = [], messageID: String? = nil,
                        expectedLastSubjectSeq: UInt64? = nil, expectedLastSeq: UInt64? = nil) throws(NATSError) -> PublishAck {
        try withMessage(subject: subject, data: data, headers: headers, messageID: messageID,
                        expectedLastSubjectSeq: expectedLastSubjectSeq, expectedLastSeq: expectedLastSeq) { (message: inout OpaquePointer?, options: inout jsPubOptions) throws(NATSError) -> PublishAck in
            options.MaxWait = timeoutMilliseconds
            var ack: UnsafeMutablePointer<jsPubAck>?
            var code = jsErrCode(rawValue: 0)
            try check(js_PublishMsg(&ack, jetStream, message, &options, &code), "publish on \(subject)", jetStream: code)
            defer { jsPubAck_Destroy(ack) }
            return PublishAck(stream: String(cString: ack!.pointee.Stream), seq: ack!.pointee.Sequence, duplicate: ack!.pointee.Duplicate)
        }
    }

    /// Publishes without waiting for the ack (up to 4,096 in flight); `completeAsyncPublishes`
    /// waits for them all and throws the first refusal. With `expectedLastSeq` on each, a
    /// refused message makes every later one refused too, so what the stream holds is a prefix.
    public func publishAsync(subject: String, data: [UInt8], headers: [(String, String)] = [], messageID: String? = nil,
                             expectedLastSeq: UInt64? = nil) throws(NATSError) {
        try withMessage(subject: subject, data: data, headers: headers, messageID: messageID,
                        expectedLastSubjectSeq: nil, expectedLastSeq: expectedLastSeq) { (message: inout OpaquePointer?, options: inout jsPubOptions) throws(NATSError) in
            // On success nats.c takes the message (and sets `message` to nil).
            try check(js_PublishMsgAsync(jetStream, &message, &options), "publish on \(subject)")
        }
        if let failure = asyncFailures.first { throw failure }
    }

    /// The message and publish options both publishes share: data, headers, `Nats-Msg-Id` and
    /// the expected sequences. The message is destroyed after `body` unless nats.c took it.
    ///
    /// - `expectedLastSeq`: `Nats-Expected-Last-Sequence`: the whole stream must end at that
    ///   seq (0: be empty; nats.c's option cannot say 0, so it is set as a header).
    private func withMessage<R>(subject: String, data: [UInt8], headers: [(String, String)], messageID: String?,
                                expectedLastSubjectSeq: UInt64?, expectedLastSeq: UInt64?,
                                _ body: (inout OpaquePointer?, inout jsPubOptions) throws(NATSError) -> R) throws(NATSError) -> R {
        var message: OpaquePointer?
        let status = data.withUnsafeBytes { raw in
            natsMsg_Create(&message, subject, nil, raw.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(raw.count))
        }
        try check(status, "create a message on \(subject)")
        defer { if message != nil { natsMsg_Destroy(message) } }
        for (name, value) in headers { try check(natsMsgHeader_Set(message, name, value), "set header \(name)") }
        var options = jsPubOptions()
        jsPubOptions_Init(&options)
        let cID = messageID.map { strdup($0) }
        defer { cID.map { free($0) } }
        options.MsgId = UnsafePointer(cID ?? nil)
        if let expectedLastSubjectSeq {
            if expectedLastSubjectSeq == 0 { options.ExpectNoMessage = true } else { options.ExpectLastSubjectSeq = expectedLastSubjectSeq }
        }
        if let expectedLastSeq {
            if expectedLastSeq == 0 { try check(natsMsgHeader_Set(message, "Nats-Expected-Last-Sequence", "0"), "set header Nats-Expected-Last-Sequence") }
            else { options.ExpectLastSeq = expectedLastSeq }
        }
        return try body(&message, &options)
    }

    /// Waits until every asynchronous publish is acknowledged (or `timeout` passes) and
    /// throws the first refusal, if any.
    public func completeAsyncPublishes(timeout: Duration = .seconds(60)) throws(NATSError) {
        var options = jsPubOptions()
        jsPubOptions_Init(&options)
        options.MaxWait = timeout.milliseconds
        try check(js_PublishAsyncComplete(jetStream, &options), "wait for the stream's acks")
        if let failure = asyncFailures.take() { throw failure }
    }

    // MARK: Reading

    /// A message as the stream holds it.
    public struct StoredMessage: Sendable, Equatable {
        public let subject: String
        public let seq: UInt64
        public let headers: [String: String]
        public let data: [UInt8]
    }

    /// The message at `seq` of `stream`; nil when there is none (deleted, or past the end).
    public func message(stream: String, seq: UInt64) throws(NATSError) -> StoredMessage? {
        try getMessage("get message \(seq) of \(stream)") { message, code in js_GetMsg(&message, jetStream, stream, seq, nil, &code) }
    }

    /// The last message on `subject` in `stream` (its seq is the stream's); nil when the
    /// subject has none.
    public func lastMessage(stream: String, subject: String) throws(NATSError) -> StoredMessage? {
        try getMessage("get the last message on \(subject) of \(stream)") { message, code in
            js_GetLastMsg(&message, jetStream, stream, subject, nil, &code)
        }
    }

    /// One direct get: nil when the stream has no such message.
    private func getMessage(_ operation: @autoclosure () -> String,
                            _ call: (inout OpaquePointer?, inout jsErrCode) -> natsStatus) throws(NATSError) -> StoredMessage? {
        var message: OpaquePointer?
        var code = jsErrCode(rawValue: 0)
        do {
            try check(call(&message, &code), operation(), jetStream: code)
        } catch where error.isNotFound {
            return nil
        }
        defer { natsMsg_Destroy(message) }
        return Self.stored(message!, seq: natsMsg_GetSequence(message))
    }

    static func stored(_ message: OpaquePointer, seq: UInt64) -> StoredMessage {
        let count = Int(natsMsg_GetDataLength(message))
        let data: [UInt8] = count == 0 ? [] : natsMsg_GetData(message)!.withMemoryRebound(to: UInt8.self, capacity: count) {
            Array(UnsafeBufferPointer(start: $0, count: count))
        }
        var headers: [String: String] = [:]
        var keys: UnsafeMutablePointer<UnsafePointer<CChar>?>?
        var keyCount: Int32 = 0
        if natsMsgHeader_Keys(message, &keys, &keyCount) == NATS_OK, let keys {
            for index in 0 ..< Int(keyCount) {
                guard let key = keys[index] else { continue }
                var value: UnsafePointer<CChar>?
                if natsMsgHeader_Get(message, key, &value) == NATS_OK, let value { headers[String(cString: key)] = String(cString: value) }
            }
            free(keys)
        }
        return StoredMessage(subject: String(cString: natsMsg_GetSubject(message)), seq: seq, headers: headers, data: data)
    }

    /// The most bytes one fetch of a `StreamReader` asks for: messages come in as fast as the
    /// network gives them and wait in the subscription until read, so an unbounded batch of
    /// big messages (1,024 of 400 KB) passed nats.c's 64 MiB pending limit, which drops
    /// messages ("slow consumer") and left the reader with a gap or nothing.
    public var fetchBytes: Int { max(8 << 20, 2 * maxPayload + (64 << 10)) }

    /// A pull consumer of the whole stream from `startSeq` on, in stream order, that no
    /// one acknowledges (a reader that keeps its own position: the store's last seq). Each
    /// fetch asks for at most `fetchBytes`, and the subscription may hold twice that.
    public func reader(stream: String, subject: String = ">", from startSeq: UInt64) throws(NATSError) -> StreamReader {
        var options = jsSubOptions()
        jsSubOptions_Init(&options)
        let cStream = strdup(stream)
        defer { free(cStream) }
        options.Stream = UnsafePointer(cStream)
        options.Config.DeliverPolicy = js_DeliverByStartSequence
        options.Config.OptStartSeq = max(startSeq, 1)
        options.Config.AckPolicy = js_AckNone
        // An ephemeral consumer the server forgets once the reader is gone.
        options.Config.InactiveThreshold = 30 * 1_000_000_000
        var subscription: OpaquePointer?
        var code = jsErrCode(rawValue: 0)
        try check(js_PullSubscribe(&subscription, jetStream, subject, nil, nil, &options, &code), "read \(stream) from seq \(startSeq)", jetStream: code)
        let maxBytes = fetchBytes
        let pending = max(64 << 20, 2 * maxBytes)
        natsSubscription_SetPendingLimits(subscription, 65536, Int32(clamping: pending))
        return StreamReader(subscription: subscription!, maxBytes: maxBytes, timeoutMilliseconds: timeoutMilliseconds, owner: self)
    }
}

/// Reads a stream in order, a batch at a time (`NATSConnection.reader`).
///
/// `@unchecked Sendable`: every member is immutable; the subscription it points to is
/// used by `next` alone, which its one owner (a follower's read loop, one batch at a time)
/// calls from whichever thread runs the loop, and nats.c's objects may move between threads.
public final class StreamReader: @unchecked Sendable {
    private let subscription: OpaquePointer
    /// The most bytes one fetch asks the server for.
    public let maxBytes: Int
    private let timeoutMilliseconds: Int64
    /// Keeps the connection alive as long as the reader.
    private let owner: NATSConnection

    init(subscription: OpaquePointer, maxBytes: Int, timeoutMilliseconds: Int64, owner: NATSConnection) {
        self.subscription = subscription
        self.maxBytes = maxBytes
        self.timeoutMilliseconds = timeoutMilliseconds
        self.owner = owner
    }

    deinit {
        natsSubscription_Unsubscribe(subscription)
        natsSubscription_Destroy(subscription)
    }

    /// Up to `batch` messages and about `maxBytes` (the server stops before the message that
    /// would pass it); fewer (or none) when the stream has no more within `wait`. Ask for no
    /// more messages than you know the stream holds: a fetch short of its batch and its
    /// bytes waits out `wait`. A connection lost meanwhile is an error (transient), never an
    /// empty batch: the caller says so and retries.
    public func next(batch: Int, wait: Duration = .seconds(1)) throws(NATSError) -> [NATSConnection.StoredMessage] {
        var list = natsMsgList()
        var request = jsFetchRequest()
        jsFetchRequest_Init(&request)
        request.Batch = Int32(clamping: max(batch, 1))
        request.MaxBytes = Int64(maxBytes)
        request.Expires = max(wait.milliseconds, 1) * 1_000_000
        let status = natsSubscription_FetchRequest(&list, subscription, &request)
        if status == NATS_TIMEOUT {
            guard owner.isConnected else {
                throw NATSError(operation: "fetch from the stream", status: Int32(NATS_CONNECTION_DISCONNECTED.rawValue), jetStreamCode: 0,
                                message: "the connection to \(owner.servers.joined(separator: ",")) was lost")
            }
            return []
        }
        try check(status, "fetch from the stream")
        defer { natsMsgList_Destroy(&list) }
        var messages: [NATSConnection.StoredMessage] = []
        messages.reserveCapacity(Int(list.Count))
        for index in 0 ..< Int(list.Count) {
            guard let message = list.Msgs[index] else { continue }
            var meta: UnsafeMutablePointer<jsMsgMetaData>?
            guard natsMsg_GetMetaData(&meta, message) == NATS_OK, let meta else { continue }
            let seq = meta.pointee.Sequence.Stream
            jsMsgMetaData_Destroy(meta)
            messages.append(NATSConnection.stored(message, seq: seq))
        }
        return messages
    }
}

/// What nats.c's disconnected callback tells: said once, and not when the connection is
/// closed on purpose (nats.c calls it then too).
final class ConnectionEvents: Sendable {
    private struct State {
        var said = false
        var closing = false
    }

    private let state = Mutex(State())
    private let servers: [String]
    private let handler: (@Sendable (String) -> Void)?

    init(servers: [String], handler: (@Sendable (String) -> Void)?) {
        self.servers = servers
        self.handler = handler
    }

    func lost() {
        let say = state.withLock { state -> Bool in
            guard !state.said, !state.closing else { return false }
            state.said = true
            return true
        }
        if say { handler?("lost the connection to \(servers.joined(separator: ",")); reconnecting") }
    }

    func close() { state.withLock { $0.closing = true } }
}

/// The first refusal of an asynchronous publish (later ones follow from it).
final class AsyncFailures: Sendable {
    private let failure = Mutex<NATSError?>(nil)

    func record(status: natsStatus, code: jsErrCode, text: String) {
        failure.withLock { failure in
            guard failure == nil else { return }
            failure = NATSError(operation: "publish", status: Int32(status.rawValue), jetStreamCode: Int32(code.rawValue),
                                message: text.isEmpty ? String(cString: natsStatus_GetText(status)) : text)
        }
    }

    var first: NATSError? { failure.withLock { $0 } }

    func take() -> NATSError? {
        failure.withLock { failure in
            defer { failure = nil }
            return failure
        }
    }
}

extension Duration {
    /// Whole milliseconds, as nats.c takes its timeouts.
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
