import ArgumentParser
import FetchlogCore
import Foundation

/// Global options, as in git: written before the subcommand (`fetchlog --store DIR
/// --upstream URL export VIEW`), they are accepted by every command and given to the
/// commands that use them (the others have nothing to apply them to); written after it, only
/// the command's own options are accepted.
///
/// ArgumentParser reads an option only where the command declaring it stands, so the
/// global options are taken out of what precedes the subcommand and put back right after
/// it, for a command that declares them; the rest of the line is checked against the
/// command's own options before ArgumentParser sees it (which would otherwise read an
/// undeclared option's value as a positional argument: "give the file once").
enum GlobalOptions {
    /// The global options that take a value; each is declared by the commands that use it
    /// (StoreOptions, NetworkOptions, OutputOptions, SessionOptions).
    static let withValue: Set<String> = ["--store", "--upstream", "--connect-timeout", "--read-timeout", "--retries",
                                         "--retry-after-cap", "--format", "--deadline", "--min-rate", "--max-body", "--redact-param"]
    /// The global options that are flags.
    static let flags: Set<String> = ["--offline", "--keep-going", "--allow-private-hosts"]

    /// A usage error found before parsing: one line, exit status 64.
    struct Misplaced: Error, CustomStringConvertible {
        let description: String
    }

    /// The first word when it is meant as a subcommand but names none (`fetchlog querry`).
    /// The default command (the shell) takes no words, so any first word must be one.
    static func unknownSubcommand(in arguments: [String]) -> String? {
        guard let first = arguments.first, !first.hasPrefix("-") else { return nil }
        let names = Set(FetchlogCommand.configuration.subcommands.map { $0._commandName } + ["help"])
        return names.contains(first) ? nil : first
    }

    /// `fetchlog log tial`: a group's mistyped subcommand, with the group's subcommands.
    static func unknownNestedSubcommand(in arguments: [String]) -> (group: String, word: String, names: [String])? {
        guard arguments.count >= 2, !arguments[1].hasPrefix("-"),
              let group = FetchlogCommand.configuration.subcommands.first(where: { $0._commandName == arguments[0] }) else { return nil }
        let names = group.configuration.subcommands.map { $0._commandName }
        // A group with a default subcommand (`item SOURCE …`) takes other words as that one's.
        guard !names.isEmpty, group.configuration.defaultSubcommand == nil, !names.contains(arguments[1]), arguments[1] != "help" else { return nil }
        return (arguments[0], arguments[1], names)
    }

    /// The command line ArgumentParser parses: the global options written before the
    /// subcommand moved right after it (only those the subcommand declares), and every
    /// option after it checked to be the subcommand's own.
    static func arrange(_ arguments: [String]) throws -> [String] {
        var front: [String] = []
        var globals: [(name: String, words: [String])] = []
        var index = 0
        var group: any ParsableCommand.Type = FetchlogCommand.self
        var path: [String] = [FetchlogCommand._commandName]
        // The command the global options are for: nil until a word names one; nil for
        // good after `help` or a word that names none (reported by `unknownSubcommand`).
        var command: (any ParsableCommand.Type)?
        var sawWord = false
        while index < arguments.count, !sawWord {
            let argument = arguments[index]
            let name = String(argument.split(separator: "=", maxSplits: 1).first ?? "")
            if withValue.contains(argument), index + 1 < arguments.count {
                globals.append((argument, [argument, arguments[index + 1]]))
                index += 2
                continue
            }
            if flags.contains(argument) || (argument.contains("=") && (withValue.contains(name) || flags.contains(name))) {
                globals.append((name, [argument]))
                index += 1
                continue
            }
            front.append(argument)
            index += 1
            if argument == "--" { sawWord = true }
            guard !argument.hasPrefix("-") else { continue }
            path.append(argument)
            let next = group.configuration.subcommands.first { $0._commandName == argument }
            // A group (`log`) goes on taking global options until its own subcommand
            // (`tail`): `fetchlog log --format json tail 2` is `fetchlog --format json log tail 2`.
            if let next, !next.configuration.subcommands.isEmpty {
                group = next
                // A group with a default subcommand (`pending`, `item`) is that command unless
                // the next word names another of its subcommands: what follows is its own.
                if let fallback = next.configuration.defaultSubcommand,
                   !(index < arguments.count && next.configuration.subcommands.contains { $0._commandName == arguments[index] }) {
                    command = fallback
                    sawWord = true
                }
            } else {
                // A word a group with a default subcommand does not name is that one's
                // (`item catalog items 1` is `item show …`).
                let isRoot = ObjectIdentifier(group) == ObjectIdentifier(FetchlogCommand.self)
                command = next ?? (isRoot ? nil : group.configuration.defaultSubcommand)
                sawWord = true
            }
        }
        // No word: the default subcommand (the shell), unless a group was named (`fetchlog
        // --store DIR log` asks for the group's usage, where no global option applies) or
        // fetchlog's own help or version was asked for (`fetchlog --store DIR --help`).
        let ownFlags: Set<String> = ["-h", "--help", "--version"]
        if !sawWord, ObjectIdentifier(group) == ObjectIdentifier(FetchlogCommand.self), !front.contains(where: ownFlags.contains) {
            command = FetchlogCommand.configuration.defaultSubcommand
        }
        // A group with a default subcommand and no word after it (`pending --format json`)
        // runs that subcommand, which takes the options.
        if !sawWord, ObjectIdentifier(group) != ObjectIdentifier(FetchlogCommand.self), let fallback = group.configuration.defaultSubcommand,
           !front.contains(where: ownFlags.contains) {
            command = fallback
        }
        let rest = Array(arguments[index...])
        guard let command else { return front + rest }
        let grammar = Grammar(command)
        if sawWord { try grammar.check(rest, command: path.joined(separator: " ")) }
        return front + globals.filter { grammar.takes($0.name) }.flatMap(\.words) + rest
    }

    /// One command's options, as ArgumentParser describes them (its help dump): a long or
    /// short name with whether it takes a value.
    struct Grammar {
        private(set) var options: [String: Bool] = [:]
        /// A positional that takes what follows verbatim: nothing after it is checked.
        private(set) var passesThrough = false

        init(_ command: any ParsableCommand.Type) {
            guard let dump = try? JSONDecoder().decode(Dump.self, from: Data(command._dumpHelp().utf8)) else { return }
            for argument in dump.command.arguments ?? [] {
                if argument.kind == "positional" { passesThrough = passesThrough || argument.parsingStrategy != "default" }
                for name in argument.names ?? [] {
                    options[(name.kind == "short" ? "-" : "--") + name.name] = argument.kind == "option"
                }
            }
        }

        func takes(_ name: String) -> Bool { options[name] != nil }

        /// Refuses an option the command does not declare, naming it and where it could go.
        func check(_ arguments: [String], command: String) throws {
            guard !passesThrough else { return }
            var index = 0
            while index < arguments.count {
                let argument = arguments[index]
                index += 1
                if argument == "--" { return }
                guard argument.count >= 2, argument.hasPrefix("-"), let second = argument.dropFirst().first,
                      second == "-" || second.isLetter else { continue }
                let name = argument.hasPrefix("--") ? String(argument.split(separator: "=", maxSplits: 1)[0])
                                                    : String(argument.prefix(2))
                if let takesValue = options[name] {
                    if takesValue, !argument.contains("="), name == argument { index += 1 }
                    continue
                }
                let declared = options.keys.filter { $0.hasPrefix("--") && $0 != "--version" }.sorted()
                var message = "'\(command)' takes no option \(name)\(Suggest.didYouMean(name, declared)); \(command) --help lists its options"
                if GlobalOptions.withValue.contains(name) || GlobalOptions.flags.contains(name) {
                    let words = command.split(separator: " ")
                    message += " (global options go before the command: \(words[0]) \(name)\(GlobalOptions.withValue.contains(name) ? " …" : "") \(words.dropFirst().joined(separator: " ")))"
                }
                throw Misplaced(description: message)
            }
        }

        private struct Dump: Decodable {
            let command: Command
        }

        private struct Command: Decodable {
            let arguments: [Argument]?
        }

        private struct Argument: Decodable {
            let kind: String
            let names: [Name]?
            let parsingStrategy: String?
        }

        private struct Name: Decodable {
            let kind: String
            let name: String
        }
    }
}
