/// A response body decoded into the DTOs of its endpoint shape, one case per `DocumentKind`.
public enum DecodedDocument: Sendable, Equatable {
    case tvmazeShowsPage([TVMazeShow])
    case tvmazeShow(TVMazeShow)
    case tvmazeImages([TVMazeImage])
    case tvmazeEpisodes([TVMazeEpisode])
    case tvmazeSearch([TVMazeSearchResult])
    case brastlewarkCensus([Gnome])
    case viaplayPage(ViaplayPage)
    case thmanyahHome(ThmanyahHome)
    /// The search answer's sections, decoded leniently (it has no pagination).
    case thmanyahSearch([ThmanyahSection])
    case articArtworks(ArticArtworksPage)
    /// The `data` record and the answer's `config.iiif_url`.
    case articArtwork(ArticArtwork, iiifURL: String?)
    case articAgent(ArticAgent)
    /// An image: its format (as its bytes say), size and SHA-256.
    case asset(AssetInfo)
}

/// Turns raw bodies into `DecodedDocument`s. Pure: the same bytes always give the same
/// result, and a body that does not fit throws a `DecodeError` naming the offending path —
/// it never traps.
public enum DocumentDecoder {
    public static func decode(_ kind: DocumentKind, body: [UInt8]) throws(DecodeError) -> DecodedDocument {
        if kind == .asset { return .asset(try AssetInfo(body)) } // not JSON
        // `withUnsafeBytes` only rethrows untyped errors; a Result keeps the DecodeError typed.
        let result = body.withUnsafeBytes { (bytes) -> Result<DecodedDocument, DecodeError> in
            let tape: JSONTape
            do throws(JSONParseError) {
                tape = try JSONTape.parse(bytes)
            } catch {
                return .failure(DecodeError(path: "$", reason: error.description))
            }
            return tape.entries.withUnsafeBufferPointer { entries in
                Result { () throws(DecodeError) in try decode(kind, root: JSONCursor(bytes: bytes, entries: entries)) }
            }
        }
        return try result.get()
    }

    /// The DTOs of `kind` from a parsed body. Reads only the fields the DTOs name.
    private static func decode(_ kind: DocumentKind, root: JSONCursor) throws(DecodeError) -> DecodedDocument {
        switch kind {
        case .tvmazeShowsPage: return .tvmazeShowsPage(try root.map(TVMazeShow.decode))
        case .tvmazeShow: return .tvmazeShow(try TVMazeShow.decode(root))
        case .tvmazeImages: return .tvmazeImages(try root.map(TVMazeImage.decode))
        case .tvmazeEpisodes: return .tvmazeEpisodes(try root.map(TVMazeEpisode.decode))
        case .tvmazeSearch: return .tvmazeSearch(try root.map(TVMazeSearchResult.decode))
        case .brastlewarkCensus: return .brastlewarkCensus(try Gnome.decodeCensus(root))
        case .viaplayPage: return .viaplayPage(try ViaplayPage.decode(root))
        case .thmanyahHome: return .thmanyahHome(try ThmanyahHome.decode(root))
        case .thmanyahSearch: return .thmanyahSearch(try ThmanyahSection.decodeAll(try root.field("sections"), loose: true))
        case .articArtworks: return .articArtworks(try ArticArtworksPage.decode(root))
        case .articArtwork:
            return .articArtwork(try ArticArtwork.decode(try root.field("data")), iiifURL: try ArticArtwork.iiifURL(in: root))
        case .articAgent: return .articAgent(try ArticAgent.decode(try root.field("data")))
        case .asset: throw DecodeError(path: "$", reason: "an image body is not JSON") // decoded before parsing
        }
    }
}
