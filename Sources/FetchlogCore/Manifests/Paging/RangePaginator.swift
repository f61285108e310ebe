/// dlt's `RangePaginator`, which `page_number` and `offset` are: a number that starts at
/// `first` and grows by `step` a page, sent as a query parameter or written into the JSON
/// body; the list ends at an empty page (`stop_after_empty_page`, on by default), at
/// `total_path`'s total, at `maximum`, or when `has_more_path` says false. The two kinds
/// differ only in their keys and what their requests carry.
package protocol RangePaginator: Paginator {
    /// The first request's page or offset.
    var first: Int { get }
    /// dlt's base index: a total of pages counts from it.
    var base: Int { get }
    /// How much the number grows a page.
    var step: Int { get }
    var totalPath: JSONPath? { get }
    /// `maximum_page` / `maximum_offset`.
    var maximum: Int? { get }
    var stopAfterEmptyPage: Bool { get }
    var hasMorePath: JSONPath? { get }

    /// The request at page or offset `value`.
    func request(at value: Int) -> PageRequest
}

extension RangePaginator {
    /// A range goes straight to a later page: nothing fetched on the way.
    package func first(skipping skip: Int) -> FirstPage {
        FirstPage(request: request(at: first + skip * step), uncounted: 0)
    }

    package func signals(in body: JSONValue) throws(DecodeError) -> PageSignals {
        PageSignals(total: totalPath?.first(in: body)?.intValue, hasMore: try hasMorePath.map { path throws(DecodeError) in try PageSignals.hasMore(at: path, in: body) })
    }

    /// As dlt's `RangePaginator`: an empty page ends the list when asked to; else the next
    /// value, unless past the total or the maximum, or `has_more_path` says false.
    package func next(after page: AnsweredPage) -> PagingStep {
        if stopAfterEmptyPage && page.itemCount == 0 { return .end(.emptyPage) }
        if step == 0 { return .end(.noStep) }
        let value = (page.request.position ?? first) + step
        if let total = page.signals.total, value >= total + base { return .end(.total) }
        if let maximum, value >= maximum { return .end(.maximum) }
        if page.signals.hasMore == false { return .end(.noMore) }
        if page.signals.total == nil && maximum == nil && hasMorePath == nil && !stopAfterEmptyPage { return .end(.noStopRule) }
        return .request(request(at: value))
    }

    package var pageBound: Int? {
        // A step of 0 (offset `limit: 0`) asks one page whatever the maximum.
        step > 0 ? maximum.map { max(0, ($0 - first + step - 1) / step) } : 1
    }
}

/// dlt's `PageNumberPaginator`: the page number goes to `page_param` or `page_body_path`,
/// from `page` (else `base_page`), one a page.
package struct PageNumberPaginator: RangePaginator {
    package var first: Int
    /// `base_page`.
    package var base: Int
    package var step: Int { 1 }
    /// Where the page number goes.
    package var target: PagingTarget
    package var totalPath: JSONPath?
    package var maximum: Int?
    package var stopAfterEmptyPage: Bool
    package var hasMorePath: JSONPath?

    init(_ reader: ManifestReader) throws(ManifestError) {
        try reader.allow(["type", "base_page", "page", "page_param", "page_body_path", "total_path", "maximum_page",
                          "stop_after_empty_page", "has_more_path"])
        base = try reader.optionalInt("base_page") ?? 0
        first = try reader.optionalInt("page") ?? base
        target = try reader.pagingTarget(param: "page_param", bodyPath: "page_body_path", defaultParam: "page")
        totalPath = try reader.totalPath()
        maximum = try reader.optionalInt("maximum_page")
        stopAfterEmptyPage = try reader.optionalBool("stop_after_empty_page") ?? true
        hasMorePath = try reader.jsonPath("has_more_path")
    }

    package func request(at value: Int) -> PageRequest {
        var request = PageRequest(position: value)
        target.place(.number(String(value)), text: String(value), in: &request)
        return request
    }

    package var writesBody: Bool { target.isBody }
}

/// dlt's `OffsetPaginator`: the offset goes to `offset_param` or `offset_body_path`, from
/// `offset` (0), growing by `limit` a page; the limit goes to `limit_param` or
/// `limit_body_path`.
package struct OffsetPaginator: RangePaginator {
    /// `offset`.
    package var first: Int
    package var base: Int { 0 }
    /// `limit`: the items a page asks for.
    package var step: Int
    /// Where the offset goes.
    package var target: PagingTarget
    /// Where the limit goes.
    package var limit: PagingTarget
    package var totalPath: JSONPath?
    package var maximum: Int?
    package var stopAfterEmptyPage: Bool
    package var hasMorePath: JSONPath?

    init(_ reader: ManifestReader) throws(ManifestError) {
        try reader.allow(["type", "limit", "offset", "offset_param", "offset_body_path", "limit_param", "limit_body_path", "total_path",
                          "maximum_offset", "stop_after_empty_page", "has_more_path"])
        step = try reader.int("limit")
        // `limit: 0` is dlt's too (a config generated from an API's defaults): one page,
        // since an offset that never moves would ask the same page again.
        guard step >= 0 else { throw ManifestError(path: reader.path + ".limit", message: "must be 0 or more") }
        first = try reader.optionalInt("offset") ?? 0
        target = try reader.pagingTarget(param: "offset_param", bodyPath: "offset_body_path", defaultParam: "offset")
        limit = try reader.pagingTarget(param: "limit_param", bodyPath: "limit_body_path", defaultParam: "limit")
        totalPath = try reader.totalPath()
        maximum = try reader.optionalInt("maximum_offset")
        stopAfterEmptyPage = try reader.optionalBool("stop_after_empty_page") ?? true
        hasMorePath = try reader.jsonPath("has_more_path")
    }

    /// The offset, then the limit, as dlt adds them.
    package func request(at value: Int) -> PageRequest {
        var request = PageRequest(position: value)
        target.place(.number(String(value)), text: String(value), in: &request)
        limit.place(.number(String(step)), text: String(step), in: &request)
        return request
    }

    package var writesBody: Bool { target.isBody || limit.isBody }
}
