import IntentEvents
import Intents
import Testing

/// IntentResponse and CurrencyAmount write their canonical JSON by hand; the
/// bytes must be the ones their `Encodable` forms give.
@Suite("Responses and amounts: hand-written canonical JSON equals the encoder's")
struct IntentResponseCanonicalTests {
    static let awkward = ["", "OK", "quote\" back\\slash /slash", "控制\u{01}\u{1F}", "e\u{301} 😀", "\u{2028}\u{7F}"]

    @Test("every kind and code, every optional present or absent, awkward strings: the same bytes")
    func responses() {
        for (index, text) in Self.awkward.enumerated() {
            for kind in Intent.Kind.allCases {
                for code in ResponseCode.allCases {
                    let full = index % 2 == 0
                    let localized: LocalizedMessage? =
                        switch index % 3 {
                        case 0:
                            LocalizedMessage(
                                .paymentSent,
                                [
                                    "amount": .amount(CurrencyAmount(amount: DecimalAmount("12.50")!, currency: "RUB")),
                                    "reason": .text(text), "count": .number(-3), "ids": .names([text]),
                                ])
                        case 1: LocalizedMessage(.messageDone)
                        default: nil
                        }
                    let response = IntentResponse(
                        kind: kind, code: code, reason: full ? text : nil, message: text, localized: localized,
                        transferID: full ? "t-\(text)" : nil, paymentRequestID: full ? nil : "pr-\(text)",
                        messageIDs: full ? [text, "m-2"] : (index == 1 ? [] : nil))
                    var direct: [UInt8] = []
                    response.writeCanonicalJSON(into: &direct)
                    #expect(direct == CanonicalJSON.encode(response), "\(String(decoding: direct, as: UTF8.self))")
                }
            }
        }
    }

    @Test("argument tables of every size up to past the stack sort's eight: the same bytes")
    func argumentTables() {
        let names = ["amount", "a", "b", "reason", "é", "Z", "count", "ids", "aa", "ab", "", "z", "Amount", "x1"]
        var state: UInt64 = 7
        for size in 0...names.count {
            for _ in 0..<20 {
                var arguments: [String: MessageArgument] = [:]
                while arguments.count < size {
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    let name = names[Int(state >> 33) % names.count]
                    arguments[name] = .number(Int(state >> 40))
                }
                var direct: [UInt8] = []
                MessageArgument.writeCanonicalJSON(arguments, into: &direct)
                #expect(direct == CanonicalJSON.encode(arguments), "\(String(decoding: direct, as: UTF8.self))")
            }
        }
    }

    @Test("amounts: the same bytes")
    func amounts() {
        for text in ["0.01", "12.50", "1000000", "0"] {
            for currency in ["CNY", "RUB", "JPY"] {
                let amount = CurrencyAmount(amount: DecimalAmount(text)!, currency: currency)
                var direct: [UInt8] = []
                amount.writeCanonicalJSON(into: &direct)
                #expect(direct == CanonicalJSON.encode(amount))
            }
        }
    }
}
