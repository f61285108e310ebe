import Foundation

/// The validators (ETag, Last-Modified) and the seq of the last stored body of every
/// resource, so the next request can be conditional. Built from the log on first use
/// (reading only record headers), then kept current by the fetcher's own appends.
final class ValidatorIndex: @unchecked Sendable {
    struct Entry: Sendable, Equatable {
        var seq: UInt64
        var etag: String?
        var lastModified: String?
    }

    private let lock = NSLock()
    private var entries: [String: Entry]?

    static func key(_ source: String, _ label: String) -> String { source + "\u{0}" + label }

    func entry(for resource: Resource, in log: EventLog) throws -> Entry? {
        if let entries = lock.withLock({ entries }) { return entries[Self.key(resource.source.rawValue, resource.path)] }
        let built = try Self.build(from: log)
        return lock.withLock {
            if entries == nil { entries = built }
            return entries![Self.key(resource.source.rawValue, resource.path)]
        }
    }

    func record(_ event: Event) {
        guard event.kind == .fetched else { return }
        let entry = Entry(seq: event.seq, etag: event.response?.header("ETag"), lastModified: event.response?.header("Last-Modified"))
        lock.withLock { entries?[Self.key(event.source, event.label)] = entry }
    }

    private static func build(from log: EventLog) throws -> [String: Entry] {
        var last: [String: UInt64] = [:]
        try log.scanStored(batchSize: 1024) { stored in
            if stored.kind == .fetched { last[key(stored.source, stored.label)] = stored.seq }
            return true
        }
        var result: [String: Entry] = [:]
        for (key, seq) in last {
            guard let event = try log.event(at: seq) else { continue }
            result[key] = Entry(seq: seq, etag: event.response?.header("ETag"), lastModified: event.response?.header("Last-Modified"))
        }
        return result
    }
}
