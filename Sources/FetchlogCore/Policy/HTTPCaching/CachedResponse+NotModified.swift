extension CachedResponse {
    /// This response freshened by a 304 (Not Modified) answer to its revalidation
    /// (RFC 9111 §4.3.4), or nil when the 304 does not select it — then it must not be
    /// updated, and the caller fetches again without validators.
    ///
    /// Selection: a strong `ETag` in the 304 selects the stored response only if it has the
    /// same strong entity-tag; a weak one (or, without an ETag, a `Last-Modified`) only if it
    /// matches the stored one. A 304 with no validator at all is taken as answering the
    /// request this cache made from this response: §4.3.4 only selects that way when the
    /// stored response has no validator either, but that rule guards a cache choosing among
    /// several stored responses, and this one holds one per request.
    ///
    /// Update (§3.2): every field of the 304 replaces the stored lines of that name (in the
    /// place of the first one; new names go at the end), except the fields a cache never
    /// stores and `Content-Length`, which describes the stored content, not the empty 304.
    /// The new times (and the 304's `Date` and `Age`) restart the age: it was just validated.
    package func updated(byNotModified notModified: [FieldLine], requestHeaders: [FieldLine] = [],
                         requestTime: Int64, responseTime: Int64) -> CachedResponse? {
        guard isSelected(byNotModified: notModified) else { return nil }
        let connectionListed = Set(notModified.listMembers("Connection").map(\.asciiLowercased))
        var incoming = notModified.filter {
            let name = $0.name.asciiLowercased
            return !HTTPCachePolicy.fieldsNotUpdatedBy304.contains(name) && !connectionListed.contains(name)
        }
        // The stored Date and Age describe the response as first received; the age now
        // counts from this validation (§4.2.3). A 304 without Date gets its time of receipt
        // (RFC 9110 §6.6.1), else the old Date would make it stale again at once; without
        // Age, the stored Age goes (an upstream cache's old figure no longer applies).
        if !incoming.containsField("Date") { incoming.append(FieldLine("Date", HTTPDate.format(responseTime / 1000))) }
        var replaced = Set(incoming.map { $0.name.asciiLowercased })
        replaced.insert("age")
        var merged: [FieldLine] = []
        var placed = Set<String>()
        for line in headers {
            let name = line.name.asciiLowercased
            guard replaced.contains(name) else {
                merged.append(line)
                continue
            }
            if placed.insert(name).inserted {
                merged += incoming.filter { $0.name.asciiLowercased == name }
            }
        }
        merged += incoming.filter { !placed.contains($0.name.asciiLowercased) }
        // The selecting request fields: the ones kept, unless the revalidating request
        // brings fields the (possibly new) Vary names.
        let request = requestHeaders.isEmpty ? selectingRequestHeaders : requestHeaders
        return CachedResponse(status: status, headers: merged, requestMethod: requestMethod, requestHeaders: request,
                              requestTime: requestTime, responseTime: responseTime)
    }

    /// §4.3.4's identification of the stored response a 304 updates.
    func isSelected(byNotModified notModified: [FieldLine]) -> Bool {
        let stored = headers.firstFieldValue("ETag").map(EntityTag.init)
        if let received = notModified.firstFieldValue("ETag").map(EntityTag.init) {
            guard let stored else { return false }
            return received.isWeak ? received.opaque == stored.opaque : (!stored.isWeak && received.opaque == stored.opaque)
        }
        if let received = notModified.firstFieldValue("Last-Modified")?.trimmingOWS() {
            guard let storedDate = lastModifiedValue, let receivedDate = HTTPDate.parse(received, reference: responseTime / 1000) else {
                return false
            }
            return storedDate == Self.ms(receivedDate)
        }
        return true
    }
}

/// An entity-tag split into its weakness flag and opaque part (RFC 9110 §8.8.3), for the
/// comparisons of §8.8.3.2. A malformed one compares by its whole text.
struct EntityTag: Equatable {
    let isWeak: Bool
    let opaque: String

    init(_ text: String) {
        let trimmed = text.trimmingOWS()
        if trimmed.hasPrefix("W/") {
            isWeak = true
            opaque = String(trimmed.dropFirst(2))
        } else {
            isWeak = false
            opaque = trimmed
        }
    }
}
