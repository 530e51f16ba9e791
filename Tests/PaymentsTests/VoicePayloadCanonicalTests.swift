import IntentEvents
import Intents
import Testing

/// A voice service's request and a user's answer write their canonical JSON by hand;
/// the bytes must be the ones their `Encodable` forms give.
@Suite("Voice payloads: hand-written canonical JSON equals the encoder's")
struct VoicePayloadCanonicalTests {
    @Test("requests of every kind of intent and turn, and both answers: the same bytes")
    func sameBytes() {
        let people = [Person(spoken: "孙波 \"q\"", contactID: "c/1"), Person(spoken: "Юлия")]
        let intents: [Intent] = [
            .sendMessage(SendMessageIntent(recipients: people, content: "hi\n\u{1}")),
            .sendPayment(
                SendPaymentIntent(
                    payee: people[0], currencyAmount: CurrencyAmount(amount: DecimalAmount("12.5")!, currency: "CNY"))),
        ]
        for (index, intent) in intents.enumerated() {
            let request = IntentRequested(turn: index + 1, intent: intent)
            var direct: [UInt8] = []
            request.writeCanonicalJSON(into: &direct)
            #expect(direct == CanonicalJSON.encode(request), "\(String(decoding: direct, as: UTF8.self))")
        }
        for decision in [ConfirmationAnswer.Decision.confirmed, .declined] {
            let answer = ConfirmationAnswer(
                decision: decision,
                binding: ConfirmationBinding(digest: "ab\\cd", expiresAt: Timestamp(milliseconds: 1_795_000_000_123)))
            var direct: [UInt8] = []
            answer.writeCanonicalJSON(into: &direct)
            #expect(direct == CanonicalJSON.encode(answer), "\(String(decoding: direct, as: UTF8.self))")
        }
    }
}
