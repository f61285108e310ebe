import FetchlogCore
import FetchlogShell
import FetchlogSources

/// The shell commands of this source (registered by `SeedSources`).
enum ThmanyahCommands {
    static func sections(_ session: any ShellContext, _ args: [String]) async throws -> ShellOutput? {
        try Shell.none(args, "sections")
        try await session.open(.thmanyahHome(1), "sections")
        session.freshnessLine(.thmanyahHome(1), "sections")
        let view = SectionsView(state: session.state)
        let rows = view.sections.map { s -> [String] in
            let (type, rawType) = SectionsView.typeNames(s.type)
            let (content, rawContent) = SectionsView.contentTypeNames(s.contentType)
            return [String(s.order), s.name, rawType.map { "\(type) (\($0))" } ?? type, rawContent.map { "\(content) (\($0))" } ?? content, String(s.items.count)]
        }
        let records: [JSONValue] = view.sections.map { s in
            .object([("order", .number(s.order)), ("name", .string(s.name)), ("type", .string(SectionsView.typeNames(s.type).0)),
                     ("contentType", .string(SectionsView.contentTypeNames(s.contentType).0)), ("items", .number(s.items.count))])
        }
        return .table(columns: ["order", "name", "type", "content", "items"], rows: rows, records: records)
    }

    static func home(_ session: any ShellContext, _ args: [String]) async throws -> ShellOutput? {
        try Shell.none(args, "home")
        try await session.open(.thmanyahHome(1), "sections")
        session.freshnessLine(.thmanyahHome(1), "sections")
        var rows: [[String]] = []
        var records: [JSONValue] = []
        for section in SectionsView(state: session.state).sections {
            for item in section.items {
                rows.append([section.name, item.name, item.duration.map { "\($0 / 60) min" } ?? "-"])
                records.append(.object([("section", .string(section.name)), ("id", .string(item.id)), ("name", .string(item.name)),
                                        ("duration", .optional(item.duration))]))
            }
        }
        return .table(columns: ["section", "item", "duration"], rows: rows, records: records)
    }

    static let commands: [ShellCommand] = [
        ShellCommand(name: "sections", usage: "sections", summary: "Thmanyah home sections in order", example: "sections", run: sections),
        ShellCommand(name: "home", usage: "home", summary: "the items of every Thmanyah home section", example: "home", run: home),
    ]
}
