extension Store {
    /// Defines (or redefines) a source from a manifest: a `source.defined` intent in the log.
    /// A redefinition re-reads the held bodies of that source: its views change without a fetch.
    /// Returns the source's handle (`resource("items")` and so on); a store that already
    /// holds the definition hands it out through `source(_:)`, with no event.
    @discardableResult
    public func define(_ manifest: RestManifest) async throws -> SourceHandle {
        guard !ManifestDefinition.reservedNames(sources).contains(manifest.name) else {
            throw ManifestError(path: "name", message: "\"\(manifest.name)\" is taken by a source of this engine; choose another name")
        }
        try await sendIntent(source: Source(ManifestDefinition.source), label: ManifestDefinition.label, body: manifest.json)
        return SourceHandle(store: self, name: manifest.name)
    }
}
