import Foundation
import Synchronization

/// Remembers the last result of a pure function. Views are rebuilt from every snapshot;
/// the expensive part (rows from a held document: trimming, HTML cleaning) depends only on
/// which documents are held, so while those stay the same it is computed once.
package final class LastValueMemo<Key: Equatable & Sendable, Value: Sendable>: Sendable {
    private let last = Mutex<(Key, Value)?>(nil)

    package init() {}

    package func value(for key: Key, _ compute: () -> Value) -> Value {
        if let hit = last.withLock({ last in last.flatMap { $0.0 == key ? $0.1 : nil } }) { return hit }
        let value = compute()
        last.withLock { $0 = (key, value) }
        return value
    }
}
