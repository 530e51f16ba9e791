import ArgumentParser
import CKafkaBaseline
import Confirmation
import ContactResolution
import Foundation
import IntentCrypto
import IntentEvents
import IntentResolution
import Intents
import Kafka
import LocalBroker
import Logging
import Payments
import PipelineTools
import PipelineTopics

/// `intent-bench audit`: how fast an auditor reads back history. The audit
/// (lifecycle and ledger rules, every signature and hash chain) and `replay
/// resolve` (every request re-resolved against its own contact book) against
/// raw consumption of the same topics by librdkafka in C, in the same run.
struct AuditBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Audit and replay speed, as a ratio to raw consumption of the same records in C.",
        discussion: """
            Writes a payment history (per transfer: the confirm stage's proposal, the payer's answer, a hold, \
            a post and a credit, chained and signed as the stages do) and a resolve history (contact books, \
            requests, and the resolver's decisions with their contact-book versions), then, --runs times: the C \
            baseline consumes the topics, `TopicAudit` audits the payments with the stages' keys, and \
            `ResolveReplay` re-derives every resolve decision and `ConfirmReplay` every payment's confirm \
            decision. None may find anything. Rates are records per second of \
            wall time and per CPU second of this process (user + system, librdkafka's threads included; the \
            broker is another process): the CPU rate is what one core does.

            JSON keys: audit_records, replay_records, confirm_replay_records; for each of audit, replay (resolve) \
            and confirm_replay: *_per_s, *_per_cpu_s, *_raw_per_s, *_ratio (medians of the runs), and *_runs arrays.
            """)

    @Option(help: "Transfers in the payment history (five records each).") var transfers = 60_000
    @Option(help: "Requests in the resolve history (a decision each).") var requests = 60_000
    @Option(help: "Users, each with an account and a contact book.") var users = 2_000
    @Option(help: "Contacts per user.") var contacts = 12
    @Option(help: "Partitions per user-keyed topic.") var partitions = 12
    @Option(help: "Measured runs.") var runs = 3

    func run() async throws {
        var logger = Logger(label: "intent-bench")
        logger.logLevel = .warning
        let broker = try await LocalBroker.start()
        do {
            try await measure(broker, logger)
        } catch {
            await broker.stop()
            throw error
        }
        await broker.stop()
    }

    private func measure(_ broker: LocalBroker, _ logger: Logger) async throws {
        let client = KafkaConfiguration(bootstrapServers: [broker.bootstrapServers], clientID: "intent-bench")
        let topics = PipelineTopics(prefix: "audit-\(UUID().uuidString.prefix(8)).")
        let admin = try KafkaAdminClient(configuration: client, logger: logger)
        try await admin.createTopics(topics.specifications(partitions: partitions))
        await admin.close()
        let keys = EventAuthenticator.generate(for: PipelineSource.all)
        let history = BenchLedger(users: users, days: 0.5, chainedOn: partitions, confirmations: true)
        // What each reads; the C consumer reads the same topics, and the records counted are theirs.
        // The audit reads the resolved topic whole (each proposal is held to its intent's
        // resolution), the resolve history's decisions included.
        let auditTopics = [topics.ledger, topics.confirmations, topics.resolved]
        let replayTopics = [topics.contacts, topics.requested, topics.prompts, topics.resolved]
        let confirmTopics = [topics.confirmations, topics.resolved, topics.accounts, topics.ledger]
        func records(_ names: [String]) async throws -> Int {
            try await TopicReader.recordCount(of: names, configuration: client, logger: logger)
        }
        _ = try await history.write(
            users * 2 + transfers * 3, topics: topics, keys: keys, client: client, logger: logger)
        // Counted before the resolve history is written: the confirm replay also reads (and
        // skips) the resolve decisions on the resolved topic, which its rate does not count.
        let confirmReplayed = try await records(confirmTopics)
        _ = try await ResolveHistory(users: users, contacts: contacts, requests: requests)
            .write(topics: topics, partitions: partitions, stageKeys: keys, client: client, logger: logger)
        let payments = try await records(auditTopics)
        // The resolved topic holds the payments' resolved intents too, which this counts.
        let resolve = try await records(replayTopics)
        print("written: \(payments) payment records, \(resolve) resolve records")
        // Bindings are not compared by the replay (they are keyed): any key makes the stage decide.
        let stage = ConfirmStage(bindingKey: BindingKey(SecureRandom.bytes(32)), authenticator: keys)
        /// The C consumer's rate on `names`, then `body`'s rates over `count` records.
        func rates(
            _ names: [String], _ count: Int, _ body: () async throws -> Void
        ) async throws -> (wall: Double, cpu: Double, raw: Double) {
            let rawRate = try await raw(names, broker)
            let ((), wall, cpu) = try await timed(body)
            return (Double(count) / wall, Double(count) / cpu, rawRate)
        }

        var audit: [(wall: Double, cpu: Double, raw: Double)] = []
        var replay: [(wall: Double, cpu: Double, raw: Double)] = []
        var confirm: [(wall: Double, cpu: Double, raw: Double)] = []
        for run in 1...runs {
            audit.append(
                try await rates(auditTopics, payments) {
                    let report = try await TopicAudit.run(
                        topics: topics, configuration: client, logger: logger, keys: keys)
                    guard report.findings.isEmpty else {
                        throw BenchFailure(
                            "the audit found \(report.findings.count) problems: \(report.findings.prefix(3))")
                    }
                })
            replay.append(
                try await rates(replayTopics, resolve) {
                    let replayed = try await ResolveReplay.run(
                        topics: topics, configuration: client, logger: logger, from: nil, to: nil)
                    guard replayed.changes.isEmpty, replayed.replayed == requests else {
                        throw BenchFailure(
                            "the replay re-derived \(replayed.replayed) of \(requests), \(replayed.changes.count) changed (\(replayed.changes.prefix(2))), \(replayed.undecided) undecided, \(replayed.unversioned) unversioned, \(replayed.bookUnavailable) unavailable, \(replayed.otherConfiguration) under another configuration"
                        )
                    }
                })
            confirm.append(
                try await rates(confirmTopics, confirmReplayed) {
                    let confirmed = try await ConfirmReplay.run(
                        topics: topics, configuration: client, logger: logger, from: nil, to: nil, stage: stage)
                    guard confirmed.changes.isEmpty, confirmed.replayed == transfers else {
                        throw BenchFailure(
                            "the confirm replay re-derived \(confirmed.replayed) of \(transfers), \(confirmed.changes.count) changed (\(confirmed.changes.prefix(2))), \(confirmed.undecided) undecided, \(confirmed.unversioned) unversioned, \(confirmed.ledgerUnavailable) unavailable"
                        )
                    }
                })
            func line(_ rates: (wall: Double, cpu: Double, raw: Double)) -> String {
                "\(Int(rates.wall))/s (\(Int(rates.cpu))/CPU-s), raw \(Int(rates.raw))/s"
            }
            print(
                "run \(run): audit \(line(audit[run - 1])); replay resolve \(line(replay[run - 1])); replay confirm \(line(confirm[run - 1]))"
            )
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        var json: [(String, String)] = [
            ("audit_records", "\(payments)"), ("replay_records", "\(resolve)"),
            ("confirm_replay_records", "\(confirmReplayed)"),
        ]
        for (name, rates) in [("audit", audit), ("replay", replay), ("confirm_replay", confirm)] {
            json += [
                ("\(name)_per_s", PipelineBenchmark.format(median(rates.map(\.wall)))),
                ("\(name)_per_cpu_s", PipelineBenchmark.format(median(rates.map(\.cpu)))),
                ("\(name)_raw_per_s", PipelineBenchmark.format(median(rates.map(\.raw)))),
                ("\(name)_ratio", PipelineBenchmark.format(median(rates.map { $0.wall / $0.raw }))),
                ("\(name)_runs", "[" + rates.map { PipelineBenchmark.format($0.wall) }.joined(separator: ", ") + "]"),
            ]
        }
        print("{" + json.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}")
    }

    /// Records per second the C consumer reads the topics at, from their start.
    private func raw(_ names: [String], _ broker: LocalBroker) async throws -> Double {
        var records: Int64 = 0
        var seconds = 0.0
        for topic in names {
            let expected = Int64(
                try await TopicReader.recordCount(
                    of: [topic],
                    configuration: KafkaConfiguration(bootstrapServers: [broker.bootstrapServers], clientID: "bench"),
                    logger: Logger(label: "bench")))
            guard expected > 0 else { continue }
            let group = "bench-\(UUID())"
            let bootstrap = broker.bootstrapServers
            let result = try await onBaselineThread { result, error, length in
                kb_consume(bootstrap, topic, group, expected, 30_000, result, error, length)
            }
            records += result.messages
            seconds += result.seconds
        }
        return Double(records) / max(seconds, 0.000_001)
    }

    /// The value `body` returns, with the wall and CPU seconds it took.
    private func timed<Value>(_ body: () async throws -> Value) async throws -> (Value, Double, Double) {
        let cpuStart = ProcessCPU.seconds()
        let start = ContinuousClock.now
        let value = try await body()
        return (value, (ContinuousClock.now - start).seconds, ProcessCPU.seconds() - cpuStart)
    }
}

/// A resolve history: each user's contact book on the contacts topic, requests
/// naming contacts (whole names, given names, pinyin), and the resolver's
/// decision for each, recorded with its contact-book version as the stage does.
struct ResolveHistory {
    var users: Int
    var contacts: Int
    var requests: Int

    static let given = ["Anna", "Brandon", "Katherine", "Carl", "Dmitri", "Elena", "Юлия", "小明", "伟", "Li", "Sofia"]
    static let family = ["Smith", "Lee", "Ivanov", "Щукина", "孙", "张", "Wang", "Garcia", "Kowalski", "Novak"]

    /// Writes it, the decisions signed with `stageKeys` (the keys the audit of the same topics
    /// holds: it verifies the resolved topic's records); returns how many records.
    func write(
        topics: PipelineTopics, partitions: Int, stageKeys: EventAuthenticator, client: KafkaConfiguration,
        logger: Logger
    ) async throws -> Int {
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(client: client), logger: logger)
        let load = PipelineLoad(users: 1)
        var batch: [KafkaProducerMessage] = []
        var written = 0
        func flush(_ force: Bool = false) async throws {
            guard force || batch.count >= 20_000 else { return }
            _ = try await producer.sendAll(batch)
            written += batch.count
            batch.removeAll(keepingCapacity: true)
        }
        var books: [ContactBook] = []
        for user in 0..<users {
            var book: [Contact] = []
            for index in 0..<contacts {
                let given = Self.given[(user + index) % Self.given.count]
                let family = Self.family[(user * 7 + index * 3) % Self.family.count]
                let han = given.unicodeScalars.first.map { $0.value > 0x2E80 } ?? false
                book.append(
                    Contact(
                        id: "c\(index)", displayName: han ? family + given : "\(given) \(family)", givenName: given,
                        familyName: family))
            }
            for contact in book {
                batch.append(
                    .contact(
                        contact, of: "user-\(user)", version: 1, topic: topics.contacts, partitions: partitions,
                        source: PipelineLoad.contactsSource, signedWith: load.contacts))
            }
            books.append(ContactBook(contacts: book.sorted { $0.id < $1.id }))
            try await flush()
        }
        let resolver = IntentResolver()
        let configuration = resolver.configurationVersion
        let time = Date()
        for index in 0..<requests {
            let user = index % users
            let book = books[user]
            guard let contact = book.contact(id: "c\(index % contacts)") else { continue }
            let spoken = index % 3 == 0 ? (contact.givenName ?? contact.displayName) : contact.displayName
            let intentID = "replay-\(index)"
            let request = IntentRequested(
                turn: 1, intent: .sendMessage(SendMessageIntent(recipients: [Person(spoken: spoken)], content: "hi")))
            let event = EventEnvelope(
                id: "request-\(intentID)", source: PipelineLoad.voiceSource, type: IntentRequested.type, time: time,
                dataSchema: IntentRequested.dataSchema, userID: "user-\(user)", conversationID: "c-\(user)",
                intentID: intentID, payload: request)
            let report = resolver.recordedDecision(request, contacts: book, configuration: configuration)
            let type = report.needsUser ? IntentResolutionReport.promptType : IntentResolutionReport.resolvedType
            let decision = EventEnvelope(
                id: "decision-\(intentID)", source: PipelineSource.resolve, type: type, time: time,
                dataSchema: report.needsUser
                    ? IntentResolutionReport.promptDataSchema : IntentResolutionReport.resolvedDataSchema,
                userID: "user-\(user)", conversationID: "c-\(user)", intentID: intentID, causationID: event.id,
                payload: report)
            batch.append(KafkaProducerMessage(topic: topics.requested, event: event, signedWith: load.voice))
            batch.append(
                KafkaProducerMessage(
                    topic: report.needsUser ? topics.prompts : topics.resolved, event: decision,
                    signedWith: stageKeys))
            try await flush()
        }
        try await flush(true)
        await producer.shutdown()
        return written
    }
}
