import Foundation

/// Remembers the last result of a pure function. Views are rebuilt from every snapshot;
/// the expensive part (rows from a held document: trimming, HTML cleaning) depends only on
/// which documents are held, so while those stay the same it is computed once.
///
/// `@unchecked Sendable`: its one mutable member is read and written under `lock` only.
package final class LastValueMemo<Key: Equatable, Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var last: (Key, Value)?

    package init() {}

    package func value(for key: Key, _ compute: () -> Value) -> Value {
        if let hit = lock.withLock({ last.flatMap { $0.0 == key ? $0.1 : nil } }) { return hit }
        let value = compute()
        lock.withLock { last = (key, value) }
        return value
    }
}
