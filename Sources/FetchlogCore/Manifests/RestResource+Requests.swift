import Foundation

/// A resource's requests: a child's for one parent item, and the labels that name them.
extension RestResource {
    /// This child resource for one parent item: its placeholders replaced by the item's
    /// values (as dlt formats them); nil, with the missing field, when the item lacks one.
    package func resolved(for parentItem: JSONValue) -> Result<RestResource, MissingParentField> {
        var copy = self
        copy.parent = nil
        copy.placeholders = []
        for (text, field) in placeholders.map({ ($0.text, $0.field) }) {
            var value: JSONValue? = parentItem
            for key in field { value = value?[key] }
            guard let value, !value.isNull else { return .failure(MissingParentField(field: field.joined(separator: "."))) }
            let raw: String = switch value {
            case .string(let s): s
            case .bool(let b): b ? "True" : "False" // Python's str(), as dlt formats
            default: value.canonicalText()
            }
            copy.path = copy.path.replacingOccurrences(of: "{\(text)}", with: Self.pathEscape(raw))
            copy.params = copy.params.map { ($0.0, $0.1.replacingOccurrences(of: "{\(text)}", with: raw)) }
            copy.body = copy.body?.filling("{\(text)}", with: value, text: raw)
            copy.headerTemplates = copy.headerTemplates.map { ($0.0, $0.1.replacingOccurrences(of: "{\(text)}", with: raw)) }
        }
        return .success(copy)
    }

    /// The parent members a child item gains (`include_from_parent`), as dlt names them.
    package func parentMembers(of parentItem: JSONValue) -> [(String, JSONValue)] {
        guard let parent else { return [] }
        return includeFromParent.map { ("_\(parent)_\($0)", parentItem[$0] ?? .null) }
    }

    /// True when `path` (no query) is this resource's path, placeholders matching any one
    /// non-empty segment text.
    func matches(path candidate: String) -> Bool {
        guard parent != nil else { return candidate == path }
        let want = path.split(separator: "/", omittingEmptySubsequences: false)
        let have = candidate.split(separator: "/", omittingEmptySubsequences: false)
        guard want.count == have.count else { return false }
        for (w, h) in zip(want, have) {
            guard let open = w.firstIndex(of: "{"), let close = w.lastIndex(of: "}") else {
                if w != h { return false }
                continue
            }
            let prefix = w[..<open], suffix = w[w.index(after: close)...]
            guard h.count > prefix.count + suffix.count, h.hasPrefix(prefix), h.hasSuffix(suffix) else { return false }
        }
        return true
    }

    /// The label of a list's first page, as `fetch` asks it.
    var firstPageLabel: String { label(paginator.kind.first(skipping: 0).request) }

    /// The resource path (with `params`, then what the paginator adds for one page:
    /// `request`) as events label it; a request with a body (or another method than GET)
    /// also carries `requestSuffix`, with the paginator's body values written in.
    package func label(_ request: PageRequest = PageRequest()) -> String {
        let query = (params + request.query).map { "\($0.0)=\(Resource.queryEscape(Self.unescapeBraces($0.1)))" }.joined(separator: "&")
        let path = requestPath
        return (query.isEmpty ? path : path + "?" + query) + requestSuffix(writing: request.body)
    }

    /// What a label holds beyond its URL for a request that is not a plain GET:
    /// `#NAME METHOD BODY`. A label is a request's identity (the resource key its page is
    /// held under), and two pages of a POST cursor list share one URL: only the body tells
    /// them apart, so the body as sent is part of the label, canonical (a JSON body with its
    /// keys sorted) so one request always has one label. It is a fragment: never sent (the
    /// URL ends at `#`), and the resource's name first, so the label names its resource
    /// however many resources share the path (`ManifestSource.resource(ofLabel:)`).
    /// Empty for a GET without a body: such labels stay as they always were.
    package func requestSuffix() -> String { requestSuffix(writing: []) }

    /// The suffix with `written` (a paginator's values at their body paths) set in the body.
    private func requestSuffix(writing written: [([String], JSONValue)]) -> String {
        let text = RestBody.text(body, writing: written)
        guard method != "GET" || text != nil || !headerTemplates.isEmpty else { return "" }
        return "#" + name + " " + method + (headerTemplates.isEmpty ? "" : " " + Self.headersToken(headerTemplates)) + (text.map { " " + $0 } ?? "")
    }

    /// Filled header templates in a label: `H` and their canonical JSON object,
    /// percent-encoded (no space, which ends the token).
    static func headersToken(_ headers: [(String, String)]) -> String {
        "H" + Resource.queryEscape(JSONValue.object(headers.map { ($0.0, .string(unescapeBraces($0.1))) }).canonicalText())
    }

    /// The headers a label's `H…` token holds.
    static func headers(fromToken token: Substring) -> [Header]? {
        guard token.hasPrefix("H"), let text = String(token.dropFirst()).removingPercentEncoding,
              case .object(let members)? = try? JSONValue.parse(text) else { return nil }
        return members.map { Header($0.0, $0.1.stringValue ?? $0.1.canonicalText()) }
    }

    /// `path` as asked (escaped braces as braces).
    var requestPath: String { Self.unescapeBraces(path) }
}
