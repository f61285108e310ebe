import Foundation
import NIOHTTP1
import Testing
@testable import SampleUpstream

@Suite("Asset routes")
struct AssetRouteTests {
    static let tvmazeShow1Medium = "https://static.tvmaze.com/uploads/images/medium_portrait/81/202627.jpg"
    static let tvmazeShow1Original = "https://static.tvmaze.com/uploads/images/original_untouched/81/202627.jpg"
    static let nprPNG = "https://media.npr.org/assets/img/2023/03/01/npr-news-now_square.png?s=1400&c=66"

    @Test func assetPathHelper() {
        #expect(SampleAssets.assetPath(for: Self.tvmazeShow1Medium) == "/assets/static.tvmaze.com/uploads/images/medium_portrait/81/202627.jpg")
        #expect(SampleAssets.assetPath(for: "http://static.tvmaze.com/uploads/images/medium_portrait/81/202627.jpg") == "/assets/static.tvmaze.com/uploads/images/medium_portrait/81/202627.jpg")
        #expect(SampleAssets.assetPath(for: Self.nprPNG) == "/assets/media.npr.org/assets/img/2023/03/01/npr-news-now_square.png?s=1400&c=66")
        #expect(SampleAssets.assetPath(for: "HTTPS://Example.COM/a.jpg") == "/assets/example.com/a.jpg")
        #expect(SampleAssets.assetPath(for: "ftp://example.com/a.jpg") == nil)
        #expect(SampleAssets.assetPath(for: "/uploads/a.jpg") == nil)
        #expect(SampleAssets.assetPath(for: "https://") == nil)
    }

    @Test func knownAssetURLsAreSortedHTTPSWithoutQuery() {
        let urls = SampleAssets.knownAssetURLs()
        #expect(urls == urls.sorted())
        #expect(Set(urls).count == urls.count)
        #expect(urls.allSatisfy { $0.hasPrefix("https://") && !$0.contains("?") && !$0.contains("{") })
        #expect(urls.contains(Self.tvmazeShow1Medium))
        #expect(urls.contains(Self.tvmazeShow1Original))
        #expect(urls.contains("https://media.npr.org/assets/img/2023/03/01/npr-news-now_square.png"))
        #expect(urls.contains("https://www.artic.edu/iiif/2/1753b638-d4fb-8e45-3db9-92dde7f053da/full/843,/0/default.jpg"))
        // The derived /shows/{id}/images variants and the census v2 gnome are served too.
        #expect(urls.contains("https://static.tvmaze.com/uploads/images/medium_portrait/81/202627-alt.jpg"))
        #expect(urls.contains("https://www.publicdomainpictures.net/pictures/10000/nahled/thinking-monkey-11282237747K8xB.jpg"))
        // config.iiif_url is a base, not an image.
        #expect(!urls.contains("https://www.artic.edu/iiif/2"))
    }

    @Test func tvmazeMediumImageIsAJPEGNamingItsURL() async throws {
        try await withServer { h async throws in
            let path = try #require(SampleAssets.assetPath(for: Self.tvmazeShow1Medium))
            let r = try await h.get(path)
            #expect(r.status == 200)
            #expect(r.header("Content-Type") == "image/jpeg")
            #expect(r.header("Content-Length") == String(r.body.count))
            #expect(Array(r.body.prefix(2)) == [0xFF, 0xD8])
            #expect(Array(r.body.suffix(2)) == [0xFF, 0xD9])
            #expect(r.body.range(of: Data(Self.tvmazeShow1Medium.utf8)) != nil)
            #expect(r.body == AssetImages.jpeg(url: Self.tvmazeShow1Medium))
            #expect(r.header("ETag") == Validators.etag(for: r.body))
            #expect(r.header("Last-Modified") == "Sat, 23 Aug 2025 00:00:00 GMT")
            #expect(r.header("Cache-Control") == "max-age=86400")
            // The show's own record names exactly this URL.
            let show = try await h.get("/tvmaze/shows/1")
            #expect((show.object["image"] as? [String: Any])?["medium"] as? String == Self.tvmazeShow1Medium)
            // http and https name the same asset; a query does not change it.
            let again = try await h.get(path + "?v=2")
            #expect(again.status == 200 && again.body == r.body && again.header("ETag") == r.header("ETag"))
            let log = await h.server.requestLog
            #expect(log.map(\.path) == [path, "/tvmaze/shows/1", path + "?v=2"])
            #expect(log.map(\.status) == [200, 200, 200])
        }
    }

    @Test func differentURLsGiveDifferentBytesSameURLTheSame() async throws {
        try await withServer { h async throws in
            let medium = try await h.get(SampleAssets.assetPath(for: Self.tvmazeShow1Medium)!)
            let original = try await h.get(SampleAssets.assetPath(for: Self.tvmazeShow1Original)!)
            let mediumAgain = try await h.get(SampleAssets.assetPath(for: Self.tvmazeShow1Medium)!)
            #expect(medium.status == 200 && original.status == 200 && mediumAgain.status == 200)
            #expect(medium.body != original.body)
            #expect(medium.header("ETag") != original.header("ETag"))
            #expect(mediumAgain.body == medium.body)
            #expect(mediumAgain.header("ETag") == medium.header("ETag"))
        }
    }

    @Test func jpegStructureIsValidBaseline() throws {
        let url = Self.tvmazeShow1Medium
        let bytes = [UInt8](AssetImages.jpeg(url: url))
        #expect(bytes.count == AssetImages.jpegTemplate.count + 4 + url.utf8.count)
        // Walk the marker segments up to SOS.
        var markers: [UInt8] = []
        var i = 2
        #expect(bytes[0] == 0xFF && bytes[1] == 0xD8)
        while i + 4 <= bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1]
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            markers.append(marker)
            if marker == 0xFE { #expect(Array(bytes[(i + 4)..<(i + 2 + length)]) == Array(url.utf8)) }
            if marker == 0xC0 { #expect(Array(bytes[(i + 4)..<(i + 10)]) == [8, 0, 1, 0, 1, 1]) } // 8-bit, 1×1, 1 component
            i += 2 + length
            if marker == 0xDA { break }
        }
        #expect(markers == [0xFE, 0xE0, 0xDB, 0xC0, 0xC4, 0xC4, 0xDA])
        // One entropy-coded byte (DC diff 0, EOB), then EOI.
        #expect(Array(bytes[i...]) == [0x2B, 0xFF, 0xD9])
    }

    @Test func pngAssetIsAValidPNG() async throws {
        try await withServer { h async throws in
            let r = try await h.get(try #require(SampleAssets.assetPath(for: Self.nprPNG)))
            #expect(r.status == 200)
            #expect(r.header("Content-Type") == "image/png")
            #expect(r.header("Content-Length") == String(r.body.count))
            let canonical = "https://media.npr.org/assets/img/2023/03/01/npr-news-now_square.png"
            let chunks = try Self.pngChunks([UInt8](r.body))
            #expect(chunks.map(\.type) == ["IHDR", "tEXt", "IDAT", "IEND"])
            #expect(chunks[0].data == [0, 0, 0, 2, 0, 0, 0, 2, 8, 2, 0, 0, 0])
            #expect(chunks[1].data == Array("url".utf8) + [0] + Array(canonical.utf8))
            #expect(chunks[3].data.isEmpty)
            // IDAT: zlib header, one final stored block of two 7-byte scanlines, Adler-32.
            let idat = chunks[2].data
            #expect(Array(idat.prefix(7)) == [0x78, 0x01, 0x01, 14, 0, 0xF1, 0xFF])
            let raw = Array(idat[7..<21])
            #expect(raw[0] == 0 && raw[7] == 0)
            #expect(Array(idat.suffix(4)) == AssetImages.be32(AssetImages.adler32(raw)))
            #expect(idat.count == 7 + 14 + 4)
            // A different PNG has other pixels and another ETag.
            let other = try await h.get("/assets/media.npr.org/assets/img/2023/07/25/bsbt_tile-art-1_sq-356cd45eb06714adc134a3f2860343d68551c53c.png")
            #expect(other.status == 200 && other.header("Content-Type") == "image/png")
            #expect(other.header("ETag") != r.header("ETag"))
            #expect(try Self.pngChunks([UInt8](other.body))[2].data != idat)
        }
    }

    @Test func checksumVectors() {
        #expect(AssetImages.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(AssetImages.crc32(Array("IEND".utf8)) == 0xAE42_6082)
        #expect(AssetImages.adler32(Array("Wikipedia".utf8)) == 0x11E6_0398)
        #expect(AssetImages.adler32([]) == 1)
    }

    @Test func censusThumbnailsAreAllServed() async throws {
        let census = try #require(Fixtures.json("brastlewark/census.json") as? [String: Any])
        let gnomes = try #require(census["Brastlewark"] as? [[String: Any]])
        let thumbnails = Set(gnomes.compactMap { $0["thumbnail"] as? String })
        #expect(thumbnails.count == 32)
        let known = Set(SampleAssets.knownAssetURLs())
        try await withServer { h async throws in
            var etags = Set<String>()
            for url in thumbnails.sorted() {
                #expect(url.hasPrefix("http://"), "census thumbnails are recorded as http")
                #expect(known.contains("https://" + url.dropFirst("http://".count)))
                let r = try await h.get(try #require(SampleAssets.assetPath(for: url)))
                #expect(r.status == 200, "\(url)")
                #expect(r.header("Content-Type") == "image/jpeg")
                #expect(r.body.starts(with: [0xFF, 0xD8]) && r.body.suffix(2) == Data([0xFF, 0xD9]))
                etags.insert(r.header("ETag") ?? "")
            }
            #expect(etags.count == 32)
        }
    }

    @Test func articIIIFImageOfArtwork4() async throws {
        try await withServer { h async throws in
            let artwork = try await h.get("/artic/api/v1/artworks/4")
            let imageID = try #require((artwork.object["data"] as? [String: Any])?["image_id"] as? String)
            let iiif = try #require((artwork.object["config"] as? [String: Any])?["iiif_url"] as? String)
            let url = "\(iiif)/\(imageID)/full/843,/0/default.jpg"
            #expect(url == "https://www.artic.edu/iiif/2/1753b638-d4fb-8e45-3db9-92dde7f053da/full/843,/0/default.jpg")
            let path = try #require(SampleAssets.assetPath(for: url))
            #expect(path == "/assets/www.artic.edu/iiif/2/1753b638-d4fb-8e45-3db9-92dde7f053da/full/843,/0/default.jpg")
            let r = try await h.get(path)
            #expect(r.status == 200)
            #expect(r.header("Content-Type") == "image/jpeg")
            #expect(r.body == AssetImages.jpeg(url: url))
            // Every artwork with an image_id has its IIIF image.
            for record in ArticRoutes.artworks {
                guard let id = record["image_id"] as? String else { continue }
                #expect(try await h.get("/assets/www.artic.edu/iiif/2/\(id)/full/843,/0/default.jpg").status == 200)
            }
        }
    }

    @Test func conditionalRequestsAndHEAD() async throws {
        try await withServer { h async throws in
            let path = SampleAssets.assetPath(for: Self.tvmazeShow1Medium)!
            let first = try await h.get(path)
            let etag = try #require(first.header("ETag"))
            let cached = try await h.get(path, headers: [("If-None-Match", etag)])
            #expect(cached.status == 304)
            #expect(cached.body.isEmpty)
            #expect(cached.header("ETag") == etag)
            let byDate = try await h.get(path, headers: [("If-Modified-Since", first.header("Last-Modified") ?? "")])
            #expect(byDate.status == 304)
            let stale = try await h.get(path, headers: [("If-None-Match", "\"0000000000000000\"")])
            #expect(stale.status == 200 && stale.body == first.body)
            let head = try await h.send(.HEAD, path)
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
            #expect(head.header("Content-Type") == "image/jpeg")
            #expect(head.header("Content-Length") == String(first.body.count))
            #expect(head.header("ETag") == etag)
        }
    }

    @Test func unknownAssetIs404JSON() async throws {
        try await withServer { h async throws in
            for path in [
                "/assets/static.tvmaze.com/uploads/images/medium_portrait/81/999999999.jpg",
                "/assets/example.com/a.jpg",
                "/assets/static.tvmaze.com",
                "/assets",
                // A known host and path that is not an image.
                "/assets/www.artic.edu/iiif/2",
            ] {
                let r = try await h.get(path)
                #expect(r.status == 404, "\(path)")
                #expect(r.header("Content-Type") == "application/json; charset=utf-8")
                #expect(r.header("ETag") == nil)
                #expect(r.object["error"] as? String == "no such asset", "\(path)")
            }
        }
    }

    @Test func htmlBodyFaultOnAnAssetPrefix() async throws {
        let faults = try FaultSpec.parse("html-body@assets/static.tvmaze.com/uploads/images/medium_portrait")
        #expect(faults == [Fault(match: "/assets/static.tvmaze.com/uploads/images/medium_portrait", kind: .htmlBody)])
        #expect(faults[0].description == "html-body@/assets/static.tvmaze.com/uploads/images/medium_portrait")
        let json = try JSONEncoder().encode(faults[0])
        #expect(try JSONDecoder().decode(Fault.self, from: json) == faults[0])
        #expect(try JSONDecoder().decode(Fault.self, from: Data(#"{"kind":"htmlBody"}"#.utf8)) == Fault(kind: .htmlBody))
        try await withServer(.init(faults: faults)) { h async throws in
            let r = try await h.get(SampleAssets.assetPath(for: Self.tvmazeShow1Medium)!)
            #expect(r.status == 200)
            #expect(r.header("Content-Type") == "text/html")
            #expect(r.header("ETag") == nil)
            #expect(r.body == htmlErrorPage)
            #expect(String(decoding: r.body, as: UTF8.self).hasPrefix("<!DOCTYPE html>"))
            // Outside the prefix the image is served.
            let landscape = try await h.get("/assets/static.tvmaze.com/uploads/images/medium_landscape/1/4388.jpg")
            #expect(landscape.status == 200 && landscape.header("Content-Type") == "image/jpeg")
            let log = await h.server.requestLog
            #expect(log.map(\.fault) == ["html-body@/assets/static.tvmaze.com/uploads/images/medium_portrait", nil])
            #expect(log.map(\.status) == [200, 200])
        }
    }

    @Test func failNextAndWrongContentTypeOnAssets() async throws {
        let prefix = "/assets/static.tvmaze.com/uploads/images/medium_portrait"
        try await withServer(.init(faults: [Fault(match: prefix, kind: .failNext(2))])) { h async throws in
            let path = SampleAssets.assetPath(for: Self.tvmazeShow1Medium)!
            #expect(try await h.get(path).status == 503)
            // Another prefix is not matched and does not consume the budget.
            #expect(try await h.get(SampleAssets.assetPath(for: Self.tvmazeShow1Original)!).status == 200)
            #expect(try await h.get(path).status == 503)
            let recovered = try await h.get(path)
            #expect(recovered.status == 200 && recovered.body == AssetImages.jpeg(url: Self.tvmazeShow1Medium))
            let log = await h.server.requestLog
            #expect(log.map(\.status) == [503, 200, 503, 200])

            await h.server.setFaults([Fault(match: "/assets", kind: .wrongContentType)])
            let mislabelled = try await h.get(path)
            #expect(mislabelled.status == 200)
            #expect(mislabelled.header("Content-Type") == "text/html")
            #expect(mislabelled.body == recovered.body)

            await h.server.setFaults([Fault(match: prefix, kind: .truncated)])
            await #expect(throws: (any Error).self) { _ = try await h.get(path) }
            await h.server.setFaults(try FaultSpec.parse("reset-mid-body@\(prefix)"))
            await #expect(throws: (any Error).self) { _ = try await h.get(path) }
            await h.server.clearFaults()
            #expect(try await h.get(path).status == 200)
        }
    }

    @Test func adminAcceptsHTMLBodyFaults() async throws {
        try await withServer { h async throws in
            let set = try await h.send(.POST, "/_admin/faults", body: #"{"specs":["html-body@/assets"],"faults":[{"kind":"htmlBody","match":"/viaplay"}]}"#)
            #expect(set.status == 200)
            let active = await h.server.faults
            #expect(Set(active.map(\.description)) == ["html-body@/assets", "html-body@/viaplay"])
            let data = try await h.get("/viaplay/ios-se")
            #expect(data.status == 200 && data.header("Content-Type") == "text/html" && data.body == htmlErrorPage)
        }
    }

    struct PNGChunk { let type: String; let data: [UInt8] }
    struct PNGError: Error { let reason: String }

    /// Parses the chunk list, checking the signature and every chunk's CRC-32.
    static func pngChunks(_ bytes: [UInt8]) throws -> [PNGChunk] {
        guard bytes.starts(with: AssetImages.pngSignature) else { throw PNGError(reason: "signature") }
        var chunks: [PNGChunk] = []
        var i = 8
        while i < bytes.count {
            guard i + 12 <= bytes.count else { throw PNGError(reason: "short chunk at \(i)") }
            let length = Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            guard i + 12 + length <= bytes.count else { throw PNGError(reason: "chunk overruns at \(i)") }
            let typeAndData = Array(bytes[(i + 4)..<(i + 8 + length)])
            let crc = Array(bytes[(i + 8 + length)..<(i + 12 + length)])
            guard crc == AssetImages.be32(AssetImages.crc32(typeAndData)) else { throw PNGError(reason: "bad CRC at \(i)") }
            chunks.append(PNGChunk(type: String(decoding: typeAndData.prefix(4), as: UTF8.self), data: Array(typeAndData.dropFirst(4))))
            i += 12 + length
        }
        return chunks
    }
}
