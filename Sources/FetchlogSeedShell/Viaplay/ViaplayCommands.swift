import FetchlogCore
import FetchlogShell
import FetchlogSources

/// The shell commands of this source (registered by `SeedSources`).
enum ViaplayCommands {
    static func pages(_ session: any ShellContext, _ args: [String]) async throws -> ShellOutput? {
        try Shell.none(args, "pages")
        try await session.open(.viaplayRoot, "pages")
        session.freshnessLine(.viaplayRoot, "pages")
        let view = PagesView(state: session.state)
        let rows = view.pages.map { [$0.path, Shell.text($0.title), Shell.text($0.pageType), String($0.sections.count), String($0.blocks.count)] }
        let records: [JSONValue] = view.pages.map {
            .object([("path", .string($0.path)), ("title", .optional($0.title)), ("pageType", .optional($0.pageType)),
                     ("sections", .number($0.sections.count)), ("blocks", .number($0.blocks.count))])
        }
        return .table(columns: ["path", "title", "type", "sections", "blocks"], rows: rows, records: records)
    }


    static func page(_ session: any ShellContext, _ args: [String]) async throws -> ShellOutput? {
        let href = try Shell.one(args, "page HREF")
        guard let resource = Resource.viaplayPage(href, upstream: (session.store.fetcher?.configuration.upstream ?? .real)) else {
            throw ShellError.usage("'\(href)' is not a viaplay page: give a path (/ios-se) or a content.viaplay URL")
        }
        if PagesView(state: session.state).page(path: resource.path) == nil { try await session.open(resource) }
        guard let page = PagesView(state: session.state).page(path: resource.path) else {
            throw ShellError.failed("page \(resource.path) is not held, and it could not be fetched")
        }
        var lines = ["\(page.title ?? page.path)" + (page.pageType.map { " (\($0))" } ?? "")]
        if let description = page.description { lines.append(description) }
        for section in page.sections { lines.append("  section  \(section.title)  \(section.href)") }
        for block in page.blocks {
            lines.append("  block    \(block.title ?? block.type ?? "-")  \(block.products.count) products")
            for product in block.products.prefix(5) { lines.append("           · \(product.title ?? "-")" + (product.year.map { " (\($0))" } ?? "")) }
        }
        return .message(lines.joined(separator: "\n"), json: PagesView.json(page))
    }

    static let commands: [ShellCommand] = [
        ShellCommand(name: "pages", usage: "pages", summary: "Viaplay pages held", example: "pages", run: pages),
        ShellCommand(name: "page", usage: "page HREF", summary: "one Viaplay page (fetched when not held)", example: "page /ios-se", run: page),
    ]
}
