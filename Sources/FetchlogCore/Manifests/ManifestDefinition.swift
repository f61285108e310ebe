/// Manifests are events: `source add` appends a `source.defined` intent (source `fetchlog`,
/// the manifest's canonical text as its body), and the reducer folds it into the state's
/// `manifests`. Replay therefore uses the definition in force at each point of the log.
///
/// A new definition of a source re-reads the bodies held for it (`ManifestPage.body`) with
/// the new manifest — the views change without fetching again; a page no resource of the
/// new definition names is no longer held.
package enum ManifestDefinition {
    /// The events' source and label.
    package static let source = "fetchlog"
    package static let label = "source.defined"

    /// The names a manifest may not take: the core's own, and every registered source's.
    package static func reservedNames(_ sources: SourceRegistry) -> [String] {
        [Source.assets.rawValue, source] + sources.sources.map(\.rawValue)
    }

    static func apply(_ event: Event, to state: inout LogState) {
        guard let body = event.body, let json = try? JSONValue.parse(bytes: body), let manifest = try? RestManifest(json: json),
              !reservedNames(state.sources).contains(manifest.name) else { return }
        state.manifests[manifest.name] = DefinedManifest(manifest: manifest, seq: event.seq)
        let plugin = ManifestSource(manifest)
        for (key, held) in state.documents where key.source == manifest.name {
            guard let page = held.document as? ManifestPage, !page.ignoredByAction else { continue }
            if let kind = plugin.documentKind(ofPath: key.path), let resource = plugin.resource(of: kind),
               let reread = try? ManifestPage(page.body, resource: resource) {
                state.documents[key] = HeldDocument(seq: held.seq, fetchedAt: held.fetchedAt, document: reread)
            } else {
                state.documents[key] = nil
            }
        }
    }
}
