import FetchlogCore
import Foundation

/// The events of the shipped sample log (Resources/sample-log.ndjson): real recorded
/// responses of the five sources, as a session of fetches would have logged them,
/// including a retry, a 304, an end of list, a failure and an intent.
package enum SeedSampleLog {
    /// The store the sample's events name as their origin (a store id of its own, so a
    /// store that imported the sample and one that did not merge like any two stores).
    package static let storeID = "fetchlog-sample"

    package static func events(fixtures: String) throws -> [Event] {
        func body(_ file: String) throws -> [UInt8] {
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixtures + "/" + file)))
        }
        var clock = Timestamp(iso8601: "2026-11-01T09:00:00.000Z")!
        func tick(_ seconds: Int64) -> Timestamp {
            clock.milliseconds += seconds * 1000
            return clock
        }
        func fetched(_ source: String, _ base: String, _ path: String, _ file: String, etag: String,
                     micros: UInt64, attempt: UInt16 = 1) throws -> Event {
            Event(recordedAt: tick(2), kind: .fetched, source: source, label: path, attempt: attempt, durationMicros: micros,
                  request: Event.Request(url: base + path),
                  response: Event.Response(status: 200, headers: [
                      Header("Content-Type", "application/json; charset=utf-8"), Header("ETag", etag),
                      Header("Last-Modified", "Sat, 31 Oct 2026 12:00:00 GMT"), Header("Date", httpDate(clock)),
                  ]),
                  body: try body(file))
        }
        let tvmaze = "https://api.tvmaze.com"
        var events: [Event] = []
        events.append(try fetched("tvmaze", tvmaze, "/shows?page=0", "tvmaze/shows-page-0-2024.json", etag: "\"tvm-p0\"", micros: 182_311))
        events.append(try fetched("tvmaze", tvmaze, "/shows?page=1", "tvmaze/shows-page-1-2025-04-18.json", etag: "\"tvm-p1\"", micros: 164_090))
        let notFound = Array(#"{"name":"Not Found","message":"Page not found.","code":0,"status":404}"#.utf8)
        events.append(Event(recordedAt: tick(1), kind: .endOfList, source: "tvmaze", label: "/shows?page=2", durationMicros: 41_207,
                            request: Event.Request(url: tvmaze + "/shows?page=2"),
                            response: Event.Response(status: 404, headers: [Header("Content-Type", "application/json; charset=UTF-8")]),
                            body: notFound))
        events.append(try fetched("tvmaze", tvmaze, "/shows/1", "tvmaze/show-1.json", etag: "\"tvm-s1\"", micros: 51_880))
        events.append(try fetched("tvmaze", tvmaze, "/shows/1/episodes", "tvmaze/show-1-episodes.json", etag: "\"tvm-s1e\"", micros: 77_412))
        let census = "https://raw.githubusercontent.com/rrafols/mobile_test/master/data.json"
        events.append(Event(recordedAt: tick(10), kind: .fetchFailed, source: "brastlewark", label: "/data.json", attempt: 1,
                            durationMicros: 10_000_000, request: Event.Request(url: census),
                            failure: Event.Failure(.timeout, "no response within the 10 s read timeout")))
        events.append(try fetched("brastlewark", "https://raw.githubusercontent.com/rrafols/mobile_test/master", "/data.json",
                                  "brastlewark/census.json", etag: "\"census-1\"", micros: 402_118, attempt: 2))
        events.append(try fetched("viaplay", "https://content.viaplay.se", "/ios-se", "viaplay/ios-se-root-2022.json",
                                  etag: "\"vp-root-2022\"", micros: 96_502))
        events.append(try fetched("thmanyah", "https://api-v2-b2sit6oh3a-uc.a.run.app", "/home_sections?page=1",
                                  "thmanyah/home-sections-page-1.json", etag: "\"thm-1\"", micros: 233_950))
        events.append(try fetched("artic", "https://api.artic.edu", "/api/v1/artworks/27992", "artic/artwork-27992.json",
                                  etag: "\"artic-27992\"", micros: 140_377))
        events.append(Event(recordedAt: tick(600), kind: .notModified, source: "viaplay", label: "/ios-se", durationMicros: 38_020,
                            request: Event.Request(url: "https://content.viaplay.se/ios-se", headers: [Header("If-None-Match", "\"vp-root-2022\"")]),
                            response: Event.Response(status: 304, headers: [Header("ETag", "\"vp-root-2022\""), Header("Date", httpDate(clock))])))
        events.append(Event(recordedAt: tick(5), kind: .fetchFailed, source: "thmanyah", label: "/home_sections?page=2", attempt: 4,
                            durationMicros: 12_904, request: Event.Request(url: "https://api-v2-b2sit6oh3a-uc.a.run.app/home_sections?page=2"),
                            response: Event.Response(status: 503, headers: [Header("Retry-After", "30"), Header("Content-Type", "text/plain")]),
                            failure: Event.Failure(.httpStatus, "503 Service Unavailable after 4 attempts"),
                            body: Array("upstream busy\n".utf8)))
        var pinkTinkers = GnomeFilter()
        pinkTinkers.hairColor = "Pink"
        pinkTinkers.profession = "Tinker"
        events.append(GnomeFilterIntent.set(filter: pinkTinkers).event(at: tick(20)))   // {"hair_color":"Pink","profession":"Tinker"}
        return events
    }

    static func httpDate(_ t: Timestamp) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: t.date)
    }
}
