/// Turns raw JSON bodies into a plug-in's DTOs: parses the body once into a tape and hands
/// the root to the plug-in's decoding function. Pure: the same bytes always give the same
/// result, and a body that does not fit throws a `DecodeError` naming the offending path —
/// it never traps.
public enum DocumentDecoder {
    /// Parses `body` once and hands its root to `decode`, which reads the plug-in's DTOs; a body that is not JSON, or does not fit, throws a `DecodeError` naming the path.
    public static func decodeJSON<T>(_ body: [UInt8], _ decode: (JSONCursor) throws(DecodeError) -> T) throws(DecodeError) -> T {
        // `withUnsafeBytes` only rethrows untyped errors; a Result keeps the DecodeError typed.
        let result = body.withUnsafeBytes { (bytes) -> Result<T, DecodeError> in
            let tape: JSONTape
            do throws(JSONParseError) {
                tape = try JSONTape.parse(bytes)
            } catch {
                return .failure(DecodeError(path: "$", reason: error.description))
            }
            return tape.entries.withUnsafeBufferPointer { entries in
                Result { () throws(DecodeError) in try decode(JSONCursor(bytes: bytes, entries: entries)) }
            }
        }
        return try result.get()
    }
}
