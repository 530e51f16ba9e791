import Foundation
import IntentEvents
import IntentResolution
import Intents
import Localization
import Testing

/// A voice service's signed request that fails validation ends its intent with a final
/// failure response (issue 31, point 5), besides the dead letter: otherwise the service that
/// asked waits for an answer until it times out. Only what the asking service may hear gets
/// one: a request that is not signed, stale, from a service the user is not bound to, or a
/// bad later turn of an intent under way is only dead-lettered.
@Suite("Refused requests get a final response")
struct RefusedRequestTests {
    static let voiceKey = Array(repeating: UInt8(0x3c), count: 32)
    static let voice = EventAuthenticator(keys: ["/voice/test": voiceKey])

    /// A request whose intent has a field no schema has: `schema_invalid`.
    static func malformed(intentID: String = "intent-1", turn: Int = 1, kind: String = "sendMessage")
        -> EventEnvelope
    {
        let data = JSONValue.object([
            "turn": .integer(Int64(turn)),
            "intent": .object([
                "kind": .string(kind), "recipients": .array([.object(["spoken": .string("小明")])]),
                "content": .string("hi"), "colour": .string("blue"),
            ]),
        ])
        return EventEnvelope(
            id: "req-\(intentID)-\(turn)", source: "/voice/test", type: IntentRequested.type, time: fixedNow,
            dataSchema: IntentRequested.dataSchema, userID: "u1", conversationID: "conv-1", intentID: intentID,
            payload: data)
    }

    static let message = Intent.sendMessage(SendMessageIntent(recipients: [Person(spoken: "小明")], content: "hi"))

    func process(
        _ stage: inout ResolveStage, _ event: EventEnvelope, signed: Bool = true, now: Date = fixedNow,
        settings: UserSettings? = nil
    ) -> ResolveStage.Output {
        let value = event.encoded()
        let signature = signed ? Self.voice.signature(forCanonical: value, source: event.source) : nil
        return stage.process(
            key: event.userID, value: value, signature: signature, now: now, settings: { _ in settings },
            contacts: { _ in sampleBook })
    }

    func stage() -> ResolveStage { ResolveStage(resolver: IntentResolver(), authenticator: Self.voice) }

    @Test("a malformed first request is dead-lettered and ends its intent with a failure, in the request's language")
    func malformedFirstRequest() throws {
        var stage = stage()
        var request = Self.malformed()
        UserLocale.stamp("ru-RU", on: &request)
        guard case .refused(let error, let response) = process(&stage, request) else {
            throw TestFailure("expected a refusal with a final response")
        }
        #expect(error.reason == .schemaInvalid)
        #expect(response.type == "intent.response.v1")
        #expect(response.source == "/workers/resolve")
        #expect(response.userID == "u1" && response.intentID == "intent-1" && response.causationID == request.id)
        #expect(RequestSource.of(response) == "/voice/test")
        let data = try response.decodeData(as: IntentResponse.self)
        #expect(data.kind == .sendMessage)
        #expect(data.code == .failure)
        #expect(data.reason == "schema_invalid")
        #expect(data.messageKey == .requestRefused)
        #expect(data.message == "Не удалось принять этот запрос (schema_invalid).")
    }

    @Test("the same request again gives the same response, and a later turn of the refused intent is ignored")
    func refusalEndsTheIntent() throws {
        var stage = stage()
        guard case .refused(_, let first) = process(&stage, Self.malformed()) else { throw TestFailure("refusal") }
        guard case .refused(_, let again) = process(&stage, Self.malformed()) else { throw TestFailure("again") }
        #expect(again.encoded() == first.encoded(), "a redelivery publishes the same bytes")
        let next = requestEvent(turn: 2, intent: Self.message)
        guard case .ignored(let reason) = process(&stage, next) else { throw TestFailure("expected ignored") }
        #expect(reason.contains("refused"))
    }

    @Test("a payment of a user bound to no voice service gets a final wrong_producer response")
    func unboundPayment() throws {
        var stage = stage()
        let pay = requestEvent(
            turn: 1,
            intent: .sendPayment(
                SendPaymentIntent(payee: Person(spoken: "Brandon Lee"), currencyAmount: amount("20", "CNY"))))
        guard case .refused(let error, let response) = process(&stage, pay) else { throw TestFailure("refusal") }
        #expect(error.reason == .wrongProducer)
        let data = try response.decodeData(as: IntentResponse.self)
        #expect(data.kind == .sendPayment && data.code == .failure && data.reason == "wrong_producer")
        #expect(data.message == "I couldn't take that request (wrong_producer).")
    }

    @Test("only a dead letter: unsigned, stale, from a service the user is not bound to, or no kind to answer for")
    func deadLetterOnly() throws {
        var stage = stage()
        guard case .rejected(let unsigned) = process(&stage, Self.malformed(), signed: false) else {
            throw TestFailure("unsigned")
        }
        #expect(unsigned.reason == .unauthenticated)
        guard case .rejected(let stale) = process(&stage, Self.malformed(), now: fixedNow.addingTimeInterval(3600))
        else { throw TestFailure("stale") }
        #expect(stale.reason == .stale)
        var foreign = Self.malformed(intentID: "intent-2")
        foreign.source = "/voice/other"
        let keys = EventAuthenticator(keys: ["/voice/test": Self.voiceKey, "/voice/other": Self.voiceKey])
        var bound = ResolveStage(resolver: IntentResolver(), authenticator: keys)
        let value = foreign.encoded()
        let output = bound.process(
            key: "u1", value: value, signature: keys.signature(forCanonical: value, source: "/voice/other"),
            now: fixedNow, settings: { _ in UserSettings(voiceServices: ["/voice/test"]) },
            contacts: { _ in sampleBook })
        guard case .rejected(let notBound) = output else { throw TestFailure("bound elsewhere") }
        #expect(notBound.reason == .wrongProducer)
        guard case .rejected(let unknownKind) = process(&stage, Self.malformed(intentID: "intent-3", kind: "order"))
        else { throw TestFailure("unknown kind") }
        #expect(unknownKind.reason == .schemaInvalid)
    }

    @Test("a malformed later turn of an intent under way is only dead-lettered, and the intent goes on")
    func badLaterTurn() throws {
        var stage = stage()
        let first = requestEvent(intentID: "intent-4", turn: 1, intent: Self.message)
        guard case .resolved = process(&stage, first) else { throw TestFailure("first turn resolved") }
        guard case .rejected(let error) = process(&stage, Self.malformed(intentID: "intent-4", turn: 2)) else {
            throw TestFailure("expected only a dead letter")
        }
        #expect(error.reason == .schemaInvalid)
    }
}
