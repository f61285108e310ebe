import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogServe

/// Issue 33: the Host check reads a strictly parsed Host (a malformed one is refused 400,
/// not read as the name before its first `:`), and the page at / holds the action token
/// stderr names.
@Suite(.serialized) struct ServeHostTests {
    /// Each request written by hand on its own connection: the Host lines exactly as given.
    static func status(port: Int, hostLines: [String]) async throws -> (Int, String) {
        try await offPool {
            let connection = try RawHTTPConnection(port: port)
            try connection.send("GET /api/views HTTP/1.1\r\n" + hostLines.map { $0 + "\r\n" }.joined() + "Connection: close\r\n\r\n")
            let answer = connection.readToEnd()
            let body = answer.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
            return (RawHTTPConnection.status(of: answer), body)
        }
    }

    @Test func aMalformedHostIsRefused400AndAGoodOneAnswered() async throws {
        let dir = try await ServeAPITests.sampleStore("serve-host")
        let server = try await ServeProcess(store: dir.path)
        let port = try #require(Int(server.base.split(separator: ":").last ?? ""))
        let malformed: [(String, String)] = [
            ("Host: localhost:\(port)@evil.example", "Host 'localhost:\(port)@evil.example' is malformed: its port '\(port)@evil.example' is not a port: give 0…65535"),
            ("Host: user@localhost:\(port)", "Host 'user@localhost:\(port)' is malformed: it holds '@': a host is letters, digits, '.' and '-'"),
            ("Host: user:pw@127.0.0.1:\(port)", "Host 'user:pw@127.0.0.1:\(port)' is malformed: its port 'pw@127.0.0.1:\(port)' is not a port: give 0…65535"),
            ("Host: localhost:99999", "Host 'localhost:99999' is malformed: its port '99999' is not a port: give 0…65535"),
            ("Host: localhost:", "Host 'localhost:' is malformed: its port '' is not a port: give 0…65535"),
            ("Host: localhost:80:80", "Host 'localhost:80:80' is malformed: its port '80:80' is not a port: give 0…65535"),
            ("Host: localhost:+80", "Host 'localhost:+80' is malformed: its port '+80' is not a port: give 0…65535"),
            ("Host: local host:\(port)", "Host 'local host:\(port)' is malformed: it holds a space: a host is letters, digits, '.' and '-'"),
            ("Host: localhost/x", "Host 'localhost/x' is malformed: it holds '/': a host is letters, digits, '.' and '-'"),
            ("Host: localhost%2e", "Host 'localhost%2e' is malformed: it holds '%': a host is letters, digits, '.' and '-'"),
            ("Host: :\(port)", "Host ':\(port)' is malformed: it names no host"),
            ("Host: [::1", "Host '[::1' is malformed: its [ is not closed"),
            ("Host: [evil.example]:\(port)", "Host '[evil.example]:\(port)' is malformed: [evil.example] is not an IPv6 address"),
            ("Host: [::1]x", "Host '[::1]x' is malformed: 'x' follows its host: only ':PORT' may"),
        ]
        for (line, message) in malformed {
            let (status, body) = try await Self.status(port: port, hostLines: [line])
            #expect(status == 400, "\(line): \(body)")
            #expect(try JSONValue.parse(body) == .object([("error", .string(message)), ("exit", .number(64))]), "\(line)")
        }
        // Two Host headers: whichever a check read, the other could name another site.
        let (twice, twiceBody) = try await Self.status(port: port, hostLines: ["Host: localhost:\(port)", "Host: evil.example"])
        #expect(twice == 400)
        #expect(try JSONValue.parse(twiceBody)["error"] == .string("Host is given twice: send one Host header"))
        // Well formed but another site's: 403, as before.
        let (foreign, _) = try await Self.status(port: port, hostLines: ["Host: evil.example:\(port)"])
        #expect(foreign == 403)
        // This server's names, with and without the port, in any case.
        for line in ["Host: 127.0.0.1:\(port)", "Host: localhost:\(port)", "Host: LOCALHOST:\(port)", "Host: localhost", "Host: [::1]:\(port)", "Host: 127.0.0.1"] {
            let (status, body) = try await Self.status(port: port, hostLines: [line])
            #expect(status == 200, "\(line): \(body)")
        }
        try await server.stop()
    }

    /// What stderr says the page holds, the page holds, and it acts: the token in the
    /// page's meta is the one stderr printed, an action with it is authorized (a mutation
    /// that does not exist: 404, not 401), and without it refused.
    @Test func thePageHoldsTheActionTokenStderrNames() async throws {
        let dir = try await ServeAPITests.sampleStore("serve-page-token")
        let server = try await ServeProcess(store: dir.path, readsActionToken: true)
        #expect(server.actionToken.count == 64, "\(server.actionToken)")
        let page = try await server.get("/")
        #expect(page.status == 200)
        let meta = #"<meta name="fetchlog-action-token" content="\#(server.actionToken)">"#
        #expect(page.body.components(separatedBy: meta).count == 2, "the page holds the token once, in its meta")
        #expect(page.body.components(separatedBy: server.actionToken).count == 2, "and nowhere else")
        #expect(!page.body.contains(ServeConfiguration.actionTokenPlaceholder))
        // Until its first answers arrive, the page says it is loading (issue 36): the log,
        // the views, the freshness table and the SQL tables each say so.
        for placeholder in ["loading the log…", "loading views…", #"<td colspan="3" class="hint">loading…</td>"#, "loading tables…"] {
            #expect(page.body.contains(placeholder), "\(placeholder)")
        }
        let fromPage = try #require(page.body.components(separatedBy: #"name="fetchlog-action-token" content=""#).dropFirst().first?.prefix(64))
        let discard = try await server.get("/api/pending/999/discard", method: .POST, headers: [("Authorization", "Bearer \(fromPage)")])
        #expect(discard.status == 404, "\(discard.body)")
        #expect(try await server.get("/api/pending/999/discard", method: .POST).status == 401)
        // A server with --token holds that one (only a request carrying it gets the page).
        let guarded = try await ServeProcess(store: dir.path, arguments: ["--token", "s3cret"])
        let guardedPage = try await guarded.get("/", headers: [("Authorization", "Bearer s3cret")])
        #expect(guardedPage.body.contains(#"<meta name="fetchlog-action-token" content="s3cret">"#))
        try await guarded.stop()
        try await server.stop()
    }
}
