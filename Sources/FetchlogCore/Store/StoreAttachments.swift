import Synchronization

/// Services another module of the package keeps per store (the SQL layer's engine, issue 35),
/// made on first use and living as long as the store: the core names none of them.
package final class StoreAttachments: Sendable {
    private let slots = Mutex<[String: any Sendable]>([:])

    package init() {}

    /// The value under `key`, made by `make` the first time.
    package func value<T: Sendable>(_ key: String, make: () throws -> T) rethrows -> T {
        try slots.withLock { slots in
            if let held = slots[key] as? T { return held }
            let made = try make()
            slots[key] = made
            return made
        }
    }
}
