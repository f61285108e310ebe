import FetchlogLMDB

/// The store's state saved in the `checkpoints` database with the seq it covers, so
/// opening a store replays only the tail of the log.
///
/// A checkpoint holds the statuses and intents in full but documents only as
/// references (resource → seq of its held body): restoring re-decodes those bodies from
/// the log, which is O(resources), and keeps checkpoints small however large bodies are.
/// One LMDB value holds everything, so the state and its seq are written atomically.
package enum Checkpoint {
    static let key = "state"

    package static func encode(_ state: LogState) -> [UInt8] {
        let documents: [JSONValue] = state.documents.keys.sorted().map { key in
            .object([("source", .string(key.source)), ("path", .string(key.path)), ("seq", .number(state.documents[key]!.seq))])
        }
        let statuses: [JSONValue] = state.status.keys.sorted().map { key in
            let s = state.status[key]!
            func time(_ t: Timestamp?) -> JSONValue { t.map { .number($0.milliseconds) } ?? .null }
            return .object([
                ("source", .string(key.source)), ("path", .string(key.path)),
                ("lastSuccess", time(s.lastSuccess)), ("lastSuccessSeq", s.lastSuccessSeq.map { .number($0) } ?? .null),
                ("lastRevalidated", time(s.lastRevalidated)), ("lastRenewed", time(s.lastRenewed)),
                ("ageSeconds", .optional(s.ageSeconds)), ("lastAttempt", time(s.lastAttempt)),
                ("lastAttemptSeq", .number(s.lastAttemptSeq)), ("etag", .optional(s.etag)),
                ("lastModified", .optional(s.lastModified)), ("cacheControl", .optional(s.cacheControl)),
                ("failuresSince", .number(s.failuresSince)), ("lastError", .optional(s.lastError)),
                ("lastErrorClass", .optional(s.lastErrorClass?.name)), ("endOfList", .bool(s.endOfList)),
                ("linkNext", .optional(s.linkNext)), ("retryAfter", time(s.retryAfter)),
                ("cacheHeaders", .array(s.cacheHeaders.map { .array([.string($0.name), .string($0.value)]) })),
                ("selectingHeaders", .array(s.selectingHeaders.map { .array([.string($0.name), .string($0.value)]) })),
                ("notStoredAt", time(s.notStoredAt)),
            ])
        }
        let value: JSONValue = .object([
            ("reducerVersion", .number(LogState.reducerVersion)),
            ("seq", .number(state.seq)),
            ("documents", .array(documents)),
            ("status", .array(statuses)),
            ("manifests", .array(state.manifests.keys.sorted().map { name in
                .object([("name", .string(name)), ("seq", .number(state.manifests[name]!.seq)), ("manifest", state.manifests[name]!.manifest.json)])
            })),
            ("slices", .object(state.slices.keys.sorted().compactMap { name in
                // A slice that cannot encode (a plug-in's bug) is left out: the next open
                // rebuilds it from the log.
                guard let slice = state.slices[name], let json = try? slice.encoded() else { return nil }
                return (name, .object([("version", .number(type(of: slice).version)), ("state", json)]))
            })),
            ("writes", state.writes.json), // issue 26
            ("savedViews", .array(state.savedViews.keys.sorted().map { state.savedViews[$0]!.json })), // issue 35
        ])
        return Array(value.canonicalText().utf8)
    }

    /// The state a checkpoint describes, or nil when it was written by another reducer
    /// version or does not match the log (then the caller replays from the start).
    ///
    /// A slice saved by another version of its source's reducer (or missing) is rebuilt
    /// alone, from that source's intents up to the checkpoint's seq; the rest is kept.
    /// The seqs of the bodies a checkpoint restores its documents from (`log compact` keeps
    /// them, so the saved checkpoint stays usable).
    static func referencedSeqs(_ bytes: [UInt8]) -> Set<UInt64> {
        guard let json = try? JSONValue.parse(bytes: bytes) else { return [] }
        return Set((json["documents"]?.arrayValue ?? []).compactMap { ref in
            guard case .number(let text)? = ref["seq"] else { return nil }
            return UInt64(text)
        })
    }

    package static func decode(_ bytes: [UInt8], log: EventLog, sources: SourceRegistry) throws -> LogState? {
        guard let json = try? JSONValue.parse(bytes: bytes),
              json["reducerVersion"]?.intValue == LogState.reducerVersion,
              case .number(let seqText)? = json["seq"], let seq = UInt64(seqText), seq <= (try log.lastSeq()) else { return nil }
        var state = LogState(sources: sources)
        state.seq = seq
        for item in json["manifests"]?.arrayValue ?? [] {
            guard let name = item["name"]?.stringValue, case .number(let text)? = item["seq"], let defined = UInt64(text),
                  let body = item["manifest"], let manifest = try? RestManifest(json: body), manifest.name == name else { return nil }
            state.manifests[name] = DefinedManifest(manifest: manifest, seq: defined)
        }
        for ref in json["documents"]?.arrayValue ?? [] {
            guard let source = ref["source"]?.stringValue, let path = ref["path"]?.stringValue,
                  case .number(let text)? = ref["seq"], let docSeq = UInt64(text),
                  let resource = state.resource(source: source, label: path), let plugin = state.plugin(source),
                  let stored = try log.storedEvent(at: docSeq, lookingUpBody: false) else { return nil }
            // Read and decoded when a view first reads the document, not now: opening for
            // `status`, `sources` or `log …` reads no body (issue 35, cold start). `log
            // compact` keeps the bodies a checkpoint names.
            state.documents[ResourceKey(source: source, path: path)] = HeldDocument(seq: docSeq, fetchedAt: stored.recordedAt) {
                do {
                    guard let body = try log.event(at: docSeq)?.body else { throw DecodeError(path: "$", reason: "the event holds no body") }
                    return try plugin.decode(resource.document, body: body)
                } catch {
                    let reason = "the body of \(source)\(path) at seq \(docSeq) no longer reads: \(error)"
                    FetchlogLogging.logger(label: "fetchlog.store").error("\(reason); log verify says more")
                    return UndecodableDocument(reason: reason)
                }
            }
        }
        for item in json["status"]?.arrayValue ?? [] {
            guard let source = item["source"]?.stringValue, let path = item["path"]?.stringValue else { return nil }
            func time(_ name: String) -> Timestamp? {
                guard case .number(let t)? = item[name], let ms = Int64(t) else { return nil }
                return Timestamp(milliseconds: ms)
            }
            func u64(_ name: String) -> UInt64? {
                guard case .number(let t)? = item[name] else { return nil }
                return UInt64(t)
            }
            var s = ResourceStatus()
            s.lastSuccess = time("lastSuccess")
            s.lastSuccessSeq = u64("lastSuccessSeq")
            s.lastRevalidated = time("lastRevalidated")
            s.lastRenewed = time("lastRenewed")
            s.ageSeconds = item["ageSeconds"]?.intValue
            s.lastAttempt = time("lastAttempt")
            s.lastAttemptSeq = u64("lastAttemptSeq") ?? 0
            s.etag = item["etag"]?.stringValue
            s.lastModified = item["lastModified"]?.stringValue
            s.cacheControl = item["cacheControl"]?.stringValue
            s.failuresSince = item["failuresSince"]?.intValue ?? 0
            s.lastError = item["lastError"]?.stringValue
            s.lastErrorClass = item["lastErrorClass"]?.stringValue.flatMap(FailureClass.init(name:))
            s.endOfList = item["endOfList"]?.boolValue ?? false
            s.linkNext = item["linkNext"]?.stringValue
            s.retryAfter = time("retryAfter")
            func headers(_ name: String) -> [Header] {
                (item[name]?.arrayValue ?? []).compactMap { pair in
                    guard let name = pair.arrayValue?.first?.stringValue, let value = pair.arrayValue?.last?.stringValue else { return nil }
                    return Header(name, value)
                }
            }
            s.cacheHeaders = headers("cacheHeaders")
            s.selectingHeaders = headers("selectingHeaders")
            s.notStoredAt = time("notStoredAt")
            state.setStatus(s, for: ResourceKey(source: source, path: path))
        }
        guard let writes = WriteState(checkpoint: json["writes"]) else { return nil } // issue 26
        state.writes = writes
        for item in json["savedViews"]?.arrayValue ?? [] { // issue 35
            guard let view = SavedView(checkpoint: item) else { return nil }
            state.savedViews[view.name] = view
        }
        var stale: [String] = []
        for (name, initial) in state.slices {
            let saved = json["slices"]?[name]
            if saved?["version"]?.intValue == type(of: initial).version, let body = saved?["state"],
               let slice = try? initial.decoded(from: body) {
                state.slices[name] = slice
            } else {
                stale.append(name)
            }
        }
        if !stale.isEmpty { try rebuildSlices(stale, of: &state, from: log) }
        return state
    }

    /// Folds `names`' slices afresh from their sources' intents up to `state.seq`.
    static func rebuildSlices(_ names: [String], of state: inout LogState, from log: EventLog) throws {
        let wanted = Set(names)
        var slices = state.slices.filter { wanted.contains($0.key) }
        for name in names { slices[name] = state.sources.plugin(name)?.initialSlice }
        let seq = state.seq
        // Record headers only; just the intents of those sources are decoded.
        try log.scanStored(batchSize: 1024) { stored in
            guard stored.seq <= seq else { return false }
            if stored.kind == .intent, var slice = slices[stored.source] {
                slice.apply(try stored.decode())
                slices[stored.source] = slice
            }
            return true
        }
        for (name, slice) in slices { state.slices[name] = slice }
    }
}

extension EventLog {
    /// The saved checkpoint's bytes, if any.
    package func loadCheckpoint() throws -> [UInt8]? {
        try read { txn in
            var key = Checkpoint.key
            return try key.withUTF8 { k in try txn.get(derived, key: UnsafeRawBufferPointer(k)).map { Array($0) } }
        }
    }

    /// The view record saved with the last checkpoint, if any (`ReplayDiff` reads it).
    package func loadViewRecord() throws -> [UInt8]? {
        try read { txn in
            var key = ViewRecord.key
            return try key.withUTF8 { k in try txn.get(derived, key: UnsafeRawBufferPointer(k)).map { Array($0) } }
        }
    }

    /// Saves a checkpoint through the writer thread (one transaction, replacing the old one),
    /// with the view record made at the same state when given.
    package func saveCheckpoint(_ bytes: [UInt8], views: [UInt8]? = nil) async throws {
        let database = derived
        try await write { txn in
            for (name, value) in [(Checkpoint.key, bytes)] + (views.map { [(ViewRecord.key, $0)] } ?? []) {
                var key = name
                try key.withUTF8 { k in
                    try value.withUnsafeBytes { try txn.put(database, key: UnsafeRawBufferPointer(k), value: $0) }
                }
            }
        }
    }
}
