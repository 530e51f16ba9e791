import Foundation
import IntentEvents
import IntentResolution
import Intents
import Kafka
import Messaging
import PipelineTestSupport
import PipelineTopics
import Testing

@testable import IntentWorkers

/// Issue 28, point 5, without a broker: what a worker rebuilds from an input partition it
/// gains (``ReplayMemory``) is exactly what the stage remembered when it acted, so a copy
/// of a record before the committed offset acts on nothing, a redo of one after it is decided
/// again, and nothing forged or stale read back can shadow a genuine event.
extension StageResult {
    /// The code of the response this result publishes, if any.
    fileprivate var responseCode: ResponseCode? {
        events.first { $0.destination == .responses }.flatMap { try? $0.event.decodeData(as: IntentResponse.self) }?
            .code
    }
}

@Suite("Replay memory rebuilt from the input")
struct ReplayMemoryTests {
    let stage = HandleStage(authenticator: testStageKeys, freshness: .stageEvents)

    /// A confirmed message as the confirm stage publishes it, signed with `keys`, read back at `offset`.
    func confirmedRecord(
        _ intentID: String, content: String = "hi", at time: Date = Date(), offset: Int64 = 0,
        signedWith keys: EventAuthenticator = testStageKeys
    ) -> KafkaConsumerMessage {
        let intent = Intent.sendMessage(
            SendMessageIntent(
                recipients: [Person(spoken: "孙波", contactID: "sunbo", displayName: "孙波")], content: content))
        let event = EventEnvelope(
            id: "confirmed-\(intentID)", source: PipelineSource.confirm, type: IntentConfirmation.type, time: time,
            dataSchema: IntentConfirmation.dataSchema, userID: "alice", conversationID: "c", intentID: intentID,
            payload: IntentConfirmation(turn: 1, intent: intent, code: .ready, proposedResponse: "?"))
        let record = KafkaProducerMessage(topic: "confirmed", event: event, signedWith: keys)
        return KafkaConsumerMessage(
            topic: "confirmed", partition: 0, offset: offset, key: record.key, value: record.value,
            headers: record.headers, timestamp: time)
    }

    /// The handle worker's guards and their replay memory, as ``HandleWorker`` wires them.
    func handleMemory() -> (PartitionedState<ReplayGuard?>, ReplayMemory) {
        let seen = PartitionedState<ReplayGuard?> { ReplayGuard() }
        let memory = ReplayMemory.guards(seen) { [stage] message, seen in
            stage.input.remember(
                key: message.keyString, value: message.value, signature: message.signature, now: Date(),
                seen: &seen)
        }
        return (seen, memory)
    }

    /// The record through the stage as the worker decides it, with partition 0's guard.
    func decide(_ record: KafkaConsumerMessage, _ seen: PartitionedState<ReplayGuard?>) -> StageResult {
        var history = MessageHistory()
        return seen.withValue(in: 0) { seen in
            stage.process(
                key: record.keyString, value: record.value, signature: record.signature, history: &history, seen: &seen)
        }
    }

    @Test("a record read back before the committed offset is a replay: its copy answers nothing")
    func remembered() {
        let (seen, memory) = handleMemory()
        let original = confirmedRecord("m1", offset: 3)
        memory.reset([0])
        memory.remember(original)
        let copy = decide(original, seen)
        #expect(copy.events.isEmpty, "no response, no message")
        #expect(copy.note?.contains("acted on already") == true, "\(copy)")
        // The same id with other contents, validly signed: refused as replayed.
        let changed = decide(confirmedRecord("m1", content: "changed", offset: 9), seen)
        #expect(changed.rejected?.reason == .replayed)
    }

    @Test("a gained partition's memory is replaced: a redo past the committed offset is decided again")
    func replacedOnGain() {
        let (seen, memory) = handleMemory()
        let record = confirmedRecord("m2", offset: 5)
        // Decided once (the guard remembers it), but the offset was not committed before
        // the partition moved: the new owner reads back nothing past the commit.
        #expect(decide(record, seen).responseCode == .success)
        memory.reset([0])
        let redo = decide(record, seen)
        #expect(redo.responseCode == .success, "the redelivered record acts (same ids: consumers drop copies)")
    }

    @Test("a forged, stale or foreign record read back is not remembered, so the genuine one still acts")
    func onlyVerifiedRecords() {
        let (seen, memory) = handleMemory()
        let otherKeys = EventAuthenticator.generate(for: PipelineSource.all)
        memory.reset([0])
        memory.remember(confirmedRecord("m3", content: "forged", offset: 0, signedWith: otherKeys))
        memory.remember(confirmedRecord("m4", at: Date() - 660, offset: 1))
        #expect(seen.value(in: 0)??.count == 0, "neither is remembered")
        #expect(decide(confirmedRecord("m3", offset: 2), seen).responseCode == .success)
    }

    @Test("reading back starts at most depth records before the committed offset, and only after a commit")
    func start() {
        #expect(ReplayMemory.start(committed: nil, depth: 10) == nil, "nothing committed: nothing acted on")
        #expect(ReplayMemory.start(committed: 0, depth: 10) == nil)
        #expect(ReplayMemory.start(committed: 25, depth: 10) == 15)
        #expect(ReplayMemory.start(committed: 4, depth: 10) == 0)
    }

    @Test("resolve: a request read back is a repeat to the turn tracker, even from another voice service")
    func resolveTurns() {
        let voices = EventAuthenticator(keys: [
            "/voice/test": Array(repeating: UInt8(0x33), count: 32),
            "/voice/other": Array(repeating: UInt8(0x34), count: 32),
        ])
        var stage = ResolveStage(resolver: IntentResolver(), authenticator: voices)
        func request(_ source: String, turn: Int) -> (value: [UInt8], signature: EventSignature?) {
            let event = EventEnvelope(
                id: "req-r1-\(turn)", source: source, type: IntentRequested.type, time: Date(),
                dataSchema: IntentRequested.dataSchema, userID: "alice", conversationID: "c", intentID: "r1",
                payload: IntentRequested(
                    turn: turn,
                    intent: .sendMessage(SendMessageIntent(recipients: [Person(spoken: "孙波")], content: "hi"))))
            return (event.encoded(), voices.signature(for: event))
        }
        let first = request("/voice/test", turn: 1)
        stage.remember(key: "alice", value: first.value, signature: first.signature)
        guard
            case .ignored = stage.process(
                key: "alice", value: first.value, signature: first.signature,
                contacts: { _ in ContactBook(contacts: []) })
        else {
            Issue.record("a copy of a remembered turn is resolved again")
            return
        }
        let other = request("/voice/other", turn: 2)
        guard
            case .rejected(let error) = stage.process(
                key: "alice", value: other.value, signature: other.signature,
                contacts: { _ in ContactBook(contacts: []) })
        else {
            Issue.record("another voice service continued the remembered intent")
            return
        }
        #expect(error.reason == .wrongProducer)
        // A forged request read back is not admitted: the tracker still has one intent.
        let forged = request("/voice/test", turn: 1)
        var unsigned = ResolveStage(resolver: IntentResolver(), authenticator: voices)
        unsigned.remember(key: "alice", value: forged.value, signature: EventSignature(keyID: nil, hex: "00"))
        #expect(unsigned.tracker.count == 0)
    }
}
