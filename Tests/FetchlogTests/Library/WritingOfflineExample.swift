import FetchlogCore

/// Notes changed, then sent: what waited, what the push did, and the new note's key.
func changeNotes(in store: Store) async throws -> (waiting: [Mutation], report: PushReport, bread: String) {
    let notes = try store.source("catalog").resource("notes")
    let bread = try await notes.add(["title": "buy bread", "priority": 2])  // bread.key: "local:ID"
    try await notes.set("1", ["done": true])
    try await notes.delete("2")
    let waiting = notes.pending()        // each with its id, key, state and last answer
    let report = try await store.push()  // confirmed, conflicts, rejected, held…
    return (waiting, report, notes.key(of: bread))  // the server's key, once confirmed
}
