import IntentCrypto

/// Deterministic event ids. An event derived from another (a prompt from a
/// requested intent, a result from a confirmation) gets an id computed from
/// what caused it, so processing the same input twice yields the same id and
/// consumers drop the duplicate.
public enum EventID {
    /// A UUID-formatted (version 8, RFC 9562) id from the SHA-256 of the parts.
    public static func derived(_ parts: String...) -> String {
        derived(parts)
    }

    public static func derived(_ parts: [String]) -> String {
        // Length-prefix each part so ("ab", "c") and ("a", "bc") differ.
        var input: [UInt8] = []
        for part in parts {
            input += Array("\(part.utf8.count):".utf8) + Array(part.utf8)
        }
        var bytes = Array(Digest.sha256(input).prefix(16))
        bytes[6] = (bytes[6] & 0x0f) | 0x80  // version 8
        bytes[8] = (bytes[8] & 0x3f) | 0x80  // RFC 9562 variant
        let hex = Digest.hex(bytes)
        let characters = Array(hex)
        func slice(_ range: Range<Int>) -> String { String(characters[range]) }
        return [slice(0..<8), slice(8..<12), slice(12..<16), slice(16..<20), slice(20..<32)].joined(separator: "-")
    }
}
