import FetchlogCore
import FetchlogSources
import Foundation
import Testing

/// Issue 25, item 5: sources are explicit. No engine initialiser quietly defaults to the
/// five seed sources; a store of them is opened by naming them (`SeedSources.openStore`).
@Suite struct ExplicitSourcesTests {
    /// A default or fallback to the seed registry: `sources: .seed` written inside library
    /// code, `?? .seed`, or a `sources: SourceRegistry = .seed` parameter.
    static let pattern = try! NSRegularExpression(pattern: #"sources:\s*(SourceRegistry)?\.seed\b|\?\?\s*((SourceRegistry)?\.seed|SeedSources\.registry)\b|(?<!let )sources: SourceRegistry\s*=\s*((SourceRegistry)?\.seed|SeedSources\.registry)\b"#)

    static func defaults(in lines: [String]) -> [String] {
        lines.filter { pattern.firstMatch(in: $0, range: NSRange($0.startIndex..., in: $0)) != nil }
    }

    /// `file:line: text` of every Swift line under Sources/ that defaults to the seed sources.
    static func offendingLines() throws -> [String] {
        let root = Repo.root + "/Sources"
        guard let files = FileManager.default.enumerator(atPath: root) else { return ["Sources: not found"] }
        var hits: [String] = []
        for case let file as String in files where file.hasSuffix(".swift") {
            let lines = try String(contentsOfFile: root + "/" + file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            for line in defaults(in: lines) { hits.append("Sources/\(file): \(line.trimmingCharacters(in: .whitespaces))") }
        }
        return hits.sorted()
    }

    @Test func noLibraryCodeDefaultsToTheSeedSources() throws {
        let hits = try Self.offendingLines()
        #expect(hits == [], "\(hits.joined(separator: "\n"))")
    }

    /// The check itself can fail: the overloads this issue removed (SeedSources.swift before it).
    @Test func theCheckFindsTheRemovedDefaults() {
        let removed = [
            "    public init() { self.init(sources: .seed) }",
            "        try self.init(log: log, sources: fetcher?.sources ?? .seed, fetcher: fetcher, clock: clock, logger: logger)",
            "        try replay(log, sources: .seed, to: seq, isCancelled: isCancelled, progress: progress)",
            "    public init(log: EventLog, sources: SourceRegistry = .seed) {",
            "    static let sources: SourceRegistry = SeedSources.registry",   // the CLI's one choice: not a default
        ]
        #expect(Self.defaults(in: removed) == Array(removed.prefix(4)))
    }

    /// `SeedSources.openStore(at:)` opens a store of the five seed sources; the same
    /// directory opened with no sources holds no seed slice: nothing is added behind one's back.
    @Test func openStoreNamesTheSeedSources() async throws {
        let directory = TemporaryDirectory("explicit-sources")
        var configuration = Store.Configuration()
        configuration.clock = FixedClock(fixedTime)
        var pinkTinkers = GnomeFilter()
        pinkTinkers.hairColor = "Pink"
        pinkTinkers.profession = "Tinker"

        let store = try await SeedSources.openStore(at: URL(filePath: directory.path), configuration: configuration)
        #expect(store.sources.sources.map(\.rawValue) == ["tvmaze", "brastlewark", "viaplay", "thmanyah", "artic"])
        #expect(store.sources.exportNames == SeedSources.registry.exportNames)
        try await store.sendIntent(GnomeFilterIntent.set(filter: pinkTinkers))
        try await store.sendIntent(GnomeFilterIntent.reset)
        try await store.setGnomeFilter(pinkTinkers)
        #expect(store.snapshot.state.gnomeFilter == pinkTinkers)
        #expect(store.snapshot.state.gnomeFilterSeq == 3)
        await store.close()

        let reopened = try await SeedSources.openStore(at: URL(filePath: directory.path), configuration: configuration)
        #expect(reopened.snapshot.state.gnomeFilter == pinkTinkers)
        #expect(reopened.snapshot.state.gnomeFilterSeq == 3)
        await reopened.close()

        let bare = try await Store.open(at: URL(filePath: directory.path), sources: SourceRegistry([]), configuration: configuration)
        #expect(bare.snapshot.state.seq == 3)
        #expect(bare.snapshot.state.slice(GnomeFilterSlice.self, of: .brastlewark) == nil)
        #expect(bare.sources.exportNames.contains("gnomes") == false)
        // An intent no slice of this store receives would change nothing: refused, nothing appended.
        await #expect(throws: StoreUsageError.noSlice("brastlewark")) { try await bare.sendIntent(GnomeFilterIntent.reset) }
        #expect(try bare.maintenance.lastSeq() == 3)
        #expect(StoreUsageError.noSlice("brastlewark").description
            == "brastlewark keeps no slice in this store, so its intent would change nothing: open the store with the source's plug-in in its SourceRegistry")
        await bare.close()
    }

    /// The intents enum writes the labels and body bytes logs have always held, and reads
    /// them back; anything else is no intent of it.
    @Test func gnomeFilterIntentsKeepTheirLabelsAndBodies() throws {
        var pinkTinkers = GnomeFilter()
        pinkTinkers.hairColor = "Pink"
        pinkTinkers.profession = "Tinker"
        let set = GnomeFilterIntent.set(filter: pinkTinkers).event(at: fixedTime)
        #expect(set.kind == .intent)
        #expect(set.source == "brastlewark")
        #expect(set.label == "filter.set")
        #expect(set.body == Array(#"{"hair_color":"Pink","profession":"Tinker"}"#.utf8))
        let reset = GnomeFilterIntent.reset.event(at: fixedTime)
        #expect(reset.label == "filter.reset")
        #expect(reset.body == Array("{}".utf8))

        #expect(GnomeFilterIntent(set) == .set(filter: pinkTinkers))
        #expect(GnomeFilterIntent(reset) == .reset)
        #expect(GnomeFilterIntent(Event(recordedAt: fixedTime, kind: .intent, source: "brastlewark", label: "filter.reset")) == .reset)
        #expect(GnomeFilterIntent(Event(recordedAt: fixedTime, kind: .intent, source: "brastlewark", label: "filter.set", body: Array("[1]".utf8))) == nil)
        #expect(GnomeFilterIntent(Event(recordedAt: fixedTime, kind: .intent, source: "brastlewark", label: "filter.sets", body: Array("{}".utf8))) == nil)
        #expect(GnomeFilterIntent(Event(recordedAt: fixedTime, kind: .intent, source: "tvmaze", label: "filter.reset", body: Array("{}".utf8))) == nil)

        // Codable: an intent can travel (and come back) as JSON of its own.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = String(decoding: try encoder.encode(GnomeFilterIntent.set(filter: pinkTinkers)), as: UTF8.self)
        #expect(json == #"{"set":{"filter":{"hair_color":"Pink","profession":"Tinker"}}}"#)
        #expect(try JSONDecoder().decode(GnomeFilterIntent.self, from: Data(json.utf8)) == .set(filter: pinkTinkers))
        #expect(try JSONDecoder().decode(GnomeFilterIntent.self, from: try encoder.encode(GnomeFilterIntent.reset)) == .reset)
    }

    /// The shipped sample log's intent (seq 13), line for line and checksum included, is the
    /// event `GnomeFilterIntent` writes today (`SeedSampleLog` builds it so).
    @Test func theSampleLogsIntentIsUnchanged() throws {
        var pinkTinkers = GnomeFilter()
        pinkTinkers.hairColor = "Pink"
        pinkTinkers.profession = "Tinker"
        var intent = GnomeFilterIntent.set(filter: pinkTinkers).event(at: try #require(Timestamp(iso8601: "2026-11-01T09:10:52.000Z")))
        intent.seq = 13
        let shipped = try String(contentsOfFile: Repo.sampleLog, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(shipped.count == 13)
        #expect(EventJSON.line(for: intent, store: SeedSampleLog.storeID) == shipped[12])
    }

    /// An upstream is an address: `Upstream(base: URL)`, a trailing `/` ignored.
    @Test func upstreamTakesAURL() throws {
        let url = try #require(URL(string: "http://127.0.0.1:9000/"))
        #expect(Upstream(base: url).base == "http://127.0.0.1:9000")
        #expect(Upstream(base: url).url(source: "tvmaze", path: "/shows/1", realBase: "https://api.tvmaze.com")
            == "http://127.0.0.1:9000/tvmaze/shows/1")
        #expect(Upstream(base: nil as URL?) == .real)
    }

    /// A store directory is an address too: `StoreRewrite.rewrite(at: URL)`; a URL that
    /// names no file is refused, saying so.
    @Test func storeRewriteTakesAURL() async throws {
        let directory = TemporaryDirectory("rewrite-url")
        let log = try EventLog.open(at: directory.path)
        _ = try await log.append(contentsOf: [richEvent(), richEvent(), richEvent()])
        log.close()
        #expect(try StoreRewrite.rewrite(at: URL(filePath: directory.path)).events == 3)
        let remote = try #require(URL(string: "http://127.0.0.1:9/store"))
        #expect(throws: StoreRewrite.Refused.self) { try StoreRewrite.rewrite(at: remote) }
        do { _ = try StoreRewrite.rewrite(at: remote) } catch let refused as StoreRewrite.Refused {
            #expect(refused.reason == "http://127.0.0.1:9/store is not a directory on this machine: give a file URL")
        }
    }
}
