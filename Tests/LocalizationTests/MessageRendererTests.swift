import Foundation
import IntentEvents
import Intents
import Testing

@testable import Localization

/// Rendering in the user's locale, with CLDR's formats (the expected strings are CLDR's,
/// as the issue states them, not computed by the renderer).
@Suite("Rendering messages in a locale")
struct MessageRendererTests {
    static func amount(_ text: String, _ currency: String) -> MessageArgument {
        .amount(CurrencyAmount(amount: DecimalAmount(text)!, currency: currency))
    }

    @Test("amounts in each locale's format: 100,00 ₽, ¥100.00, $20.00")
    func amounts() {
        #expect(MessageRenderer(locale: "ru-RU").format(Self.amount("100", "RUB")) == "100,00\u{a0}₽")
        #expect(MessageRenderer(locale: "zh-Hans-CN").format(Self.amount("100", "CNY")) == "¥100.00")
        #expect(MessageRenderer(locale: "en-US").format(Self.amount("20", "USD")) == "$20.00")
        // Every digit of an amount is said: a confirmation never rounds what it binds.
        #expect(MessageRenderer(locale: "en-US").format(Self.amount("20.125", "USD")) == "$20.125")
        #expect(MessageRenderer(locale: "en-US").format(Self.amount("20.5", "USD")) == "$20.50")
    }

    @Test("the confirmation questions of the seed scenarios, in the user's language")
    func confirmations() {
        let toSunBo = LocalizedMessage(
            .sendPaymentConfirm,
            ["amount": Self.amount("100", "CNY"), "name": .text("孙波"), "account": .text("sunbo@pay")])
        #expect(MessageRenderer(locale: "zh-Hans-CN").render(toSunBo) == "向孙波（sunbo@pay）付款¥100.00？")
        let fromYulia = LocalizedMessage(
            .requestPaymentConfirm,
            ["amount": Self.amount("500", "RUB"), "name": .text("Юлия Щукина"), "account": .text("yulia@pay")])
        #expect(
            MessageRenderer(locale: "ru-RU").render(fromYulia)
                == "Запросить 500,00\u{a0}₽? Плательщик: Юлия Щукина (yulia@pay).")
        let toBrandon = LocalizedMessage(
            .sendPaymentConfirm,
            ["amount": Self.amount("20", "USD"), "name": .text("Brandon"), "account": .text("b@pay")])
        #expect(MessageRenderer(locale: "en-US").render(toBrandon) == "Send $20.00 to Brandon (b@pay)?")
    }

    @Test("lists read the way each language joins them")
    func lists() {
        let message = LocalizedMessage(
            .sendMessageConfirm, ["recipients": .names(["张伟", "王芳", "李娜"]), "content": .text("你好")])
        #expect(MessageRenderer(locale: "zh-Hans-CN").render(message) == "发送给张伟、王芳和李娜：“你好”？")
        #expect(MessageRenderer(locale: "ru-RU").format(.names(["Юля", "Петя", "Вася"])) == "Юля, Петя и Вася")
        #expect(MessageRenderer(locale: "en-US").format(.names(["Ann", "Bo", "Cy"])) == "Ann, Bo, and Cy")
        // Alternatives, as a disambiguation question offers them.
        let which = LocalizedMessage(.promptWhich, ["choices": .choices(["1) 张伟", "2) 章伟"])])
        #expect(MessageRenderer(locale: "zh-Hans-CN").render(which) == "你指的是哪一位：1) 张伟或2) 章伟？")
        #expect(MessageRenderer(locale: "ru-RU").format(.choices(["Юля", "Петя"])) == "Юля или Петя")
        #expect(MessageRenderer(locale: "en-US").format(.choices(["Ann", "Bo", "Cy"])) == "Ann, Bo, or Cy")
    }

    @Test("a locale arrives on the envelope; a malformed one is ignored")
    func userLocale() throws {
        for tag in ["en", "zh-Hans-CN", "ru-RU", "en-US", "sr-Latn-RS", "es-419"] {
            #expect(UserLocale.isWellFormed(tag), "\(tag)")
        }
        for tag in [
            "", "e", "english-US", "en_US", "en-", "-en", "zh Hans", "en-US\n", "ru-РФ",
            String(repeating: "a-", count: 30) + "a",
        ] {
            #expect(!UserLocale.isWellFormed(tag), "\(tag)")
        }
        var envelope = EventEnvelope(
            id: "e", source: "/voice/test", type: "t", time: Date(timeIntervalSince1970: 0), userID: "u",
            conversationID: "c", data: .null)
        #expect(UserLocale.of(envelope) == nil)
        try envelope.extensions.set(UserLocale.attribute, .string("ru-RU"))
        #expect(UserLocale.of(envelope) == "ru-RU")
        try envelope.extensions.set(UserLocale.attribute, .string("ru_RU; rm -rf"))
        #expect(UserLocale.of(envelope) == nil)
    }

    @Test("arguments travel as JSON with one member naming their kind, and read back")
    func argumentJSON() throws {
        let arguments: [MessageArgument] = [
            .text("孙波"), Self.amount("100.50", "CNY"), .number(3), .names(["a", "b"]), .choices(["c", "d"]),
        ]
        for argument in arguments {
            #expect(MessageArgument(json: argument.json) == argument)
            let decoded = try JSONDecoder().decode(MessageArgument.self, from: JSONEncoder().encode(argument))
            #expect(decoded == argument)
        }
        let malformed: [JSONValue] = [
            .string("x"), .object([:]), .object(["text": .integer(1)]), .object(["number": .string("1")]),
            .object(["text": .string("a"), "number": .integer(1)]), .object(["names": .array([.integer(1)])]),
            .object(["amount": .object(["amount": .string("1")])]), .object(["date": .string("2026-11-25")]),
        ]
        for json in malformed { #expect(MessageArgument(json: json) == nil, "\(json)") }
    }

    @Test("a list of one is written as Foundation's list formatter writes it, in every locale")
    func listOfOne() {
        let names = [
            "孙波", "Юлия Щукина", "Brandon Lee", "1) 张伟", "", "123", "Ω", "ᏣᎳᎩ", "שלום", "محمد", "ܐ", "𐤀", "a\u{200F}",
            "\u{061C}x", "x\u{202E}y", "x\u{2067}y", "Ana \u{200E}",
        ]
        for tag in [
            "en-US", "zh-Hans-CN", "ru-RU", "ar-EG", "ja-JP", "de-DE", "he-IL", "fa-IR", "en-IL", "x-not-a-locale",
        ] {
            let renderer = MessageRenderer(locale: tag)
            for name in names {
                #expect(renderer.format(.names([name])) == [name].formatted(.list(type: .and).locale(renderer.locale)))
                #expect(renderer.format(.choices([name])) == [name].formatted(.list(type: .or).locale(renderer.locale)))
            }
        }
    }

    @Test("a tag's renderer is made once and the table of them stays bounded, whatever tags arrive")
    func renderersAreKeptAndBounded() {
        let message = LocalizedMessage(
            .requestPaymentConfirm, ["amount": Self.amount("500", "RUB"), "name": .text("Юля")])
        let first = MessageRenderer(locale: "ru-RU").render(message)
        #expect(MessageRenderer(locale: "ru-RU").render(message) == first)
        #expect(MessageRenderer(locale: "ru-RU").locale == Locale(identifier: "ru-RU"))
        for index in 0..<(MessageRenderer.renderers.capacity + 50) {
            #expect(MessageRenderer(locale: "ru-RU-x-\(index)").render(message) == first)
        }
        #expect(MessageRenderer.renderers.count <= MessageRenderer.renderers.capacity)
        #expect(MessageRenderer(locale: "en-US").locale == Locale(identifier: "en-US"))
        #expect(MessageRenderer(locale: nil).locale == Locale(identifier: UserLocale.fallback))
    }

    @Test("placeholders found by bytes are the ones a search by characters finds, in every sentence of every catalog")
    func placeholdersByBytes() {
        // The rule as it was written before, by `Character`: the reference the renderer must match.
        func byCharacters(_ sentence: String, _ arguments: [String: String]) -> String {
            var rendered = ""
            var rest = sentence[...]
            while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
                rendered += rest[..<open]
                let name = String(rest[rest.index(after: open)..<close])
                rendered += arguments[name] ?? "{\(name)}"
                rest = rest[rest.index(after: close)...]
            }
            return rendered + rest
        }
        var checked = 0
        for catalog in MessageCatalog.all {
            let renderer = MessageRenderer(locale: catalog.language, catalog: catalog)
            for (key, sentence) in catalog.sentences {
                // Every name in braces gets a text argument of its own (a missing one stays in braces).
                var arguments: [String: String] = [:]
                for part in sentence.split(separator: "{").dropFirst() {
                    if let close = part.firstIndex(of: "}") {
                        arguments[String(part[..<close])] = "«\(part[..<close])»"
                    }
                }
                let message = LocalizedMessage(key, arguments.mapValues { .text($0) })
                #expect(renderer.render(message) == byCharacters(sentence, arguments), "\(catalog.language) \(key)")
                checked += 1
            }
        }
        #expect(checked > 20)
    }
}
