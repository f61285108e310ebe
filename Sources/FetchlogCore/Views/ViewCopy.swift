/// What the SQL read model keeps of a view so that a one-shot command over it answers
/// without folding the log or decoding a body (issue 35, cold start): a header the command
/// reads whole (its search index's bytes, its counts) and records it reads by position
/// (only those a page shows). Written with the rest of the read model and stamped with it,
/// so a copy is never older than the log it answers for.
///
/// A view gives a copy only when answering from it is answering from the state: its
/// command's answer must depend on nothing the copy leaves out, and its resource must not
/// go stale (a stale one would be revalidated by the command, which a copy cannot do).
package struct ViewCopy: Sendable {
    /// Read whole by the command.
    package var header: [UInt8]
    /// Read by position (canonical JSON text, as the command wrote them).
    package var records: [String]

    package init(header: [UInt8], records: [String]) {
        self.header = header
        self.records = records
    }
}

/// A view's copy as the read model holds it: the header, and the records read on demand.
package struct HeldViewCopy: Sendable {
    package let header: [UInt8]
    /// How many records the copy holds.
    package let count: Int
    private let read: @Sendable ([Int]) throws -> [String]

    package init(header: [UInt8], count: Int, read: @escaping @Sendable ([Int]) throws -> [String]) {
        self.header = header
        self.count = count
        self.read = read
    }

    /// The records at `positions`, in that order, parsed. Throws when one is missing or not
    /// JSON (a damaged copy: the caller answers from the store).
    package func records(at positions: [Int]) throws -> [JSONValue] {
        try read(positions).map { try JSONValue.parse($0) }
    }
}

/// Little-endian 32-bit fields, for copy headers.
package struct CopyHeaderWriter {
    package private(set) var bytes: [UInt8] = []

    package init() {}

    package mutating func append(_ value: Int) {
        let v = UInt32(truncatingIfNeeded: value)
        bytes += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)]
    }

    /// Its UTF-8 length, then its bytes.
    package mutating func append(_ text: String) {
        append(text.utf8.count)
        bytes += text.utf8
    }

    package mutating func append(bytes more: [UInt8]) {
        append(more.count)
        bytes += more
    }
}

/// Reads what `CopyHeaderWriter` wrote; every read is nil past the end (a damaged header).
package struct CopyHeaderReader {
    private let data: [UInt8]
    private var offset = 0

    package init(_ bytes: [UInt8]) { data = bytes }

    package mutating func int() -> Int? {
        guard offset + 4 <= data.count else { return nil }
        defer { offset += 4 }
        return Int(data[offset]) | Int(data[offset + 1]) << 8 | Int(data[offset + 2]) << 16 | Int(data[offset + 3]) << 24
    }

    package mutating func text() -> String? {
        guard let raw = bytes(), let text = String(validating: raw, as: UTF8.self) else { return nil }
        return text
    }

    package mutating func bytes() -> [UInt8]? {
        guard let count = int(), offset + count <= data.count else { return nil }
        defer { offset += count }
        return Array(data[offset ..< offset + count])
    }
}
