import Foundation

/// The catalog's `Link`-header lists as real servers write them (issue 34): each pages
/// `CatalogRoutes.ids(page:)` (pages 1–3, item 5 on both sides of the first boundary) and
/// names its next page its own way — a comma in the URL, two `Link` lines, an absolute
/// path, relative references, a relation unquoted or among several, another origin, and
/// GitHub's next link to another path of the same origin.
public enum LinkRoutes {
    /// The routes, under `/catalog`, and for each the link to page `n + 1` (page `n` < 3),
    /// as `respond` writes it (`origin` is `http://HOST/catalog`).
    static func respond(path: String, page: Int, host: String) -> RouteResult? {
        let origin = "http://\(host)/catalog"
        let next = page + 1, more = page < 3
        func ok(_ links: [String]) -> RouteResult {
            .ok(Data(CatalogRoutes.list(CatalogRoutes.ids(page: page)).utf8), headers: more ? links.map { ("Link", $0) } : [])
        }
        switch path {
        case "/links/comma":
            // A comma inside the target: a reader splitting on commas loses the link.
            return ok([#"<\#(origin)/links/comma?page=\#(next)&fields=id,name>; rel="next", <\#(origin)/links/comma?page=3&fields=id,name>; rel="last""#])
        case "/links/lines":
            // Two `Link` lines, the next page on the second.
            return ok([#"<\#(origin)/links/lines?page=1>; rel="first""#, #"<\#(origin)/links/lines?page=\#(next)>; rel="next""#])
        case "/links/absolute-path":
            // An absolute path: from the origin, not from the client's base.
            return ok([#"</catalog/links/absolute-path?page=\#(next)>; rel="next""#])
        case "/links/relative":
            // A relative path: beside the page asked.
            return ok([#"<relative?page=\#(next)>; rel="next""#])
        case "/links/dots":
            // A relative path climbing with `..` and back down.
            return ok([#"<../links/dots?page=\#(next)>; rel="next""#])
        case "/links/query":
            // A query alone: the same path.
            return ok([#"<?page=\#(next)>; rel="next""#])
        case "/links/unquoted":
            // `rel=next`, a token rather than a quoted string.
            return ok([#"<\#(origin)/links/unquoted?page=\#(next)>; rel=next"#])
        case "/links/rels":
            // Several relations in one `rel`, capitalised (RFC 8288 compares them ignoring case).
            return ok([#"<\#(origin)/links/rels?page=\#(next)>; rel="Next prefetch""#])
        case "/links/away":
            // The next page on another origin: the same server by another name (`localhost`
            // for `127.0.0.1`), which a client must not send a source's credentials to.
            let away = host.hasPrefix("127.0.0.1") ? "localhost" + host.dropFirst("127.0.0.1".count) : host
            return ok([#"<http://\#(away)/catalog/links/away?page=\#(next)>; rel="next""#])
        case "/repos/acme/widgets/issues", "/repositories/42/issues":
            // GitHub: the first page under the repository's path, the next ones under
            // `/repositories/ID` (another path of the same origin), with a `last` link.
            return ok([#"<\#(origin)/repositories/42/issues?page=\#(next)>; rel="next", <\#(origin)/repositories/42/issues?page=3>; rel="last""#])
        default:
            return nil
        }
    }
}
