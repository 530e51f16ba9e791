import BrokerTestSupport
import ContactResolution
import Foundation
import IntentCrypto
import IntentEvents
import IntentResolution
import IntentWorkers
import Intents
import Kafka
import LocalBroker
import Messaging
import Payments
import PipelineAudit
import PipelineTools
import PipelineTopics
import StageRuntime
import Synchronization
import Testing

/// Exactly-once effects on a real broker with every worker as its own OS
/// process: thousands of intents (half of them payments) while every worker
/// type is killed with SIGKILL at seeded moments and restarted.
@Suite("Exactly-once effects while workers are killed", .heavyTimeLimit(minutes: 20), .longHeavyTest)
struct CrashRecoveryTests {
    static let intentCount = Int(ProcessInfo.processInfo.environment["INTENT_CRASH_TEST_INTENTS"] ?? "") ?? 2000
    static let users = (0..<20).map { "user-\($0)" }
    static let voiceKey = Array(repeating: UInt8(0x42), count: 32)
    static let bindingKey = Array(repeating: UInt8(0x17), count: 32)
    static let authenticator = EventAuthenticator(keys: ["/voice/load": voiceKey])
    /// Fixes the kill schedule, the crash point and the load: `INTENT_CRASH_TEST_SEED` replays a run.
    static let seed =
        UInt64(ProcessInfo.processInfo.environment["INTENT_CRASH_TEST_SEED"] ?? "") ?? UInt64.random(in: 1...999_999)

    @Test("every intent gets exactly one final response; no transfer twice; balances are the sums of their entries")
    func killAndRestart() async throws {
        try await withBroker { broker in
            print("crash test: seed \(Self.seed) (INTENT_CRASH_TEST_SEED=\(Self.seed) replays this run)")
            var random = SplitMix64(seed: Self.seed)
            // The confirm worker also dies between its two publish rounds, once, early in the load:
            // its redo must publish the same proposal and binding it already made durable. A round
            // is a batch, and a confirm worker behind a loaded machine may take the whole load in
            // three or four large ones: the crash comes in the first two, which every run has.
            let crashRound = Int.random(in: 1...2, using: &random)
            let started = ContinuousClock.now
            let run = try await LoadRun.start(
                broker, name: "crash", random: &random,
                firstStartEnvironment: ["confirm": ["INTENT_CRASH_BETWEEN_ROUNDS": String(crashRound)]])
            defer { Task { await run.producer.shutdown() } }
            let (topics, workers, responder, intents, published) = (
                run.topics, run.workers, run.responder, run.intents, run.published
            )
            // Every worker type is killed (SIGKILL), two rounds: eight kills at seeded moments.
            let chaos = Task {
                try await workers.chaos(kills: 2, of: ["payments", "handle", "resolve", "confirm"]) { published.value }
            }
            let finals = try await responder.run(until: Set(intents.keys), timeout: .seconds(720))
            try await run.load.value
            let publishedAtKills = try await chaos.value
            await workers.stopAll()
            await responder.close()
            print(
                "crash test (seed \(Self.seed)): \(intents.count) intents in \(ContinuousClock.now - started); intents published at each kill: \(publishedAtKills); confirm crashed between publish rounds \(workers.selfCrashes(of: "confirm")) time(s) (round \(crashRound))"
            )
            #expect(workers.selfCrashes(of: "confirm") >= 1, "the crash point never fired (seed \(Self.seed))")
            // The kills must land while there is work in flight, not after it.
            #expect(publishedAtKills.filter { $0 < intents.count }.count >= 4, "kills at \(publishedAtKills)")
            #expect(finals.count == intents.count, "\(intents.count - finals.count) intents without a final response")
            try await Self.check(topics: topics, broker: broker, intents: intents)
        }
    }

    // MARK: Setup

    /// Enough for every payment a user makes even if it received nothing
    /// (at most 500.25 CNY each, half the intents are payments), and at
    /// least 100,000 CNY: a refusal for want of money would not be a crash's doing.
    static var deposit: Int { max(100_000, intentCount / (2 * users.count) * 501) }

    /// Accounts with ``deposit`` CNY each; every user has every other user as a contact, and is
    /// enrolled with the load's voice service (the workers refuse a payment of a user bound to none).
    static func seed(_ topics: PipelineTopics, _ producer: KafkaProducer) async throws {
        var records: [KafkaProducerMessage] = []
        for user in users {
            records.append(.enrollment(user, topics: topics, partitions: 4))
            let money = CurrencyAmount(amount: DecimalAmount("\(deposit)")!, currency: "CNY")
            records += KafkaProducerMessage.accountOpening(
                user, handles: ["\(user)@example.com"], deposits: [money], topics: topics,
                signedWith: testStageKeys)
            for other in users where other != user {
                let contact = Contact(id: "c-\(other)", displayName: other, handles: ["\(other)@example.com"])
                records.append(
                    KafkaProducerMessage.contact(
                        contact, of: user, version: 1, topic: topics.contacts, partitions: 4, source: "/contacts/test",
                        signedWith: testContactsKeys))
            }
        }
        _ = try await producer.sendAll(records)
    }

    /// Half payments (one in ten to be declined), half messages: intent id → kind, and the signed records.
    /// Topics (4 partitions) under a unique prefix, a producer, and the seeded accounts and contacts.
    static func prepare(_ broker: LocalBroker, name: String) async throws -> (PipelineTopics, KafkaProducer) {
        let topics = PipelineTopics(prefix: uniqueName(name) + ".")
        try await KafkaAdminClient.with(configuration: clientConfiguration(broker), logger: testLogger) {
            try await $0.createTopics(topics.specifications(partitions: 4))
        }
        let producer = try KafkaProducer(configuration: producerConfiguration(broker), logger: testLogger)
        try await seed(topics, producer)
        return (topics, producer)
    }

    /// Publishes the load over about 20 s (a twentieth of it each second, at least 100), so
    /// every kill or stop lands with work in flight, whatever the machine's speed.
    static func pace(_ records: [KafkaProducerMessage], through producer: KafkaProducer, counting published: Counter)
        async throws
    {
        let perSecond = max(100, records.count / 20)
        for batch in stride(from: 0, to: records.count, by: perSecond) {
            _ = try await producer.sendAll(Array(records[batch..<min(batch + perSecond, records.count)]))
            published.set(min(batch + perSecond, records.count))
            try await Task.sleep(for: .seconds(1))  // pacing the load, not synchronization
        }
    }

    static func makeIntents(_ topics: PipelineTopics, using random: inout SplitMix64) -> (
        [String: Intent.Kind], [KafkaProducerMessage]
    ) {
        var intents: [String: Intent.Kind] = [:]
        var records: [KafkaProducerMessage] = []
        for index in 0..<intentCount {
            let user = users[index % users.count]
            let other = users.filter { $0 != user }.randomElement(using: &random)!
            let person = Person(spoken: other, contactID: "c-\(other)")
            let intent: Intent =
                index.isMultiple(of: 2)
                ? .sendPayment(
                    SendPaymentIntent(
                        payee: person,
                        currencyAmount: CurrencyAmount(
                            amount: DecimalAmount("\(Int.random(in: 1...500, using: &random)).25")!, currency: "CNY")))
                : .sendMessage(SendMessageIntent(recipients: [person], content: "message \(index)"))
            let intentID = "load-\(index)"
            intents[intentID] = intent.kind
            let event = EventEnvelope(
                id: "request-\(intentID)", source: "/voice/load", type: IntentRequested.type, time: Date(),
                dataSchema: IntentRequested.dataSchema, userID: user, conversationID: "load-\(user)",
                intentID: intentID,
                payload: IntentRequested(turn: 1, intent: intent))
            records.append(KafkaProducerMessage(topic: topics.requested, event: event, signedWith: authenticator))
        }
        return (intents, records)
    }

    /// Whether the responder declines this payment (deterministic, one in ten).
    static func declines(_ intentID: String) -> Bool {
        (Int(intentID.split(separator: "-").last ?? "") ?? 0) % 20 == 10
    }

    // MARK: Checks

    static func check(topics: PipelineTopics, broker: LocalBroker, intents: [String: Intent.Kind]) async throws {
        func read(_ topic: String) async throws -> [EventEnvelope] {
            try await TopicReader.events(of: topic, configuration: clientConfiguration(broker), logger: testLogger)
                .events
        }
        // Unreadable records are findings too; with the stages' keys, so are broken chains.
        let report = try await TopicAudit.run(
            topics: topics, configuration: clientConfiguration(broker), logger: testLogger, keys: testStageKeys,
            bindingKey: BindingKey(bindingKey))
        // The audit's rules: one final response per intent, one hold and one post-or-void per
        // transfer, balances equal to their entries and never negative, money neither created nor
        // lost, every posted transfer confirmed by its payer with a matching binding, messages once.
        #expect(report.findings == [], "seed \(seed)")
        // A redo after a crash publishes the binding it published before: no answer mismatches.
        let mismatched = try await read(topics.ledger).compactMap { try? $0.decodeData(as: LedgerEvent.self) }
            .filter { $0.reason == "confirmationMismatch" }
        #expect(mismatched.isEmpty, "\(mismatched.count) payments voided as confirmationMismatch (seed \(seed))")
        #expect(report.intents == intents.count)
        #expect(report.pendingIntents == [])
        #expect(report.heldTransfers == 0, "holds left after every intent ended")
        // What this load knows beyond the rules: which payments were declined, and that every message went out.
        let expectedPosted = intents.filter { $0.value == .sendPayment && !declines($0.key) }.keys.sorted()
        #expect(report.postedIntents == expectedPosted)
        for (intentID, kind) in intents where kind == .sendMessage {
            #expect(report.deliveredMessages[intentID] == 1, "\(intentID)")
        }
    }

}

/// The four workers as OS processes, killed and restarted on demand.
final class WorkerProcesses: Sendable {
    let broker: LocalBroker
    let topics: PipelineTopics
    let directory: URL
    let launcher: WorkerLauncher
    private let running = Mutex<[String: ManagedProcess]>([:])
    private let restarts = Mutex(0)
    /// Extra environment for a worker's processes until one of them exits by itself (a crash point that fires once).
    private let firstStart: Mutex<[String: [String: String]]>
    /// Exit statuses of processes that exited by themselves, by worker.
    private let crashes = Mutex<[String: [Int32]]>([:])
    private let stopping = Mutex(false)
    private let random: Mutex<SplitMix64>

    init(
        broker: LocalBroker, topics: PipelineTopics, workers: [String] = ["resolve", "confirm", "payments", "handle"],
        extraEnvironment: [String: String] = [:], firstStartEnvironment: [String: [String: String]] = [:],
        seed: UInt64 = 1
    ) throws {
        self.broker = broker
        self.topics = topics
        firstStart = Mutex(firstStartEnvironment)
        random = Mutex(SplitMix64(seed: seed))
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(uniqueName("workers"))
        launcher = try WorkerLauncher(
            binaries: WorkerLauncher.binaries(), directory: directory, bootstrapServers: broker.bootstrapServers,
            topicPrefix: topics.prefix,
            keys: WorkerLauncher.Keys(
                sourceKeys: "/voice/load \(Digest.hex(CrashRecoveryTests.voiceKey))\n" + testContactsKeys.keyFileText
                    + testSettingsKeys.keyFileText,
                bindingKey: Digest.hex(CrashRecoveryTests.bindingKey), stageKeys: testStageKeys.keyFileText),
            groupSuffix: String(UUID().uuidString.prefix(8)),
            environment: ["KAFKA_HEARTBEAT_INTERVAL_MS": "500"].merging(extraEnvironment) { $1 })
        for worker in workers { try start(worker) }
    }

    static var binaries: URL { WorkerLauncher.binaries() }

    func start(_ worker: String) throws {
        let count = restarts.withLock { count in
            count += 1
            return count
        }
        // Until the crash point has fired once (a SIGKILL may come first), each start gets it.
        let extra = selfCrashes(of: worker) == 0 ? firstStart.withLock { $0[worker] } ?? [:] : [:]
        // "payments#2": a second instance of intent-payments, in the same group.
        let executable = String(worker.prefix { $0 != "#" })
        // With a crash point armed, the worker's own command line runs in the tests' fault host.
        let logFile = directory.appendingPathComponent("\(worker)-\(count).log")
        let process =
            extra.isEmpty
            ? try launcher.launch(executable, logFile: logFile)
            : try launcher.launch("fault-host", arguments: [executable], logFile: logFile, extraEnvironment: extra)
        running.withLock { $0[worker] = process }
        // Like an orchestrator: a worker that exits by itself (the crash point) is started again.
        Task {
            let status = await process.waitForExit()
            let restart = running.withLock { $0[worker] === process } && !stopping.withLock { $0 }
            guard restart else { return }
            crashes.withLock { $0[worker, default: []].append(status) }
            try start(worker)
        }
    }

    /// How often a worker exited by itself (and was started again).
    func selfCrashes(of worker: String) -> Int { crashes.withLock { $0[worker]?.count ?? 0 } }

    /// Kills each named worker `kills` times at random moments (SIGKILL: no cleanup, no commit) and restarts it.
    /// Returns `progress()` (how many intents were published) at each kill.
    func chaos(kills: Int, of workers: [String], progress: @Sendable () -> Int) async throws -> [Int] {
        var killed: [Int] = []
        for _ in 0..<kills {
            for worker in workers {
                // Random moments (from the seed), by design: the point is to crash mid-work, not to synchronize.
                let pause = random.withLock { Int.random(in: 1000...3000, using: &$0) }
                try await Task.sleep(for: .milliseconds(pause))
                // A worker whose crash point has not fired yet is left to reach it.
                let armed = firstStart.withLock { $0[worker] != nil }
                if armed && selfCrashes(of: worker) == 0 { continue }
                // Taken out of `running` first, so its exit is not mistaken for a crash to restart from.
                guard let process = running.withLock({ $0.removeValue(forKey: worker) }) else { continue }
                killed.append(progress())
                await process.kill()
                try start(worker)
            }
        }
        return killed
    }

    /// What became of one SIGTERM: the exit status (nil: still running after `grace`, then killed),
    /// how long the worker took to exit, and how many intents had been published by then.
    struct Termination: Sendable {
        var worker: String
        var status: Int32?
        var elapsed: Duration
        var publishedAtSignal: Int
    }

    /// Sends each named worker SIGTERM at a seeded moment, as Kubernetes does on a rollout or
    /// a drain, waits up to `grace` for it to exit, and starts it again.
    func terminations(of workers: [String], grace: Duration, progress: @Sendable () -> Int) async throws
        -> [Termination]
    {
        var results: [Termination] = []
        for worker in workers {
            // Random moments (from the seed), by design: the point is to stop mid-work, not to synchronize.
            let pause = random.withLock { Int.random(in: 1000...3000, using: &$0) }
            try await Task.sleep(for: .milliseconds(pause))
            guard let process = running.withLock({ $0.removeValue(forKey: worker) }) else { continue }
            let published = progress()
            let signalled = ContinuousClock.now
            Foundation.kill(process.pid, SIGTERM)
            let status = await process.waitForExit(within: grace)
            results.append(
                Termination(
                    worker: worker, status: status, elapsed: ContinuousClock.now - signalled,
                    publishedAtSignal: published))
            try start(worker)
        }
        return results
    }

    /// Runs `count` instances of `worker` ("payments", "payments#2", ...): starts the missing
    /// ones, or stops the extra ones with SIGTERM (newest first), as a scale-in does.
    func scale(_ worker: String, to count: Int) async throws {
        for instance in 1...max(count, 1) where running.withLock({ $0[Self.instance(worker, instance)] == nil }) {
            try start(Self.instance(worker, instance))
        }
        let extra = running.withLock { running in
            running.keys.filter {
                $0.hasPrefix(worker + "#") && (Int($0.split(separator: "#").last ?? "") ?? 0) > count
            }
            .sorted(by: >).compactMap { running.removeValue(forKey: $0) }
        }
        for process in extra { await process.stop(grace: .seconds(30)) }
    }

    static func instance(_ worker: String, _ number: Int) -> String { number == 1 ? worker : "\(worker)#\(number)" }

    /// Kills one instance (SIGKILL: no cleanup, no commit) and starts it again.
    func kill(_ instance: String) async throws {
        guard let process = running.withLock({ $0.removeValue(forKey: instance) }) else { return }
        await process.kill()
        try start(instance)
    }

    /// How many instances of `worker` run now.
    func instances(of worker: String) -> Int {
        running.withLock { $0.keys.filter { $0 == worker || $0.hasPrefix(worker + "#") }.count }
    }

    func stopAll() async {
        stopping.withLock { $0 = true }
        for process in running.withLock({ Array($0.values) }) { await process.stop() }
    }

    /// Workers a process of which exited on its own (restarted since, or not yet), with the last exit status.
    func exited() -> [String: Int32] {
        var exited = crashes.withLock { $0.compactMapValues(\.last) }
        for (worker, process) in running.withLock({ $0 }) where !process.isRunning {
            exited[worker] = process.exitStatus
        }
        return exited
    }
}

/// The voice side of the load: answers every confirmation request (declining
/// one in ten), and collects final responses.
final class Responder: Sendable {
    private let reader: KafkaConsumer
    private let producer: KafkaProducer
    private let topics: PipelineTopics
    private let broker: LocalBroker

    init(broker: LocalBroker, topics: PipelineTopics, producer: KafkaProducer) throws {
        self.producer = producer
        self.topics = topics
        self.broker = broker
        reader = try KafkaConsumer(
            configuration: consumerConfiguration(broker, group: uniqueName("voice")), logger: testLogger)
        try reader.subscribe(topics: [topics.prompts, topics.responses])
    }

    func close() async { await reader.close() }

    /// Runs until every intent has a final response; returns intent id → final response.
    ///
    /// The topics are the truth: when nothing new has arrived for 20 s while intents are
    /// still open, the prompts and responses topics are read again from the beginning (a
    /// record the subscription did not deliver, seen once in hundreds of runs, would
    /// otherwise leave its payment unanswered or its response unseen until the timeout).
    func run(until intents: Set<String>, timeout: Duration) async throws -> [String: IntentResponse] {
        var finals: [String: IntentResponse] = [:]
        var answered: Set<String> = []
        let deadline = ContinuousClock.now + timeout
        var lastRecord = ContinuousClock.now
        while !intents.isSubset(of: Set(finals.keys)) && ContinuousClock.now < deadline {
            var replies: [KafkaProducerMessage] = []
            var polled = try await reader.poll(maxMessages: 1000, timeout: .milliseconds(500))
            if !polled.isEmpty { lastRecord = ContinuousClock.now }
            if polled.isEmpty && ContinuousClock.now - lastRecord > .seconds(20) {
                lastRecord = ContinuousClock.now
                for topic in [topics.prompts, topics.responses] {
                    try await TopicReader.forEachRecord(
                        of: topic, configuration: clientConfiguration(broker), logger: testLogger
                    ) { polled.append($0) }
                }
            }
            for message in polled {
                let event = try EventEnvelope.decode(message.value ?? [])
                guard let intentID = event.intentID else { continue }
                switch event.type {
                case ConfirmationRequest.type where !answered.contains(event.id):
                    answered.insert(event.id)
                    let request = try event.decodeData(as: ConfirmationRequest.self)
                    let answer = EventEnvelope(
                        id: "answer-\(event.id)", source: "/voice/load", type: ConfirmationAnswer.type, time: Date(),
                        dataSchema: ConfirmationAnswer.dataSchema, userID: event.userID,
                        conversationID: event.conversationID, intentID: intentID,
                        payload: ConfirmationAnswer(
                            decision: CrashRecoveryTests.declines(intentID) ? .declined : .confirmed,
                            binding: request.binding))
                    replies.append(
                        KafkaProducerMessage(
                            topic: topics.confirmations, event: answer, signedWith: CrashRecoveryTests.authenticator))
                case IntentResponse.type:
                    let response = try event.decodeData(as: IntentResponse.self)
                    if response.code.isFinal { finals[intentID] = response }
                default:
                    continue
                }
            }
            if !replies.isEmpty { _ = try await producer.sendAll(replies) }
        }
        return finals
    }
}

/// A number several tasks read and one writes.
final class Counter: Sendable {
    private let state = Mutex(0)
    var value: Int { state.withLock { $0 } }
    func set(_ value: Int) { state.withLock { $0 = value } }
}
