import FetchlogCore

extension Source {
    /// The Brastlewark gnome census: one document, held until a refresh is asked for.
    public static let brastlewark = Source("brastlewark")
}

extension DocumentKind {
    public static let brastlewarkCensus = DocumentKind("brastlewark.census")   // GET /data.json → {"Brastlewark": [gnome]}
}

/// A Brastlewark body, decoded.
public enum BrastlewarkDocument: SourceDocument, Equatable {
    /// The census with its rows and view indexes, built here once (see `GnomeCensusData`).
    case brastlewarkCensus(GnomeCensusData)
}

extension HeldDocument {
    public var brastlewark: BrastlewarkDocument? { document as? BrastlewarkDocument }
}

/// The Brastlewark plug-in: the census, held until refreshed; the gnome filter is its slice.
public struct BrastlewarkSource: SourcePlugin {
    public init() {}
    public var source: Source { .brastlewark }
    public var summary: String { "the Brastlewark gnome census, filters and friends" }
    public var realBase: String { "https://raw.githubusercontent.com/rrafols/mobile_test/master" }
    public var freshness: FreshnessRule { .heldUntilRefreshed }
    public var initialSlice: (any SourceSlice)? { GnomeFilterSlice() }

    public func documentKind(ofPath path: String) -> DocumentKind? { .brastlewarkCensus }

    public func decode(_ kind: DocumentKind, body: [UInt8]) throws(DecodeError) -> any SourceDocument {
        guard kind == .brastlewarkCensus else { throw DecodeError(path: "$", reason: "Brastlewark has no document kind '\(kind)'") }
        return try DocumentDecoder.decodeJSON(body) { (root) throws(DecodeError) in BrastlewarkDocument.brastlewarkCensus(GnomeCensusData(try Gnome.decodeCensus(root))) }
    }
}

extension Resource {
    public static let brastlewarkCensus = Resource(source: .brastlewark, path: "/data.json", document: .brastlewarkCensus)
}
