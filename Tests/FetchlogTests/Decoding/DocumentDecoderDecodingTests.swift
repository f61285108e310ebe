import Testing
@testable import FetchlogCore
@testable import FetchlogSources

@Suite struct DocumentDecoderDecodingTests {
    @Test func emptyBodyIsInvalidJSONForEveryKind() {
        for kind in DocumentKind.seedKinds where kind != .asset {
            #expect(DecodingFixtures.failure(kind, []) == DecodeError(path: "$", reason: "invalid JSON at byte 0: unexpected end of input"))
        }
        // Assets are images, not JSON.
        #expect(DecodingFixtures.failure(.asset, []) == DecodeError(path: "$", reason: "not an image (it starts empty)"))
    }

    @Test func htmlErrorPageIsInvalidJSON() {
        let error = DecodingFixtures.failure(.viaplayPage, Array("<html>502</html>".utf8))
        #expect(error == DecodeError(path: "$", reason: "invalid JSON at byte 0: unexpected character '<'"))
    }

    @Test func wrongRootShapes() {
        #expect(DecodingFixtures.failure(.brastlewarkCensus, Array("[]".utf8)) == DecodeError(path: "$", reason: "expected an object, found an array of 0"))
        #expect(DecodingFixtures.failure(.tvmazeShow, Array("null".utf8)) == DecodeError(path: "$", reason: "expected an object, found null"))
        #expect(DecodingFixtures.failure(.thmanyahSearch, Array("{}".utf8)) == DecodeError(path: "$.sections", reason: "missing required field"))
    }

    /// Every recorded fixture decodes as the kind it was recorded for.
    @Test func everyRecordedFixtureDecodes() throws {
        let cases: [(DocumentKind, String)] = [
            (.tvmazeShowsPage, "tvmaze/shows-page-0-2019.json"), (.tvmazeShowsPage, "tvmaze/shows-page-0-2024.json"),
            (.tvmazeShowsPage, "tvmaze/shows-page-1-2025-04-18.json"), (.tvmazeShow, "tvmaze/show-1.json"),
            (.tvmazeEpisodes, "tvmaze/show-1-episodes.json"), (.tvmazeEpisodes, "tvmaze/show-43-episodes.json"),
            (.tvmazeSearch, "tvmaze/search-shows-q-girls.json"), (.tvmazeSearch, "tvmaze/search-shows-q-terminator.json"),
            (.brastlewarkCensus, "brastlewark/census.json"),
            (.viaplayPage, "viaplay/ios-se-root-2022.json"), (.viaplayPage, "viaplay/androidv2-se-serier-section-2016.json"),
            (.viaplayPage, "viaplay/pc-se-serier-samtliga-category.json"),
            (.thmanyahHome, "thmanyah/home-sections-page-1.json"), (.thmanyahSearch, "thmanyah/search-response-fragment.json"),
        ]
        for (kind, file) in cases {
            let first = try DecodingFixtures.decode(kind, file)
            // Decoding is pure: the same bytes give the same value.
            #expect(try DecodingFixtures.decode(kind, file).isEqual(to: first), "\(file)")
        }
    }
}
