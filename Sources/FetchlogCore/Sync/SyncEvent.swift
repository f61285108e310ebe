import Foundation

/// What a sync reports as it goes.
package enum SyncEvent: Sendable {
    case started(at: Timestamp, due: Int, of: Int)
    case attempt(FetchReport)
    case outcome(SyncRow)
    case passed(SyncPass)
    case sleeping(until: Timestamp?)
}
