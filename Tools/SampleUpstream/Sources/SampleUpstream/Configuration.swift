import Foundation

public struct SampleUpstreamConfiguration: Sendable {
    /// Bind address; the admin API answers loopback clients only, whatever the host.
    public var host: String
    /// 0 picks a free port; `SampleUpstream.start()` returns the one bound.
    public var port: Int
    /// Pages of the tvmaze show index (0..<tvmazePages); the next page answers 404.
    public var tvmazePages: Int
    /// Shows per tvmaze index page. nil (the default) serves the recorded pages (240 and 245
    /// shows, ids with gaps). N (1...250) makes every page k hold exactly N shows with ids
    /// k*N+1 ... k*N+N, built by cycling through the recorded page-0 and page-1 records.
    public var tvmazePageSize: Int?
    /// Pages of thmanyah home sections; nil uses page 1's recorded `pagination.total_pages` (10).
    public var thmanyahTotalPages: Int?
    /// Faults active from the start.
    public var faults: [Fault]
    public var versions: DataVersions
    /// How long a `noAnswer` fault holds a request before closing the connection.
    public var noAnswerLimit: Duration
    /// One line per served request on stderr (the CLI turns this on).
    public var logRequestsToStderr: Bool
    /// How long `stop()` waits for a graceful shutdown before cancelling the server.
    public var stopTimeout: Duration = .seconds(5)
    /// The brastlewark census served this many times over (1: as recorded): copy k > 0
    /// has ids shifted by k × 1337 and " k" after every name and friend name, so each copy
    /// is a town of its own with the recorded friendships (`fetchlog-bench --scale`).
    public var censusCopies = 1

    public init(
        host: String = "127.0.0.1",
        port: Int = 0,
        tvmazePages: Int = 4,
        tvmazePageSize: Int? = nil,
        thmanyahTotalPages: Int? = nil,
        faults: [Fault] = [],
        versions: DataVersions = DataVersions(),
        noAnswerLimit: Duration = .seconds(60),
        logRequestsToStderr: Bool = false
    ) {
        self.host = host
        self.port = port
        self.tvmazePages = tvmazePages
        self.tvmazePageSize = tvmazePageSize
        self.thmanyahTotalPages = thmanyahTotalPages
        self.faults = faults
        self.versions = versions
        self.noAnswerLimit = noAnswerLimit
        self.logRequestsToStderr = logRequestsToStderr
    }
}

/// Per-source response metadata.
enum SourceMetadata {
    static let sources = ["tvmaze", "brastlewark", "viaplay", "thmanyah", "artic", "catalog"]
    /// The first path component of the asset routes (`/assets/HOST/PATH`), not a data source.
    static let assets = "assets"

    /// Cache-Control as each real host sends it (tvmaze and thmanyah send none).
    static func cacheControl(_ source: String) -> String? {
        switch source {
        case "brastlewark": "max-age=300"
        case "viaplay": "max-age=60"
        case "artic": "max-age=3600"
        // Image CDNs let clients keep an image for a day or more.
        case "assets": "max-age=86400"
        default: nil
        }
    }

    /// Last-Modified, fixed per source and data version (roughly when each recording was made).
    /// After a run-time version switch the date moves forward one day per switch from the newest
    /// version date, so that If-Modified-Since can never hide a switched body (switching tvmaze
    /// back to the 2019 data would otherwise look older than what the client holds).
    static func lastModified(_ source: String, versions: DataVersions, switches: Int) -> Date {
        let dates = versionDates(source, versions: versions)
        let seconds = switches > 0 ? dates.newest : dates.current
        return Date(timeIntervalSince1970: TimeInterval(seconds + switches * 86_400))
    }

    /// The active version's date and the newest date of any version of the source (seconds since 1970).
    private static func versionDates(_ source: String, versions: DataVersions) -> (current: Int, newest: Int) {
        switch source {
        case "tvmaze":
            let (v2019, v2024) = (1_566_000_000, 1_713_225_600) // 2019-08-17 / 2024-04-16
            return (versions.tvmaze == .v2019 ? v2019 : v2024, v2024)
        case "brastlewark":
            let (v1, v2) = (1_609_459_200, 1_612_137_600) // 2021-01-01 / 2021-02-01
            return (versions.brastlewark == .v1 ? v1 : v2, v2)
        case "viaplay":
            let (v2022, v2024) = (1_643_673_600, 1_704_067_200) // 2022-02-01 / 2024-01-01
            return (versions.viaplay == .v2022 ? v2022 : v2024, v2024)
        case "thmanyah", "assets": return (1_755_907_200, 1_755_907_200) // 2025-08-23
        default: return (1_739_664_000, 1_739_664_000) // artic dump, 2025-02-16
        }
    }
}
