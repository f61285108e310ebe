/// Which image to show, given what the log says about downloading each candidate:
/// the first candidate whose bytes are held (or not yet tried) wins; a candidate whose
/// download failed after its retries is passed over, and the reason says so
/// (`original (medium failed: 503 ×4)`); the placeholder only when every one failed.
package struct ImageChoice: Sendable, Equatable {
    /// nil for the placeholder.
    package let url: String?
    /// `medium`, `original`, `main-poster`, `first-poster`, `thumbnail`, `iiif` or `placeholder`.
    package let kind: String
    /// The bytes are in the store.
    package let held: Bool
    package let reason: String

    package init(url: String?, kind: String, held: Bool, reason: String) {
        self.url = url
        self.kind = kind
        self.held = held
        self.reason = reason
    }

    package static func choose(_ candidates: [(kind: String, url: String)], in state: LogState) -> ImageChoice {
        var failed: [String] = []
        for candidate in candidates where !candidate.url.isEmpty {
            let key = ResourceKey(source: Source.assets.rawValue, path: candidate.url)
            let held = state.documents[key] != nil
            let status = state.status[key]
            let note = failed.isEmpty ? "" : " (\(failed.joined(separator: "; ")))"
            if held { return ImageChoice(url: candidate.url, kind: candidate.kind, held: true, reason: candidate.kind + note) }
            guard let status, status.failuresSince > 0 else {
                return ImageChoice(url: candidate.url, kind: candidate.kind, held: false, reason: candidate.kind + " (not downloaded yet)" + note)
            }
            failed.append("\(candidate.kind) failed: \(shortError(status)) ×\(status.failuresSince)")
        }
        let why = failed.isEmpty ? "no image named" : failed.joined(separator: "; ")
        return ImageChoice(url: nil, kind: "placeholder", held: false, reason: "placeholder (\(why))")
    }

    /// `503` for an HTTP status, else the failure class (`timeout`, `decode`, …).
    package static func shortError(_ status: ResourceStatus) -> String {
        if status.lastErrorClass == .httpStatus, let message = status.lastError,
           let code = message.split(separator: " ").dropFirst().first { return String(code) }
        return status.lastErrorClass?.name ?? "failed"
    }
}
