import Foundation
import IntentEvents
import Testing

@testable import Intents
@testable import Payments

/// The payments stage's per-record helpers, made cheaper, against the code they replace:
/// the binding digest's message (Foundation's `JSONEncoder` before) and the handle rule
/// (character by character before).
@Suite("Payments hot path: the same bytes as before")
struct PaymentsHotPathEquivalenceTests {
    static let awkward = [
        "", "alice", "Bob@Example.COM", "+86 138-0000-0000", "(555) 010.0100", "a\tb\nc\r\nd\u{0B}e\u{0C}f",
        "\u{1C}\u{1D}\u{1E}\u{1F}\u{7F}", "quote\" back\\slash /slash", "控制\u{01}\u{1F}", "Ünïcödé", "e\u{301}",
        "ǅ ß İ ﬁ", "\u{85}\u{A0}\u{2028}x", "😀👩‍👩‍👧", "A@B-C(D).E", "-().", "ÀB@C", "\r\n\r\n",
    ]

    @Test("handles: the ASCII rule equals the character rule on every ASCII character, pair and sample")
    func handles() {
        var samples = Self.awkward
        let ascii = (0..<128).map { String(UnicodeScalar(UInt8($0))) }
        samples += ascii
        for first in ascii { for second in ["A", "@", "\n", "\r", "-", " "] { samples.append(first + second) } }
        for sample in samples {
            #expect(
                Person.normalizedHandle(sample) == Person.unicodeNormalizedHandle(sample), "\(sample.debugDescription)")
            let isASCII = sample.unicodeScalars.allSatisfy(\.isASCII)
            #expect((Person.asciiNormalizedHandle(sample) != nil) == isASCII)
        }
    }

    @Test("binding messages: byte for byte what Foundation's encoder wrote for the same fields")
    func bindingMessage() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // The time is written straight as digits: a whole second, the epoch, the last millisecond
        // of 2099 and one before the epoch.
        let times = [1_795_000_000.5, 1_795_000_000, 0, 4_102_444_799.999, -1.5].map {
            Timestamp(Date(timeIntervalSince1970: $0))
        }
        for (text, expiresAt) in Self.awkward.flatMap({ text in times.map { (text, $0) } }) {
            for account in [nil, text, "+86 138-0000-0000"] {
                let terms = BindingTerms(
                    kind: .sendPayment, intentID: "i-\(text)", userID: text,
                    counterpartyContactID: text.isEmpty ? nil : text,
                    counterpartyAccount: account,
                    money: Money(CurrencyAmount(amount: DecimalAmount("12.50")!, currency: "CNY")),
                    note: text, expiresAt: expiresAt,
                    counterpartyUserID: account == nil ? nil : text,
                    requestSource: text.isEmpty ? nil : "/voice/\(text)")
                let fields = [
                    "intent-pipeline/binding/v3", terms.kind.rawValue, terms.intentID, terms.userID,
                    terms.counterpartyContactID ?? "",
                    terms.counterpartyAccount.map(Person.unicodeNormalizedHandle) ?? "",
                    terms.money.amount.description, terms.money.currency, terms.note ?? "", terms.expiresAt.description,
                    terms.counterpartyUserID ?? "", terms.requestSource ?? "",
                ]
                #expect(BindingKey.message(terms) == Array(try encoder.encode(fields)), "\(text.debugDescription)")
            }
        }
        // The expiry's text itself, written out by hand rather than by the code under test.
        let terms = BindingTerms(
            kind: .sendPayment, intentID: "i-1", userID: "alice", counterpartyContactID: nil, counterpartyAccount: nil,
            money: Money(CurrencyAmount(amount: DecimalAmount("1")!, currency: "CNY")), note: nil,
            expiresAt: Timestamp(milliseconds: 4_102_444_799_999))
        #expect(String(decoding: BindingKey.message(terms), as: UTF8.self).contains(#","2099-12-31T23:59:59.999Z","#))
    }
}
