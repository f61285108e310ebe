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
    /// resource (`newestPageSeq`), asked for only when there are writes.
    static func items(_ items: [JSONValue], positions: () -> [[String]: [Int]], state: LogState, source: String, resource: String,
                      key: [String], newestPage: () -> UInt64, confirmedOnly: Bool) -> [JSONValue]? {
        let writes = state.writes
        guard !writes.confirmed.isEmpty || !writes.mutations.isEmpty else { return nil }
        let prefix = source + "/" + resource + "/"
        let newestPage = newestPage()
        let answers = writes.confirmed.filter { $0.key.hasPrefix(prefix) && $0.value.seq > newestPage }.sorted { $0.value.seq < $1.value.seq }
        let mutations = confirmedOnly ? [] : writes.pending.filter { $0.source == source && $0.resource == resource && $0.state != .rejected }
        guard !answers.isEmpty || !mutations.isEmpty else { return nil }
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
        for mutation in mutations {
            let text = writes.itemKey(mutation)
            switch mutation.op {
            case .create:
                var item = mutation.fields
                if key.count == 1, item[key[0]] == nil { item = ItemsView.adding([(key[0], .string(text))], to: item) }
                if let at = list.index(of: text) { list[at] = item } else { list.append(item) }
            case .update:
                guard let at = list.index(of: text) else { continue }
                list[at] = ItemsView.adding(members(mutation.fields), to: list[at])
            case .replace:
                guard let at = list.index(of: text) else { continue }
                let keyMembers = key.map { ($0, list[at][$0] ?? .null) }
                list[at] = ItemsView.adding(members(mutation.fields), to: .object(keyMembers))
            case .delete:
                guard let at = list.index(of: text) else { continue }
                list.remove(at: at)
                marks[text] = nil
                continue
            }
            marks[text, default: []].append(mutation)
        }
        for (text, changed) in marks {
            guard let at = list.index(of: text) else { continue }
            list[at] = ItemsView.adding([("pending", pendingMember(changed))], to: list[at])
        }
        return list.items
    }

    /// The items being folded, changed where the writes say and copied once at the end: the
    /// base items stay shared, a position is the item's place in the base (then in the items
    /// added after it), and each key's positions are kept as items change, are removed or
    /// added — so finding an item by key is what scanning the list for it was: the first
    /// item left that has that key.
    struct Folding {
        let base: [JSONValue]
        let key: [String]
        /// Each key's positions in the base (ascending), as they were before any change.
        let basePositions: [[String]: [Int]]
        /// Each changed key's positions now (ascending): a key's entry here replaces its base one.
        private var changedPositions: [[String]: [Int]] = [:]
        private var replaced: [Int: JSONValue] = [:]
        private var removed = Set<Int>()
        private var added: [JSONValue] = []

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
        let kind = plugin.kind(of: resource)
        var newest: UInt64 = 0
        for (key, held) in state.documents where key.source == source && plugin.documentKind(ofPath: key.path) == kind {
            newest = max(newest, held.seq == 0 ? .max : held.seq)
        }
        return newest
    }
}
