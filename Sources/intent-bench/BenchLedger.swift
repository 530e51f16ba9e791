import Foundation
import IntentEvents
import Intents
import Kafka
import Logging
import Payments
import PipelineTools
import PipelineTopics

/// A ledger as the payments stage would have written it, for the restart and
/// audit benchmarks: one account and one deposit per user (by the ledger
/// operator), then transfers of 1 CNY between users (a hold and a post on the
/// payer's partition, a credit on the payee's), dated evenly over `days` days
/// ending now, signed with the payments stage's key and, with `partitions`,
/// linked into the stage's chain on each partition as a worker links them.
/// With `confirmations`, each transfer's resolved intent (by the resolve stage),
/// its proposal (by the confirm stage, with the payer's ledger version it saw)
/// and the payer's answer are on their topics too: the whole history an audit
/// checks a posted transfer against, and a confirm replay re-derives.
struct BenchLedger {
    var users: Int
    var days: Double
    /// The partition count, to chain the stage records (``RecordChain``); nil chains nothing.
    var chainedOn: Int?
    var confirmations = false

    init(users: Int, days: Double, chainedOn partitions: Int? = nil, confirmations: Bool = false) {
        self.users = users
        self.days = days
        self.chainedOn = partitions
        self.confirmations = confirmations
    }

    /// Writes `size` events; returns how many records it wrote.
    @discardableResult
    func write(
        _ size: Int, topics: PipelineTopics, keys: EventAuthenticator, client: KafkaConfiguration, logger: Logger
    ) async throws -> Int {
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(client: client), logger: logger)
        let ids = (0..<users).map { String(format: "u%05d", $0) }
        let now = Date()
        let start = now.addingTimeInterval(-days * 86_400)
        let cny = CurrencyAmount(amount: DecimalAmount("1000000")!, currency: "CNY")
        var batch: [KafkaProducerMessage] = []
        var written = 0
        var tips: [String: String] = [:]
        /// Each user's ledger events so far (``Ledger/version(of:)``), as a confirm decision records it.
        var versions: [String: Int] = [:]
        func flush(_ force: Bool = false) async throws {
            guard force || batch.count >= 20_000 else { return }
            _ = try await producer.sendAll(batch)
            written += batch.count
            batch.removeAll(keepingCapacity: true)
        }
        func append(_ event: EventEnvelope, to topic: String) {
            var record = KafkaProducerMessage(topic: topic, event: event, signedWith: keys)
            if let partitions = chainedOn, PipelineSource.isInternal(event.source) {
                let partition = KafkaPartitioner.partition(forKey: event.userID, partitions: partitions)
                let chain = "\(topic) \(partition) \(event.source)"
                if let hash = record.link(
                    after: tips[chain] ?? RecordChain.genesis, source: event.source,
                    role: String(topic.dropFirst(topics.prefix.count)), partition: partition, keys: keys)
                {
                    tips[chain] = hash
                }
            }
            batch.append(record)
        }
        for user in ids {
            let opening = KafkaProducerMessage.accountOpening(
                user, handles: ["\(user)@example.com"], deposits: [cny], topics: topics, signedWith: keys, time: start)
            versions[user, default: 0] += opening.filter { $0.topic == topics.ledger }.count
            batch += opening
            try await flush()
        }
        let transfers = (size - users * 2) / 3
        let one = CurrencyAmount(amount: DecimalAmount("1")!, currency: "CNY")
        let step = days * 86_400 / Double(max(transfers, 1))
        for index in 0..<transfers {
            let payer = ids[index % users]
            let payee = ids[(index % users + 1 + (index / users) % (users - 1)) % users]
            let time = start.addingTimeInterval(Double(index + 1) * step)
            let intentID = "bench-\(index)"
            let transferID = Ledger.transferID(userID: payer, intentID: intentID)
            let decided = Timestamp(time)
            let events = [
                LedgerEvent(
                    id: EventID.derived("ledger", "hold", transferID), kind: .hold, userID: payer, intentID: intentID,
                    transferID: transferID,
                    entries: LedgerEntry.move(one, from: Ledger.available(payer), to: Ledger.held(payer)),
                    counterpartyUserID: payee, counterpartyAccount: "\(payee)@example.com", amount: one,
                    expiresAt: Timestamp(time.addingTimeInterval(120))),
                LedgerEvent(
                    id: EventID.derived("ledger", "post", transferID), kind: .post, userID: payer, intentID: intentID,
                    transferID: transferID,
                    entries: LedgerEntry.move(one, from: Ledger.held(payer), to: Ledger.clearing),
                    counterpartyUserID: payee, counterpartyAccount: "\(payee)@example.com", amount: one,
                    decidedBy: "answer-\(intentID)", decidedAt: decided),
                LedgerEvent(
                    id: EventID.derived("ledger", "credit", transferID), kind: .credit, userID: payee,
                    intentID: intentID, transferID: transferID,
                    entries: LedgerEntry.move(one, from: Ledger.clearing, to: Ledger.available(payee)),
                    counterpartyUserID: payer, counterpartyAccount: "\(payee)@example.com", amount: one,
                    decidedBy: "answer-\(intentID)", decidedAt: decided),
            ]
            if confirmations {
                let intent = Intent.sendPayment(
                    SendPaymentIntent(
                        payee: Person(spoken: payee, handle: "\(payee)@example.com", contactID: payee),
                        currencyAmount: one))
                let binding = ConfirmationBinding(
                    digest: String(repeating: "ab", count: 32), expiresAt: Timestamp(time.addingTimeInterval(120)))
                func event(_ id: String, _ source: String, _ type: String, _ schema: String, _ payload: some Encodable)
                    -> EventEnvelope
                {
                    EventEnvelope(
                        id: id, source: source, type: type, time: time, dataSchema: schema, userID: payer,
                        conversationID: "c-\(payer)", intentID: intentID, payload: payload)
                }
                let resolved = event(
                    "resolved-\(intentID)", PipelineSource.resolve, IntentResolutionReport.resolvedType,
                    IntentResolutionReport.resolvedDataSchema,
                    IntentResolutionReport(
                        turn: 1, intent: intent,
                        parameters: [
                            ParameterResolution(
                                parameter: "payee", outcome: .success,
                                candidates: [ContactCandidate(contactID: payee, displayName: payee)])
                        ]))
                append(resolved, to: topics.resolved)
                var proposal = event(
                    "proposal-\(intentID)", PipelineSource.confirm, IntentConfirmation.type,
                    IntentConfirmation.dataSchema,
                    IntentConfirmation(
                        turn: 1, intent: intent, code: .ready, proposedResponse: "Send 1 CNY?", binding: binding,
                        ledgerVersion: versions[payer, default: 0]))
                proposal.causationID = resolved.id
                append(proposal, to: topics.confirmations)
                append(
                    event(
                        "answer-\(intentID)", "/voice/bench", ConfirmationAnswer.type, ConfirmationAnswer.dataSchema,
                        ConfirmationAnswer(decision: .confirmed, binding: binding)), to: topics.confirmations)
            }
            for event in events {
                versions[event.userID, default: 0] += 1
                append(event.envelope(source: PipelineSource.payments, time: time), to: topics.ledger)
            }
            try await flush()
        }
        try await flush(true)
        await producer.shutdown()
        return written
    }
}
