import Foundation
import Intents
import StageRuntime
import Testing

@Suite("Exact decimal amounts")
struct DecimalAmountTests {
    @Test("parses and prints amounts exactly, keeping the written scale")
    func roundTrip() throws {
        for text in ["0", "7", "100", "100.00", "0.01", "0.000001", "999999999999.999999", "12.50"] {
            let value = try #require(DecimalAmount(text), "\(text)")
            #expect(value.description == text)
        }
        #expect(DecimalAmount("0.01")?.units == 1)
        #expect(DecimalAmount("0.01")?.scale == 2)
    }

    @Test("rejects signs, exponents, leading zeros, empty parts and too many digits")
    func rejects() {
        for text in [
            "", "-1", "+1", "1e3", "01", "1.", ".5", "1.2.3", "1,5", " 1", "1234567890123", "0.1234567", "NaN",
        ] {
            #expect(DecimalAmount(text) == nil, "\(text)")
        }
    }

    @Test("compares by value whatever the scale, so 0.1 + 0.2 style errors cannot happen")
    func compares() throws {
        let a = try #require(DecimalAmount("1.0"))
        let b = try #require(DecimalAmount("1.00"))
        #expect(a == b)
        #expect(Set([a, b]).count == 1)
        #expect(try #require(DecimalAmount("0.3")) > #require(DecimalAmount("0.29999")))
        #expect(try #require(DecimalAmount("100")) < #require(DecimalAmount("100.000001")))
        #expect(try #require(DecimalAmount("12.50")).significantScale == 1)
    }

    @Test("travels as a JSON string, and a JSON number is refused")
    func codable() throws {
        let encoded = try JSONEncoder().encode(amount("100.10", "CNY"))
        #expect(String(decoding: encoded, as: UTF8.self).contains("\"amount\":\"100.10\""))
        let decoded = try JSONDecoder().decode(CurrencyAmount.self, from: encoded)
        #expect(decoded == amount("100.1", "CNY"))
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(CurrencyAmount.self, from: Data(#"{"amount": 100.1, "currency": "CNY"}"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(CurrencyAmount.self, from: Data(#"{"amount": "1", "currency": "yuan"}"#.utf8))
        }
    }

    @Test("reads and writes byte by byte exactly as the grammar says, on seeded random texts and values")
    func matchesTheGrammar() throws {
        var random = SplitMix64(seed: 20_261_128)
        let alphabet = ["0", "0", "1", "5", "9", ".", ".", "-", "+", "e", " ", "٣", "１", "1\u{301}", "x"]
        for _ in 0..<20_000 {
            let text = (0..<Int(random.next() % 22)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
                .joined()
            let parsed = DecimalAmount(text)
            let expected = Self.grammar(text)
            #expect(parsed.map { ($0.units, $0.scale) } ?? (-1, -1) == expected ?? (-1, -1), "\(text)")
            if let parsed { #expect(parsed.description == text, "\(text)") }
        }
        for _ in 0..<20_000 {
            let units = Int64(bitPattern: random.next()) >> Int64(random.next() % 64)
            let amount = DecimalAmount(units: units, scale: Int(random.next() % 7))
            let expected = Self.written(units: amount.units, scale: amount.scale)
            #expect(amount.description == expected)
            #expect(
                amount.digitCount == expected.utf8.filter { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }.count)
            var bytes: [UInt8] = [1]
            amount.appendDescription(to: &bytes)
            #expect(bytes == [1] + Array(expected.utf8))
        }
    }

    /// The grammar, as a reference written another way: ASCII digits, at most one point with
    /// 1-6 digits after it, 1-12 digits before it and no leading zero but a lone "0".
    private static func grammar(_ text: String) -> (units: Int64, scale: Int)? {
        let bytes = Array(text.utf8)
        let parts = bytes.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
        let isDigit = { (byte: UInt8) in (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        guard let integer = parts.first, (1...12).contains(integer.count), integer.allSatisfy(isDigit),
            integer.count == 1 || integer.first != UInt8(ascii: "0")
        else { return nil }
        let fraction = parts.count == 2 ? parts[1] : []
        guard parts.count == 1 || (1...6).contains(fraction.count), fraction.allSatisfy(isDigit) else { return nil }
        let units = (integer + fraction).reduce(Int64(0)) { $0 * 10 + Int64($1 - UInt8(ascii: "0")) }
        return (units, fraction.count)
    }

    /// How an amount is written, as a reference: the units' digits padded with zeros to one
    /// more than the scale, the point before the last `scale` of them.
    private static func written(units: Int64, scale: Int) -> String {
        let digits = String(units.magnitude)
        let padded = String(repeating: "0", count: max(0, scale + 1 - digits.count)) + digits
        let cut = padded.count - scale
        let text = scale == 0 ? padded : "\(padded.prefix(cut)).\(padded.suffix(scale))"
        return units < 0 ? "-" + text : text
    }
}
