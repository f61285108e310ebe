import FetchlogCore

/// The shell's argument grammar, the same as the command line's: `--name value`,
/// `--name=value`, short aliases (`-n 2`), flags, `--` ending the options, and every
/// unknown option or extra word refused with the command's own usage.
public struct ShellArguments {
    public private(set) var values: [String: String] = [:]
    public private(set) var flags: Set<String> = []
    public private(set) var positionals: [String] = []
    public let usage: String

    /// options: names taking a value; flags: names taking none; aliases: `n` → `count`.
    public init(_ words: [String], usage: String, options: Set<String> = [], flags: Set<String> = [],
         aliases: [String: String] = [:]) throws {
        self.usage = usage
        var i = 0
        var endOfOptions = false
        while i < words.count {
            let word = words[i]
            i += 1
            if endOfOptions || !word.hasPrefix("-") || word == "-" || Int(word) != nil {
                positionals.append(word)
                continue
            }
            if word == "--" { endOfOptions = true; continue }
            var name = String(word.drop(while: { $0 == "-" }))
            var inline: String?
            if let equals = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if !word.hasPrefix("--") {
                guard let long = aliases[name] else { throw Self.unknown(word, usage, Array(options) + Array(flags)) }
                name = long
            }
            if flags.contains(name) {
                guard inline == nil else { throw ShellError.usage("--\(name) takes no value\nusage: \(usage)") }
                self.flags.insert(name)
            } else if options.contains(name) {
                if let inline {
                    values[name] = inline
                } else {
                    guard i < words.count else { throw ShellError.usage("--\(name) needs a value\nusage: \(usage)") }
                    values[name] = words[i]
                    i += 1
                }
            } else {
                throw Self.unknown(word, usage, Array(options) + Array(flags))
            }
        }
    }

    private static func unknown(_ word: String, _ usage: String, _ known: [String]) -> ShellError {
        let name = word.split(separator: "=", maxSplits: 1).first.map(String.init) ?? word
        return ShellError.usage("unknown option \(name)\(Suggest.didYouMean(name, known.map { "--" + $0 }))\nusage: \(usage)")
    }

    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The positional words, checked against how many the command takes.
    public func words(_ range: ClosedRange<Int>) throws -> [String] {
        guard range.contains(positionals.count) else {
            if positionals.count > range.upperBound {
                let extra = positionals[range.upperBound...].map { "'\($0)'" }.joined(separator: " ")
                throw ShellError.usage("unexpected \(extra)\nusage: \(usage)")
            }
            throw ShellError.usage("usage: \(usage)")
        }
        return positionals
    }

    /// A non-negative whole number option, or nil when absent.
    public func int(_ name: String, minimum: Int = 0) throws -> Int? {
        guard let text = values[name] else { return nil }
        guard let n = Int(text), n >= minimum else {
            throw ShellError.usage("--\(name) takes a whole number of at least \(minimum), not '\(text)'\nusage: \(usage)")
        }
        return n
    }

    public subscript(_ name: String) -> String? { values[name] }
}
