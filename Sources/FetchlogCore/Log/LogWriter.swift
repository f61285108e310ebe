import Foundation
import FetchlogLMDB

/// The one thread that owns write transactions.
///
/// Appenders submit batches and wait; the thread takes everything waiting, writes it
/// in one transaction (MDB_APPEND, records encoded in place with MDB_RESERVE),
/// commits once, then completes every waiter. Under concurrency this turns N durable
/// commits into one; alone, an event still commits by itself at once.
///
/// `@unchecked Sendable`: the queue is guarded by `condition` (an `NSCondition`, not a
/// `Mutex`: the writer thread sleeps on it until work comes); the LMDB write transactions
/// run only on the writer thread.
package final class LogWriter: @unchecked Sendable {
    package struct Statistics: Sendable {
        package var commits = 0
        package var events = 0
    }

    /// Extra work done in the same write transaction after the events (checkpoints).
    typealias Extra = @Sendable (inout WriteTransaction) throws -> Void

    /// A write that must be a transaction of its own (an import): it sees the log as it
    /// is when it starts, writes what it will, and returns the seqs it wrote.
    /// It counts what it writes in the tally, so a failed commit (a full disk) can say.
    typealias Exclusive = @Sendable (inout WriteTransaction, LogDatabases, inout WriteTally) throws -> Range<UInt64>

    struct WriteTally {
        var events = 0
        var bytes = 0
    }

    private struct Pending {
        let events: [Event]
        let extra: Extra?
        var exclusive: Exclusive? = nil
        let completion: @Sendable (Result<Range<UInt64>, any Error>) -> Void
    }

    private let environment: Environment
    private let databases: LogDatabases
    private let condition = NSCondition()
    private var queue: [Pending] = []
    private var stopping = false
    private var finished = false
    private var stats = Statistics()
    /// Appenders that shared the last commit: the concurrency to wait for next time.
    private var lastBatchSubmissions = 1
    /// The longest a commit waits for the rest of its group (Postgres' commit_delay).
    private let lingerLimit: TimeInterval = 0.000_3

    init(environment: Environment, databases: LogDatabases) {
        self.environment = environment
        self.databases = databases
        let thread = Thread { [self] in run() }
        thread.name = "fetchlog.writer"
        thread.start()
    }

    func submit(_ events: [Event], extra: Extra? = nil, completion: @escaping @Sendable (Result<Range<UInt64>, any Error>) -> Void) {
        condition.lock()
        if stopping {
            condition.unlock()
            completion(.failure(StoreError.closed))
            return
        }
        queue.append(Pending(events: events, extra: extra, completion: completion))
        condition.signal()
        condition.unlock()
    }

    /// Runs `body` in a write transaction shared with no other submission.
    func submitExclusive(_ body: @escaping Exclusive, completion: @escaping @Sendable (Result<Range<UInt64>, any Error>) -> Void) {
        condition.lock()
        if stopping {
            condition.unlock()
            completion(.failure(StoreError.closed))
            return
        }
        queue.append(Pending(events: [], extra: nil, exclusive: body, completion: completion))
        condition.signal()
        condition.unlock()
    }

    var statistics: Statistics { condition.withLock { stats } }

    /// Finishes what was submitted, then ends the thread. Waits for it.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while !finished { condition.wait() }
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while queue.isEmpty && !stopping { condition.wait() }
            // Under concurrency, the appenders of the last commit come back together;
            // waiting a few hundred microseconds for all of them to arrive turns their
            // separate fsyncs into one. A lone appender (last batch of one) never waits.
            if lastBatchSubmissions > 1 && !stopping && queue.count < lastBatchSubmissions {
                let deadline = Date(timeIntervalSinceNow: lingerLimit)
                while queue.count < lastBatchSubmissions && !stopping {
                    if !condition.wait(until: deadline) { break }
                }
            }
            if queue.isEmpty && stopping {
                finished = true
                condition.broadcast()
                condition.unlock()
                return
            }
            // An exclusive write goes alone; appends before it are committed first.
            let batch: [Pending]
            if queue.first?.exclusive != nil {
                batch = [queue.removeFirst()]
            } else {
                let end = queue.firstIndex { $0.exclusive != nil } ?? queue.count
                batch = Array(queue[..<end])
                queue.removeFirst(end)
            }
            lastBatchSubmissions = batch.count
            condition.unlock()
            commit(batch)
        }
    }

    private func commit(_ batch: [Pending]) {
        if batch.count == 1, let exclusive = batch[0].exclusive {
            let result: Result<Range<UInt64>, any Error>
            var tally = WriteTally()
            do {
                let databases = databases
                result = .success(try environment.write { txn in
                    tally = WriteTally()
                    return try exclusive(&txn, databases, &tally)
                })
            } catch let error as LMDBError {
                result = .failure(StoreError.fromWrite(error, path: environment.path, bytes: tally.bytes, events: tally.events))
            } catch {
                result = .failure(error)
            }
            if case .success(let range) = result {
                condition.withLock {
                    stats.commits += 1
                    stats.events += range.count
                }
            }
            batch[0].completion(result)
            return
        }
        let result: Result<[Range<UInt64>], any Error>
        do {
            let ranges = try environment.write { txn -> [Range<UInt64>] in
                // The next seq comes from the log inside the transaction, so appends
                // from other processes sharing the store interleave without gaps.
                var next: UInt64 = try txn.withCursor(databases.events) { cursor in
                    guard let last = try cursor.get(.last) else { return 1 }
                    return (SequenceKey.decode(last.key) ?? 0) + 1
                }
                var ranges: [Range<UInt64>] = []
                ranges.reserveCapacity(batch.count)
                for pending in batch {
                    let start = next
                    for var event in pending.events {
                        event.seq = next
                        _ = try databases.append(event, in: &txn)
                        next += 1
                    }
                    try pending.extra?(&txn)
                    ranges.append(start ..< next)
                }
                return ranges
            }
            result = .success(ranges)
        } catch let error as LMDBError {
            let bytes = batch.reduce(0) { total, pending in total + pending.events.reduce(0) { $0 + EnvelopeCodec.encodedSize(of: $1) } }
            result = .failure(StoreError.fromWrite(error, path: environment.path, bytes: bytes,
                                                   events: batch.reduce(0) { $0 + $1.events.count }))
        } catch {
            result = .failure(error)
        }
        condition.withLock {
            if case .success = result {
                stats.commits += 1
                stats.events += batch.reduce(0) { $0 + $1.events.count }
            }
        }
        switch result {
        case .success(let ranges):
            for (pending, range) in zip(batch, ranges) { pending.completion(.success(range)) }
        case .failure(let error):
            for pending in batch { pending.completion(.failure(error)) }
        }
    }
}

/// The databases an append writes: the record under its seq, and its body once by digest.
package struct LogDatabases: Sendable {
    let events: Database
    let bodies: Database
    let origins: Database

    /// Writes `event` (its seq set) as the next record (`MDB_APPEND`, encoded in place). A
    /// body of `StoreSchema.bodyReferenceThreshold` bytes or more goes to `bodies` under its
    /// SHA-256 unless already there, and the record refers to it. Returns the bytes written.
    func append(_ event: Event, in txn: inout WriteTransaction) throws -> Int {
        var digest: [UInt8]?
        var written = 0
        if let body = event.body, body.count >= StoreSchema.bodyReferenceThreshold {
            let key = SHA256.digest(body)
            let held = try key.withUnsafeBytes { try txn.get(bodies, key: $0) } != nil
            if !held {
                try key.withUnsafeBytes { k in try body.withUnsafeBytes { try txn.put(bodies, key: k, value: $0) } }
                written += body.count
            }
            digest = key
        }
        let size = EnvelopeCodec.encodedSize(of: event, bodyReference: digest != nil)
        try SequenceKey.with(event.seq) { key in
            try txn.reserve(events, key: key, count: size, flags: .append) { buffer in
                EnvelopeCodec.encode(event, into: buffer, bodyDigest: digest)
            }
        }
        return written + size
    }
}
