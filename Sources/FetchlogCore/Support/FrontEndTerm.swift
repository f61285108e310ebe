import Synchronization

/// A setting or an action the engine's messages tell the user to change or run (raise the
/// deadline, allow private hosts, compact with a rewrite…). The engine names each by its
/// library name (`FetchConfiguration.deadline`); a front end that exposes it otherwise — the
/// command line, as a flag — installs its own wording once at start, so the engine's errors
/// and notices say what that front end's user types. The engine itself speaks no front end's
/// language (a fitness test keeps command-line flags out of FetchlogCore).
package enum FrontEndTerm: CaseIterable, Sendable, CustomStringConvertible {
    /// Fetch from held data only.
    case offline
    /// Let URLs reach loopback, link-local and private addresses.
    case allowPrivateHosts
    /// The longest one attempt may take.
    case deadline
    /// The slowest body accepted.
    case minimumRate
    /// The largest answer accepted.
    case maxBody
    /// Where every request goes instead of the real bases.
    case upstream
    /// The most pages a manifest list is fetched to.
    case pageCeiling
    /// Where the store is.
    case storeLocation
    /// Where the store is, and how else it can be given.
    case storeLocationOrEnvironment
    /// Where the store is, as code in a sentence.
    case storeLocationCode
    /// Compacting the log by rewriting its file.
    case rewriteCompaction
    /// Exporting every readable event of a damaged store without LMDB.
    case salvage
    /// Comparing this build's views with those an earlier build recorded.
    case replayDiff

    /// The library's wording.
    package var libraryText: String {
        switch self {
        case .offline: "FetchConfiguration.offline"
        case .allowPrivateHosts: "FetchConfiguration.allowPrivateHosts"
        case .deadline: "FetchConfiguration.deadline"
        case .minimumRate: "FetchConfiguration.minimumRate"
        case .maxBody: "FetchConfiguration.maxBodyBytes"
        case .upstream: "FetchConfiguration.upstream"
        case .pageCeiling: "pageCeiling"
        case .storeLocation, .storeLocationOrEnvironment: "Store.open(at:)"
        case .storeLocationCode: "`Store.open(at:)`"
        case .rewriteCompaction: "compaction with a rewrite"
        case .salvage: "a salvage"
        case .replayDiff: "StoreMaintenance.replayDiff"
        }
    }

    private static let installed = Mutex<[FrontEndTerm: String]>([:])

    /// Installs a front end's wording (terms not given keep the library's); called once,
    /// before anything that may say one.
    package static func install(_ wording: [FrontEndTerm: String]) {
        installed.withLock { $0 = wording }
    }

    /// How messages say it now: the front end's wording, else the library's.
    package var description: String {
        Self.installed.withLock { $0[self] } ?? libraryText
    }
}
