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
        input.reserveCapacity(parts.reduce(0) { $0 + $1.utf8.count + 4 })
        for part in parts {
            input.append(contentsOf: String(part.utf8.count).utf8)
            input.append(UInt8(ascii: ":"))
            input.append(contentsOf: part.utf8)
        }
        var bytes = Array(Digest.sha256(input).prefix(16))
        bytes[6] = (bytes[6] & 0x0f) | 0x80  // version 8
        bytes[8] = (bytes[8] & 0x3f) | 0x80  // RFC 9562 variant
        // 8-4-4-4-12 hex digits, written in one pass (one per event published).
        let hex = Array(Digest.hex(bytes).utf8)
        var uuid: [UInt8] = []
        uuid.reserveCapacity(36)
        for (index, digit) in hex.enumerated() {
            if index == 8 || index == 12 || index == 16 || index == 20 { uuid.append(UInt8(ascii: "-")) }
            uuid.append(digit)
        }
        return String(decoding: uuid, as: UTF8.self)
    }
}
