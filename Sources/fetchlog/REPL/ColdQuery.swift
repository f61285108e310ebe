import FetchlogCore
import FetchlogReplication
import FetchlogShell
import FetchlogSQL
import Foundation

/// `fetchlog query "COMMAND"` for a command that answers from the read model's copy of a
/// view (`ShellCommand.cold`, e.g. a seed source's search): the answer a shell over the store would
/// print, every byte of it, without opening the store (issue 35, cold start). Used only
/// when nothing but the copy is needed: the read model current with the log, the store not
/// replicated (its outbox is news under every answer), the line's own `--format` absent
/// (the shell handles it).
enum ColdQuery {
    /// What happened: answered (printed, with its exit status), or why the shell must answer.
    enum Outcome {
        case answered(status: Int32)
        /// The copy is absent, behind, or cannot answer these arguments.
        case notHeld
        /// The read model was damaged (its digests, or the copy did not read): the shell
        /// answers, and the read model is written anew (issue 44).
        case damaged(ReadModel.NotCurrent)
    }

    /// The command `line` names when it has a cold answer and the line can take it.
    static func command(for line: String) -> (command: ShellCommand, cold: ColdAnswer, args: [String])? {
        guard let words = try? Tokenizer.words(line), let name = words.first,
              !words.contains(where: { $0 == "--format" || $0.hasPrefix("--format=") }),
              let command = CommandTable.find(name), let cold = command.cold else { return nil }
        return (command, cold, Array(words.dropFirst()))
    }

    static func run(_ line: String, maintenance: StoreMaintenance, mode: OutputMode?) -> Outcome {
        guard let (command, cold, args) = command(for: line), Replication.route(of: maintenance) == nil,
              let stamp = try? ReadModel.stamp(of: maintenance) else { return .notHeld }
        let held: HeldViewCopy
        switch ViewCopiesReadModel.opening(storePath: maintenance.path, stamp: stamp, view: cold.view) {
        case .failure(let problem): return problem == .behind || problem == .absent ? .notHeld : .damaged(problem)
        case .success(nil): return .notHeld
        case .success(let copy?): held = copy
        }
        var renderer = Renderer()
        renderer.mode = mode ?? .table
        renderer.width = terminalWidth()
        renderer.fitsWidth = isatty(STDOUT_FILENO) == 1
        let pager = isatty(STDOUT_FILENO) == 1 && isatty(STDIN_FILENO) == 1
        do {
            guard let output = try cold.answer(held, args) else { return .notHeld }
            Session.show(renderer.render(output), pager: pager)
            return .answered(status: 0)
        } catch var error as CommandError {
            // As the shell says it: a usage error ends with the command's usage line.
            if error.status == 64, !error.message.contains("usage:") {
                let output = error.output
                error = .usage(error.message + "\nusage: \(command.usage)")
                error.output = output
            }
            if let output = error.output { Session.show(renderer.render(output), pager: pager) }
            writeErr(Data("error: \(visibleControls(error.message))\n".utf8))
            return .answered(status: error.status)
        } catch {
            return .damaged(.damaged(ViewCopiesReadModel.fileName + ": \(cold.view)'s copy does not read"))
        }
    }
}
