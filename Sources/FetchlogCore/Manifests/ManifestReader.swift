/// A manifest that cannot be used: where (`resources[2].endpoint.paginator.type`) and why.
public struct ManifestError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The key path of what is wrong (`resources[2].endpoint.paginator.type`); empty for the whole manifest.
    public let path: String
    /// What is wrong, and what to write instead.
    public let message: String
    /// An error at `path` saying `message`.
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }
    /// The key path and the message, as a user reads them.
    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

/// Reads one object of a manifest, naming the key path in every error.
struct ManifestReader {
    let json: JSONValue
    let path: String

    init(_ json: JSONValue, path: String) throws(ManifestError) {
        self.json = json
        self.path = path
    }

    private func child(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

    /// Refuses members outside `allowed`; `unsupported` ones (dlt's, not implemented yet)
    /// say so.
    func allow(_ allowed: [String], unsupported: [String] = [], unsupportedNote: String = "is dlt's, but not supported by Fetchlog yet") throws(ManifestError) {
        guard case .object(let members) = json else { throw ManifestError(path: path, message: "expected an object") }
        for (key, _) in members where !allowed.contains(key) {
            if unsupported.contains(key) {
                throw ManifestError(path: child(key), message: unsupportedNote)
            }
            throw ManifestError(path: child(key), message: "unknown key\(Suggest.didYouMean(key, allowed)); allowed: \(allowed.joined(separator: ", "))")
        }
    }

    func optional(_ key: String) throws(ManifestError) -> ManifestReader? {
        guard let value = json[key], !value.isNull else { return nil }
        return try ManifestReader(value, path: child(key))
    }

    func object(_ key: String) throws(ManifestError) -> ManifestReader {
        guard let value = json[key] else { throw ManifestError(path: child(key), message: "is required") }
        guard case .object = value else { throw ManifestError(path: child(key), message: "expected an object") }
        return try ManifestReader(value, path: child(key))
    }

    func array(_ key: String) throws(ManifestError) -> [ManifestReader] {
        guard let value = json[key] else { throw ManifestError(path: child(key), message: "is required") }
        return try ManifestReader(value, path: child(key)).arrayValue()
    }

    func arrayValue() throws(ManifestError) -> [ManifestReader] {
        guard case .array(let items) = json else { throw ManifestError(path: path, message: "expected a list") }
        var readers: [ManifestReader] = []
        for (index, item) in items.enumerated() { readers.append(try ManifestReader(item, path: path + "[\(index)]")) }
        return readers
    }

    func stringValue() throws(ManifestError) -> String {
        guard case .string(let text) = json else { throw ManifestError(path: path, message: "expected a string") }
        return text
    }

    func string(_ key: String) throws(ManifestError) -> String {
        guard let value = json[key] else { throw ManifestError(path: child(key), message: "is required") }
        guard case .string(let text) = value else { throw ManifestError(path: child(key), message: "expected a string") }
        return text
    }

    func optionalString(_ key: String) throws(ManifestError) -> String? {
        guard let value = json[key], !value.isNull else { return nil }
        guard case .string(let text) = value else { throw ManifestError(path: child(key), message: "expected a string") }
        return text
    }

    func int(_ key: String) throws(ManifestError) -> Int {
        guard let value = json[key] else { throw ManifestError(path: child(key), message: "is required") }
        guard case .number = value, let n = value.intValue else { throw ManifestError(path: child(key), message: "expected a whole number") }
        return n
    }

    func optionalInt(_ key: String) throws(ManifestError) -> Int? {
        guard let value = json[key], !value.isNull else { return nil }
        guard case .number = value, let n = value.intValue else { throw ManifestError(path: child(key), message: "expected a whole number") }
        return n
    }

    func optionalBool(_ key: String) throws(ManifestError) -> Bool? {
        guard let value = json[key], !value.isNull else { return nil }
        guard case .bool(let flag) = value else { throw ManifestError(path: child(key), message: "expected true or false") }
        return flag
    }
}
