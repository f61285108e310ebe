import Foundation
import FetchlogLMDB
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// A directory that is not a Fetchlog store is refused with a named reason, and its
/// bytes are exactly as before.
@Suite struct StoreDirectoryTests {
    private func expectRefused(_ path: String, _ matches: (StoreError) -> Bool) throws {
        let before = try snapshot(of: path)
        do {
            _ = try EventLog.open(at: path)
            Issue.record("\(path) was opened")
        } catch let error as StoreError {
            #expect(matches(error), "\(error)")
            #expect(error.description.contains("Nothing was changed"))
        }
        #expect(try snapshot(of: path) == before)
    }

    @Test func aDirectoryWithOtherFilesIsRefused() throws {
        let dir = TemporaryDirectory("foreign")
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        try Data("my notes".utf8).write(to: URL(fileURLWithPath: dir.sub("notes.txt")))
        try expectRefused(dir.path) {
            if case .foreignFiles(_, let names) = $0 { return names == ["notes.txt"] }
            return false
        }
    }

    @Test func someoneElsesLMDBIsRefused() throws {
        let dir = TemporaryDirectory("other-lmdb")
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        do {
            var options = Environment.Options()
            options.maxDatabases = 4
            let env = try Environment(path: dir.path, options: options)
            let users = try env.openDatabase("users", create: true)
            try env.write { txn in try txn.put(users, key: "alice", value: "1") }
        }
        try expectRefused(dir.path) {
            if case .foreignLMDB(_, let databases) = $0 { return databases == ["users"] }
            return false
        }
    }

    @Test func aTruncatedDataFileIsRefused() async throws {
        let dir = TemporaryDirectory("truncated")
        do {
            let log = try EventLog.open(at: dir.path)
            try await log.append(contentsOf: (1 ... 20).map { TestPattern.event(seq: $0) })
            log.close()
        }
        let file = dir.sub("data.mdb")
        let full = try Data(contentsOf: URL(fileURLWithPath: file))
        try full.prefix(full.count / 2).write(to: URL(fileURLWithPath: file))
        try expectRefused(dir.path) {
            if case .truncatedDataFile(_, let size, let expected) = $0 { return size == full.count / 2 && expected == full.count }
            return false
        }
    }

    @Test func anEmptyOrGarbageDataFileIsRefused() throws {
        let dir = TemporaryDirectory("garbage")
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: dir.sub("data.mdb"), contents: Data()))
        try expectRefused(dir.path) {
            if case .truncatedDataFile(_, 0, _) = $0 { return true }
            return false
        }
        try Data(TestPattern.bytes(count: 16384, seed: 5)).write(to: URL(fileURLWithPath: dir.sub("data.mdb")))
        try expectRefused(dir.path) {
            if case .notLMDB(_, "no LMDB magic number") = $0 { return true }
            return false
        }
    }

    @Test func aNewerFormatVersionIsRefused() throws {
        let dir = TemporaryDirectory("newer")
        do {
            let log = try EventLog.open(at: dir.path)
            let env = log.lmdbEnvironment
            let meta = try env.openDatabase("meta", create: false)
            try env.write { txn in try txn.put(meta, key: "format-version", value: "4") }
            log.close()
        }
        try expectRefused(dir.path) {
            if case .newerFormat(_, 4, 3) = $0 { return true }
            return false
        }
    }

    @Test func aFileIsNotAStore() throws {
        let dir = TemporaryDirectory("file")
        #expect(FileManager.default.createFile(atPath: dir.path, contents: Data("x".utf8)))
        #expect(throws: StoreError.self) { try EventLog.open(at: dir.path) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.path)) == Data("x".utf8))
    }

    @Test func anEmptyDirectoryBecomesAStore() throws {
        let dir = TemporaryDirectory("empty")
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        let log = try EventLog.open(at: dir.path)
        #expect(log.metadata.formatVersion == 3)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["data.mdb", "lock.mdb"])
    }

    @Test func theDefaultLocationFollowsTheDocumentedOrder() {
        #expect(StoreLocation.resolve(explicit: "/a", environment: ["FETCHLOG_STORE": "/b"]) == "/a")
        #expect(StoreLocation.resolve(explicit: nil, environment: ["FETCHLOG_STORE": "/b", "XDG_DATA_HOME": "/x"]) == "/b")
        #expect(StoreLocation.resolve(explicit: nil, environment: ["XDG_DATA_HOME": "/x", "HOME": "/h"]) == "/x/fetchlog")
        #expect(StoreLocation.resolve(explicit: nil, environment: ["HOME": "/h"]) == "/h/.local/share/fetchlog")
        #expect(StoreLocation.resolve(explicit: "~/s", environment: ["HOME": "/h"]) == "/h/s")
    }
}
