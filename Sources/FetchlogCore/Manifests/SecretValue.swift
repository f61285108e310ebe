import Foundation

/// A value in a manifest that may be a secret: `env:NAME` is read from the environment at
/// fetch time and never written anywhere; anything else is the value itself.
///
/// Every field that may hold a secret — each auth field, `headers`, `endpoint.params`,
/// `access_token_request_data` — comes in through `read` and goes out through `resolve`, so
/// there is one place where `env:` means something and a field cannot be read otherwise
/// (before, `http_basic`'s `username` was taken as written and sent as `env:NAME`).
package enum SecretValue: Sendable, Equatable {
    case literal(String)
    case environment(String)
    /// A value an auth shorthand leaves out (`"auth": "bearer"`): read, as dlt reads it, from
    /// the first of these variables that is set (dlt's names for the source's credentials,
    /// most specific first).
    case firstOf([String])

    /// Whether a field may be written in clear.
    enum Clear {
        /// Always: a user name, a token endpoint's address, a header or param no name marks.
        case allowed
        /// Never: a token, a password, an API key, a client's id or secret.
        case refused
        /// Not for this header or parameter, whose name says it is a credential
        /// (`Redaction`'s rule); `what` names it in the message.
        case refusedByName(what: String)
    }

    /// The one reading of a field written as `text` at `path`: `env:NAME` (NAME a variable a
    /// shell can set), else a literal where `clear` allows one. A refusal names the key path
    /// and never repeats the value (it is the secret).
    static func read(_ text: String, at path: String, clear: Clear) throws(ManifestError) -> SecretValue {
        if text.hasPrefix("env:") {
            let name = String(text.dropFirst(4))
            guard name.range(of: #"^[A-Za-z_][A-Za-z0-9_]*$"#, options: .regularExpression) != nil else {
                throw ManifestError(path: path, message: "\"env:\(name)\" does not name an environment variable: write env:NAME, "
                    + "NAME letters, digits and _ (not starting with a digit)")
            }
            return .environment(name)
        }
        switch clear {
        case .allowed:
            return .literal(text)
        case .refused:
            throw ManifestError(path: path, message: "write \"env:NAME\" and set NAME in the environment: a literal secret would be stored in the log with the manifest")
        case .refusedByName(let what):
            throw ManifestError(path: path, message: "\(what) holds a secret: write \"env:NAME\" and set NAME in the environment, "
                + "since a literal secret would be stored in the log with the manifest")
        }
    }

    /// True when the value comes from the environment: what it is sent in is recorded as `***`.
    var isSecret: Bool { if case .literal = self { false } else { true } }

    /// The one resolver: the value sent for the field at `path`. A variable that is not set
    /// (or empty) is named with the key path, and the fetch that needed it sends nothing.
    func resolve(_ environment: [String: String], at path: String) throws(CredentialsError) -> String {
        switch self {
        case .literal(let value): return value
        case .environment(let name):
            guard let value = environment[name], !value.isEmpty else {
                throw CredentialsError("\(path) reads the environment variable \(name), which is not set: set it and fetch again")
            }
            return value
        case .firstOf(let names):
            for name in names { if let value = environment[name], !value.isEmpty { return value } }
            let key = path.split(separator: ".").last.map(String.init) ?? path
            throw CredentialsError("\(path) is not written in the manifest, so it is read as dlt reads it, from \(names[0]) "
                + "(or \(names.dropFirst().joined(separator: ", "))), and none of them is set: set one, "
                + "or write \"\(key)\": \"env:NAME\" in the manifest and set NAME, and fetch again")
        }
    }
}
