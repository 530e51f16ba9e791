/// Writes a ``JSONValue`` as canonical JSON directly into bytes: the same
/// bytes as ``CanonicalJSON/encode(_:)`` through Foundation's `JSONEncoder`
/// (keys sorted as Swift sorts strings, slashes and non-ASCII unescaped,
/// control characters as `\b \f \n \r \t` or `\u00xx`), without its generic
/// `Encodable` machinery. Every event a worker publishes or verifies is
/// encoded here, so it must be fast and must not change a byte:
/// `CanonicalJSONEquivalenceTests` compares it with the Foundation encoder.
@usableFromInline
enum CanonicalJSONWriter {
    static func encode(_ value: JSONValue) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(512)
        write(value, into: &output)
        return output
    }

    @usableFromInline
    static func write(_ value: JSONValue, into output: inout [UInt8]) {
        switch value {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: (value ? "true" : "false").utf8)
        case .integer(let value): output.append(contentsOf: String(value).utf8)
        case .number(let value):
            // Rare in events (dates in a few payloads): Foundation's own number
            // formatting, so the bytes cannot differ.
            output.append(contentsOf: CanonicalJSON.foundationEncode([value]).dropFirst().dropLast())
        case .string(let value): write(value, into: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                write(element, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            // Sorted with their values, so that no key is looked up again.
            for (index, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                write(member.key, into: &output)
                output.append(UInt8(ascii: ":"))
                write(member.value, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    @usableFromInline
    static func write(_ string: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { bytes in
            var start = 0
            var index = 0
            var seen: UInt64 = 0
            while index < bytes.count {
                // Whole words without anything to escape are skipped; the next word byte by byte.
                index = StringBytesScan.skipPlainWords(bytes, from: index, seen: &seen)
                let wordEnd = min(index + 8, bytes.count)
                while index < wordEnd {
                    let byte = bytes[index]
                    index += 1
                    guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index - 1]))
                    start = index
                    escape(byte, into: &output)
                }
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        }
        output.append(UInt8(ascii: "\""))
    }

    /// What canonical JSON writes for a byte that cannot stand in a string as itself.
    private static func escape(_ byte: UInt8, into output: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
        case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
        case 0x08: output.append(contentsOf: #"\b"#.utf8)
        case 0x0C: output.append(contentsOf: #"\f"#.utf8)
        case 0x0A: output.append(contentsOf: #"\n"#.utf8)
        case 0x0D: output.append(contentsOf: #"\r"#.utf8)
        case 0x09: output.append(contentsOf: #"\t"#.utf8)
        default:
            let hex = Array("0123456789abcdef".utf8)
            output.append(contentsOf: #"\u00"#.utf8)
            output.append(hex[Int(byte >> 4)])
            output.append(hex[Int(byte & 0x0F)])
        }
    }
}
