/// Why a manifest resource (or its images) could not be fetched (`reason`): the request
/// named what the store does not define (a source, a resource, images), and nothing was
/// asked of the upstream — a front end reports it as a malformed request; or, `missingField`,
/// a held parent item lacks what a child resource's path needs (the pages fetched before stay).
public struct ManifestFetchError: Error, CustomStringConvertible, Sendable {
    /// What was missing.
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

    /// What was missing.
    public let reason: Reason
    /// One line: what was asked, and what to do.
    public let message: String

    init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    /// True when the request itself named what is not defined (not a fault of held data):
    /// the command line's usage error.
    package var isUsage: Bool { reason != .missingField }
    /// The message.
    public var description: String { message }
}
