import Foundation

/// What a request of one resource carries besides validators: where it goes, the header
/// lines as sent, the source's method and body, and how the log records them (secrets
/// masked). One builder for the fetch itself and for the freshness question "would the held
/// response answer the request made now?" (`Vary`, RFC 9111 §4.1), so the two never differ.
struct RequestShape {
    /// The URL asked, without userinfo (sent as `Authorization` instead).
    let url: String
    /// The URL as events show it.
    let recordedURL: String
    /// The method, body and own headers the source asks with.
    let asked: SourceRequest
    /// The header lines sent before any validator, in order.
    var headers: [Header]
    /// What the gateway adds to every request (`User-Agent`, `Accept`), unless the lines
    /// above name them already.
    let gatewayHeaders: [Header]
    let redaction: Redaction
    let secretHeaders: Set<String>

    /// `headers` as the log records them: credentials and secret-looking fields as `***`.
    func recorded(_ headers: [Header]) -> [Header] {
        redaction.headers(headers).map { secretHeaders.contains($0.name.lowercased()) ? Header($0.name, Redaction.mask) : $0 }
    }

    /// The request lines a stored response's `Vary` is matched against: the recorded lines
    /// and the gateway's. A secret compares as its mask — the log never holds it, and it is
    /// this client's own credential for the source, the same identity when a token renews.
    var presented: [Header] { recorded(headers) + gatewayHeaders }

    /// The lines to record with a response that says `Vary`: the gateway's lines it names
    /// are added to the recorded request (otherwise never recorded: they are the same on
    /// every request of this build), so the log holds every value the response varies on.
    func recordedRequestHeaders(_ sent: [Header], response: [Header]) -> [Header] {
        let varying = Set(response.listMembers("Vary").map(\.asciiLowercased))
        return recorded(sent) + gatewayHeaders.filter { varying.contains($0.name.asciiLowercased) }
    }
}

extension Fetcher {
    /// The shape of a request of `resource` with these (resolved) credentials.
    func requestShape(_ resource: Resource, plugin: (any SourcePlugin)?, credentials: Credentials) -> RequestShape {
        var redaction = configuration.redaction
        redaction.queryParameters.formUnion(credentials.secretParameters.map { $0.lowercased() })
        var target = url(for: resource, plugin: plugin)
        if !credentials.query.isEmpty {
            target += (target.contains("?") ? "&" : "?") + credentials.query.map { "\($0.0)=\(Resource.queryEscape($0.1))" }.joined(separator: "&")
        }
        let (url, authorization) = URLParts(target).splitCredentials()
        var headers: [Header] = credentials.headers
        if let authorization { headers.append(Header("Authorization", authorization)) }
        // The method and body the source asks with (a manifest's POST); the body is recorded
        // as sent, never masked: the log replays it.
        let asked = plugin?.request(for: resource) ?? .get
        if asked.body != nil, let contentType = asked.contentType { headers.append(Header("Content-Type", contentType)) }
        // A request's own headers (filled templates) over the source's of the same name.
        for header in asked.headers {
            headers.removeAll { $0.name.lowercased() == header.name.lowercased() }
            headers.append(header)
        }
        let gateway = [Header("User-Agent", configuration.userAgent), Header("Accept", Self.accept(for: resource))]
            .filter { line in !headers.contains { $0.name.caseInsensitiveEquals(line.name) } }
        return RequestShape(url: url, recordedURL: redaction.url(target), asked: asked, headers: headers, gatewayHeaders: gateway,
                            redaction: redaction, secretHeaders: credentials.secretHeaders)
    }

    /// The `Accept` the gateway sends for `resource`.
    static func accept(for resource: Resource) -> String {
        resource.document == .asset ? "image/*" : "application/json"
    }

    /// The request lines (as recorded) a fetch of `resource` would present now, for
    /// matching a held response's `Vary` before deciding it is fresh; nil when the source's
    /// credentials cannot be made now (the fetch would send nothing either). An OAuth 2.0
    /// token is not asked for: its line is masked in the log, so the mask stands for it.
    package func presentedHeaders(for resource: Resource, plugin given: (any SourcePlugin)? = nil) -> [Header]? {
        let plugin = given ?? sources.plugin(resource.source)
        guard var credentials = try? plugin?.credentials(for: resource.document, environment: configuration.environment) ?? .none else {
            return nil
        }
        if credentials.tokenRequest != nil {
            credentials.headers.removeAll { $0.name.lowercased() == "authorization" }
            credentials.headers.append(Header("Authorization", Redaction.mask))
            credentials.secretHeaders.insert("authorization")
        }
        return requestShape(resource, plugin: plugin, credentials: credentials).presented
    }
}
