import Foundation

/// The store's side of `no-store` (RFC 9111 §5.2.2.5, `NoStore`): which resources keep such
/// an answer anyway, and where the others go.
extension Store {
    /// Whether `resource` opts in to keeping `no-store` answers in the log: a manifest
    /// resource's `fetchlog.keep_no_store` (directly or from `resource_defaults`). A source
    /// in code has no such switch: the upstream's word holds.
    func keepsNoStore(_ resource: Resource) -> Bool {
        guard let manifest = durableState.plugin(resource.source.rawValue) as? ManifestSource else { return false }
        return manifest.resource(ofLabel: resource.path)?.keepNoStore == true
    }

    /// Keeps a `no-store` answer for this session (seq 0, in the snapshot's overlay until the
    /// process ends) and writes only the `not-stored` marker to the log, with nothing of the
    /// request or response in it: the time of asking is what a sync plans its next request by.
    func keepForSession(notStored outcome: FetchOutcome) async throws -> RecordedPlace {
        session.append(outcome.event, replacing: true)
        try await log.append(NoStore.marker(of: outcome.event))
        return RecordedPlace(seq: 0, sessionOnly: .noStore)
    }
}
