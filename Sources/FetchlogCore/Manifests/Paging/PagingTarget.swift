/// Where a paginator's value (a page number, an offset, a limit, a cursor) goes in the
/// next request.
package enum PagingTarget: Sendable, Equatable {
    /// A query parameter (`page_param`, `offset_param`, `limit_param`, `cursor_param`).
    case param(String)
    /// A member of the JSON body (`*_body_path`, dot-separated), set as dlt sets it:
    /// objects made on the way.
    case body([String])

    /// `value` placed here, in `request`.
    func place(_ value: JSONValue, text: String, in request: inout PageRequest) {
        switch self {
        case .param(let name): request.query.append((name, text))
        case .body(let path): request.body.append((path, value))
        }
    }

    var isBody: Bool {
        if case .body = self { true } else { false }
    }
}

/// The keys several paginator kinds share, read as dlt reads them.
extension ManifestReader {
    /// A JSONPath member (`cursor_path`, `has_more_path`, …), its errors naming the key;
    /// `defaultText` when it is not given.
    func jsonPath(_ key: String, default defaultText: String? = nil) throws(ManifestError) -> JSONPath? {
        try Self.jsonPath(try optionalString(key) ?? defaultText, key: key, path: path)
    }

    /// `total_path`: `total` when not given, none when null or not a string (dlt's default
    /// and its way off).
    func totalPath() throws(ManifestError) -> JSONPath? {
        try Self.jsonPath(json["total_path"].map { $0.isNull ? nil : $0.stringValue } ?? "total", key: "total_path", path: path)
    }

    private static func jsonPath(_ text: String?, key: String, path: String) throws(ManifestError) -> JSONPath? {
        guard let text else { return nil }
        do { return try JSONPath(text) } catch { throw ManifestError(path: path + "." + key, message: error.description) }
    }

    /// Where a page number, offset or limit goes: the query parameter `param`, or the place
    /// `bodyPath` in the JSON body; `defaultParam` when neither is given, and never both
    /// (as dlt's constructors say).
    func pagingTarget(param: String, bodyPath: String, defaultParam: String) throws(ManifestError) -> PagingTarget {
        let name = try optionalString(param), body = try optionalString(bodyPath)
        switch (name, body) {
        case (nil, nil): return .param(defaultParam)
        case (let name?, nil):
            guard !name.isEmpty else { throw ManifestError(path: path + "." + param, message: "must name a query parameter") }
            return .param(name)
        case (nil, let body?): return .body(try Self.bodyPath(body, path: path + "." + bodyPath))
        case (_?, _?): throw ManifestError(path: path + "." + bodyPath, message: "give \(param) or \(bodyPath), not both (as dlt says)")
        }
    }

    /// A dot-separated body path (`page.number`) as member names.
    static func bodyPath(_ text: String, path: String) throws(ManifestError) -> [String] {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !parts.contains(where: \.isEmpty) else {
            throw ManifestError(path: path, message: "\"\(text)\" is not a dot-separated path of member names (page.number)")
        }
        return parts
    }
}
