import Foundation
import IntentEvents
import IntentResolution
import Intents
import Testing

/// The voice service that asked travels with what the resolve stage derives, and only it may
/// continue an intent it started.
@Suite("The requesting voice service")
struct RequestSourceTests {
    func process(_ stage: inout ResolveStage, _ event: EventEnvelope) -> ResolveStage.Output {
        stage.process(key: event.userID, value: event.encoded(), now: fixedNow) { _ in sampleBook }
    }

    @Test("the request's verified source is stamped on what is derived, whatever the request claimed")
    func stamped() throws {
        var stage = ResolveStage(resolver: IntentResolver())
        var request = requestEvent(
            turn: 1, intent: .sendMessage(SendMessageIntent(recipients: [Person(spoken: "Brandon Lee")], content: "hi"))
        )
        try request.extensions.set(RequestSource.attribute, .string("/voice/someone-else"))
        guard case .resolved(let resolved) = process(&stage, request) else { throw TestFailure("expected resolved") }
        #expect(RequestSource.of(resolved) == "/voice/test")
    }

    @Test("a later turn of an intent from another voice service is refused, and changes nothing")
    func foreignTurn() throws {
        var stage = ResolveStage(resolver: IntentResolver())
        let pay = { (payee: Person) in
            Intent.sendPayment(SendPaymentIntent(payee: payee, currencyAmount: amount("20", "CNY")))
        }
        guard case .prompt = process(&stage, requestEvent(turn: 1, intent: pay(Person(spoken: "Brandon")))) else {
            throw TestFailure("expected a prompt")
        }
        var foreign = requestEvent(turn: 2, intent: pay(Person(spoken: "Brandon", contactID: "brandon-lee")))
        foreign.source = "/voice/other"
        guard case .rejected(let error) = process(&stage, foreign) else { throw TestFailure("expected a refusal") }
        #expect(error.reason == .wrongProducer)
        #expect(error.field == "$.source")
        // The service that started it still can.
        let own = requestEvent(turn: 2, intent: pay(Person(spoken: "Brandon", contactID: "brandon-lee")))
        guard case .resolved(let resolved) = process(&stage, own) else { throw TestFailure("expected resolved") }
        #expect(RequestSource.of(resolved) == "/voice/test")
    }
}
