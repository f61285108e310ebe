/// A stored response and what RFC 9111 needs to judge it later: its status and header
/// fields, the request fields its `Vary` names, and when it was requested and received.
///
/// Times are milliseconds since the Unix epoch (Fetchlog's timestamps), taken by the
/// caller's clock; every judgement takes `now` the same way, so a replay of the log gives
/// the same answers. Freshness lifetime and age are kept in milliseconds as well, although
/// HTTP's own values are whole seconds: `response_delay` and `resident_time` are not.
package struct CachedResponse: Sendable, Equatable {
    package let status: Int
    /// The stored header fields, in order: as received, less the fields a cache never keeps
    /// (`HTTPCachePolicy.headersToStore`).
    package let headers: [FieldLine]
    /// The method of the request that got it (only GET responses are storable).
    package let requestMethod: String
    /// The request's lines for the fields `Vary` names: what a later request must match.
    package let selectingRequestHeaders: [FieldLine]
    /// When the request that got this response (or last revalidated it) was sent.
    package let requestTime: Int64
    /// When this response (or the 304 that last revalidated it) was received.
    package let responseTime: Int64
    /// `Cache-Control` of `headers`, parsed once.
    package let cacheControl: CacheControl

    /// A response as received for a request. `requestHeaders` may be the whole request:
    /// only the fields `Vary` names are kept.
    package init(status: Int, headers: [FieldLine], requestMethod: String = "GET", requestHeaders: [FieldLine] = [],
                 requestTime: Int64, responseTime: Int64) {
        self.status = status
        let stored = HTTPCachePolicy.headersToStore(headers)
        self.headers = stored
        self.requestMethod = requestMethod
        let varying = Set(stored.listMembers("Vary").map(\.asciiLowercased))
        selectingRequestHeaders = requestHeaders.filter { varying.contains($0.name.asciiLowercased) }
        self.requestTime = requestTime
        self.responseTime = responseTime
        cacheControl = CacheControl(stored)
    }

    /// Whether the HTTP rules let this response answer a later request at all (§3).
    package var isStorable: Bool {
        HTTPCachePolicy.isStorable(method: requestMethod, status: status, headers: headers, cacheControl: cacheControl)
    }

    // MARK: Dates and validators

    /// Seconds → milliseconds.
    static func ms(_ seconds: Int64) -> Int64 { seconds * 1000 }

    /// `Date`, in milliseconds, or nil when absent or invalid. RFC 9110 §6.6.1 has a
    /// recipient treat a missing date as the time of receipt; an unreadable one is no better.
    var dateValue: Int64? {
        headers.firstFieldValue("Date").flatMap { HTTPDate.parse($0.trimmingOWS(), reference: responseTime / 1000) }.map(Self.ms)
    }

    /// `date_value` of §4.2.3: `Date`, else the time of receipt.
    var effectiveDate: Int64 { dateValue ?? responseTime }

    /// `Last-Modified`, in milliseconds, when it is a valid HTTP-date.
    var lastModifiedValue: Int64? {
        headers.firstFieldValue("Last-Modified").flatMap { HTTPDate.parse($0.trimmingOWS(), reference: responseTime / 1000) }.map(Self.ms)
    }

    /// What makes a request for this response conditional (§4.3.1).
    package var validators: ConditionalRequest {
        let etag = headers.firstFieldValue("ETag")?.trimmingOWS()
        // An If-Modified-Since the origin cannot read would be ignored at best: only a
        // valid date is sent, and verbatim (RFC 9110 §13.1.3 has the origin compare it
        // with its Last-Modified as sent).
        let lastModified = lastModifiedValue == nil ? nil : headers.firstFieldValue("Last-Modified")?.trimmingOWS()
        return ConditionalRequest(etag: etag?.isEmpty == true ? nil : etag, lastModified: lastModified)
    }
}

/// The validators of a stored response, as the precondition fields of the request that
/// revalidates it (RFC 9111 §4.3.1).
package struct ConditionalRequest: Sendable, Equatable {
    /// `ETag` as stored, sent verbatim in `If-None-Match` (even when it is not a well-formed
    /// entity-tag: the origin compares it with what it sent).
    package var etag: String?
    /// `Last-Modified` as stored, sent in `If-Modified-Since`.
    package var lastModified: String?

    package init(etag: String?, lastModified: String?) {
        self.etag = etag
        self.lastModified = lastModified
    }

    /// No validator: the revalidation is a plain request whose answer replaces the stored one.
    package var isEmpty: Bool { etag == nil && lastModified == nil }

    /// The precondition fields to add to the request. Both are sent when both exist: the
    /// origin gives If-None-Match precedence (RFC 9110 §13.2.2), and one that ignores
    /// entity-tags can still answer by date.
    package var headers: [FieldLine] {
        var lines: [FieldLine] = []
        if let etag { lines.append(FieldLine("If-None-Match", etag)) }
        if let lastModified { lines.append(FieldLine("If-Modified-Since", lastModified)) }
        return lines
    }
}
