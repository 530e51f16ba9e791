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

    @Test("a user bound to voice services in the settings is served only through them")
    func boundUser() throws {
        var stage = ResolveStage(resolver: IntentResolver())
        let bound = UserSettings(voiceServices: ["/voice/test"])
        let message = Intent.sendMessage(SendMessageIntent(recipients: [Person(spoken: "Brandon Lee")], content: "hi"))
        var foreign = requestEvent(turn: 1, intent: message)
        foreign.source = "/voice/other"
        let refused = stage.process(
            key: "u1", value: foreign.encoded(), now: fixedNow, settings: { _ in bound }, contacts: { _ in sampleBook })
        guard case .rejected(let error) = refused else { throw TestFailure("expected a refusal") }
        #expect(error.reason == .wrongProducer)
        let own = requestEvent(turn: 1, intent: message, id: "own")
        let served = stage.process(
            key: "u1", value: own.encoded(), now: fixedNow, settings: { _ in bound }, contacts: { _ in sampleBook })
        guard case .resolved = served else { throw TestFailure("expected resolved") }
        #expect(bound.admits(voiceService: "/voice/test") && !bound.admits(voiceService: "/voice/other"))
        #expect(UserSettings().admits(voiceService: "/voice/other"), "an unbound user: any voice service")
    }

    @Test("a payment needs its user bound to the voice service that asks, unless the binding is optional")
    func paymentsNeedABinding() throws {
        let pay = requestEvent(
            turn: 1,
            intent: .sendPayment(
                SendPaymentIntent(payee: Person(spoken: "Brandon Lee"), currencyAmount: amount("20", "CNY"))))
        let message = requestEvent(
            turn: 1,
            intent: .sendMessage(SendMessageIntent(recipients: [Person(spoken: "Brandon Lee")], content: "hi")),
            id: "message")
        func output(_ binding: VoiceServiceBinding, _ event: EventEnvelope, _ settings: UserSettings?)
            -> ResolveStage.Output
        {
            var stage = ResolveStage(resolver: IntentResolver(), voiceBinding: binding)
            return stage.process(
                key: "u1", value: event.encoded(), now: fixedNow, settings: { _ in settings },
                contacts: { _ in sampleBook })
        }
        // Unbound (no settings, or settings without voice services): the payment is refused
        // (with a final response to the service that asked: RefusedRequestTests).
        for settings in [nil, UserSettings(locale: "en-US")] {
            guard case .refused(let error, _) = output(.required, pay, settings) else {
                throw TestFailure("expected a refusal for \(String(describing: settings))")
            }
            #expect(error.reason == .wrongProducer)
            #expect(error.field == "$.source")
            #expect(error.description.contains("intentctl settings set --voice-service /voice/test"))
            // A message of an unbound user is served, and an optional binding serves the payment.
            guard case .resolved = output(.required, message, settings) else { throw TestFailure("message") }
            guard case .resolved = output(.optional, pay, settings) else { throw TestFailure("optional") }
        }
        // Bound to the service that asks: served.
        guard case .resolved = output(.required, pay, UserSettings(voiceServices: ["/voice/test"])) else {
            throw TestFailure("expected a bound user's payment resolved")
        }
    }

    @Test("settings that bind a user to a pipeline, contacts or settings source, or to none, are refused")
    func boundToWhat() throws {
        for services in [["/workers/resolve"], ["/contacts/sync"], ["/settings/app"], [], [""]] {
            let event = UserSettingsRecord.event(
                userID: "u1", settings: UserSettings(voiceServices: services), version: 1, source: "/settings/app")
            #expect(throws: EventDecodingError.self, "\(services)") {
                try UserSettingsRecord.decode(
                    key: Array("u1".utf8), value: event.encoded(), signature: nil, tombstoneSource: nil,
                    authenticator: nil)
            }
        }
        let fine = UserSettingsRecord.event(
            userID: "u1", settings: UserSettings(voiceServices: ["/voice/eu-1"]), version: 1, source: "/settings/app")
        let record = try UserSettingsRecord.decode(
            key: Array("u1".utf8), value: fine.encoded(), signature: nil, tombstoneSource: nil, authenticator: nil)
        guard case .set(_, let settings, _) = record else { throw TestFailure("expected settings") }
        #expect(settings.voiceServices == ["/voice/eu-1"])
    }

    @Test("a later turn of an intent from another voice service is refused, and changes nothing")
    func foreignTurn() throws {
        var stage = ResolveStage(resolver: IntentResolver(), voiceBinding: .optional)
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
