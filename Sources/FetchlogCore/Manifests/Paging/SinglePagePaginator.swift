/// dlt's `SinglePagePaginator`: the first page is the whole list.
package struct SinglePagePaginator: Paginator {
    package init() {}

    init(_ reader: ManifestReader) throws(ManifestError) {
        try reader.allow(["type"])
    }

    package func next(after page: AnsweredPage) -> PagingStep { .end(.singlePage) }
}
