import FetchlogCore
import Foundation
import SampleUpstream
import Testing

/// dlt's `endpoint.method`, `endpoint.json` and `endpoint.data`, and the paginators that
/// read or write a body or a header (`cursor` with `cursor_body_path` and `has_more_path`,
/// `header_cursor`, `header_link` with `links_next_key`), against the sample upstream's
/// catalog, which checks each request's method and body. The body sent is in every event.
@Suite struct MethodAndBodyTests {
    let rigs = ManifestTests()

    static let search = #"{"name":"search","primary_key":"id","endpoint":{"path":"search","method":"POST","json":{"query":"item"},"data_selector":"hits","paginator":{"type":"cursor","cursor_path":"$.next.cursor","cursor_body_path":"page.after","has_more_path":"has_more"}}}"#

    /// The catalog's requests as `METHOD PATH STATUS`.
    func requests(_ rig: ManifestTests.Rig) async -> [String] {
        await rig.upstream.server.requestLog.filter { $0.path.hasPrefix("/catalog/") }.map { "\($0.method) \($0.path) \($0.status)" }
    }

    /// The fetch events of the log (seq order).
    func fetches(_ rig: ManifestTests.Rig) throws -> [Event] {
        try rig.log.events(from: 1).filter { $0.kind == .fetched }
    }

    @Test func aPostSearchPagesByACursorWrittenIntoItsJSONBody() async throws {
        let manifest = try ManifestTests.manifest(Self.search)
        let rig = try await rigs.start(manifest)
        let reports = try await rig.store.fetchManifestResource(source: "catalog", resource: "search")
        // Three pages: has_more says false on the third, though it names a next cursor.
        #expect(await requests(rig) == Array(repeating: "POST /catalog/search 200", count: 3))
        #expect(reports.count == 3)
        #expect(try rigs.ids(rig, "search") == Array(1 ... 12))
        let bodies = [#"{"query":"item"}"#, #"{"page":{"after":"s2"},"query":"item"}"#, #"{"page":{"after":"s3"},"query":"item"}"#]
        let events = try fetches(rig)
        #expect(events.map { $0.request?.method } == ["POST", "POST", "POST"])
        #expect(events.map { $0.request?.body.map { String(decoding: $0, as: UTF8.self) } } == bodies)
        #expect(events.map { $0.request?.headers.first { $0.name == "Content-Type" }?.value } == Array(repeating: "application/json", count: 3))
        // One URL, three requests: the body makes each page's label its own.
        #expect(events.map(\.label) == bodies.map { "/search#search POST " + $0 })
        // Replay rebuilds the same items from the log alone.
        let replayed = try Store.replay(rig.log, sources: rig.store.sources).state
        #expect(try ViewCatalog.export("items/catalog/search", state: replayed) == (try ViewCatalog.export("items/catalog/search", state: rig.store.snapshot.state)))
        // A POST is never revalidated: a second fetch asks in full, without validators.
        _ = try await rig.store.fetchManifestResource(source: "catalog", resource: "search")
        let log = await rig.upstream.server.requestLog.filter { $0.path.hasPrefix("/catalog/") }
        #expect(log.count == 6)
        #expect(log.allSatisfy { $0.ifNoneMatch == nil && $0.ifModifiedSince == nil && $0.status == 200 })
        #expect(try rigs.ids(rig, "search") == Array(1 ... 12))
        await rigs.stop(rig)
    }

    @Test func withoutHasMoreAnEmptyPageEndsTheCursorList() async throws {
        let resource = #"{"name":"search","primary_key":"id","endpoint":{"path":"search","method":"post","json":{"query":"item"},"data_selector":"hits","paginator":{"type":"cursor","cursor_path":"next.cursor","cursor_body_path":"page.after","stop_after_empty_page":true}}}"#
        let rig = try await rigs.start(try ManifestTests.manifest(resource))
        _ = try await rig.store.fetchManifestResource(source: "catalog", resource: "search")
        // The fourth page is empty (its cursor named a fifth): that ends the list.
        #expect(await requests(rig) == Array(repeating: "POST /catalog/search 200", count: 4))
        #expect(try rigs.ids(rig, "search") == Array(1 ... 12))
        await rigs.stop(rig)
    }

    @Test func aFormBodyIsSentURLEncoded() async throws {
        let resource = #"{"name":"form","primary_key":"id","endpoint":{"path":"form-search","method":"POST","data":{"q":"item 1"},"data_selector":"hits","paginator":"single_page"}}"#
        let rig = try await rigs.start(try ManifestTests.manifest(resource))
        _ = try await rig.store.fetchManifestResource(source: "catalog", resource: "form")
        #expect(await requests(rig) == ["POST /catalog/form-search 200"])
        #expect(try rigs.ids(rig, "form") == [1, 10, 11, 12])
        let event = try #require(try fetches(rig).first)
        #expect(event.request?.body == Array("q=item+1".utf8))
        #expect(event.request?.headers.first { $0.name == "Content-Type" }?.value == "application/x-www-form-urlencoded")
        await rigs.stop(rig)
    }

    @Test func aDataStringIsSentAsItIsWithoutAContentType() async throws {
        let resource = #"{"name":"raw","primary_key":"id","endpoint":{"path":"search","method":"POST","data":"{\"query\": \"item 1\"}","data_selector":"hits","paginator":"single_page"}}"#
        let rig = try await rigs.start(try ManifestTests.manifest(resource))
        _ = try await rig.store.fetchManifestResource(source: "catalog", resource: "raw")
        #expect(await requests(rig) == ["POST /catalog/search 200"])
        #expect(try rigs.ids(rig, "raw") == [1, 10, 11, 12])
        let event = try #require(try fetches(rig).first)
        #expect(event.request?.body == Array(#"{"query": "item 1"}"#.utf8))
        #expect(event.request?.headers.contains { $0.name.lowercased() == "content-type" } == false)
        await rigs.stop(rig)
    }

    @Test func aRedirectKeepsThePostOnlyWhenItsStatusSaysSo() async throws {
        let resources = #"{"name":"kept","primary_key":"id","endpoint":{"path":"moved307","method":"POST","json":{"query":"item 1"},"data_selector":"hits","paginator":"single_page"}},"#
            + #"{"name":"changed","primary_key":"id","endpoint":{"path":"moved303","method":"POST","json":{"query":"item 1"},"data_selector":"hits","paginator":"single_page"}}"#
        let rig = try await rigs.start(try ManifestTests.manifest(resources))
        await rig.upstream.server.setFaults([Fault(match: "/catalog/moved307", kind: .redirect(307, location: "/catalog/search")),
                                             Fault(match: "/catalog/moved303", kind: .redirect(303, location: "/catalog/search"))])
        _ = try await rig.store.fetchManifestResource(source: "catalog", resource: "kept")
        // A 307 repeats the request, method and body; a 303 is followed with a GET and no body.
        let reports = try await rig.store.fetchManifestResource(source: "catalog", resource: "changed")
        #expect(await requests(rig) == ["POST /catalog/moved307 307", "POST /catalog/search 200", "POST /catalog/moved303 303", "GET /catalog/search 405"])
        #expect(try rigs.ids(rig, "kept") == [1, 10, 11, 12])
        #expect(reports.map(\.outcome) == [.failed(.httpStatus, reports.first?.attempts.last?.failure?.message ?? "")])
        await rigs.stop(rig)
    }

    @Test func aHeaderCursorPagesByAResponseHeader() async throws {
        let resource = #"{"name":"hc","primary_key":"id","endpoint":{"path":"header-cursor","paginator":{"type":"header_cursor","cursor_key":"X-Next-Cursor"}}}"#
        let rig = try await rigs.start(try ManifestTests.manifest(resource))
        let reports = try await rig.store.fetchManifestResource(source: "catalog", resource: "hc")
        #expect(await rig.upstream.asked == ["/catalog/header-cursor", "/catalog/header-cursor?cursor=h2", "/catalog/header-cursor?cursor=h3"])
        #expect(reports.count == 3)
        #expect(try rigs.ids(rig, "hc") == Array(1 ... 12))
        // The cursor header is kept in the log (the replayable record of what said "next").
        #expect(try fetches(rig).map { $0.response?.header("X-Next-Cursor") } == ["h2", "h3", nil])
        // A second fetch revalidates each page (a GET); on a 304 the cursor comes from the
        // held page's response, in the log.
        _ = try await rig.store.fetchManifestResource(source: "catalog", resource: "hc")
        #expect(await requests(rig).suffix(3) == ["GET /catalog/header-cursor 304", "GET /catalog/header-cursor?cursor=h2 304",
                                                  "GET /catalog/header-cursor?cursor=h3 304"])
        #expect(try rigs.ids(rig, "hc") == Array(1 ... 12))
        await rigs.stop(rig)
    }

    @Test func headerLinkFollowsTheRelationLinksNextKeyNames() async throws {
        let resource = #"{"name":"related","primary_key":"id","endpoint":{"path":"related","paginator":{"type":"header_link","links_next_key":"following"}}}"#
        let rig = try await rigs.start(try ManifestTests.manifest(resource))
        _ = try await rig.store.fetchManifestResource(source: "catalog", resource: "related")
        #expect(await rig.upstream.asked == ["/catalog/related", "/catalog/related?page=2", "/catalog/related?page=3"])
        #expect(try rigs.ids(rig, "related") == Array(1 ... 12))
        await rigs.stop(rig)
    }

    @Test func methodsAndBodiesAreCheckedWhereTheyAreWritten() throws {
        func refusal(_ endpoint: String) -> String {
            do {
                _ = try ManifestTests.manifest(#"{"name":"r","endpoint":\#(endpoint)}"#)
                return "accepted"
            } catch { return "\(error)" }
        }
        #expect(refusal(#"{"path":"search","method":"PUT"}"#)
            == #"resources[0].endpoint.method: "PUT" is not supported: GET or POST (dlt's methods for a resource)"#)
        #expect(refusal(#"{"path":"search","method":"POST","json":{"a":1},"data":{"b":2}}"#)
            == "resources[0].endpoint.data: give json or data, not both (dlt cannot send both)")
        #expect(refusal(#"{"path":"search","json":[1]}"#) == "resources[0].endpoint.json: expected an object (the JSON body dlt sends)")
        #expect(refusal(#"{"path":"search","paginator":{"type":"cursor","cursor_param":"c","cursor_body_path":"c"}}"#)
            == "resources[0].endpoint.paginator.cursor_body_path: give cursor_param or cursor_body_path, not both (as dlt says)")
        #expect(refusal(#"{"path":"search","method":"POST","data":{"q":"x"},"paginator":{"type":"cursor","cursor_body_path":"c"}}"#)
            == "resources[0].endpoint.data: a cursor_body_path writes the cursor into a JSON body: use json, not data")
        #expect(refusal(#"{"path":"search","json":{"q":"{item.id}"}}"#)
            == "resources[0].endpoint.json: {item.id} is not a placeholder Fetchlog knows: write {resources.PARENT.FIELD}")
        #expect(refusal(#"{"path":"search","method":"POST","json":{"auth":{"token":"env:TOKEN"}}}"#)
            == #"resources[0].endpoint.json.auth.token: "env:TOKEN": a request body is recorded in every event of its requests, so it never holds a secret (env: is not read here); send credentials with client.auth or client.headers"#)
        // The body is part of every page's label, which the log holds in at most 65,535 bytes.
        let long = String(repeating: "a", count: 64_600)
        #expect(refusal(#"{"path":"search","method":"POST","json":{"q":"\#(long)"}}"#).hasPrefix(
            "resources[0].endpoint.json: the path with its params and body is \(7 + 8 + 6 + 64_600 + 2) bytes; a request's label"))
        // An explicit GET is dlt's default: the resource and its labels are as without it.
        let get = try ManifestTests.manifest(#"{"name":"r","endpoint":{"path":"single","method":"GET"}}"#).resources[0]
        #expect(get.method == "GET" && get.body == nil && get.label() == "/single")
    }

    @Test func formsAndBodiesAreSentAsDltSendsThem() throws {
        func request(_ endpoint: String) throws -> SourceRequest {
            let manifest = try ManifestTests.manifest(#"{"name":"r","endpoint":\#(endpoint)}"#)
            let plugin = ManifestSource(manifest)
            return plugin.request(for: Resource(source: "catalog", path: manifest.resources[0].label(), document: plugin.kind(of: manifest.resources[0])))
        }
        let form = "application/x-www-form-urlencoded"
        // dlt's own cases (tests/sources/rest_api/integration/test_offline.py, test_request_data_body).
        #expect(try request(#"{"path":"f","method":"POST","data":{}}"#) == SourceRequest(method: "POST"))
        #expect(try request(#"{"path":"f","method":"POST","data":{"key1":"value1","key2":"value2"}}"#)
            == SourceRequest(method: "POST", body: Array("key1=value1&key2=value2".utf8), contentType: form))
        #expect(try request(#"{"path":"f","method":"POST","data":[["key1","value1"],["key2","value2"],["key1","another_value"]]}"#)
            == SourceRequest(method: "POST", body: Array("key1=value1&key2=value2&key1=another_value".utf8), contentType: form))
        #expect(try request(#"{"path":"f","method":"POST","data":"raw string data"}"#) == SourceRequest(method: "POST", body: Array("raw string data".utf8)))
        #expect(try request(#"{"path":"f","method":"POST"}"#) == SourceRequest(method: "POST"))
        // test_request_json_body: a GET with an empty JSON body sends `{}`.
        #expect(try request(#"{"path":"f","method":"GET","json":{}}"#) == SourceRequest(method: "GET", body: Array("{}".utf8), contentType: "application/json"))
        #expect(try request(#"{"path":"f","method":"POST","data":{"q":"a b&c/é","n":2,"t":true}}"#)
            == SourceRequest(method: "POST", body: Array("q=a+b%26c%2F%C3%A9&n=2&t=True".utf8), contentType: form))
    }

    @Test func placeholdersInABodyTakeTheParentsValues() throws {
        let manifest = try ManifestTests.manifest(#"{"name":"items","endpoint":"pages"},"#
            + #"{"name":"hits","endpoint":{"path":"search","method":"POST","json":{"id":"{resources.items.id}","query":"near {resources.items.name}","tags":["{resources.items.id}"]}}}"#)
        let child = manifest.resources[1]
        #expect(child.parent == "items")
        let item = try JSONValue.parse(bytes: Array(CatalogUpstream.item(3).utf8))
        guard case .success(let resolved) = child.resolved(for: item) else { Issue.record("not resolved"); return }
        // A placeholder alone keeps the value's type (dlt's preserve_value_type); in text, its text.
        #expect(resolved.label() == #"/search#hits POST {"id":3,"query":"near item 3","tags":[3]}"#)
        let plugin = ManifestSource(manifest)
        #expect(plugin.documentKind(ofPath: resolved.label()) == plugin.kind(of: child))
        #expect(plugin.request(for: Resource(source: "catalog", path: resolved.label(), document: plugin.kind(of: child)))
            == SourceRequest(method: "POST", body: Array(#"{"id":3,"query":"near item 3","tags":[3]}"#.utf8), contentType: "application/json"))
    }

    @Test func aRequestBodyIsRecordedInANewEnvelopeVersionAndExportedBackIntact() throws {
        var event = Event(seq: 7, recordedAt: Timestamp(milliseconds: 1_700_000_000_000), kind: .fetched, source: "catalog",
                          label: #"/search#search POST {"query":"item"}"#,
                          request: Event.Request(method: "POST", url: "http://127.0.0.1/catalog/search",
                                                 headers: [Header("Content-Type", "application/json")], body: Array(#"{"query":"item"}"#.utf8)),
                          response: Event.Response(status: 200), body: Array("[]".utf8))
        let record = EnvelopeCodec.encode(event)
        #expect(record.withUnsafeBytes { EnvelopeCodec.version(of: $0) } == 5)
        #expect(try record.withUnsafeBytes { try EnvelopeCodec.decode($0) } == event)
        // Compaction keeps the request body (it drops only the response's).
        let compacted = try record.withUnsafeBytes { try EnvelopeCodec.compacting($0) }
        #expect(compacted.request?.body == event.request?.body && compacted.body == nil)
        // NDJSON: the request gains `body` only when one was sent; import rebuilds the same record.
        let line = EventJSON.value(of: event)
        #expect(line["request"]?["body"] == .object([("encoding", .string("utf8")), ("text", .string(#"{"query":"item"}"#)), ("size", .number(16))]))
        #expect(try EventJSON.event(from: line) == event)
        // A request without a body writes the layout older builds read (version 2), no member.
        event.request?.body = nil
        #expect(EnvelopeCodec.encode(event).withUnsafeBytes { EnvelopeCodec.version(of: $0) } == 2)
        #expect(EventJSON.value(of: event)["request"]?["body"] == nil)
    }
}
