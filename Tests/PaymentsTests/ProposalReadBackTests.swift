import Foundation
import IntentEvents
import Intents
import Payments
import Testing

/// The payments stage's replay memory in two steps, as the simulation reads it back: each
/// record checked once but for time (``PaymentsStage/verifiedAtAnyAge(key:value:signature:)``),
/// then its freshness and idempotency horizon at every read
/// (``PaymentsStage/remember(_:value:signature:horizon:now:seen:)``). Only a genuine proposal
/// read back while it is fresh is remembered; the expected times are written out, not derived.
@Suite("Payments replay memory checked once, time per read")
struct ProposalReadBackTests {
    let stage = PaymentsStage(bindingKey: bindingKey, authenticator: authenticator, stages: stageKeys)

    typealias Record = (key: String?, value: [UInt8], signature: EventSignature?)

    static func record(_ event: EventEnvelope, signedBy keys: EventAuthenticator = stageKeys) -> Record {
        (event.userID, event.encoded(), keys.signature(for: event))
    }

    static let genuine = record(confirmedEvent(pay("10"), intentID: "genuine"))
    static let forged = record(
        confirmedEvent(pay("10"), intentID: "forged"),
        signedBy: EventAuthenticator(keys: [PipelineSource.confirm: Array(repeating: 9, count: 32)]))
    static let wrongProducer: Record = {
        var event = confirmedEvent(pay("10"), intentID: "resolver")
        event.source = PipelineSource.resolve
        return record(event)
    }()
    static let malformed: Record = {
        var event = confirmedEvent(pay("10"), intentID: "malformed")
        event.data = .object(["turn": .string("one")])
        return record(event)
    }()
    static let answer: Record = {
        let (event, signature) = answerEvent(
            .confirmed, binding: bindingFor(pay("10"), intentID: "answer"), intentID: "answer")
        return (event.userID, event.encoded(), signature)
    }()

    /// Whether `record` read back at `now` is remembered: a guard that admits it again
    /// says it is not new.
    func remembered(_ record: Record, now: Date, horizon: Duration?, once: Bool) throws -> Bool {
        var seen: ReplayGuard? = ReplayGuard()
        if once {
            let checked = stage.verifiedAtAnyAge(key: record.key, value: record.value, signature: record.signature)
            stage.remember(
                checked, value: record.value, signature: record.signature, horizon: horizon, now: now, seen: &seen)
        } else {
            stage.remember(
                key: record.key, value: record.value, signature: record.signature, horizon: horizon, now: now,
                seen: &seen)
        }
        let envelope = try EventEnvelope.decode(record.value)
        let fingerprint = try #require(record.signature).hex.hashValue
        return seen?.admit(id: envelope.id, fingerprint: fingerprint, time: envelope.time, now: now) != .first
    }

    @Test(
        "a genuine proposal is remembered while it is fresh (600 s, 30 s ahead) and inside half the horizon",
        arguments: [
            // (seconds after the proposal's time it is read back, horizon, remembered)
            (0.0, nil, true), (60, nil, true), (599, nil, true), (-20, nil, true),
            (-60, nil, false), (601, nil, false), (86_400, nil, false),
            (0, Duration.seconds(600), true), (299, .seconds(600), true), (301, .seconds(600), false),
        ] as [(Double, Duration?, Bool)])
    func genuine(_ after: Double, _ horizon: Duration?, _ expected: Bool) throws {
        let now = t0.addingTimeInterval(after)
        #expect(try remembered(Self.genuine, now: now, horizon: horizon, once: true) == expected)
        #expect(try remembered(Self.genuine, now: now, horizon: horizon, once: false) == expected)
    }

    @Test("forged, wrong-producer and malformed proposals and answers are never remembered, at any time")
    func refused() throws {
        for record in [Self.forged, Self.wrongProducer, Self.malformed, Self.answer] {
            #expect(stage.verifiedAtAnyAge(key: record.key, value: record.value, signature: record.signature) == nil)
            for after in [0.0, 60, 599] {
                #expect(try !remembered(record, now: t0.addingTimeInterval(after), horizon: nil, once: true))
                #expect(try !remembered(record, now: t0.addingTimeInterval(after), horizon: nil, once: false))
            }
        }
    }
}
