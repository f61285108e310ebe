import Foundation
import Testing
@testable import FetchlogNATS

/// The thin Swift layer over nats.c against a real `nats-server -js` on loopback:
/// streams, idempotent and ordered publishing, reading back by seq and in batches.
extension NATSSuites { @Suite struct JetStreamLayerTests {
    @Test func publishIsIdempotentAndOrderedAndReadsBack() async throws {
        let server = try await NATSServerProcess()
        defer { server.stop() }
        let nats = try NATSConnection(servers: [server.url])
        let stream = try nats.ensureStream(name: "FETCHLOG", subjects: ["fetchlog.>"], duplicateWindow: .seconds(60))
        #expect(stream.name == "FETCHLOG")
        #expect(stream.subjects == ["fetchlog.>"])
        #expect(stream.messages == 0)
        #expect(stream.duplicateWindow == .seconds(60))

        // Three events of store A, in order, each with its id and the seq it expects last.
        var acks: [NATSConnection.PublishAck] = []
        for n in 1 ... 3 {
            acks.append(try nats.publish(subject: "fetchlog.store.a", data: Array("event \(n)".utf8),
                                         headers: [("Fetchlog-Outbox-Seq", String(n))], messageID: "a-\(n)",
                                         expectedLastSubjectSeq: UInt64(n - 1)))
        }
        #expect(acks.map(\.seq) == [1, 2, 3])
        #expect(acks.allSatisfy { $0.stream == "FETCHLOG" && !$0.duplicate })
        // A retry of event 3 within the window: acknowledged as the duplicate it is.
        let again = try nats.publish(subject: "fetchlog.store.a", data: Array("event 3".utf8), messageID: "a-3")
        #expect(again == NATSConnection.PublishAck(stream: "FETCHLOG", seq: 3, duplicate: true))
        // A writer that thinks the subject ends at seq 2 is refused: one writer per subject.
        #expect {
            try nats.publish(subject: "fetchlog.store.a", data: Array("stale".utf8), messageID: "a-stale", expectedLastSubjectSeq: 2)
        } throws: { error in
            (error as? NATSError)?.jetStreamCode == NATSError.wrongLastSequence
        }
        // Another subject (store B) has its own sequence.
        #expect(try nats.publish(subject: "fetchlog.store.b", data: [0, 1, 2, 255], messageID: "b-1", expectedLastSubjectSeq: 0).seq == 4)

        let info = try nats.streamInfo("FETCHLOG")
        #expect((info.messages, info.firstSeq, info.lastSeq) == (4, 1, 4))
        let second = try #require(try nats.message(stream: "FETCHLOG", seq: 2))
        #expect(second == NATSConnection.StoredMessage(subject: "fetchlog.store.a", seq: 2,
                                                       headers: ["Fetchlog-Outbox-Seq": "2", "Nats-Msg-Id": "a-2", "Nats-Expected-Last-Subject-Sequence": "1"],
                                                       data: Array("event 2".utf8)))
        #expect(try nats.message(stream: "FETCHLOG", seq: 99) == nil)

        // In order from seq 2, in batches.
        let reader = try nats.reader(stream: "FETCHLOG", from: 2)
        var read: [NATSConnection.StoredMessage] = []
        for _ in 0 ..< 5 where read.count < 3 { read += try reader.next(batch: 2, wait: .milliseconds(500)) }
        #expect(read.map(\.seq) == [2, 3, 4])
        #expect(read.last?.data == [0, 1, 2, 255])
        #expect(try reader.next(batch: 2, wait: .milliseconds(100)).isEmpty)
    }

    @Test func anUnreachableServerAndAMissingStreamAreNamed() async throws {
        let port = NATSServerProcess.freePort()
        var options = NATSConnection.Options()
        options.timeout = .milliseconds(500)
        options.maxReconnects = 0
        #expect {
            try NATSConnection(servers: ["nats://127.0.0.1:\(port)"], options: options)
        } throws: { error in
            guard let error = error as? NATSError else { return false }
            return error.description.hasPrefix("connect to nats://127.0.0.1:\(port) failed: ")
        }
        let server = try await NATSServerProcess()
        defer { server.stop() }
        let nats = try NATSConnection(servers: [server.url])
        #expect {
            try nats.streamInfo("NOPE")
        } throws: { error in
            guard let error = error as? NATSError else { return false }
            return error.isNotFound && error.jetStreamCode == NATSError.streamNotFound && error.description.hasPrefix("stream info NOPE failed: ")
        }
    }
}
}
