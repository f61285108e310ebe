/// What a push needs of the fetcher, and no more: the one gateway every request leaves by,
/// credentials made as a fetch makes them (an OAuth token asked through that gateway too),
/// and the configuration's clock, environment and upstream. The store hands one to its
/// push (`WritePush`), a client of the store that never holds the fetcher itself.
package struct WriteChannel: Sendable {
    let fetcher: Fetcher

    package var configuration: FetchConfiguration { fetcher.configuration }
    package var gateway: HTTPGateway { fetcher.gateway }

    /// `credentials` with their OAuth token, if they take one (cached as a fetch's are).
    package func authorized(_ credentials: Credentials, plugin: (any SourcePlugin)?, source: Source) async throws(CredentialsError) -> Credentials {
        try await fetcher.authorized(credentials, plugin: plugin, source: source)
    }
}
