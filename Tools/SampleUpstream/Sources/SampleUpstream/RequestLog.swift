import Foundation

/// One request as the sample upstream saw and answered it (admin requests are not recorded).
public struct RequestRecord: Sendable, Equatable, Codable {
    /// 0-based, in arrival order; keeps counting after the log is cleared so records stay distinct.
    public var index: Int
    public var method: String
    /// Path with query, as sent by the client (e.g. `/tvmaze/shows?page=0`).
    public var path: String
    /// Status sent; 0 when the request was held without an answer (`noAnswer`).
    public var status: Int
    public var ifNoneMatch: String?
    public var ifModifiedSince: String?
    /// The faults applied, in text-spec form, or nil.
    public var fault: String?
    public var date: Date
    /// Every request header, names lowercased, repeated values joined with ", ": what a test
    /// checks to see that credentials or validators were (or were not) sent. nil in records
    /// decoded from a log written before this field existed.
    public var headers: [String: String]?
    /// The form a token request POSTed (`/catalog/oauth/token`), as sent: what a test
    /// checks to see which client id and secret were read. nil for every other request.
    public var form: String?

    public init(index: Int, method: String, path: String, status: Int, ifNoneMatch: String?, ifModifiedSince: String?, fault: String?, date: Date,
                headers: [String: String]? = nil, form: String? = nil) {
        self.index = index
        self.method = method
        self.path = path
        self.status = status
        self.ifNoneMatch = ifNoneMatch
        self.ifModifiedSince = ifModifiedSince
        self.fault = fault
        self.date = date
        self.headers = headers
        self.form = form
    }
}

struct RequestLog: Sendable {
    private(set) var records: [RequestRecord] = []
    private var nextIndex = 0

    mutating func append(method: String, path: String, status: Int, ifNoneMatch: String?, ifModifiedSince: String?, fault: String?,
                         headers: [String: String]? = nil, form: String? = nil) -> RequestRecord {
        let record = RequestRecord(
            index: nextIndex, method: method, path: path, status: status,
            ifNoneMatch: ifNoneMatch, ifModifiedSince: ifModifiedSince, fault: fault, date: Date(), headers: headers, form: form)
        nextIndex += 1
        records.append(record)
        return record
    }

    mutating func clear() { records.removeAll() }

    static func encode(_ records: [RequestRecord]) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return (try? encoder.encode(records)) ?? Data("[]".utf8)
    }
}
