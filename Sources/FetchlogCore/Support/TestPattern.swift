/// Deterministic events whose every byte follows from their seq, so a process that
/// was killed can be checked against what it said it committed. Used by the
/// crash-safety test, its child process and the benchmarks.
package enum TestPattern {
    /// SplitMix64: tiny, fast, and the same on every platform.
    package struct Generator: RandomNumberGenerator, Sendable {
        var state: UInt64
        package init(seed: UInt64) { state = seed }
        package mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// `count` bytes derived from `seed`.
    package static func bytes(count: Int, seed: UInt64) -> [UInt8] {
        var generator = Generator(seed: seed)
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            var offset = 0
            while offset + 8 <= count {
                raw.storeBytes(of: generator.next(), toByteOffset: offset, as: UInt64.self)
                offset += 8
            }
            if offset < count {
                var last = generator.next()
                while offset < count {
                    raw[offset] = UInt8(truncatingIfNeeded: last)
                    last >>= 8
                    offset += 1
                }
            }
            initialized = count
        }
    }

    /// Body size for `seq` in the crash test: 100 B to about 48 KiB.
    package static func bodySize(seq: UInt64) -> Int { 100 + Int(seq &* 7919 % 49_000) }

    /// The event the crash-test child appends as `seq`.
    package static func event(seq: UInt64) -> Event {
        Event(recordedAt: Timestamp(milliseconds: 1_795_000_000_000 + Int64(seq)), kind: .fetched, source: "crash-test",
              label: "item-\(seq)", attempt: 1, durationMicros: seq,
              request: Event.Request(url: "http://127.0.0.1/crash-test/\(seq)"),
              response: Event.Response(status: 200, headers: [Header("ETag", "\"\(seq)\"")]),
              body: bytes(count: bodySize(seq: seq), seed: seq))
    }
}
