import Confirmation
import ContactResolution
import Foundation
import IntentEvents
import IntentResolution
import Intents
import Kafka
import Messaging
import Payments
import PipelineTopics

/// The pipeline's four decisions in one process, each with the state its worker holds
/// (contacts and settings, the ledger, the message history, the replay guards) and with
/// the keys production signs with: voice-service requests and answers in, every stage's
/// output encoded and signed by the stage (``KafkaProducerMessage/init(topic:event:signedWith:)``,
/// as the worker does) and fed, as the next stage's consumer reads it, to the next stage.
///
/// Everything is fixed (keys, users, times, ids of one width), so the same records
/// cost the same allocations on every run: what ``StageCost`` measures and the gate holds.
final class StageChain {
    static let voiceSource = "/voice/cost"
    /// Every event's time, and the decisions' clock (one second later).
    let time = Date(timeIntervalSince1970: 1_795_000_000)
    var now: Date { time.addingTimeInterval(1) }
    let voice = EventAuthenticator(keys: [voiceSource: [UInt8](repeating: 0x42, count: 32)])
    /// The stages' keys as deployed: each writer the view readers read also has its view key,
    /// so every output is signed twice, as the workers sign it (``ViewKey``).
    let stageKeys = EventAuthenticator(
        keys: PipelineSource.all.enumerated().flatMap { index, source in
            [SigningKey(source: source, bytes: [UInt8](repeating: UInt8(index + 1), count: 32))]
                + (ViewKey.isShown(source)
                    ? [
                        SigningKey(
                            source: ViewKey.source(viewing: source),
                            bytes: [UInt8](repeating: UInt8(index + 101), count: 32))
                    ] : [])
        })
    /// What signs destinations no view reader reads, as the worker signs them.
    lazy var unviewedKeys = stageKeys.withoutViewKeys
    let topics = PipelineTopics()
    let users: [String]

    private var resolve: ResolveStage
    private let confirm: ConfirmStage
    private let payments: PaymentsStage
    private let handle: HandleStage
    private var contacts = ContactDirectory()
    private var settings = UserSettingsDirectory()
    private var ledger = Ledger()
    private var history = MessageHistory()
    private var confirmSeen: ReplayGuard? = ReplayGuard()
    private var paymentsSeen: ReplayGuard? = ReplayGuard()
    private var handleSeen: ReplayGuard? = ReplayGuard()

    /// `users` users (at most 900), each with a payment account holding a billion CNY, every
    /// other user as a contact, and enrolled with the voice service, as `intent-bench pipeline` seeds them.
    init(users count: Int = 20) throws {
        precondition((2...900).contains(count))
        users = (100..<(100 + count)).map { "user-\($0)" }
        let bindingKey = BindingKey([UInt8](repeating: 0x17, count: 32))
        resolve = ResolveStage(resolver: IntentResolver(), authenticator: voice)
        var confirm = ConfirmStage(bindingKey: bindingKey, authenticator: stageKeys)
        confirm.freshness = .stageEvents
        self.confirm = confirm
        payments = PaymentsStage(bindingKey: bindingKey, authenticator: voice, stages: stageKeys)
        var handle = HandleStage(authenticator: stageKeys)
        handle.freshness = .stageEvents
        self.handle = handle
        let money = CurrencyAmount(amount: DecimalAmount("1000000000")!, currency: "CNY")
        for user in users {
            for event in LedgerEvent.opening(userID: user, handles: ["\(user)@example.com"], deposits: [money]) {
                try ledger.apply(event)
            }
            for other in users where other != user {
                contacts.apply(
                    .upsert(
                        userID: user,
                        contact: Contact(id: "c-\(other)", displayName: other, handles: ["\(other)@example.com"]),
                        version: 1))
            }
            settings.apply(.set(userID: user, settings: UserSettings(voiceServices: [Self.voiceSource]), version: 1))
        }
    }

    /// `count` voice requests for intents numbered from `first` (ids of one width:
    /// `first` and `first + count` must have as many digits), every `paymentEvery`-th a
    /// payment, the others messages, each user's to another user.
    func requests(from first: Int, count: Int, paymentEvery: Int = 2) -> [StageRecord] {
        (first..<(first + count)).map { index in
            let user = users[index % users.count]
            let other = users[(index + 1 + (index / users.count) % (users.count - 1)) % users.count]
            let person = Person(spoken: other, contactID: "c-\(other)")
            let intent: Intent =
                index % paymentEvery == 0
                ? .sendPayment(
                    SendPaymentIntent(
                        payee: person,
                        currencyAmount: CurrencyAmount(
                            amount: DecimalAmount("\(1 + index % 500).25")!, currency: "CNY")))
                : .sendMessage(SendMessageIntent(recipients: [person], content: "message \(index)"))
            let event = EventEnvelope(
                id: "request-\(index)", source: Self.voiceSource, type: IntentRequested.type, time: time,
                dataSchema: IntentRequested.dataSchema, userID: user, conversationID: "conversation-\(user)",
                intentID: "intent-\(index)", payload: IntentRequested(turn: 1, intent: intent))
            return StageRecord(KafkaProducerMessage(topic: topics.requested, event: event, signedWith: voice))
        }
    }

    /// One stage's decision over `records`, in order: decode, verify, decide, and each
    /// output encoded and signed into the record the worker would publish, then linked into
    /// the stage's chain on its partition (``RecordChain``, as the worker's chain stamper does).
    func run(_ path: StagePath, _ records: [StageRecord]) -> [(Destination, KafkaProducerMessage)] {
        var published: [(Destination, KafkaProducerMessage)] = []
        published.reserveCapacity(records.count * 4)
        let source = Self.source(of: path)
        for record in records {
            for (destination, event) in decide(path, record) {
                let topic = topics.topic(for: destination)
                var outgoing = KafkaProducerMessage(
                    topic: topic, event: event, signedWith: destination.isViewed ? stageKeys : unviewedKeys)
                let partition = KafkaPartitioner.partition(forKey: event.userID, partitions: Self.partitions)
                let place = KafkaTopicPartition(topic: topic, partition: partition)
                if let hash = outgoing.link(
                    after: tips[place] ?? RecordChain.genesis, source: source, role: topic, partition: partition,
                    keys: stageKeys)
                {
                    tips[place] = hash
                }
                published.append((destination, outgoing))
            }
        }
        return published
    }

    /// Partitions per user-keyed topic, as `intent-bench pipeline` makes them.
    static let partitions = 6
    /// Each chain's last record's hash, by topic and partition.
    private var tips: [KafkaTopicPartition: String] = [:]

    static func source(of path: StagePath) -> String {
        switch path {
        case .resolve: PipelineSource.resolve
        case .confirm: PipelineSource.confirm
        case .payments: PipelineSource.payments
        case .handle: PipelineSource.handle
        }
    }

    private func decide(_ path: StagePath, _ record: StageRecord) -> [(destination: Destination, event: EventEnvelope)]
    {
        let result: StageResult
        switch path {
        case .resolve:
            let output = resolve.process(
                key: record.key, value: record.value, signature: record.signature, now: now,
                settings: { settings.settings(of: $0) }, contacts: { contacts.book(for: $0, now: time) })
            switch output {
            case .prompt(let event): return [(.prompts, event)]
            case .resolved(let event): return [(.resolved, event)]
            case .ignored(let reason): preconditionFailure("resolve ignored a request: \(reason)")
            case .rejected(let error): preconditionFailure("resolve rejected a request: \(error)")
            case .refused(let error, _): preconditionFailure("resolve refused a request: \(error)")
            }
        case .confirm:
            result = confirm.process(
                key: record.key, value: record.value, signature: record.signature, ledger: ledger, now: now,
                seen: &confirmSeen)
        case .payments:
            result = payments.process(
                key: record.key, value: record.value, signature: record.signature, ledger: &ledger, now: now,
                seen: &paymentsSeen)
        case .handle:
            result = handle.process(
                key: record.key, value: record.value, signature: record.signature, history: &history, now: now,
                seen: &handleSeen)
        }
        if let error = result.rejected { preconditionFailure("\(path) rejected a record: \(error)") }
        return result.events
    }

    /// The records `published` sends to `destination`, as that topic's consumer reads them.
    func records(_ published: [(Destination, KafkaProducerMessage)], to destination: Destination) -> [StageRecord] {
        published.filter { $0.0 == destination }.map { StageRecord($0.1) }
    }

    /// The user's "yes" to each confirmation request among `published`, echoing its
    /// binding, as the voice service sends it (to the payments stage's input).
    func answers(to published: [(Destination, KafkaProducerMessage)]) throws -> [StageRecord] {
        try published.compactMap { destination, record in
            guard destination == .prompts, let value = record.value else { return nil }
            let event = try IncomingEvent.decodeIntent(
                key: record.key.map { String(decoding: $0, as: UTF8.self) }, value: value,
                type: ConfirmationRequest.type
            )
            .envelope
            let request = try event.decodeData(as: ConfirmationRequest.self)
            let answer = EventEnvelope(
                id: "answer-\(event.intentID ?? "")", source: Self.voiceSource, type: ConfirmationAnswer.type,
                time: time, dataSchema: ConfirmationAnswer.dataSchema, userID: event.userID,
                conversationID: event.conversationID, intentID: event.intentID,
                payload: ConfirmationAnswer(decision: .confirmed, binding: request.binding))
            return StageRecord(KafkaProducerMessage(topic: topics.confirmations, event: answer, signedWith: voice))
        }
    }
}
