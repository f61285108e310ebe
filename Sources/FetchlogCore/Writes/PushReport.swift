import Foundation

/// What one `push()` did, mutation by mutation.
public struct PushReport: Sendable, Equatable {
    /// Mutations the server applied (2xx), by id.
    public internal(set) var confirmed: [UInt64] = []
    /// 412: the server's version changed since.
    public internal(set) var conflicts: [UInt64] = []
    /// 409, 422 or another 4xx.
    public internal(set) var rejected: [UInt64] = []
    /// 401 or 403, or credentials that could not be made.
    public internal(set) var paused: [UInt64] = []
    /// Sent and failed on the way (5xx, 429, timeouts, resets): still pending.
    public internal(set) var failed: [UInt64] = []
    /// Not sent: an earlier mutation of the same item waits (conflict, rejected, failed), its
    /// create is not confirmed yet, or the upstream was unreachable.
    public internal(set) var held: [UInt64] = []
    /// One line a mutation: its id, what was sent and what came back.
    package internal(set) var lines: [String] = []
    /// The push that held the store's claim when this one began and that it waited for
    /// (`pid N, push started TIME`); nil when none did. One pusher at a time per store.
    public internal(set) var waitedFor: String?
}
