import FetchlogCore

/// What the read model keeps of the census for a one-shot `gnomes [TEXT]` (issue 35, cold
/// start: `fetchlog query "gnomes tob"` answers without decoding the census), and that
/// answer. The census is held until refreshed, so a held one is always fresh: the command
/// never revalidates it, and a copy as current as the log answers as the store would.
///
/// Header: version, census count, whether a filter is active (then its text and the
/// positions it lets through, ascending), the search index's bytes (each gnome's folded
/// name, hair colour and professions, as `GnomeRow.searchKeys`). Records: each gnome's
/// `gnomes --format json` record, in census order.
package enum GnomesCopy {
    package static let version = 1

    /// The copy of `state`'s census; nil when none is held (the command then fetches it) or
    /// when its texts do not fit the index's bytes (a separator byte in a name).
    package static func make(_ state: LogState) -> ViewCopy? {
        let census = GnomeCensus.data(in: state)
        let rows = census.rows
        guard !rows.isEmpty else { return nil }
        let index = ItemsSearchIndex(count: rows.count) { rows[$0].searchKeys.map(\.text) }
        guard index.separable else { return nil }
        var header = CopyHeaderWriter()
        header.append(version)
        header.append(rows.count)
        let filters = FiltersView(state: state)
        if filters.active.isEmpty {
            header.append(0)
        } else {
            header.append(1)
            header.append(GnomeWords.filterText(filters.active))
            let selection = filters.selection()
            header.append(selection.positions.count)
            for position in selection.positions { header.append(Int(position)) }
        }
        header.append(bytes: index.bytes)
        return ViewCopy(header: header.bytes, records: rows.map { GnomeWords.record($0).canonicalText() })
    }
}
