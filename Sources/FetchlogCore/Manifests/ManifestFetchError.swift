/// Why a manifest resource (or its images) could not be fetched: nothing was asked of the
/// upstream. `isUsage`: the request named what the store does not define (a source, a
/// resource, images) — a front end reports it as a malformed request; otherwise a held
/// item lacks what a child resource's path needs.
public struct ManifestFetchError: Error, CustomStringConvertible, Sendable {
    public enum Reason: Sendable, Equatable {
        /// The source is not one defined by a manifest.
        case notDefined
        /// The manifest defines no such resource (the message says which it does).
        case unknownResource
        /// The resource names no images (`fetchlog.images`).
        case noImages
        /// A parent item has no value for a field the child's path takes.
        case missingField
    }

    public let reason: Reason
    /// One line: what was asked, and what to do.
    public let message: String

    init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    /// True when the request itself named what is not defined (not a fault of held data).
    public var isUsage: Bool { reason != .missingField }
    public var description: String { message }
}
