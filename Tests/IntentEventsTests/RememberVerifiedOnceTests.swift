import Foundation
import Intents
import Messaging
import Testing

@testable import IntentEvents

/// The simulation's replay memory checks each input record once
/// (``StageInput/verifiedAtAnyAge(key:value:signature:)``) and its freshness on every read
/// (``StageInput/remember(_:value:signature:now:seen:)``): for every kind of record, at every
/// time read, that remembers exactly what ``StageInput/remember(key:value:signature:now:seen:)``
/// remembers, checking everything at once.
@Suite("Replay memory checked once, freshness per read")
struct RememberVerifiedOnceTests {
    static let keys = EventAuthenticator.generate(for: PipelineSource.all)
    static let forger = EventAuthenticator.generate(for: PipelineSource.all)
    static let sent = Date(timeIntervalSince1970: 1_795_000_000)
    let stage = HandleStage(authenticator: keys, freshness: .stageEvents)

    /// A confirmed message as the confirm stage publishes it; `payload` replaces its data.
    static func record(
        _ id: String, signedWith keys: EventAuthenticator = keys, source: String = PipelineSource.confirm,
        payload: JSONValue? = nil
    ) -> (key: String?, value: [UInt8], signature: EventSignature?) {
        let intent = Intent.sendMessage(SendMessageIntent(recipients: [Person(spoken: "孙波", contactID: "sunbo")]))
        var event = EventEnvelope(
            id: id, source: source, type: IntentConfirmation.type, time: sent,
            dataSchema: IntentConfirmation.dataSchema, userID: "alice", conversationID: "c", intentID: "i-\(id)",
            payload: IntentConfirmation(turn: 1, intent: intent, code: .ready, proposedResponse: "?"))
        if let payload { event.data = payload }
        return ("alice", event.encoded(), keys.signature(for: event))
    }

    /// What a guard says of `record` afterwards: `.first` when it was not remembered.
    func remembered(
        _ record: (key: String?, value: [UInt8], signature: EventSignature?), now: Date, once: Bool
    ) -> ReplayGuard.Decision? {
        var seen: ReplayGuard? = ReplayGuard()
        if once {
            let envelope = stage.input.verifiedAtAnyAge(
                key: record.key, value: record.value, signature: record.signature)
            stage.input.remember(envelope, value: record.value, signature: record.signature, now: now, seen: &seen)
        } else {
            stage.input.remember(
                key: record.key, value: record.value, signature: record.signature, now: now, seen: &seen)
        }
        guard let envelope = try? EventEnvelope.decode(record.value) else { return nil }
        return seen?.admit(id: envelope.id, bytes: record.value, time: envelope.time, now: now)
    }

    @Test("genuine, stale, early, forged, wrong-producer and malformed records remembered alike")
    func sameAsCheckingAtOnce() {
        let records = [
            Self.record("genuine"), Self.record("forged", signedWith: Self.forger),
            Self.record("resolver", source: PipelineSource.resolve),
            Self.record("malformed", payload: .object(["turn": .string("one")])),
        ]
        let times = [0.0, 1, 60, -30, 3_600, 86_400].map { Self.sent.addingTimeInterval($0) }
        var genuineTimes = 0
        for (index, record) in records.enumerated() {
            for now in times {
                let once = remembered(record, now: now, once: true)
                #expect(once == remembered(record, now: now, once: false), "\(record.key ?? "") at \(now)")
                if once != .first {
                    #expect(index == 0, "only the genuine record is remembered")
                    genuineTimes += 1
                }
            }
        }
        // The genuine record is remembered when fresh, and only then: the checks did run.
        #expect(genuineTimes >= 2)
        #expect(genuineTimes < times.count)
    }
}
