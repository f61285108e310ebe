import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// One rule for every file Fetchlog writes (issue 13, item 6): a regular file is replaced
/// only when the new one is whole; devices and pipes are written through, never replaced;
/// a symbolic link is followed (its target replaced, the link kept); `asset save` keeps an
/// existing file unless `--force`.
@Suite struct FileWritingTests {
    func sampleStore(_ dir: TemporaryDirectory) async throws -> String {
        let store = dir.sub("store")
        #expect(try await runFetchlog(["--store", store, "log", "import", Repo.sampleLog]).status == 0)
        return store
    }

    /// Flips one byte of a recorded body in data.mdb, so reading that event fails its checksum.
    func damageABody(_ store: String) throws {
        let path = store + "/data.mdb"
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let needle = Array("Tobus Quickwhistle".utf8)
        let at = try #require((0 ... bytes.count - needle.count).first { bytes[$0 ..< $0 + needle.count].elementsEqual(needle) })
        bytes[at] ^= 0x20
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    @Test func aFailedExportLeavesThePreviousFileWhole() async throws {
        let dir = TemporaryDirectory("write-failed-export")
        let store = try await sampleStore(dir)
        let backup = dir.sub("backup.ndjson")
        #expect(try await runFetchlog(["--store", store, "log", "export", "--out", backup]).status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: backup))
        #expect(before.split(separator: UInt8(ascii: "\n")).count == 13)
        try damageABody(store)
        let failed = try await runFetchlog(["--store", store, "log", "export", "--out", backup])
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("checksum mismatch"), "\(failed.stderr)")
        #expect(failed.stderr.hasSuffix("\(backup) was left as it was\n"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: backup)) == before)
        // No temporary file is left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["backup.ndjson", "store"])
    }

    @Test func pipesAreWrittenThroughAndLinksFollowed() async throws {
        let dir = TemporaryDirectory("write-special")
        let store = try await sampleStore(dir)
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        // A named pipe: written through, and still a pipe afterwards.
        let fifo = dir.sub("pipe")
        try #require(mkfifo(fifo, 0o600) == 0)
        // The reader blocks in open(2) until the writer comes: a thread of its own.
        let received = LockedBox<Data>(Data())
        let done = DispatchSemaphore(value: 0)
        Thread {
            if let handle = FileHandle(forReadingAtPath: fifo) { received.set(handle.readDataToEndOfFile()) }
            done.signal()
        }.start()
        let viaPipe = try await runFetchlog(["--store", store, "export", "gnomes", "--out", fifo])
        #expect(viaPipe.status == 0, "\(viaPipe.stderr)")
        #expect(done.wait(timeout: .now() + 10) == .success)
        let direct = try await runFetchlog(["--store", store, "export", "gnomes"])
        #expect(String(decoding: received.get(), as: UTF8.self) == direct.stdout)
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
        // A symbolic link: its target gets the new content, the link stays a link.
        let target = dir.sub("target.json")
        try "old".write(toFile: target, atomically: false, encoding: .utf8)
        let link = dir.sub("link.json")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "target.json")
        #expect(try await runFetchlog(["--store", store, "export", "gnomes", "--out", link]).status == 0)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == direct.stdout)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "target.json")
        // A device: /dev/null is written through and stays a character device.
        #expect(try await runFetchlog(["--store", store, "export", "gnomes", "--out", "/dev/null"]).status == 0)
        #expect(stat("/dev/null", &info) == 0 && info.st_mode & S_IFMT == S_IFCHR)
    }

    @Test func assetSaveKeepsAnExistingFileUnlessForced() async throws {
        let dir = TemporaryDirectory("write-asset")
        let url = "https://static.tvmaze.com/uploads/images/medium_portrait/81/202627.jpg"
        let file = dir.sub("poster.jpg")
        try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
        try "mine".write(toFile: file, atomically: false, encoding: .utf8)
        let refused = try await runDemoScript(["fetch asset \(url)", "asset save \(url) \(file)"], store: dir.sub("demo"))
        #expect(refused.status == 1)
        #expect(refused.stderr.hasSuffix("error: \(file) exists: add --force to replace it\n"))
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "mine")
        let forced = try await runDemoScript(["asset save \(url) \(file) --force"], store: dir.sub("demo"))
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: file)).prefix(2)) == [0xFF, 0xD8])
    }
}

/// A value shared with a thread.
final class LockedBox<T>: @unchecked Sendable {
    private var value: T
    private let lock = NSLock()
    init(_ value: T) { self.value = value }
    func set(_ new: T) { lock.withLock { value = new } }
    func get() -> T { lock.withLock { value } }
}
