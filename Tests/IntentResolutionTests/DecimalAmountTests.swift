import Foundation
import Intents
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
}
