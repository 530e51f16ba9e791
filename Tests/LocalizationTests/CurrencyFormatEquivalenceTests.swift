import Foundation
import Intents
import Testing

@testable import Localization

/// ``CurrencyFormat`` formats an amount from a template per shape of amount; the text
/// must be exactly Foundation's (``CurrencyFormat/foundation(_:locale:)``, what the
/// renderer called for every amount before) in every locale a user may send: the
/// catalogs' languages, their regions, locales with other separators, grouping, symbol
/// placement and numbering systems, and tags ICU does not know.
@Suite("Currency amounts: the templates write Foundation's text", .serialized)
struct CurrencyFormatEquivalenceTests {
    static let locales = [
        "en", "en-US", "en-GB", "en-IN", "zh", "zh-Hans-CN", "zh-Hant-TW", "ru", "ru-RU", "de-CH", "fr-FR", "fr-CH",
        "es-419", "pt-PT", "pl-PL", "sv-SE", "ja-JP", "hi-IN", "ar-EG", "fa-IR", "he-IL", "sr-Latn-RS", "bn-BD",
        "xx-ZZ",
    ]
    static let currencies = ["CNY", "RUB", "USD", "EUR", "JPY", "INR", "KWD", "CLF", "QQQ"]

    /// Amounts of every width from 1 to 12 integer digits and every scale from 0 to 6,
    /// negative ones, zero, and fractions below one, from a fixed seed.
    static func amounts() -> [DecimalAmount] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 11
        }
        var amounts = [DecimalAmount(units: 0, scale: 0), DecimalAmount(units: 5, scale: 3)]
        for integerDigits in 1...12 {
            for scale in 0...6 {
                var limit: Int64 = 1
                for _ in 0..<(integerDigits + scale) { limit *= 10 }
                let units = Int64(next() % UInt64(limit))
                amounts.append(DecimalAmount(units: units, scale: scale))
                amounts.append(DecimalAmount(units: -max(units, 1), scale: scale))
                amounts.append(DecimalAmount(units: limit - 1, scale: scale))
            }
        }
        return amounts
    }

    @Test("many amounts, currencies and locales: the same text as Foundation's currency style")
    func sameTextAsFoundation() {
        let amounts = Self.amounts()
        for tag in Self.locales {
            let renderer = MessageRenderer(locale: tag)
            for currency in Self.currencies {
                for amount in amounts {
                    let money = CurrencyAmount(amount: amount, currency: currency)
                    let expected = CurrencyFormat.foundation(money, locale: renderer.locale)
                    // Twice: the first of a shape builds its template, the second uses it.
                    for _ in 0..<2 {
                        #expect(renderer.format(money) == expected, "\(tag) \(amount) \(currency)")
                    }
                }
            }
        }
    }

    @Test("the pipeline's languages and currencies are formatted from templates, not by ICU each time")
    func templatesAreUsed() throws {
        for tag in ["en", "en-US", "zh-Hans-CN", "ru-RU"] {
            let renderer = MessageRenderer(locale: tag)
            for currency in ["CNY", "RUB", "USD", "EUR", "JPY"] {
                for (units, scale) in [(1250, 2), (7, 0), (5, 2), (123_456_789, 3)] {
                    let amount = DecimalAmount(units: Int64(units), scale: scale)
                    _ = renderer.format(CurrencyAmount(amount: amount, currency: currency))
                    // The digits before the point: at least one ("0.05").
                    let integerDigits = max(String(units).count - scale, 1)
                    let shape = CurrencyFormat.Shape(
                        locale: renderer.locale.identifier, currency: currency, negative: false,
                        integerDigits: integerDigits, scale: scale)
                    let cached = try #require(CurrencyFormat.cachedTemplate(for: shape), "\(tag) \(currency)")
                    #expect(cached != nil, "\(tag) \(currency) \(amount) has no template")
                }
            }
        }
    }

    @Test("locale tags a sender makes up cannot grow the template table without end")
    func boundedTable() {
        let money = CurrencyAmount(amount: DecimalAmount(units: 1250, scale: 2), currency: "USD")
        for index in 0..<(CurrencyFormat.maximumShapes + 50) {
            let renderer = MessageRenderer(locale: "en-US-x\(index)")
            #expect(renderer.format(money) == CurrencyFormat.foundation(money, locale: renderer.locale))
        }
        #expect(CurrencyFormat.shapeCount <= CurrencyFormat.maximumShapes)
    }

    @Test("CLDR's own texts for the pipeline's languages (not computed by the code under test)")
    func knownTexts() {
        func amount(_ text: String, _ currency: String) -> CurrencyAmount {
            CurrencyAmount(amount: DecimalAmount(text)!, currency: currency)
        }
        #expect(MessageRenderer(locale: "ru-RU").format(amount("1234567.5", "RUB")) == "1\u{a0}234\u{a0}567,50\u{a0}₽")
        #expect(MessageRenderer(locale: "zh-Hans-CN").format(amount("1234567", "CNY")) == "¥1,234,567.00")
        let negative = CurrencyAmount(amount: DecimalAmount(units: -125, scale: 3), currency: "USD")
        #expect(MessageRenderer(locale: "en-US").format(negative) == "-$0.125")
        #expect(MessageRenderer(locale: "en-IN").format(amount("1234567", "INR")) == "₹12,34,567.00")
    }

    @Test("a template is filled with the amount's digits, then zeros; more digits than places is no text")
    func filling() {
        let template = CurrencyFormat.Template(bytes: Array("¥7,777.77".utf8), digitOffsets: [2, 4, 5, 6, 8, 9])
        #expect(CurrencyFormat.fill(template, DecimalAmount(units: 12345, scale: 1)) == "¥1,234.50")
        #expect(CurrencyFormat.fill(template, DecimalAmount(units: 1_234_567, scale: 3)) == nil)
        // At least one digit before the point, the fraction's leading zeros kept.
        #expect(CurrencyFormat.fill(template, DecimalAmount(units: -5, scale: 3)) == "¥0,005.00")
        #expect(CurrencyFormat.fill(template, DecimalAmount(units: 0, scale: 0)) == "¥0,000.00")
    }
}
