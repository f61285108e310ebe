/// The formats an asset body may have, recognised by their bytes (not by the
/// Content-Type, which servers get wrong).
package enum ImageFormat: String, Sendable, Equatable {
    case jpeg, png, gif, webp

    package var contentType: String { "image/\(rawValue)" }

    /// The format of a complete image; a body that is not an image, or one cut short
    /// (no JPEG end marker, no PNG IEND chunk), is a `DecodeError`.
    package static func check(_ body: [UInt8]) throws(DecodeError) -> ImageFormat {
        func starts(_ prefix: [UInt8]) -> Bool { body.count >= prefix.count && Array(body.prefix(prefix.count)) == prefix }
        if starts([0xFF, 0xD8, 0xFF]) {
            guard body.count >= 4, body[body.count - 2] == 0xFF, body[body.count - 1] == 0xD9 else {
                throw DecodeError(path: "$", reason: "JPEG without its end marker: the image is cut short")
            }
            return .jpeg
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            let iend: [UInt8] = [0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]
            guard body.count >= 20, Array(body.suffix(8)) == iend else {
                throw DecodeError(path: "$", reason: "PNG without its IEND chunk: the image is cut short")
            }
            return .png
        }
        if starts(Array("GIF8".utf8)) { return .gif }
        if body.count >= 12, starts(Array("RIFF".utf8)), Array(body[8 ..< 12]) == Array("WEBP".utf8) { return .webp }
        let head = String(decoding: body.prefix(24), as: UTF8.self).replacingOccurrences(of: "\n", with: " ")
        throw DecodeError(path: "$", reason: "not an image (it starts \(head.isEmpty ? "empty" : "“\(head)”"))")
    }
}

/// What the log keeps to know about a held asset without reading its bytes.
package struct AssetInfo: Sendable, Equatable {
    package let format: ImageFormat
    package let size: Int
    package let sha256: String

    package init(_ body: [UInt8]) throws(DecodeError) {
        format = try ImageFormat.check(body)
        size = body.count
        sha256 = SHA256.hex(body)
    }
}
