import ContactResolution
import Foundation
import IntentCrypto
import IntentEvents
import IntentResolution
import Intents
import Kafka
import LocalBroker
import Payments
import PipelineTools
import PipelineTopics

/// The benchmark's users, keys and signed records, built the way production
/// signs them: requests and answers by a voice service, contacts by a
/// contacts service, ledger seeds by the ledger operator, and every stage's
/// output by the stage itself (with its own stage key).
struct PipelineLoad: Sendable {
    static let voiceSource = "/voice/bench"
    static let contactsSource = "/contacts/bench"
    static let settingsSource = "/settings/bench"

    let users: [String]
    let voice = EventAuthenticator(keys: [voiceSource: [UInt8](repeating: 0x42, count: 32)])
    /// The contacts service's and the settings service's keys.
    let contacts = EventAuthenticator(
        keys: [
            contactsSource: [UInt8](repeating: 0xc0, count: 32), settingsSource: [UInt8](repeating: 0x5e, count: 32),
        ])
    let bindingKey = [UInt8](repeating: 0x17, count: 32)
    let stageKeys = EventAuthenticator.generate(for: PipelineSource.all)

    init(users: Int) {
        self.users = (0..<users).map { "user-\($0)" }
    }

    /// The workers as production runs them, with this load's keys.
    func launcher(
        broker: String, topics: PipelineTopics, directory: URL, binaries: URL, environment: [String: String] = [:]
    ) throws -> WorkerLauncher {
        try WorkerLauncher(
            binaries: binaries, directory: directory, bootstrapServers: broker, topicPrefix: topics.prefix,
            keys: WorkerLauncher.Keys(
                sourceKeys: voice.keyFileText + contacts.keyFileText, bindingKey: Digest.hex(bindingKey),
                stageKeys: stageKeys.keyFileText),
            groupSuffix: String(UUID().uuidString.prefix(8)),
            // The throughput phases run on records up to a few minutes old: not replays.
            environment: ["INTENT_MAX_EVENT_AGE": "3600"].merging(environment) { $1 })
    }

    /// Accounts with a billion CNY each, opened by the ledger operator; every user has every
    /// other as a contact, and is enrolled with the voice service (payments need it).
    func seed(_ topics: PipelineTopics, partitions: Int) -> (
        ledger: [KafkaProducerMessage], directories: [KafkaProducerMessage]
    ) {
        var ledger: [KafkaProducerMessage] = []
        var book: [KafkaProducerMessage] = []
        let money = CurrencyAmount(amount: DecimalAmount("1000000000")!, currency: "CNY")
        for user in users {
            ledger += KafkaProducerMessage.accountOpening(
                user, handles: ["\(user)@example.com"], deposits: [money], topics: topics, signedWith: stageKeys)
            for other in users where other != user {
                let contact = Contact(id: "c-\(other)", displayName: other, handles: ["\(other)@example.com"])
                book.append(
                    KafkaProducerMessage.contact(
                        contact, of: user, version: 1, topic: topics.contacts, partitions: partitions,
                        source: Self.contactsSource, signedWith: contacts))
            }
            book.append(
                KafkaProducerMessage.userSettings(
                    UserSettings(voiceServices: [Self.voiceSource]), of: user, version: 1, topic: topics.settings,
                    partitions: partitions, source: Self.settingsSource, signedWith: contacts))
        }
        return (ledger, book)
    }

    /// A signed send-message or send-payment request from the voice service.
    func request(_ intentID: String, index: Int, payment: Bool, topics: PipelineTopics) -> KafkaProducerMessage {
        let user = users[index % users.count]
        // Any other user: an offset of 1 to users - 1 from the payer.
        let other = users[(index + 1 + (index / users.count) % (users.count - 1)) % users.count]
        let person = Person(spoken: other, contactID: "c-\(other)")
        let intent: Intent =
            payment
            ? .sendPayment(
                SendPaymentIntent(
                    payee: person,
                    currencyAmount: CurrencyAmount(amount: DecimalAmount("\(1 + index % 500).25")!, currency: "CNY")))
            : .sendMessage(SendMessageIntent(recipients: [person], content: "message \(index)"))
        let event = EventEnvelope(
            id: "request-\(intentID)", source: Self.voiceSource, type: IntentRequested.type, time: Date(),
            dataSchema: IntentRequested.dataSchema, userID: user, conversationID: "conversation-\(user)",
            intentID: intentID, payload: IntentRequested(turn: 1, intent: intent))
        return KafkaProducerMessage(topic: topics.requested, event: event, signedWith: voice)
    }

    /// The user's "yes" to a confirmation request, echoing its binding, as the voice service sends it.
    func answer(to requestEvent: EventEnvelope, topics: PipelineTopics) throws -> KafkaProducerMessage {
        let request = try requestEvent.decodeData(as: ConfirmationRequest.self)
        let answer = EventEnvelope(
            id: "answer-\(requestEvent.id)", source: Self.voiceSource, type: ConfirmationAnswer.type, time: Date(),
            dataSchema: ConfirmationAnswer.dataSchema, userID: requestEvent.userID,
            conversationID: requestEvent.conversationID, intentID: requestEvent.intentID,
            payload: ConfirmationAnswer(decision: .confirmed, binding: request.binding))
        return KafkaProducerMessage(topic: topics.confirmations, event: answer, signedWith: voice)
    }
}
