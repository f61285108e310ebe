import FetchlogCore
import Foundation

struct Item: Decodable, Equatable, Sendable { let id: Int, name: String, size: Int }

func syncItems(in directory: URL, configuration: Store.Configuration = .init()) async throws
    -> (items: [Item], observed: [Item]?, export: String) {
    let manifest = try RestManifest(json: JSONValue.parse("""
        {"name": "catalog", "client": {"base_url": "https://catalog.example"}, "resources": [
          {"name": "items", "primary_key": "id", "endpoint": {"path": "pages", "data_selector": "data",
           "paginator": {"type": "page_number", "base_page": 1, "total_path": "total_pages"}}}]}
        """))
    let store = try await Store.open(at: directory, configuration: configuration)
    let catalog = try await store.define(manifest).resource("items") // "itemz": did you mean 'items'?
    try await catalog.fetch()                          // every page; throws if a page failed
    let items = try catalog.items(as: Item.self)       // decoded from the items' JSON
    var changes = catalog.observe(as: Item.self).makeAsyncIterator()
    let observed = try await changes.next()            // the items now, then each time they change
    let export = try catalog.export().canonicalText()  // the view items/catalog/items, as JSON
    await store.close()
    return (items, observed, export)
}
