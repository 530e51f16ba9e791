import Foundation
import IntentEvents
import Intents
import StageRuntime

/// The voice services and the users behind them, simulated: signed requests (half
/// payments, half messages, some through a slow service) spoken over the run, and the
/// users' answers to confirmation requests (most confirm, some decline, some answer
/// after the request expired). Mixed in, what an attacker or a broken producer sends:
/// garbage, unsigned requests, records under a stage's name signed by someone else,
/// answers signed with a key the pipeline does not know, and replayed copies of
/// requests and answers. It keeps what the invariants need: the intents that must
/// each end with one final response, and the records that must be dead-lettered.
struct SimulatedVoiceService {
    /// A record to append when the clock reaches `due`.
    private struct Scheduled: Due {
        var due: ManualClock.Instant
        var topic: String
        var record: InMemoryCluster.Record
    }

    let intents: Int
    /// Intents requested with a valid signature: each must end with one final response
    /// (a scripted scenario adds the intents it asks itself).
    var expected: Set<String> = []
    /// Hostile records' values: each must be dead-lettered.
    private(set) var hostile: Set<[UInt8]> = []
    private(set) var spoken = 0
    private var recent: [InMemoryCluster.Record] = []
    private var scheduled = DueQueue<Scheduled>()
    private var asked: Set<String> = []
    /// Signs like the voice service, with a key the pipeline never saw.
    private let attacker = EventAuthenticator(keys: [SimulatedWorld.voiceSource: Array(repeating: 0x66, count: 32)])

    init(intents: Int) { self.intents = intents }

    var isDone: Bool { spoken == intents && scheduled.isEmpty }

    /// Speaks the requests due by `step` of `steps`, hears the confirmation requests
    /// published since, and sends the answers now due.
    mutating func step(_ step: Int, of steps: Int, _ world: inout SimulatedWorld) {
        while spoken < intents, spoken * steps <= step * intents {
            speak(spoken, &world)
            spoken += 1
        }
        let requests = world.confirmationRequests
        world.confirmationRequests = []
        for request in requests { answer(request, &world) }
        for due in scheduled.removeDue(by: world.clock.now) { world.publish(due.record, to: due.topic) }
    }

    // MARK: Requests

    private mutating func speak(_ index: Int, _ world: inout SimulatedWorld) {
        let roll = world.random.next() % 100
        let user = world.users[Int(world.random.next() % UInt64(world.users.count))]
        if roll < 2 {
            let garbage = (0..<(8 + Int(world.random.next() % 24))).map { _ in
                UInt8(truncatingIfNeeded: world.random.next())
            }
            parkHostile(.init(key: user, value: garbage, signature: nil), on: SimulatedWorld.topics.requested, &world)
            return
        }
        let request = self.request(index, from: user, &world)
        if roll < 4 {
            // Unsigned: refused, never acted on.
            parkHostile(
                .init(key: user, value: request.encoded(), signature: nil), on: SimulatedWorld.topics.requested, &world)
            return
        }
        if roll < 6 {
            // A voice service's request re-sent under the resolve stage's name: the
            // confirm stage must refuse what the resolve stage did not sign.
            var forged = request
            forged.source = PipelineSource.resolve
            let bytes = forged.encoded()
            parkHostile(
                .init(
                    key: user, value: bytes,
                    signature: world.voiceKeys.signature(forCanonical: bytes, source: SimulatedWorld.voiceSource)),
                on: SimulatedWorld.topics.resolved, &world)
            return
        }
        let bytes = request.encoded()
        let record = InMemoryCluster.Record(
            key: user, value: bytes,
            signature: world.voiceKeys.signature(forCanonical: bytes, source: SimulatedWorld.voiceSource))
        world.publish(record, to: SimulatedWorld.topics.requested)
        expected.insert(request.intentID ?? "")
        recent.append(record)
        if recent.count > 20 { recent.removeFirst() }
        // A producer's retry: a recent request again.
        if roll < 10, let earlier = recent.randomElement(using: &world.random) {
            world.publish(earlier, to: SimulatedWorld.topics.requested)
        }
    }

    private func request(_ index: Int, from user: String, _ world: inout SimulatedWorld) -> EventEnvelope {
        let others = world.users.filter { $0 != user }
        let other = others[Int(world.random.next() % UInt64(others.count))]
        let person = Person(spoken: other, contactID: "c-\(other)")
        let intent: Intent =
            world.random.next() % 2 == 0
            ? .sendPayment(
                SendPaymentIntent(
                    payee: person,
                    currencyAmount: CurrencyAmount(
                        amount: DecimalAmount("\(1 + world.random.next() % 120).50")!, currency: "CNY")))
            : .sendMessage(
                SendMessageIntent(
                    recipients: [person], content: "hello \(index)",
                    serviceName: world.random.next() % 10 == 0 ? "Satellite" : nil))
        return EventEnvelope(
            id: "request-\(index)", source: SimulatedWorld.voiceSource, type: IntentRequested.type, time: world.date,
            dataSchema: IntentRequested.dataSchema, userID: user, conversationID: "conversation-\(user)",
            intentID: "i\(index)", payload: IntentRequested(turn: 1, intent: intent))
    }

    private mutating func parkHostile(_ record: InMemoryCluster.Record, on topic: String, _ world: inout SimulatedWorld)
    {
        hostile.insert(record.value)
        world.publish(record, to: topic)
    }

    // MARK: Answers

    /// The user's answer to a confirmation request (once per intent, however often it is
    /// asked), echoing its binding: confirmed, declined, or after it expired.
    private mutating func answer(_ request: EventEnvelope, _ world: inout SimulatedWorld) {
        guard let intentID = request.intentID, asked.insert(intentID).inserted,
            let asked = try? request.decodeData(as: ConfirmationRequest.self)
        else { return }
        let roll = world.random.next() % 100
        let answer = EventEnvelope(
            id: "answer-\(intentID)", source: SimulatedWorld.voiceSource, type: ConfirmationAnswer.type,
            time: world.date, dataSchema: ConfirmationAnswer.dataSchema, userID: request.userID,
            conversationID: request.conversationID, intentID: intentID,
            payload: ConfirmationAnswer(decision: roll < 8 ? .declined : .confirmed, binding: asked.binding))
        let late = roll >= 8 && roll < 16
        let delay =
            late
            ? SimulatedWorld.confirmationWindow + .milliseconds(Int64(500 + world.random.next() % 2000))
            : .milliseconds(Int64(20 + world.random.next() % 800))
        let bytes = answer.encoded()
        let signed = InMemoryCluster.Record(
            key: request.userID, value: bytes,
            signature: world.voiceKeys.signature(forCanonical: bytes, source: SimulatedWorld.voiceSource))
        let due = world.clock.now.advanced(by: delay)
        schedule(signed, at: due)
        if roll >= 90 {
            // Replayed: the same answer again, later; it must move nothing twice.
            schedule(signed, at: due.advanced(by: .milliseconds(Int64(world.random.next() % 3000))))
        } else if roll >= 85 {
            // Forged: the same answer signed with a key the pipeline does not know, first.
            let forged = InMemoryCluster.Record(
                key: request.userID, value: bytes,
                signature: attacker.signature(forCanonical: bytes, source: SimulatedWorld.voiceSource))
            hostile.insert(bytes)
            schedule(forged, at: world.clock.now)
        }
    }

    private mutating func schedule(_ record: InMemoryCluster.Record, at due: ManualClock.Instant) {
        scheduled.append(Scheduled(due: due, topic: SimulatedWorld.topics.confirmations, record: record))
    }
}
