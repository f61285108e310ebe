import Foundation

/// Long results on a terminal, paged as psql does: through `$PAGER` (default `less`,
/// with `LESS=FRX` unless set: quit when it fits, keep colours, leave the text on screen).
/// `PAGER=` (empty) or `.pager off` turns it off.
enum Pager {
    /// Shows `text` through the pager; false when there is none to run (the caller prints).
    static func show(_ text: String) -> Bool {
        let environment = ProcessInfo.processInfo.environment
        let command = environment["PAGER"] ?? "less"
        guard !command.trimmingCharacters(in: .whitespaces).isEmpty else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        var env = environment
        if env["LESS"] == nil { env["LESS"] = "FRX" }
        process.environment = env
        let pipe = Pipe()
        process.standardInput = pipe
        do { try process.run() } catch { return false }
        // A pager that quits early (q) closes the pipe: the rest is simply not shown.
        signal(SIGPIPE, SIG_IGN)
        try? pipe.fileHandleForWriting.write(contentsOf: Data(text.utf8))
        try? pipe.fileHandleForWriting.close()
        process.waitUntilExit()
        // `sh -c less` exits 127 when less is missing: print the text ourselves then.
        return process.terminationStatus != 127
    }
}
