import Foundation

/// What a source route answers before HTTP semantics (validators, faults) are applied.
enum RouteResult: Sendable {
    /// 200 with a JSON body; validators and caching headers are added by the server.
    case ok(Data)
    /// An error status with the source's own JSON error body (no validators).
    case error(Int, Data)

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

public struct DataVersions: Sendable, Equatable, Codable {
    public var tvmaze: TVMazeDataVersion
    public var brastlewark: BrastlewarkDataVersion

    public init(tvmaze: TVMazeDataVersion = .v2024, brastlewark: BrastlewarkDataVersion = .v1) {
        self.tvmaze = tvmaze
        self.brastlewark = brastlewark
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
