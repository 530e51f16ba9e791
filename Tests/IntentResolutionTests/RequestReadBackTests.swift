import Foundation
import IntentEvents
import IntentResolution
import Intents
import Testing

/// The resolve stage's replay memory in two steps, as the simulation reads it back: each
/// request checked once but for time and settings (``ResolveStage/verifiedAtAnyAge(key:value:signature:)``),
/// then the rest at every read (``ResolveStage/remember(_:now:settings:)``). What a read-back
/// admits shows in what the stage then does with the same intent: a turn read back is a
/// repeat, a refused first turn ends its intent. The expected outcomes are written out.
@Suite("Resolve replay memory checked once, time and settings per read")
struct RequestReadBackTests {
    static let voice = EventAuthenticator(keys: ["/voice/test": Array(repeating: UInt8(1), count: 32)])
    static let forger = EventAuthenticator(keys: ["/voice/test": Array(repeating: UInt8(2), count: 32)])
    static let message = Intent.sendMessage(SendMessageIntent(recipients: [Person(spoken: "小明")], content: "x"))

    typealias Record = (key: String?, value: [UInt8], signature: EventSignature?)

    static func record(_ event: EventEnvelope, signedBy keys: EventAuthenticator = voice) -> Record {
        (event.userID, event.encoded(), keys.signature(for: event))
    }

    /// A first turn whose payload is malformed (its turn is not a number) but names its kind.
    static let malformed: Record = {
        var event = requestEvent(turn: 1, intent: message)
        guard case .object(var data) = event.data else { return record(event) }
        data["turn"] = .string("one")
        event.data = .object(data)
        return record(event)
    }()

    func stage() -> ResolveStage { ResolveStage(resolver: IntentResolver(), authenticator: Self.voice) }

    /// `record` read back at `now` (once: in two steps), then `next` processed at the request's time.
    func afterReadBack(_ record: Record, now: Date, once: Bool, settings: UserSettings? = nil, then next: Record)
        -> ResolveStage.Output
    {
        var stage = stage()
        if once {
            let checked = stage.verifiedAtAnyAge(key: record.key, value: record.value, signature: record.signature)
            stage.remember(checked, now: now, settings: { _ in settings })
        } else {
            stage.remember(
                key: record.key, value: record.value, signature: record.signature, now: now, settings: { _ in settings }
            )
        }
        return stage.process(key: next.key, value: next.value, signature: next.signature, now: fixedNow) { _ in
            sampleBook
        }
    }

    func isIgnored(_ output: ResolveStage.Output) -> Bool {
        if case .ignored = output { return true }
        return false
    }

    @Test(
        "a genuine turn read back while fresh (300 s, 30 s ahead) makes the same turn a repeat",
        arguments: [(0.0, true), (299, true), (-29, true), (301, false), (-31, false), (86_400, false)])
    func genuine(_ after: Double, _ remembered: Bool) {
        let turn = Self.record(requestEvent(turn: 1, intent: Self.message))
        for once in [true, false] {
            let output = afterReadBack(turn, now: fixedNow.addingTimeInterval(after), once: once, then: turn)
            #expect(isIgnored(output) == remembered, "\(after) s, once: \(once): \(output)")
        }
    }

    @Test("a forged turn, or one from a voice service the user's settings do not name, is not remembered")
    func refused() {
        let turn = Self.record(requestEvent(turn: 1, intent: Self.message))
        let forged = Self.record(requestEvent(turn: 1, intent: Self.message), signedBy: Self.forger)
        let elsewhere = UserSettings(voiceServices: ["/voice/other"])
        #expect(Self.forgedIsNil(forged))
        for once in [true, false] {
            #expect(!isIgnored(afterReadBack(forged, now: fixedNow, once: once, then: turn)))
            #expect(!isIgnored(afterReadBack(turn, now: fixedNow, once: once, settings: elsewhere, then: turn)))
        }
    }

    static func forgedIsNil(_ record: Record) -> Bool {
        ResolveStage(resolver: IntentResolver(), authenticator: voice)
            .verifiedAtAnyAge(key: record.key, value: record.value, signature: record.signature) == nil
    }

    @Test("a malformed first turn read back while fresh ends its intent: a later turn is ignored")
    func malformedEndsIntent() {
        let later = Self.record(requestEvent(turn: 2, intent: Self.message))
        for once in [true, false] {
            #expect(isIgnored(afterReadBack(Self.malformed, now: fixedNow, once: once, then: later)))
            // Stale when read back: nothing was remembered, so the later turn resolves.
            #expect(
                !isIgnored(
                    afterReadBack(Self.malformed, now: fixedNow.addingTimeInterval(3_600), once: once, then: later)))
        }
    }
}
