import Foundation
import Synchronization

/// Recorded responses bundled as resources, so nothing is read from outside the package at run time.
enum Fixtures {
    /// Loaded once: the server answers the same bytes for the whole process lifetime.
    private static let cache = FixtureCache()

    /// Bytes of `Fixtures/<relativePath>`; a missing fixture is a packaging bug, so it traps.
    static func data(_ relativePath: String) -> Data {
        cache.data(relativePath)
    }

    static func json(_ relativePath: String) -> Any {
        // Fixtures are known-valid JSON; a failure here is a packaging bug.
        try! JSONSerialization.jsonObject(with: data(relativePath), options: [.fragmentsAllowed])
    }

    /// Names of the files directly inside a fixture folder (e.g. "artic/api-data/artworks").
    static func fileNames(in folder: String) -> [String] {
        let url = root.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.sorted()
    }

    static var root: URL {
        Bundle.module.resourceURL!.appendingPathComponent("Fixtures")
    }
}

/// A class because the cache is shared by all concurrent requests.
private final class FixtureCache: Sendable {
    private let entries = Mutex<[String: Data]>([:])

    func data(_ relativePath: String) -> Data {
        entries.withLock { entries in
            if let cached = entries[relativePath] { return cached }
            let url = Fixtures.root.appendingPathComponent(relativePath)
            guard let data = try? Data(contentsOf: url) else {
                fatalError("missing fixture \(relativePath) at \(url.path)")
            }
            entries[relativePath] = data
            return data
        }
    }
}

/// Serialisation of generated bodies. Sorted keys make every generated body byte-stable,
/// so its ETag is stable across runs and processes.
enum JSONBody {
    static func encode(_ object: Any) -> Data {
        try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
    }

    /// `text` as a JSON string, quotes included.
    static func quote(_ text: String) -> String { String(decoding: encode(text), as: UTF8.self) }

    static func parse(_ data: Data) -> Any? {
        try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    }
}
