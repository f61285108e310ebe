import Synchronization

/// The optimistic view (issue 26): a resource's held items with the server's answers to
/// writes and the pending mutations folded on top, a pure function of the state.
///
/// - An answer newer than every held page of the resource is the server's latest word on
///   its item (a page fetched after it is newer still, and wins): a confirmed item replaces
///   the held one (or is added), a confirmed delete removes it.
/// - Unless `confirmedOnly`, each pending mutation that is not rejected, in log order: a
///   create adds its item (its key `local:SEQ` until the server names one), an update sets
///   its fields, a replace keeps only the key and its fields, a delete removes the item.
///   Every item a mutation changed carries `"pending": {"mutations":[SEQ…],"state":S}`
///   (and `"server"`: the server's version, in a conflict).
///
/// The work is O(answers + mutations), not O(items) per mutation: the items are reached by
/// key through `positions` (built once per set of pages, `ItemsView.keyPositions`), and the
/// list is copied once at the end (`Folding`).
enum WriteOverlay {
    /// Nil when nothing applies (the items stay as they are, and so does the search index).
    /// `positions`: where each key's items are in `items` (ascending), asked for only when
    /// something applies. `key`: the fields naming an item (a manifest's `primary_key`, a
    /// plug-in's `ResourceWrites.key`); `newestPage`: the seq of the newest held body of the
    /// resource (`newestPageSeq`), asked for only when there are writes. `built`: what
    /// `items` were built from (a manifest view's fingerprint); nil, none is kept.
    ///
    /// A view read again after new mutations is folded from the last one (`Kept`) when the
    /// base, the answers and the mutations folded before are the same and each new one is
    /// simple (see `simple`): the same steps on the same `Folding`, then only the items they
    /// touched re-marked — the result equals the full fold (`WriteOverlayIncrementalTests`).
    static func items(_ items: [JSONValue], positions: () -> [[String]: [Int]], state: LogState, source: String, resource: String,
                      key: [String], newestPage: () -> UInt64, confirmedOnly: Bool, built: ItemsView.Fingerprint? = nil) -> [JSONValue]? {
        let writes = state.writes
        guard !writes.confirmed.isEmpty || !writes.mutations.isEmpty else { return nil }
        let prefix = source + "/" + resource + "/"
        let newestPage = newestPage()
        let answers = writes.confirmed.filter { $0.key.hasPrefix(prefix) && $0.value.seq > newestPage }.sorted { $0.value.seq < $1.value.seq }
        let cacheKey = prefix + (confirmedOnly ? "confirmed" : "optimistic")
        var kept = built == nil ? nil : Kept.take(cacheKey)
        if let last = kept, !(last.built == built && last.answers.count == answers.count
                              && zip(last.answers, answers).allSatisfy({ $0.0 == $1.key && $0.1 == $1.value })) { kept = nil }
        // At once when the mutations are the ones folded (`WriteState.mutationsToken`), or
        // those and one recorded since (`WriteState.added`): no pending mutation compared.
        if var last = kept {
            kept = nil  // `last` alone holds the items: changed in place
            let token = writes.mutationsToken
            if confirmedOnly || last.token == token {
                last.token = token
                Kept.keep(cacheKey, last)
                return last.items
            }
            if let added = writes.added, added.before == last.token, let mutation = writes.mutations[added.seq] {
                if mutation.source != source || mutation.resource != resource {
                    last.token = token
                    Kept.keep(cacheKey, last)
                    return last.items
                }
                if mutation.state != .rejected, mutation.seq > last.mutations.last?.seq ?? 0,
                   last.add([mutation][...], writes: writes, key: key) {
                    last.token = token
                    Kept.keep(cacheKey, last)
                    return last.items
                }
            } else {
                kept = last
            }
        }
        let mutations = confirmedOnly ? [] : writes.pending.filter { $0.source == source && $0.resource == resource && $0.state != .rejected }
        guard !answers.isEmpty || !mutations.isEmpty else { return nil }
        if var last = kept, last.mutations.count <= mutations.count, last.mutations[...] == mutations[..<last.mutations.count] {
            kept = nil
            if last.mutations.count == mutations.count || last.add(mutations[last.mutations.count...], writes: writes, key: key) {
                last.token = writes.mutationsToken
                Kept.keep(cacheKey, last)
                return last.items
            }
        }
        var list = Folding(base: items, key: key, positions: key.isEmpty ? [:] : positions())
        for (id, answer) in answers {
            let text = String(id.dropFirst(prefix.count))
            let at = list.index(of: text)
            switch (answer.item, at) {
            case (let item?, let at?): list[at] = ordered(item, like: list[at])
            case (let item?, nil): list.append(list.first.map { ordered(item, like: $0) } ?? item)
            case (nil, let at?): list.remove(at: at)
            case (nil, nil): break
            }
        }
        // Which mutations changed each item (by its key now), for its `pending` member.
        var marks: [String: [PendingMutation]] = [:]
        for mutation in mutations { apply(mutation, to: &list, marks: &marks, writes: writes, key: key) }
        var marked = list
        for (text, changed) in marks {
            guard let at = marked.index(of: text) else { continue }
            marked[at] = ItemsView.adding([("pending", pendingMember(changed))], to: marked[at])
        }
        // Kept only when known what the items were built from (a manifest view's fingerprint).
        guard let built else { return marked.items }
        let folded = Kept(built: built, answers: answers.map { ($0.key, $0.value) }, mutations: mutations, unmarked: list, marks: marks,
                          items: marked.items, incremental: false, token: writes.mutationsToken)
        Kept.keep(cacheKey, folded)
        return folded.items
    }

    /// One pending mutation folded on `list`, noted in `marks` under its item's key.
    private static func apply(_ mutation: PendingMutation, to list: inout Folding, marks: inout [String: [PendingMutation]],
                              writes: WriteState, key: [String]) {
        let text = writes.itemKey(mutation)
        switch mutation.op {
        case .create:
            var item = mutation.fields
            if key.count == 1, item[key[0]] == nil { item = ItemsView.adding([(key[0], .string(text))], to: item) }
            if let at = list.index(of: text) { list[at] = item } else { list.append(item) }
        case .update:
            guard let at = list.index(of: text) else { return }
            list[at] = ItemsView.adding(members(mutation.fields), to: list[at])
        case .replace:
            guard let at = list.index(of: text) else { return }
            let keyMembers = key.map { ($0, list[at][$0] ?? .null) }
            list[at] = ItemsView.adding(members(mutation.fields), to: .object(keyMembers))
        case .delete:
            guard let at = list.index(of: text) else { return }
            list.remove(at: at)
            marks[text] = nil
            return
        }
        marks[text, default: []].append(mutation)
    }

    /// The last optimistic (or confirmed) items of each resource and what they were folded
    /// from: the folding before the `pending` marks, the marks, and the items with them.
    struct Kept: Sendable {
        let built: ItemsView.Fingerprint
        let answers: [(String, ConfirmedItem)]
        private(set) var mutations: [PendingMutation]
        private(set) var unmarked: Folding
        private(set) var marks: [String: [PendingMutation]]
        private(set) var items: [JSONValue]
        /// Folded from the last view (`add`) rather than in full: for tests.
        private(set) var incremental: Bool
        /// The `WriteState.mutationsToken` of the mutations folded.
        var token: UInt64

        /// A mutation folded from the last view without a full fold: it changes only the item
        /// its key names (found, or added at the end, for a create), and that item keeps its
        /// key — so every other item stays where it was, as it was, marked as it was. A delete
        /// (items move), a change of a key field, or a create whose fields give another key
        /// than its own is folded in full.
        static func simple(_ mutation: PendingMutation, key: [String]) -> Bool {
            guard key.count == 1, case .object(let fields) = mutation.fields, !fields.contains(where: { $0.0 == key[0] }) else { return false }
            return mutation.op != .delete
        }

        /// `added` folded on top, in place (the kept items too, when no view holds them any
        /// more); false when one is not simple — then this is half done: fold in full.
        mutating func add(_ added: ArraySlice<PendingMutation>, writes: WriteState, key: [String]) -> Bool {
            guard added.allSatisfy({ Self.simple($0, key: key) }) else { return false }
            var touched = Set<String>()
            for mutation in added {
                WriteOverlay.apply(mutation, to: &unmarked, marks: &marks, writes: writes, key: key)
                touched.insert(writes.itemKey(mutation))
            }
            mutations += added
            incremental = true
            // Each touched item's place among the items shown (the removed ones left out), in
            // order, so that created items are added at the end in the order they were made.
            var places: [(shown: Int, at: Int, text: String)] = []
            for text in touched {
                guard let at = unmarked.index(of: text) else { continue }
                places.append((unmarked.shown(at), at, text))
            }
            for (shown, at, text) in places.sorted(by: { $0.shown < $1.shown }) {
                let item = marks[text].map { ItemsView.adding([("pending", WriteOverlay.pendingMember($0))], to: unmarked[at]) } ?? unmarked[at]
                if shown < items.count { items[shown] = item } else if shown == items.count { items.append(item) } else { return false }
            }
            return items.count == unmarked.count
        }

        private static let cache = Mutex<[String: Kept]>([:])

        /// The folding (before the `pending` marks) that `items` were made from, when they are
        /// the items kept under `key` for `built` — the same storage: kept items are changed in
        /// place only while nothing else holds them, and the caller holds `items`, so the same
        /// storage means the same fold. Nil otherwise (folded afresh since, or not kept).
        static func folding(_ key: String, built: ItemsView.Fingerprint, items: [JSONValue]) -> Folding? {
            guard let kept = cache.withLock({ $0[key] }), kept.built == built, kept.items.count == items.count,
                  ItemsView.sameStorage(kept.items, items) else { return nil }
            return kept.unmarked
        }

        /// Taken out, so that the items are changed in place when no view holds them any more.
        static func take(_ key: String) -> Kept? { cache.withLock { $0.removeValue(forKey: key) } }

        static func keep(_ key: String, _ kept: Kept) {
            cache.withLock { cache in
                if cache.count >= 256 { cache.removeAll() }
                cache[key] = kept
            }
        }
    }

    /// The items being folded, changed where the writes say and copied once at the end: the
    /// base items stay shared, a position is the item's place in the base (then in the items
    /// added after it), and each key's positions are kept as items change, are removed or
    /// added — so finding an item by key is what scanning the list for it was: the first
    /// item left that has that key.
    struct Folding: Sendable {
        let base: [JSONValue]
        let key: [String]
        /// Each key's positions in the base (ascending), as they were before any change.
        let basePositions: [[String]: [Int]]
        /// Each changed key's positions now (ascending): a key's entry here replaces its base one.
        private var changedPositions: [[String]: [Int]] = [:]
        /// The base items shown changed (by position), those removed (base or added), and the
        /// items added after the base: what `WriteSchema` reads besides the base's `Members`.
        private(set) var replaced: [Int: JSONValue] = [:]
        private(set) var removed = Set<Int>()
        private(set) var added: [JSONValue] = []

        init(base: [JSONValue], key: [String], positions: [[String]: [Int]]) {
            self.base = base
            self.key = key
            basePositions = positions
        }

        private func keyValues(_ item: JSONValue) -> [String] { key.map { ItemsView.text(item[$0]) } }
        private func positions(_ values: [String]) -> [Int] { changedPositions[values] ?? basePositions[values] ?? [] }

        /// The first item left whose key is `text` (fields joined by `/`).
        func index(of text: String) -> Int? {
            guard !key.isEmpty else { return nil }
            return positions(text.split(separator: "/", omittingEmptySubsequences: false).map(String.init)).first
        }

        /// The first item left.
        var first: JSONValue? {
            var at = 0
            while removed.contains(at) { at += 1 }
            return at < base.count + added.count ? self[at] : nil
        }

        subscript(at: Int) -> JSONValue {
            get { at < base.count ? replaced[at] ?? base[at] : added[at - base.count] }
            set {
                let old = key.isEmpty ? [] : keyValues(self[at])
                if at < base.count { replaced[at] = newValue } else { added[at - base.count] = newValue }
                guard !key.isEmpty else { return }
                let new = keyValues(newValue)
                if new != old {
                    forget(at, old)
                    var now = positions(new)
                    now.insert(at, at: now.firstIndex { $0 > at } ?? now.endIndex)
                    changedPositions[new] = now
                }
            }
        }

        mutating func append(_ item: JSONValue) {
            added.append(item)
            guard !key.isEmpty else { return }
            let values = keyValues(item)
            changedPositions[values] = positions(values) + [base.count + added.count - 1]
        }

        mutating func remove(at: Int) {
            if !key.isEmpty { forget(at, keyValues(self[at])) }
            removed.insert(at)
        }

        private mutating func forget(_ at: Int, _ values: [String]) {
            changedPositions[values] = positions(values).filter { $0 != at }
        }

        /// How many items are left.
        var count: Int { base.count + added.count - removed.count }

        /// Where the item at `at` is in `items` (the removed ones left out).
        func shown(_ at: Int) -> Int { removed.isEmpty ? at : at - removed.count(where: { $0 < at }) }

        /// The items as they are now, in order.
        var items: [JSONValue] {
            var all = base
            for (at, item) in replaced { all[at] = item }
            all += added
            guard !removed.isEmpty else { return all }
            var kept: [JSONValue] = []
            kept.reserveCapacity(all.count - removed.count)
            var from = 0
            for at in removed.sorted() + [all.count] {
                kept += all[from ..< at]
                from = at + 1
            }
            return kept
        }
    }

    /// `item`'s members in `template`'s order, the others after them: an answer is recorded
    /// as canonical JSON (sorted members), and a table's columns follow the first item's.
    static func ordered(_ item: JSONValue, like template: JSONValue) -> JSONValue {
        guard case .object(let members) = item, case .object(let order) = template else { return item }
        var rest = members
        var result: [(String, JSONValue)] = []
        for (name, _) in order {
            if let at = rest.firstIndex(where: { $0.0 == name }) { result.append(rest.remove(at: at)) }
        }
        return .object(result + rest)
    }

    static func members(_ fields: JSONValue) -> [(String, JSONValue)] {
        if case .object(let members) = fields { members } else { [] }
    }

    /// `{"mutations":[SEQ…],"state":S}`: the state the most in need of the user (a conflict
    /// first), with the server's version beside the user's change in a conflict.
    static func pendingMember(_ mutations: [PendingMutation]) -> JSONValue {
        let order: [MutationState] = [.conflict, .rejected, .paused, .failed, .sending, .queued]
        let worst = mutations.min { order.firstIndex(of: $0.state)! < order.firstIndex(of: $1.state)! }!
        var members: [(String, JSONValue)] = [("mutations", .array(mutations.map { .number($0.seq) })), ("state", .string(worst.state.rawValue))]
        if worst.state == .conflict { members.append(("server", worst.current ?? .null)) }
        return .object(members)
    }

    /// The seq of the newest page the state holds of `resource` (session-only pages, seq 0,
    /// are newer than any: they were fetched after everything the log holds).
    static func newestPageSeq(_ state: LogState, source: String, resource: RestResource) -> UInt64 {
        guard let plugin = state.plugin(source) as? ManifestSource else { return 0 }
        return HeldPages.of(state, plugin: plugin, source: source, resource: resource).newestSeq
    }
}
