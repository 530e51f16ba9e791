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

    // Two, three and four parts (every call in the pipeline) without the array a variadic
    // call makes: ids are derived several times per decided record.

    public static func derived(_ first: String, _ second: String) -> String {
        derived { part in
            part(first)
            part(second)
        }
    }

    public static func derived(_ first: String, _ second: String, _ third: String) -> String {
        derived { part in
            part(first)
            part(second)
            part(third)
        }
    }

    public static func derived(_ first: String, _ second: String, _ third: String, _ fourth: String) -> String {
        derived { part in
            part(first)
            part(second)
            part(third)
            part(fourth)
        }
    }

    public static func derived(_ parts: [String]) -> String {
        derived { part in for text in parts { part(text) } }
    }

    /// `prefix` followed by the id of the three parts, made as one string (a transfer's
    /// `tr-…`, a message's `msg-…`): the id and then the joined text were two.
    public static func derived(prefix: StaticString, _ first: String, _ second: String, _ third: String) -> String {
        derived(prefix: prefix) { part in
            part(first)
            part(second)
            part(third)
        }
    }

    /// The id of the parts `parts` hands to its argument, in order, after `prefix`.
    private static func derived(prefix: StaticString = "", _ parts: ((String) -> Void) -> Void) -> String {
        // Length-prefix each part so ("ab", "c") and ("a", "bc") differ. The input and the
        // digest live on the stack and the hex is written into the id itself: one id per
        // event published, and the arrays and strings in between were five allocations.
        var capacity = 0
        parts { capacity += $0.utf8.count + 21 }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity + 32) { scratch in
            var count = 0
            // A static writer, not a local function capturing `count`: captured by the
            // closure handed to `parts`, such a function had its variable boxed on the heap.
            parts { writePart($0, into: scratch, at: &count) }
            // Both passes see the same parts (every caller hands over fixed values).
            assert(count <= capacity)
            let digest = scratch.baseAddress! + capacity
            Digest.sha256(UnsafeBufferPointer(start: scratch.baseAddress, count: count), into: digest)
            digest[6] = (digest[6] & 0x0f) | 0x80  // version 8
            digest[8] = (digest[8] & 0x3f) | 0x80  // RFC 9562 variant
            // 8-4-4-4-12 hex digits of the first 16 bytes.
            return String(unsafeUninitializedCapacity: prefix.utf8CodeUnitCount + 36) { uuid in
                var position = 0
                prefix.withUTF8Buffer { prefix in
                    for byte in prefix {
                        uuid[position] = byte
                        position += 1
                    }
                }
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        uuid[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    uuid[position] = Digest.hexDigit(digest[index] >> 4)
                    uuid[position + 1] = Digest.hexDigit(digest[index] & 0x0f)
                    position += 2
                }
                return position
            }
        }
    }

    /// Writes `part` as `<length in decimal>:<its UTF-8>` at `count` in `scratch`, moving
    /// `count` past it; the length as `String(length)` writes it.
    private static func writePart(_ part: String, into scratch: UnsafeMutableBufferPointer<UInt8>, at count: inout Int)
    {
        let length = part.utf8.count
        var divisor = 1
        while divisor <= length / 10 { divisor *= 10 }
        while divisor > 0 {
            scratch[count] = UInt8(ascii: "0") + UInt8(length / divisor % 10)
            count += 1
            divisor /= 10
        }
        scratch[count] = UInt8(ascii: ":")
        count += 1
        for byte in part.utf8 {
            scratch[count] = byte
            count += 1
        }
    }
}
