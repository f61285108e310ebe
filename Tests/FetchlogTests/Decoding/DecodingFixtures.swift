import Foundation
import Testing
@testable import FetchlogCore
@testable import FetchlogSources

/// Recorded upstream bodies, read from the sample upstream's Fixtures folder in this repo.
enum DecodingFixtures {
    static let folder = Repo.root + "/Tools/SampleUpstream/Sources/SampleUpstream/Fixtures/"

    static func bytes(_ relativePath: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + relativePath)))
    }

    static func text(_ relativePath: String) throws -> String {
        String(decoding: try bytes(relativePath), as: UTF8.self)
    }

    /// Decodes a fixture file as `kind`.
    static func decode(_ kind: DocumentKind, _ relativePath: String) throws -> any SourceDocument {
        try SeedSources.decode(kind, body: try bytes(relativePath))
    }

    /// The `DecodeError` decoding `body` as `kind` throws, or nil when it decodes.
    static func failure(_ kind: DocumentKind, _ body: [UInt8]) -> DecodeError? {
        do {
            _ = try SeedSources.decode(kind, body: body)
            return nil
        } catch {
            return error
        }
    }

    /// `text` with the first occurrence of `target` after `anchor` replaced by `replacement`.
    static func replacing(_ target: String, after anchor: String, with replacement: String, in text: String) -> String? {
        guard let anchorRange = text.range(of: anchor),
              let targetRange = text.range(of: target, range: anchorRange.upperBound ..< text.endIndex) else { return nil }
        return text.replacingCharacters(in: targetRange, with: replacement)
    }
}
