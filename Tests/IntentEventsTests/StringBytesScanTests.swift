import Foundation
import Testing

@testable import IntentEvents

/// The word-at-a-time string scan the parser and the canonical writer use, against the
/// byte-by-byte rules it replaces: a quote, a backslash or a control byte ends a plain run,
/// and any byte from 0x80 up means the run needs UTF-8 validation. A miss here would let a
/// raw control character or invalid UTF-8 into an event, or leave a quote unescaped.
@Suite("String bytes scan")
struct StringBytesScanTests {
    static func endsByRule(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20
    }

    static func word(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
    }

    /// Bytes that never end a run, ASCII and not.
    static let plain: [UInt8] = Array(0x20...0xFF).filter { !endsByRule($0) }

    @Test("every byte value at every position of a word, among plain bytes")
    func everyByteAtEveryPosition() {
        var random = CanonicalJSONEquivalenceTests.Generator(state: 7)
        for position in 0..<8 {
            for value in 0...255 {
                var bytes = (0..<8).map { _ in Self.plain[Int(random.next() % UInt64(Self.plain.count))] }
                bytes[position] = UInt8(value)
                let word = Self.word(bytes)
                #expect(
                    StringBytesScan.endsPlainRun(word) == Self.endsByRule(UInt8(value)),
                    "byte \(value) at \(position) in \(bytes)")
                #expect(StringBytesScan.hasNonASCII(word) == bytes.contains { $0 >= 0x80 })
            }
        }
    }

    @Test("random words agree with the byte rule")
    func randomWords() {
        var random = CanonicalJSONEquivalenceTests.Generator(state: 11)
        for _ in 0..<200_000 {
            // Half the words biased towards the bytes around each threshold.
            let bytes: [UInt8] = (0..<8).map { _ in
                let draw = random.next()
                return draw % 2 == 0
                    ? UInt8(truncatingIfNeeded: draw >> 8)
                    : [0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7F, 0x80, 0x00, 0xFF][Int(draw >> 8) % 12]
            }
            let word = Self.word(bytes)
            #expect(StringBytesScan.endsPlainRun(word) == bytes.contains(where: Self.endsByRule), "\(bytes)")
            #expect(StringBytesScan.hasNonASCII(word) == bytes.contains { $0 >= 0x80 })
        }
    }

    /// Strings long enough for whole words, with the byte that matters at every offset.
    @Test("the parser refuses a raw control byte or invalid UTF-8 at any offset, and finds the quote")
    func parserAtEveryOffset() throws {
        for length in 1...40 {
            for offset in 0..<length {
                let quoted = { (byte: UInt8) -> [UInt8] in
                    var contents = Array(repeating: UInt8(ascii: "a"), count: length)
                    contents[offset] = byte
                    return Array("\"".utf8) + contents + Array("\"".utf8)
                }
                #expect(throws: (any Error).self) { try JSONParser.parse(quoted(0x01)) }
                #expect(throws: (any Error).self) { try JSONParser.parse(quoted(0xFF)) }
                // The string ends at the quote: what follows it is refused.
                #expect(throws: (any Error).self) { try JSONParser.parse(quoted(UInt8(ascii: "\""))) }
                let text =
                    String(repeating: "a", count: offset) + "Юлия" + String(repeating: "b", count: length - offset)
                #expect(try JSONParser.parse(Array("\"\(text)\"".utf8)) == .string(text))
            }
        }
    }

    /// The writer against the escaping rule written out byte by byte, for strings whose
    /// escapes fall at every offset across word boundaries.
    @Test("the writer escapes exactly what the byte rule escapes, at any offset")
    func writerAtEveryOffset() throws {
        for length in 0...40 {
            for offset in 0...length {
                for special in ["\"", "\\", "\n", "\u{1}", "\u{1F}", "孙", "/"] {
                    let text =
                        String(repeating: "x", count: offset) + special + String(repeating: "y", count: length - offset)
                    var written: [UInt8] = []
                    CanonicalJSONWriter.write(text, into: &written)
                    #expect(written == Self.reference(text), "\(text.debugDescription)")
                    #expect(try JSONParser.parse(written) == .string(text))
                }
            }
        }
    }

    static func reference(_ text: String) -> [UInt8] {
        var output = Array("\"".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output += Array(#"\""#.utf8)
            case UInt8(ascii: "\\"): output += Array(#"\\"#.utf8)
            case 0x08: output += Array(#"\b"#.utf8)
            case 0x0C: output += Array(#"\f"#.utf8)
            case 0x0A: output += Array(#"\n"#.utf8)
            case 0x0D: output += Array(#"\r"#.utf8)
            case 0x09: output += Array(#"\t"#.utf8)
            case ..<0x20: output += Array(String(format: "\\u%04x", byte).utf8)
            default: output.append(byte)
            }
        }
        return output + Array("\"".utf8)
    }
}
