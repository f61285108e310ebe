/// What a list's reports say when paging stopped before the list said it ended, or when
/// a page's items did not all reach the view: the notices `ManifestPager` adds.
enum ListNotices {
    /// An API that ignores the paging parameter answers the same page for ever.
    static func repeatedPage(_ label: String) -> FetchNotice {
        FetchNotice(.repeatedPage, "\(label) repeats the page before it, body for body: "
            + "paging stopped there (the API may not take the paginator's parameter)")
    }

    /// A loop in the API's links: a page it would ask for twice.
    static func loop(next label: String) -> FetchNotice {
        FetchNotice(.repeatedPage, "the next page, \(label), was fetched already in this run: paging stopped (a loop in the API's links)")
    }

    /// The run reached its ceiling (`ceiling` names it) with the list not ended.
    static func ceiling(_ ceiling: String, next label: String) -> FetchNotice {
        FetchNotice(.pageCeiling, "stopped at \(ceiling) with the list not ended (next: \(label)); "
            + "\(FrontEndTerm.pageCeiling) N (or the paginator's maximum_page) moves the ceiling")
    }

    /// A next link outside the source's base, not followed: its credentials stay with it.
    static func linkNotFollowed(_ url: String, source: ManifestSource) -> FetchNotice {
        FetchNotice(.linkNotFollowed, "the next link \(url) is outside \(source.source)'s base \(source.realBase): "
            + "not followed, so paging stopped (Fetchlog sends a source's requests, and its credentials, to its base's origin only)")
    }

    /// What a page's items lose in the view: without a primary key value an item cannot be
    /// told from another and is left out; an item that is not an object has no fields.
    static func leftOut(_ page: ManifestPage, resource: RestResource, source: Source) -> [FetchNotice] {
        guard page.keylessItems > 0 else { return [] }
        let key = resource.primaryKey.joined(separator: ", ")
        let objects = page.keylessItems - page.nonObjectItems
        var parts: [String] = []
        if objects > 0 { parts.append("\(objects) without a value for the primary key (\(key))") }
        if page.nonObjectItems > 0 { parts.append("\(page.nonObjectItems) that \(page.nonObjectItems == 1 ? "is" : "are") not an object") }
        return [FetchNotice(.itemsLeftOut, "\(page.keylessItems) of the page's \(page.items.count) items left out of items/\(source)/\(resource.name): "
            + parts.joined(separator: " and "), count: page.keylessItems)]
    }
}
