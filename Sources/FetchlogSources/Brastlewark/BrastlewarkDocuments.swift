import FetchlogCore
/// The Brastlewark gnome census: `{"Brastlewark": [gnome, ...]}`.
///
/// Strings are kept exactly as sent: the census has professions with a leading space
/// (" Tinker" beside "Tinker"), and trimming or merging them is the views' decision.
public struct Gnome: Sendable, Equatable {
    public var id: Int
    public var name: String
    public var thumbnail: String
    public var age: Int
    public var weight: Double
    public var height: Double
    public var hairColor: String
    public var professions: [String]
    /// Friends by **name**, not id.
    public var friends: [String]

    public init(id: Int, name: String, thumbnail: String, age: Int, weight: Double, height: Double,
                hairColor: String, professions: [String], friends: [String]) {
        self.id = id
        self.name = name
        self.thumbnail = thumbnail
        self.age = age
        self.weight = weight
        self.height = height
        self.hairColor = hairColor
        self.professions = professions
        self.friends = friends
    }

    static func decode(_ c: JSONCursor) throws(DecodeError) -> Gnome {
        Gnome(
            id: try c.int("id"),
            name: try c.string("name"),
            thumbnail: try c.string("thumbnail"),
            age: try c.int("age"),
            weight: try c.double("weight"),
            height: try c.double("height"),
            hairColor: try c.string("hair_color"),
            professions: try c.field("professions").map { (p: JSONCursor) throws(DecodeError) in try p.string() },
            friends: try c.field("friends").map { (f: JSONCursor) throws(DecodeError) in try f.string() })
    }

    static func decodeCensus(_ root: JSONCursor) throws(DecodeError) -> [Gnome] {
        var gnomes = try root.field("Brastlewark").map(Gnome.decode)
        // One copy of each text: thumbnails repeat (a dozen pictures for the whole town) and
        // friend names are other gnomes' names, so each is made to share the storage of its
        // first occurrence. Values are unchanged; a large census holds a third less.
        var pool = Set<String>(minimumCapacity: gnomes.count * 2)
        for gnome in gnomes { pool.insert(gnome.name) }
        for i in gnomes.indices {
            gnomes[i].thumbnail = pool.insert(gnomes[i].thumbnail).memberAfterInsert
            gnomes[i].friends = gnomes[i].friends.map { pool.insert($0).memberAfterInsert }
        }
        return gnomes
    }
}
