import FetchlogCore
import FetchlogShell
import FetchlogSources

/// The census copy's answer to a one-shot `gnomes` (the copy itself is `GnomesCopy.make`'s).
extension GnomesCopy {
    /// `gnomes [--limit N] [--page N] [TEXT]` from `held`, as `BrastlewarkCommands.gnomes`
    /// answers from the store: the same parsing, selection, page and footer. Nil when the
    /// copy cannot answer (another version, a needle holding a separator byte).
    static func gnomes(_ held: HeldViewCopy, _ args: [String]) throws -> ShellOutput? {
        let arguments = try ShellArguments(args, usage: BrastlewarkCommands.gnomesUsage, options: ["limit", "page"])
        let limit = try arguments.int("limit", minimum: 1) ?? Shell.pageSize
        let page = try arguments.int("page", minimum: 1) ?? 1
        var header = CopyHeaderReader(held.header)
        guard header.int() == version, let census = header.int(), census == held.count, let filtered = header.int() else { return nil }
        var filterText: String?
        var allowed: [Int]?
        if filtered == 1 {
            guard let text = header.text(), let count = header.int() else { return nil }
            var positions: [Int] = []
            positions.reserveCapacity(count)
            for _ in 0 ..< count {
                guard let position = header.int() else { return nil }
                positions.append(position)
            }
            filterText = text
            allowed = positions
        }
        guard let searchBytes = header.bytes() else { return nil }
        let text = arguments.positionals.joined(separator: " ")
        let key = GnomeText.key(text)
        var list = allowed ?? Array(0 ..< census)
        if !key.isEmpty {
            let index = ItemsSearchIndex(bytes: searchBytes)
            guard index.count == census, let found = index.matching(key) else { return nil }
            if let allowed {
                let kept = Set(found)
                list = allowed.filter(kept.contains)
            } else {
                list = found
            }
        }
        let (shown, pages) = try Shell.page(list, page, size: limit, noun: "gnomes")
        let records = try held.records(at: shown)
        let rows = try records.map { record in
            guard case .number(let id)? = record["id"], let name = record["name"]?.stringValue, case .number(let age)? = record["age"],
                  let hair = record["hairColor"]?.stringValue, let professions = record["professions"]?.arrayValue,
                  let friends = record["friends"]?.arrayValue else { throw GnomesCopyError.damaged }
            return [id, name, age, hair, professions.compactMap(\.stringValue).joined(separator: ", "), String(friends.count)]
        }
        let filter = filterText.map { " (filter: \($0))" } ?? ""
        var footer = "page \(page) of \(pages) · \(list.count) gnomes" + filter
        if list.isEmpty {
            footer = text.isEmpty
                ? "no gnome matches the filter\(filter) of \(census) in the census: filter reset shows them all"
                : "no gnome's name, hair colour or profession contains '\(text)'\(filter); \(census) gnomes in the census"
        }
        return .table(columns: BrastlewarkCommands.gnomesColumns, rows: rows, records: records, footer: footer)
    }
}

/// A copy record that is not a gnome's (a damaged read model: the store answers).
enum GnomesCopyError: Error { case damaged }
