import Foundation

/// brastlewark: one document, `/data.json`.
enum BrastlewarkRoutes {
    static let censusFile = "brastlewark/census.json"

    /// v2 is made by editing the recorded text rather than re-serialising it, so every other byte
    /// (number formatting, key order) stays exactly as recorded: gnome 0's age 306 becomes 307 and
    /// a gnome with id 1337 is appended.
    static let censusV2: Data = {
        var text = String(decoding: Fixtures.data(censusFile), as: UTF8.self)
        let firstGnome = #"{"id":0,"name":"Tobus Quickwhistle","#
        if let start = text.range(of: firstGnome), let age = text.range(of: #""age":306,"#, range: start.upperBound..<text.endIndex) {
            text.replaceSubrange(age, with: #""age":307,"#)
        }
        let added = #",{"id":1337,"name":"Zimbo Sparkwrench","thumbnail":"http://www.publicdomainpictures.net/pictures/10000/nahled/thinking-monkey-11282237747K8xB.jpg","age":42,"weight":38.5,"height":101.25,"hair_color":"Red","professions":["Tinker","Brewer"],"friends":["Tobus Quickwhistle"]}"#
        if text.hasSuffix("]}") {
            text.removeLast(2)
            text += added + "]}"
        }
        return Data(text.utf8)
    }()

    static func respond(path: String, version: BrastlewarkDataVersion, fullPath: String) -> RouteResult {
        guard path == "/data.json" else { return .notFoundRoute(fullPath) }
        return .ok(version == .v1 ? Fixtures.data(censusFile) : censusV2)
    }
}
