import FetchlogCore
import Foundation

/// `fetchlog-bench --padded-log N PATH`: an export of N `fetched` events whose `/api/log`
/// rows are about 2 KiB each (a 900-character label and url), for
/// `Tools/serve-idle-clients.py` to import a slice at a time into a served store: events
/// that cost `serve` little to fold, so what a stream client costs shows. The log is made
/// here because an export's lines carry checksums of the binary envelope.
func writePaddedLogExport(count: Int, to path: String) throws {
    let dir = NSTemporaryDirectory() + "fetchlog-bench-padded-\(getpid())"
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let log = try EventLog.open(at: dir)
    let padding = String(repeating: "p", count: 900)
    let when = Timestamp(iso8601: "2026-11-22T07:00:00.000Z")!
    for start in stride(from: 0, to: count, by: 1000) {
        let events = (start ..< min(count, start + 1000)).map { i in
            Event(recordedAt: when, kind: .fetched, source: "tvmaze", label: "/shows/\(i)/\(padding)",
                  request: Event.Request(url: "http://127.0.0.1:1/tvmaze/shows/\(i)/\(padding)"), response: Event.Response(status: 200, headers: []),
                  body: Array("[]".utf8))
        }
        _ = try log.appendBlocking(contentsOf: events)
    }
    _ = FileManager.default.createFile(atPath: path, contents: nil)
    guard let handle = FileHandle(forWritingAtPath: path) else { throw CocoaError(.fileWriteUnknown) }
    _ = try log.exportNDJSON { try handle.write(contentsOf: Data($0.utf8)) }
    try handle.close()
    log.close()
}
