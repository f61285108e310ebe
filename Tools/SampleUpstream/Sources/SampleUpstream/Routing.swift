import Foundation

/// What a source route answers before HTTP semantics (validators, faults) are applied.
enum RouteResult: Sendable {
    /// 200 with a body (JSON unless the content type says otherwise); validators and caching
    /// headers are added by the server; `link` is sent as the `Link` header.
    case ok(Data, contentType: String = RouteResult.jsonContentType, link: String? = nil, headers: [(String, String)] = [])
    /// An error status with the source's own JSON error body (no validators).
    case error(Int, Data)

    static let jsonContentType = "application/json; charset=utf-8"

    static func notFoundRoute(_ fullPath: String) -> RouteResult {
        .error(404, JSONBody.encode(["error": "no such route", "path": fullPath]))
    }
}

/// The data version each versioned source serves; switchable at run time.
public enum TVMazeDataVersion: String, Sendable, Codable, CaseIterable {
    /// shows-page-0-2019.json: the old 20-key schema with http image URLs.
    case v2019 = "2019"
    /// shows-page-0-2024.json: the current 23-key schema (the default).
    case v2024 = "2024"
}

public enum BrastlewarkDataVersion: String, Sendable, Codable, CaseIterable {
    /// census.json byte for byte (the default).
    case v1
    /// The census with gnome 0 one year older and one gnome (id 1337) added.
    case v2
}

public enum ViaplayDataVersion: String, Sendable, Codable, CaseIterable {
    /// ios-se-root-2022.json: the content.viaplay.se root (the default).
    case v2022 = "2022"
    /// ios-se-root-2024.json: the content.viaplay.com root, byte for byte.
    case v2024 = "2024"
}

public struct DataVersions: Sendable, Equatable, Codable {
    public var tvmaze: TVMazeDataVersion
    public var brastlewark: BrastlewarkDataVersion
    public var viaplay: ViaplayDataVersion

    public init(tvmaze: TVMazeDataVersion = .v2024, brastlewark: BrastlewarkDataVersion = .v1, viaplay: ViaplayDataVersion = .v2022) {
        self.tvmaze = tvmaze
        self.brastlewark = brastlewark
        self.viaplay = viaplay
    }

    private enum CodingKeys: String, CodingKey {
        case tvmaze, brastlewark, viaplay
    }

    /// A missing key means that source's default, so JSON written before a source became
    /// versioned still decodes.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            tvmaze: try c.decodeIfPresent(TVMazeDataVersion.self, forKey: .tvmaze) ?? .v2024,
            brastlewark: try c.decodeIfPresent(BrastlewarkDataVersion.self, forKey: .brastlewark) ?? .v1,
            viaplay: try c.decodeIfPresent(ViaplayDataVersion.self, forKey: .viaplay) ?? .v2022
        )
    }
}

/// Query items of a request, percent-decoded (`+` as space, as form encoding sends it).
func parseQuery(_ query: String?) -> [String: String] {
    guard let query, !query.isEmpty else { return [:] }
    var result: [String: String] = [:]
    for pair in query.split(separator: "&") {
        let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        func decode(_ s: Substring) -> String {
            let plain = s.replacingOccurrences(of: "+", with: " ")
            return plain.removingPercentEncoding ?? plain
        }
        let key = decode(parts[0])
        // The first occurrence wins, as most servers do.
        if result[key] == nil { result[key] = parts.count > 1 ? decode(parts[1]) : "" }
    }
    return result
}
