import Foundation

/// Image assets named by the recorded responses, served at `/assets/HOST/PATH` (the addressing
/// rule for assets: `https://HOST/PATH?Q` → `BASE/assets/HOST/PATH?Q`).
///
/// An asset is a (host, path) pair: `http` and `https` name the same asset and the query is
/// ignored when matching, so `?width=199` and `?width=960` of one image are the same bytes.
public enum SampleAssets {
    /// The route prefix of every asset.
    public static let routePrefix = "/assets"

    /// `/assets/HOST/PATH…` (query kept) for an `http(s)` URL; nil for anything else.
    public static func assetPath(for url: String) -> String? {
        guard let parts = split(url) else { return nil }
        return routePrefix + "/" + parts.host + parts.path + parts.query
    }

    /// Every asset URL the server knows, in its `https` form without query, sorted.
    public static func knownAssetURLs() -> [String] {
        catalog.sortedURLs
    }

    /// The asset's canonical URL (`https://HOST/PATH`) for a request path under `/assets`
    /// (without the query), or nil when no recorded response names that asset.
    static func lookup(requestPath: String) -> String? {
        guard requestPath.hasPrefix(routePrefix + "/") else { return nil }
        let rest = String(requestPath.dropFirst(routePrefix.count + 1))
        for candidate in [rest, rest.removingPercentEncoding].compactMap({ $0 }) {
            guard let slash = candidate.firstIndex(of: "/") else { continue }
            let key = AssetKey(host: candidate[..<slash].lowercased(), path: String(candidate[slash...]))
            if catalog.keys.contains(key) || TVMazeRoutes.isSizedImage(host: key.host, path: key.path) { return key.url }
        }
        return nil
    }

    /// The answer of the `/assets` route: the image, or a 404 JSON body for an unknown asset.
    static func respond(path: String, fullPath: String) -> RouteResult {
        guard let url = lookup(requestPath: path) else {
            return .error(404, JSONBody.encode(["error": "no such asset", "path": fullPath]))
        }
        return isPNG(url) ? .ok(AssetImages.png(url: url), contentType: "image/png") : .ok(AssetImages.jpeg(url: url), contentType: "image/jpeg")
    }

    static func isPNG(_ url: String) -> Bool {
        (split(url)?.path ?? url).lowercased().hasSuffix(".png")
    }

    // MARK: - Catalog

    struct AssetKey: Hashable, Sendable {
        var host: String
        var path: String
        var url: String { "https://\(host)\(path)" }
    }

    struct Catalog: Sendable {
        let keys: Set<AssetKey>
        let sortedURLs: [String]
    }

    /// Built once, on first use, from every fixture the server serves.
    static let catalog: Catalog = {
        var keys = Set<AssetKey>()
        func add(_ url: String) {
            if let key = imageKey(url) { keys.insert(key) }
        }
        var documents: [Any] = allFixtureFiles().map { Fixtures.json($0) }
        // Bodies the server builds whose URLs are not in any fixture file: the census v2 gnome
        // and the derived `/shows/{id}/images` variants (-background, -alt, -banner, -extra).
        if let census = JSONBody.parse(BrastlewarkRoutes.censusV2) { documents.append(census) }
        var shows = TVMazeRoutes.page0Shows2019 + TVMazeRoutes.page0Shows2024 + TVMazeRoutes.page1Shows
        if let show1 = Fixtures.json("tvmaze/show-1.json") as? [String: Any] { shows.append(show1) }
        for name in ["tvmaze/search-shows-q-girls.json", "tvmaze/search-shows-q-terminator.json"] {
            shows += (Fixtures.json(name) as? [[String: Any]] ?? []).compactMap { $0["show"] as? [String: Any] }
        }
        documents.append(shows.map { TVMazeRoutes.images(for: $0) })
        for document in documents { visitStrings(document, add) }
        // ARTIC answers carry only `image_id`; the image URL is config.iiif_url + a IIIF request.
        let iiif = ((ArticRoutes.config as? [String: Any])?["iiif_url"] as? String) ?? "https://www.artic.edu/iiif/2"
        for artwork in ArticRoutes.artworks {
            if let id = artwork["image_id"] as? String, !id.isEmpty { add(articImageURL(imageID: id, iiifURL: iiif)) }
        }
        return Catalog(keys: keys, sortedURLs: keys.map(\.url).sorted())
    }()

    static func articImageURL(imageID: String, iiifURL: String = "https://www.artic.edu/iiif/2") -> String {
        "\(iiifURL)/\(imageID)/full/843,/0/default.jpg"
    }

    static let imageExtensions = [".jpg", ".jpeg", ".png", ".gif", ".webp"]

    /// The asset key of an image URL: `http(s)`, and a path ending in an image extension once
    /// the query (or a trailing RFC 6570 template such as `{?width,height}`) is removed.
    static func imageKey(_ url: String) -> AssetKey? {
        var text = url
        if text.hasSuffix("}"), let open = text.lastIndex(of: "{") { text = String(text[..<open]) }
        guard let parts = split(text), parts.path.count > 1 else { return nil }
        let lower = parts.path.lowercased()
        guard imageExtensions.contains(where: { lower.hasSuffix($0) }) else { return nil }
        return AssetKey(host: parts.host, path: parts.path)
    }

    /// Host (lowercased), path (at least `/`) and query (with its `?`, or empty) of an `http(s)` URL.
    static func split(_ url: String) -> (host: String, path: String, query: String)? {
        let lower = url.lowercased()
        let rest: Substring
        if lower.hasPrefix("https://") { rest = url.dropFirst(8) } else if lower.hasPrefix("http://") { rest = url.dropFirst(7) } else { return nil }
        let withoutFragment = rest.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let hostEnd = withoutFragment.firstIndex { $0 == "/" || $0 == "?" } ?? withoutFragment.endIndex
        let host = withoutFragment[..<hostEnd].lowercased()
        guard !host.isEmpty else { return nil }
        let tail = withoutFragment[hostEnd...]
        let queryStart = tail.firstIndex(of: "?") ?? tail.endIndex
        let path = tail[..<queryStart].isEmpty ? "/" : String(tail[..<queryStart])
        return (host, path, String(tail[queryStart...]))
    }

    static func visitStrings(_ value: Any, _ body: (String) -> Void) {
        if let s = value as? String {
            body(s)
        } else if let a = value as? [Any] {
            for v in a { visitStrings(v, body) }
        } else if let d = value as? [String: Any] {
            for v in d.values { visitStrings(v, body) }
        }
    }

    /// Every `.json` file under Fixtures, as paths relative to it.
    static func allFixtureFiles() -> [String] {
        let root = Fixtures.root.standardizedFileURL.path
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        var files: [String] = []
        while let relative = walker.nextObject() as? String {
            if relative.hasSuffix(".json") { files.append(relative) }
        }
        return files.sorted()
    }
}

/// Small, valid, deterministic images that differ per URL.
enum AssetImages {
    // MARK: JPEG

    /// A 1×1 grey baseline JPEG (JFIF APP0, one DQT, SOF0 with one component, the standard
    /// Annex K DC and AC luminance Huffman tables, SOS, one block: DC diff 0 + EOB, EOI), as
    /// libjpeg 6.2 writes it at quality 75 without optimised tables.
    static let jpegTemplate: [UInt8] = [
        0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01,
        0x00, 0x01, 0x00, 0x00, 0xFF, 0xDB, 0x00, 0x43, 0x00, 0x08, 0x06, 0x06, 0x07, 0x06, 0x05, 0x08,
        0x07, 0x07, 0x07, 0x09, 0x09, 0x08, 0x0A, 0x0C, 0x14, 0x0D, 0x0C, 0x0B, 0x0B, 0x0C, 0x19, 0x12,
        0x13, 0x0F, 0x14, 0x1D, 0x1A, 0x1F, 0x1E, 0x1D, 0x1A, 0x1C, 0x1C, 0x20, 0x24, 0x2E, 0x27, 0x20,
        0x22, 0x2C, 0x23, 0x1C, 0x1C, 0x28, 0x37, 0x29, 0x2C, 0x30, 0x31, 0x34, 0x34, 0x34, 0x1F, 0x27,
        0x39, 0x3D, 0x38, 0x32, 0x3C, 0x2E, 0x33, 0x34, 0x32, 0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x00, 0x01,
        0x00, 0x01, 0x01, 0x01, 0x11, 0x00, 0xFF, 0xC4, 0x00, 0x1F, 0x00, 0x00, 0x01, 0x05, 0x01, 0x01,
        0x01, 0x01, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x03, 0x04,
        0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B, 0xFF, 0xC4, 0x00, 0xB5, 0x10, 0x00, 0x02, 0x01, 0x03,
        0x03, 0x02, 0x04, 0x03, 0x05, 0x05, 0x04, 0x04, 0x00, 0x00, 0x01, 0x7D, 0x01, 0x02, 0x03, 0x00,
        0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07, 0x22, 0x71, 0x14, 0x32,
        0x81, 0x91, 0xA1, 0x08, 0x23, 0x42, 0xB1, 0xC1, 0x15, 0x52, 0xD1, 0xF0, 0x24, 0x33, 0x62, 0x72,
        0x82, 0x09, 0x0A, 0x16, 0x17, 0x18, 0x19, 0x1A, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x34, 0x35,
        0x36, 0x37, 0x38, 0x39, 0x3A, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4A, 0x53, 0x54, 0x55,
        0x56, 0x57, 0x58, 0x59, 0x5A, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6A, 0x73, 0x74, 0x75,
        0x76, 0x77, 0x78, 0x79, 0x7A, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8A, 0x92, 0x93, 0x94,
        0x95, 0x96, 0x97, 0x98, 0x99, 0x9A, 0xA2, 0xA3, 0xA4, 0xA5, 0xA6, 0xA7, 0xA8, 0xA9, 0xAA, 0xB2,
        0xB3, 0xB4, 0xB5, 0xB6, 0xB7, 0xB8, 0xB9, 0xBA, 0xC2, 0xC3, 0xC4, 0xC5, 0xC6, 0xC7, 0xC8, 0xC9,
        0xCA, 0xD2, 0xD3, 0xD4, 0xD5, 0xD6, 0xD7, 0xD8, 0xD9, 0xDA, 0xE1, 0xE2, 0xE3, 0xE4, 0xE5, 0xE6,
        0xE7, 0xE8, 0xE9, 0xEA, 0xF1, 0xF2, 0xF3, 0xF4, 0xF5, 0xF6, 0xF7, 0xF8, 0xF9, 0xFA, 0xFF, 0xDA,
        0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00, 0x2B, 0xFF, 0xD9,
    ]

    /// The template with a COM segment carrying the URL right after SOI, so every URL has its
    /// own bytes (and ETag) while the image stays a valid baseline JPEG.
    static func jpeg(url: String) -> Data {
        let text = Array(url.utf8.prefix(65_533))
        let length = text.count + 2
        var out: [UInt8] = [0xFF, 0xD8, 0xFF, 0xFE, UInt8(length >> 8), UInt8(length & 0xFF)]
        out += text
        out += jpegTemplate.dropFirst(2)
        return Data(out)
    }

    // MARK: PNG

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// A 2×2 8-bit RGB PNG whose pixel colours come from the URL's hash, with a `tEXt` chunk
    /// (`url` = the URL) and an IDAT holding a zlib stream with one stored deflate block.
    static func png(url: String) -> Data {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in url.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        let colour: [UInt8] = (0..<12).map { i in
            let shifted = hash >> UInt64((i % 8) * 8)
            return UInt8(truncatingIfNeeded: shifted ^ UInt64(i * 37))
        }
        // Two scanlines: filter type 0, then three RGB pixels' worth of bytes per pixel.
        let raw: [UInt8] = [0] + colour[0..<6] + [0] + colour[6..<12]
        var out = pngSignature
        let width: UInt32 = 2, height: UInt32 = 2
        out += chunk("IHDR", be32(width) + be32(height) + [8, 2, 0, 0, 0]) // depth 8, RGB, deflate, filter 0, no interlace
        out += chunk("tEXt", Array("url".utf8) + [0] + Array(url.utf8))
        out += chunk("IDAT", zlibStored(raw))
        out += chunk("IEND", [])
        return Data(out)
    }

    /// length, type, data, CRC-32 over type + data.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        return be32(UInt32(data.count)) + typeBytes + data + be32(crc32(typeBytes + data))
    }

    /// zlib (RFC 1950) with one final stored deflate block (RFC 1951 §3.2.4); data ≤ 65535 bytes.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        precondition(data.count <= 0xFFFF)
        let len = UInt16(data.count), nlen = ~len
        // CMF 0x78 (deflate, 32K window), FLG 0x01: (0x78 << 8 | 0x01) % 31 == 0, no dictionary.
        var out: [UInt8] = [0x78, 0x01, 0x01, UInt8(len & 0xFF), UInt8(len >> 8), UInt8(nlen & 0xFF), UInt8(nlen >> 8)]
        out += data
        out += be32(adler32(data))
        return out
    }

    static func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
    }

    static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), as PNG and zlib's crc32 compute it.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = crcTable[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }

    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }
}
