import Foundation

/// What a terminal shows while work with no count to report runs long (a SQL query): after
/// half a second, on stderr and only when stderr is a terminal, `running · 3.2 s · Ctrl-C
/// stops it`, redrawn four times a second and wiped when the work ends. A quick answer
/// never flickers; a pipe or a file never sees it.
enum RunningNote {
    static func around<T>(_ what: String, enabled: Bool = isatty(STDERR_FILENO) == 1,
                          _ work: () async throws -> T) async throws -> T {
        guard enabled else { return try await work() }
        let started = ContinuousClock.now
        let note = Task {
            var shown = false
            defer { if shown { writeErr(Data("\r\u{1B}[K".utf8)) } }
            do {
                try await Task.sleep(for: .milliseconds(500))
                while !Task.isCancelled {
                    writeErr(Data(("\r\u{1B}[K" + text(what, seconds: Format.seconds(ContinuousClock.now - started))).utf8))
                    shown = true
                    try await Task.sleep(for: .milliseconds(250))
                }
            } catch {}
        }
        // The note is wiped before the answer or the error prints.
        let result: Result<T, any Error>
        do { result = .success(try await work()) } catch { result = .failure(error) }
        note.cancel()
        await note.value
        return try result.get()
    }

    /// The note's text (tested on its own: it is what a terminal shows).
    static func text(_ what: String, seconds: Double) -> String {
        "\(what) · \(String(format: "%.1f", seconds)) s · Ctrl-C stops it"
    }
}
