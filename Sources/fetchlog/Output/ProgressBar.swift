import Foundation
import Synchronization

/// Progress of long work on stderr, only when stderr is a terminal (pipes and files never
/// see it): `█████·······  12/40 · 3.4 MiB · 1.2 MiB/s · 8s left  books/list?page=11`.
/// With no known total it shows the count, bytes and rate. Drawn at most 20 times a second.
final class ProgressBar: Sendable {
    private struct Drawing {
        var shown = false
        var lastDraw: ContinuousClock.Instant?
    }

    private let enabled: Bool
    private let drawing = Mutex(Drawing())

    init(enabled: Bool = isatty(STDERR_FILENO) == 1) {
        self.enabled = enabled
    }

    func draw(done: Int, total: Int?, bytes: Int, since started: ContinuousClock.Instant, label: String) {
        guard enabled else { return }
        drawing.withLock { drawing in
            let now = ContinuousClock.now
            if let lastDraw = drawing.lastDraw, now - lastDraw < .milliseconds(50), done != total { return }
            drawing.lastDraw = now
            writeErr(Data(("\r\u{1B}[K" + Self.text(done: done, total: total, bytes: bytes, elapsed: Format.seconds(now - started), label: label)).utf8))
            drawing.shown = true
        }
    }

    /// The bar's text (tested on its own: it is what a terminal shows).
    static func text(done: Int, total: Int?, bytes: Int, elapsed: Double, label: String) -> String {
        var parts: [String] = []
        if let total, total > 0 {
            let width = 20
            let filled = min(width, done * width / total)
            parts.append(String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled) + "  \(done)/\(total)")
        } else {
            parts.append("\(done) done")
        }
        if bytes > 0 { parts.append(Format.bytes(bytes)) }
        if elapsed > 0.2 {
            if bytes > 0 { parts.append(Format.bytes(Int(Double(bytes) / elapsed)) + "/s") } else { parts.append(String(format: "%.1f/s", Double(done) / elapsed)) }
            if let total, done > 0, done < total {
                let left = elapsed / Double(done) * Double(total - done)
                parts.append(left < 60 ? "\(Int(left.rounded(.up)))s left" : "\(Int(left / 60))m \(Int(left) % 60)s left")
            }
        }
        return parts.joined(separator: " · ") + "  " + label
    }

    func clear() {
        guard enabled else { return }
        drawing.withLock { drawing in
            guard drawing.shown else { return }
            writeErr(Data("\r\u{1B}[K".utf8))
            drawing.shown = false
        }
    }
}
