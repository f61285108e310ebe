extension ManifestSource {
    /// A manifest's bases come from the log (`source.defined`), not from code.
    public var basesAreData: Bool { true }

    /// The source's credentials (`client.headers`, `client.auth`) and the resource's
    /// `env:NAME` params, read now and sent as query parameters recorded as `***`.
    public func credentials(for kind: DocumentKind, environment: [String: String]) throws(CredentialsError) -> Credentials {
        var credentials = try credentials(environment: environment)
        guard let index = manifest.resources.firstIndex(where: { self.kind(of: $0) == kind }) else { return credentials }
        for (name, value) in manifest.resources[index].secretParams {
            credentials.query.append((name, try value.resolve(environment, at: "resources[\(index)].endpoint.params.\(name)")))
            credentials.secretParameters.insert(name.lowercased())
        }
        return credentials
    }
}
