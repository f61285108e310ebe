import Foundation
import Synchronization

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

    static func respond(path: String, version: BrastlewarkDataVersion, copies: Int = 1, fullPath: String) -> RouteResult {
        guard path == "/data.json" else { return .notFoundRoute(fullPath) }
        if copies > 1 { return .ok(scaledCensus(copies: copies)) }
        return .ok(version == .v1 ? Fixtures.data(censusFile) : censusV2)
    }

    private static let scaledBodies = Mutex<[Int: Data]>([:])

    /// The recorded census `copies` times over (see `SampleUpstreamConfiguration.censusCopies`),
    /// made once per count. Numbers keep their recorded text.
    public static func scaledCensus(copies: Int) -> Data {
        scaledBodies.withLock { bodies in
            if let body = bodies[copies] { return body }
            let out = makeScaledCensus(copies: copies)
            bodies[copies] = out
            return out
        }
    }

    private static func makeScaledCensus(copies: Int) -> Data {
        let recorded = Fixtures.data(censusFile)
        let gnomes = (try! JSONSerialization.jsonObject(with: recorded) as! [String: Any])["Brastlewark"] as! [[String: Any]]
        func quoted(_ s: String) -> String {
            String(decoding: try! JSONSerialization.data(withJSONObject: s, options: [.fragmentsAllowed, .withoutEscapingSlashes]), as: UTF8.self)
        }
        func number(_ value: Any) -> String { (value as? NSNumber).map { "\($0)" } ?? "0" }
        // Per recorded gnome, its text in three parts: up to the name's closing quote, from
        // there to the friends, and the friend names each without its closing quote (the
        // copy's suffix goes where the quotes close).
        let parts: [(id: Int, name: String, middle: String, friends: [String])] = gnomes.map { gnome in
            let middle = #","thumbnail":\#(quoted(gnome["thumbnail"] as! String)),"age":\#(number(gnome["age"]!)),"#
                + #""weight":\#(number(gnome["weight"]!)),"height":\#(number(gnome["height"]!)),"#
                + #""hair_color":\#(quoted(gnome["hair_color"] as! String)),"professions":[\#((gnome["professions"] as! [String]).map(quoted).joined(separator: ","))],"friends":["#
            return (gnome["id"] as! Int, String(quoted(gnome["name"] as! String).dropLast()), middle,
                    (gnome["friends"] as! [String]).map { String(quoted($0).dropLast()) })
        }
        var out = Data()
        out.reserveCapacity(recorded.count * copies + 64)
        out.append(contentsOf: Array(#"{"Brastlewark":["#.utf8))
        for copy in 0 ..< copies {
            let close = (copy == 0 ? "" : " \(copy)") + "\""
            for (i, gnome) in parts.enumerated() {
                var text = (copy == 0 && i == 0) ? "{" : ",{"
                text += #""id":\#(gnome.id + copy * gnomes.count),"name":"# + gnome.name + close + gnome.middle
                text += gnome.friends.map { $0 + close }.joined(separator: ",") + "]}"
                out.append(contentsOf: Array(text.utf8))
            }
        }
        out.append(contentsOf: Array("]}".utf8))
        return out
    }
}

extension SampleUpstream {
    /// The body `/brastlewark/data.json` answers with `censusCopies = copies`.
    public static func scaledCensus(copies: Int) -> Data { BrastlewarkRoutes.scaledCensus(copies: copies) }
}
