/// What a response body is, so it can be decoded (and a decode failure named) right
/// after it arrives. One case per upstream endpoint shape.
public enum DocumentKind: String, Sendable, CaseIterable {
    case tvmazeShowsPage        // GET /shows?page=N → [show]
    case tvmazeShow             // GET /shows/{id} → show
    case tvmazeImages           // GET /shows/{id}/images → [image]
    case tvmazeEpisodes         // GET /shows/{id}/episodes → [episode]
    case tvmazeSearch           // GET /search/shows?q= → [{score, show}]
    case brastlewarkCensus      // GET /data.json → {"Brastlewark": [gnome]}
    case viaplayPage            // GET /ios-se, section and category pages
    case thmanyahHome           // GET /home_sections?page=N
    case thmanyahSearch         // GET /m1/735111-711675-default/search?q=
    case articArtworks          // GET /api/v1/artworks?page=&limit=
    case articArtwork           // GET /api/v1/artworks/{id} → {"data": artwork, …}
    case articAgent             // GET /api/v1/agents/{id} → {"data": agent, …}
    case asset                  // an image named by a body (JPEG, PNG, GIF, WebP)
}

/// A body that arrived but does not have the shape its endpoint promises. `path` names
/// the field (`$.Brastlewark[3].age`), `reason` what was wrong with it.
public struct DecodeError: Error, Equatable, Sendable, CustomStringConvertible {
    public let path: String
    public let reason: String
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
    public var description: String { "\(path): \(reason)" }
}
