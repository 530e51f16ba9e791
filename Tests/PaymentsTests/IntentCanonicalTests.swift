import Foundation
import IntentEvents
import Intents
import Testing

/// Intents, confirmations, confirmation requests and resolution reports write
/// their canonical JSON by hand; the bytes must be the ones their `Encodable`
/// forms give through the generic encoder, for every intent kind, every
/// optional present or absent, and strings that need escaping.
@Suite("Intents and confirmations: hand-written canonical JSON equals the encoder's")
struct IntentCanonicalTests {
    static let awkward = IntentResponseCanonicalTests.awkward

    static func person(_ text: String, _ full: Bool) -> Person {
        full
            ? Person(spoken: text, handle: "h-\(text)", contactID: "c-\(text)", displayName: "d-\(text)")
            : Person(spoken: text)
    }

    static func amount(_ full: Bool) -> CurrencyAmount? {
        full ? CurrencyAmount(amount: DecimalAmount("12.50")!, currency: "CNY") : nil
    }

    /// Every kind, with every optional set (`full`) or unset.
    static func intents(_ text: String, full: Bool) -> [Intent] {
        let time = Date(timeIntervalSince1970: 1_795_000_000.123)
        return [
            .sendMessage(
                SendMessageIntent(
                    recipients: full ? [person(text, true), person("b", false)] : [], content: full ? text : nil,
                    groupName: full ? "g-\(text)" : nil, serviceName: full ? "s" : nil)),
            .searchForMessages(
                SearchForMessagesIntent(
                    senders: full ? [person(text, false)] : nil, recipients: full ? [] : nil,
                    dateRange: full ? DateRange(start: time, end: nil) : nil, keywords: full ? [text, "k"] : nil,
                    attributes: full ? MessageAttribute.allCases : nil)),
            .setMessageAttribute(
                SetMessageAttributeIntent(messageIDs: full ? [text] : [], attribute: full ? .flagged : nil)),
            .sendPayment(
                SendPaymentIntent(
                    payee: full ? person(text, true) : nil, currencyAmount: amount(full), note: full ? text : nil,
                    paymentRequestID: full ? "pr-\(text)" : nil)),
            .requestPayment(
                RequestPaymentIntent(
                    payer: full ? person(text, false) : nil, currencyAmount: amount(full), note: full ? text : nil)),
        ]
    }

    static func allIntents() -> [Intent] {
        awkward.flatMap { text in intents(text, full: true) + intents(text, full: false) }
    }

    static func direct(_ payload: some CanonicalPayload) -> [UInt8] {
        var bytes: [UInt8] = []
        payload.writeCanonicalJSON(into: &bytes)
        return bytes
    }

    @Test("every intent kind: the same bytes")
    func intentsMatch() {
        let all = Self.allIntents()
        #expect(all.count == Self.awkward.count * 10)
        for intent in all {
            #expect(
                Self.direct(intent) == CanonicalJSON.encode(intent),
                "\(String(decoding: Self.direct(intent), as: UTF8.self))")
        }
    }

    @Test("confirmations and confirmation requests, with and without a binding: the same bytes")
    func confirmationsMatch() {
        let binding = ConfirmationBinding(
            digest: "ab12", expiresAt: Timestamp(Date(timeIntervalSince1970: 1_795_000_600.5)))
        for (index, intent) in Self.allIntents().enumerated() {
            let text = Self.awkward[index % Self.awkward.count]
            let full = index % 2 == 0
            // A key with arguments of every kind, a key alone, or neither.
            let localized: LocalizedMessage? =
                switch index % 3 {
                case 0:
                    LocalizedMessage(
                        .sendPaymentConfirm,
                        [
                            "amount": .amount(Self.amount(true)!), "name": .text(text), "count": .number(index - 2),
                            "ids": .names([text, "b"]),
                        ])
                case 1: LocalizedMessage(.searchingMessages)
                default: nil
                }
            let confirmation = IntentConfirmation(
                turn: index - 3, intent: intent, code: ResponseCode.allCases[index % ResponseCode.allCases.count],
                reason: full ? text : nil, proposedResponse: text, localized: localized, binding: full ? binding : nil)
            #expect(Self.direct(confirmation) == CanonicalJSON.encode(confirmation))
            let request = ConfirmationRequest(
                intent: intent, counterpartyContactID: full ? "c-\(text)" : nil,
                counterpartyDisplayName: full ? text : nil, counterpartyAccount: full ? nil : "acct-\(text)",
                amount: Self.amount(true)!, proposedResponse: text, localized: localized, binding: binding)
            #expect(Self.direct(request) == CanonicalJSON.encode(request))
        }
    }

    @Test("resolution reports with every outcome, candidates and alternatives: the same bytes")
    func reportsMatch() {
        for (index, intent) in Self.allIntents().enumerated() {
            let text = Self.awkward[index % Self.awkward.count]
            let parameters = ParameterOutcome.allCases.enumerated().map { offset, outcome in
                var parameter = ParameterResolution(
                    parameter: "p\(offset)", outcome: outcome,
                    candidates: offset % 2 == 0 ? [ContactCandidate(contactID: "c1", displayName: text)] : nil,
                    reason: offset % 3 == 0 ? text : nil, alternatives: offset % 2 == 1 ? [text] : nil,
                    message: offset == 0 ? nil : text)
                // A worded question: a key with arguments, a key alone, or none.
                switch offset % 3 {
                case 1: parameter.ask(LocalizedMessage(.promptWhich, ["choices": .choices([text, "b"])]), saying: text)
                case 2: parameter.ask(LocalizedMessage(.promptWho), saying: text)
                default: break
                }
                return parameter
            }
            let report = IntentResolutionReport(
                turn: index, intent: intent, parameters: index % 4 == 0 ? [] : parameters)
            #expect(Self.direct(report) == CanonicalJSON.encode(report))
        }
    }
}
