import Foundation

/// The catalog's routes that want credentials beyond a key (issue 24, item 4): an OAuth 2.0
/// client-credentials token endpoint, a list that answers only with its token, one that
/// wants a session cookie, one that wants an API version header.
public enum CatalogAuthRoutes {
    public static let clientID = "catalog-client"
    public static let clientSecret = "cl1ent-s3cret"
    /// The one token the endpoint hands out (the server keeps no state: the protected list
    /// checks this value).
    public static let accessToken = "oauth-t0ken"
    public static let cookie = "c00kie-s3cret"

    /// POST /catalog/oauth/token, a form: `grant_type=client_credentials`, the client's id and
    /// secret; `lifetime` (extra request data) sets `expires_in` (600 by default; 0 leaves
    /// it out). Wrong credentials: 401 `invalid_client`, as RFC 6749 says.
    static func token(form: [String: String]) -> RouteResult {
        guard form["grant_type"] == "client_credentials" else {
            return .error(400, Data(#"{"error":"unsupported_grant_type","error_description":"only client_credentials"}"#.utf8))
        }
        guard form["client_id"] == clientID, form["client_secret"] == clientSecret else {
            return .error(401, Data(#"{"error":"invalid_client","error_description":"unknown client or wrong secret"}"#.utf8))
        }
        let lifetime = Int(form["lifetime"] ?? "") ?? 600
        let expires = lifetime > 0 ? #","expires_in":\#(lifetime)"# : ""
        return .ok(Data(#"{"access_token":"\#(accessToken)","token_type":"Bearer"\#(expires)}"#.utf8))
    }

    /// The GET routes; nil for a path that is none of them.
    static func respond(path: String, headers: [String: String]) -> RouteResult? {
        switch path {
        case "/guarded":
            // Items 7–9, only with the token.
            guard headers["authorization"] == "Bearer " + accessToken else {
                return .error(401, Data(#"{"error":"a bearer token from /catalog/oauth/token is required"}"#.utf8))
            }
            return .ok(Data(#"{"data":\#(CatalogRoutes.list([7, 8, 9]))}"#.utf8))
        case "/cookie":
            // Items 4 and 5, only with the session cookie (among others).
            let cookies = (headers["cookie"] ?? "").split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cookies.contains("session=" + cookie) else {
                return .error(401, Data(#"{"error":"the session cookie is required"}"#.utf8))
            }
            return .ok(Data(CatalogRoutes.list([4, 5]).utf8))
        case "/versioned":
            // Items 1–3 in version 2 of the API only: a client asking version 1 gets a 400.
            guard headers["x-api-version"] == "2" else {
                return .error(400, Data(#"{"error":"send X-Api-Version: 2"}"#.utf8))
            }
            return .ok(Data(CatalogRoutes.list([1, 2, 3]).utf8))
        default:
            return nil
        }
    }
}
