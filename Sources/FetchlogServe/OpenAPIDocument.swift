import FetchlogCore

/// `GET /api/openapi.json`: the API in OpenAPI 3.1, made from `APIRoute.all` (the table
/// the responder dispatches on), so it describes exactly the routes there are.
enum OpenAPIDocument {
    static let errorMeanings: [Int: String] = [
        304: "Not modified: the If-None-Match ETag is the view's.",
        400: "A parameter or body the CLI would refuse as a usage error (exit 64), a query not in percent-encoding, a malformed Host (exit 64); a write the CLI refuses, nothing recorded (exit 1); SQL that is not valid (exit 1) or is refused (it would write, or is not a query: exit 64).",
        401: "The token is missing or wrong (exit 64).",
        403: "Host is not this server's (loopback binds), or a POST's Origin is another site's (exit 64).",
        404: "No such route, view, source, resource, page or seq (exit 1).",
        405: "The method is not this route's (Allow lists those that are; exit 64).",
        409: "A write that waits on a choice: a conflicting mutation retried without force, or a push the server cannot make (offline) (exit 1).",
        410: "Before the compaction horizon the view reads a body `log compact` dropped (exit 1); Fetchlog-Notice says which.",
        413: "The request body is larger than 64 KiB (exit 64).",
        414: "The query is longer than 2048 bytes (exit 64).",
        415: "The request body is not application/json (exit 64).",
        503: "An SQL query ran past its time limit and was stopped (exit 1); the message names the limit. The server goes on answering.",
    ]

    static let document: JSONValue = {
        let errorRef = JSONValue.object([("$ref", .string("#/components/schemas/Error"))])
        func errorResponse(_ code: Int) -> (String, JSONValue) {
            if code == 304 { return ("304", .object([("description", .string(errorMeanings[304]!))])) }
            return (String(code), .object([("description", .string(errorMeanings[code] ?? "Refused.")),
                                           ("content", .object([("application/json", .object([("schema", errorRef)]))]))]))
        }
        var paths: [(String, JSONValue)] = []
        for path in APIRoute.paths {
            var operations: [(String, JSONValue)] = []
            for route in APIRoute.all where route.path == path {
                var operation: [(String, JSONValue)] = [("summary", .string(route.summary)), ("operationId", .string(operationID(route)))]
                if !route.parameters.isEmpty {
                    operation.append(("parameters", .array(route.parameters.map { parameter in
                        .object([("name", .string(parameter.name)), ("in", .string(parameter.location.rawValue)),
                                 ("required", .bool(parameter.required)), ("description", .string(parameter.description)),
                                 ("schema", schema(of: parameter))])
                    })))
                }
                if let body = route.body {
                    let properties = body.map { member -> (String, JSONValue) in
                        var schema: [(String, JSONValue)] = [("type", .string(member.1)), ("description", .string(member.3))]
                        if member.1 == "array" { schema.append(("items", .object([("type", .string("string"))]))) }
                        schema += route.bodyBounds[member.0] ?? []
                        return (member.0, .object(schema))
                    }
                    let schema = JSONValue.object([("type", .string("object")), ("additionalProperties", .bool(false)),
                                                   ("required", .array(body.filter(\.2).map { .string($0.0) })), ("properties", .object(properties))])
                    operation.append(("requestBody", .object([("required", .bool(body.contains(where: \.2))),
                                                              ("content", .object([("application/json", .object([("schema", schema)]))]))])))
                }
                if let fields = route.fieldsBody {
                    let schema = JSONValue.object([("type", .string("object")), ("description", .string(fields)), ("additionalProperties", .bool(true))])
                    operation.append(("requestBody", .object([("required", .bool(true)),
                                                              ("content", .object([("application/json", .object([("schema", schema)]))]))])))
                }
                var responses: [(String, JSONValue)] = [("200", .object([("description", .string(route.answer)),
                                                                         ("content", .object([(route.contentType, .object([]))]))]))]
                // Every route reads the query and the Host (400), the token (401), whose
                // Host it is (403), the method (405) and the query's length (414); a path
                // with parameters can name what is not there, or another route's path (404).
                var codes = Set(route.errors + [400, 401, 403, 405, 414])
                if route.parameters.contains(where: { $0.location == .path }) { codes.insert(404) }
                responses += codes.sorted().map(errorResponse)
                operation.append(("responses", .object(responses)))
                if route.isAction { operation.append(("security", .array([.object([("bearer", .array([]))])]))) }
                operations.append((route.method.rawValue.lowercased(), .object(operation)))
            }
            paths.append((path, .object(operations)))
        }
        let errorSchema = JSONValue.object([
            ("type", .string("object")), ("required", .array([.string("error"), .string("exit")])),
            ("properties", .object([
                ("error", .object([("type", .string("string")), ("description", .string("What happened and what to do: the CLI's message for the same mistake."))])),
                ("exit", .object([("type", .string("integer")), ("description", .string("The CLI's exit status for it: 1 the command failed, 64 a usage error, 130 interrupted."))])),
            ])),
        ])
        return .object([
            ("openapi", .string("3.1.0")),
            ("info", .object([("title", .string("fetchlog serve")), ("version", .string("1")),
                              ("description", .string("A read API over a Fetchlog store, and its actions. Loopback binds answer reads without a token; any other bind needs its token on every request (Authorization: Bearer T, or ?token=T). Actions always need the action token: the server's token, or on loopback without one, the token made at start and embedded in the page at /."))])),
            ("paths", .object(paths)),
            ("components", .object([
                ("schemas", .object([("Error", errorSchema)])),
                ("securitySchemes", .object([("bearer", .object([("type", .string("http")), ("scheme", .string("bearer"))]))])),
            ])),
        ])
    }()

    /// A parameter's schema: its type, and the bounds the responder enforces.
    static func schema(of parameter: APIRoute.Parameter) -> JSONValue {
        var schema: [(String, JSONValue)] = [("type", .string(parameter.type))]
        if let minimum = parameter.minimum { schema.append(("minimum", .number(minimum))) }
        if let maximum = parameter.maximum { schema.append(("maximum", .number(maximum))) }
        if let values = parameter.values { schema.append(("enum", .array(values.map { .string($0) }))) }
        return .object(schema)
    }

    /// `getViewsName`, `postFetch`, … (unique: one per method and path).
    static func operationID(_ route: APIRoute) -> String {
        let words = route.path.split(whereSeparator: { "/{}.".contains($0) }).filter { $0 != "api" }
        let name = words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        return route.method.rawValue.lowercased() + (name.isEmpty ? "Page" : name)
    }
}
