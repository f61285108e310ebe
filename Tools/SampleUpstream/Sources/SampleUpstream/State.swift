import Foundation

/// Everything that changes while the server runs: faults, data versions, the request log.
actor UpstreamState {
    private var plan: FaultPlan
    private(set) var versions: DataVersions
    /// Version switches per source, for Last-Modified (see SourceMetadata.lastModified).
    private var switches: [String: Int] = [:]
    private var log = RequestLog()
    private(set) var isStopping = false
    private let echoToStderr: Bool

    init(faults: [Fault], versions: DataVersions, echoToStderr: Bool) {
        self.plan = FaultPlan(faults)
        self.versions = versions
        self.echoToStderr = echoToStderr
    }

    /// The catalog's `/bulkchanges` generation (`SampleUpstream.setCatalogGeneration`).
    var catalogGeneration = 0
    func setCatalogGeneration(_ generation: Int) { catalogGeneration = generation }

    /// The writable notes (`NotesRoutes`) and the writes applied to them.
    private(set) var notes = NotesBook()
    func applyNoteWrite(_ write: NoteWrite) -> NoteAnswer { notes.apply(write, honouringKeys: honoursIdempotencyKey) }
    func resetNotes() { notes = NotesBook() }
    /// False: the notes ignore `Idempotency-Key` (kept across `resetNotes`; true at start).
    private(set) var honoursIdempotencyKey = true
    func setHonoursIdempotencyKey(_ honours: Bool) { honoursIdempotencyKey = honours }

    var faults: [Fault] { plan.faults }
    func setFaults(_ faults: [Fault]) { plan.set(faults) }
    func decide(path: String) -> FaultDecision { plan.decide(path: path) }

    func setVersions(tvmaze: TVMazeDataVersion?, brastlewark: BrastlewarkDataVersion?, viaplay: ViaplayDataVersion? = nil) {
        if let tvmaze, tvmaze != versions.tvmaze {
            versions.tvmaze = tvmaze
            switches["tvmaze", default: 0] += 1
        }
        if let brastlewark, brastlewark != versions.brastlewark {
            versions.brastlewark = brastlewark
            switches["brastlewark", default: 0] += 1
        }
        if let viaplay, viaplay != versions.viaplay {
            versions.viaplay = viaplay
            switches["viaplay", default: 0] += 1
        }
    }

    func snapshot(source: String) -> (DataVersions, Int) { (versions, switches[source] ?? 0) }

    var records: [RequestRecord] { log.records }
    /// Paths (with query) of the data requests received, in arrival order, noted before any
    /// latency fault delays them (the request log notes a request once it is answered).
    private(set) var received: [String] = []
    /// Data requests received and not yet answered, and the most there were at once since
    /// the log was cleared: what a test of a client's concurrency limit counts.
    private(set) var inFlight = 0
    private(set) var maxInFlight = 0
    func receive(_ path: String) {
        received.append(path)
        inFlight += 1
        maxInFlight = max(maxInFlight, inFlight)
    }
    func clearLog() {
        log.clear()
        received.removeAll()
        maxInFlight = inFlight
    }

    func record(method: String, path: String, status: Int, ifNoneMatch: String?, ifModifiedSince: String?, fault: String?,
                headers: [String: String]? = nil, form: String? = nil) {
        inFlight = max(0, inFlight - 1)
        let r = log.append(method: method, path: path, status: status, ifNoneMatch: ifNoneMatch, ifModifiedSince: ifModifiedSince, fault: fault,
                           headers: headers, form: form)
        if echoToStderr {
            let line = "#\(r.index) \(r.method) \(r.path) -> \(r.status == 0 ? "no answer" : String(r.status))" + (r.fault.map { " [fault: \($0)]" } ?? "") + "\n"
            FileHandle.standardError.write(Data(line.utf8))
        }
    }

    func markStopping() { isStopping = true }
}
