import FetchlogCore
import FetchlogReplication
import FetchlogSQL
import Foundation

/// Tables maintained as events fold (issue 35): a command-line process that appended events
/// to a store that has a read model (`sql/`, made by the first one-shot `sql`, `items` or
/// plug-in command with a copy) brings it up to the log before it ends, so the next
/// one-shot reads it at once instead of folding the store. Only the parts whose sources' events moved are written;
/// the rest are copied (`ReadModel.Keys`). A store without one pays nothing; a replicated
/// store is left alone (its outbox is folded without seqs, so nothing could be copied).
/// Failing to write it loses nothing: the next one-shot writes it. `creating`: write one
/// where there is none too (a one-shot that found none); `damaged`: write it anew, copying
/// nothing from the one there.
func keepReadModelCurrent(_ store: Store, creating: Bool = false, damaged: Bool = false) {
    let path = store.maintenance.path
    guard creating || FileManager.default.fileExists(atPath: ReadModel.directory(of: path)), Replication.route(of: store.maintenance) == nil,
          let stamp = try? ReadModel.stamp(of: store.maintenance, at: store.snapshot.state.seq),
          damaged || !ReadModel.isCurrent(storePath: path, stamp: stamp) else { return }
    let note = isatty(STDERR_FILENO) == 1
    if note { writeErr(Data("updating the SQL read model (sql/)…".utf8)) }
    _ = ReadModel.rebuild(from: store, storePath: path, reusing: !damaged)
    // The note wiped: what stays on the terminal is what the command said.
    if note { writeErr(Data("\r\u{1B}[K".utf8)) }
}

/// Says on stderr, in one line, that a one-shot found its read model damaged and rebuilt it
/// (or answered from the store): nothing for one only absent or behind (issue 44).
func noteReadModel(_ problem: ReadModel.NotCurrent, rebuilt: Bool) {
    guard let note = problem.note(rebuilt: rebuilt) else { return }
    writeErr(Data((note + "\n").utf8))
}
