import AppStateService
import CommandLineSupport
import ContactResolution
import Foundation
import IntentCrypto
import IntentEvents
import IntentResolution
import IntentWorkers
import Intents
import Kafka
import LocalBroker
import Logging
import Payments
import PipelineAudit
import PipelineTools
import PipelineTopics
import ServiceLifecycle
import Synchronization
import VoiceSimulator

/// The demo: every worker as its own process on one broker, a scripted
/// conversation in English, Chinese and Russian through the simulated voice
/// service, then the balances the ledger holds. Keys are made for this run
/// only and deleted with it.
final class PipelineDemo: Service, Sendable {
    struct Outcome: Sendable {
        var succeeded = false
        var failures: [String] = []
    }

    let bootstrapServers: String
    let root: URL
    /// Keep the services running after the conversation until Ctrl-C, so the web page can be browsed.
    let keepRunning: Bool
    let topicPrefix: String
    /// Where the keys and the app-state database go; nil: a temporary directory, deleted at the end.
    let stateDirectory: URL?
    /// Where the workers' logs go (the embedded broker's too).
    let logDirectory: URL
    let logger: Logger
    private let result = Mutex(Outcome())
    var outcome: Outcome { result.withLock { $0 } }

    static let accounts: [(user: String, handle: String, deposits: [String])] = [
        ("alice", "+1 555 0100", ["1000 CNY", "100 RUB"]), ("sunbo", "sunbo@example.cn", []),
        ("brandon-lee", "brandon.lee@example.com", []), ("brandon-smith", "brandon.smith@example.com", []),
        ("yulia", "+7 900 000 0001", ["2000 RUB"]),
    ]

    init(
        bootstrapServers: String, root: URL, keepRunning: Bool, topicPrefix: String, stateDirectory: URL?,
        logDirectory: URL, logger: Logger
    ) {
        self.bootstrapServers = bootstrapServers
        self.root = root
        self.keepRunning = keepRunning
        self.topicPrefix = topicPrefix
        self.stateDirectory = stateDirectory
        self.logDirectory = logDirectory
        self.logger = logger
    }

    func run() async throws {
        let work =
            stateDirectory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent(
                "intent-demo-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        // Keys made for this run die with it, unless the operator asked to keep them.
        defer { if stateDirectory == nil { try? FileManager.default.removeItem(at: work) } }
        output(
            "▶ keys and app state in \(work.path)\(stateDirectory == nil ? " (deleted at the end)" : ""); logs in \(logDirectory.path)"
        )
        let workers = Mutex<[ManagedProcess]>([])
        do {
            try await cancelWhenGracefulShutdown {
                try await self.play(work: work) { process in workers.withLock { $0.append(process) } }
            }
        } catch {
            result.withLock { $0.failures.append("\(error)") }
        }
        output("▶ stopping the workers")
        for worker in workers.withLock({ $0 }) { await worker.stop() }
    }

    private func play(work: URL, started: @Sendable (ManagedProcess) -> Void) async throws {
        let client = KafkaConfiguration(bootstrapServers: [bootstrapServers], clientID: "intent-demo")
        let topics = PipelineTopics(prefix: topicPrefix)
        try await KafkaAdminClient.with(configuration: client, logger: logger) {
            try await $0.createTopics(topics.specifications(partitions: 3))
        }
        output("▶ topics \(topics.prefix)* created")

        // Keys for this run: the voice service's signing key and the payments binding key.
        var random = SystemRandomNumberGenerator()
        let voiceKey = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
        let bindingKey = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
        let appKey = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
        // Each stage signs what it publishes with its own key; the demo seeds the ledger as its operator.
        let stageKeys = EventAuthenticator.generate(for: PipelineSource.all)
        // The voice service's key, the contacts service's (the resolve worker takes contacts only
        // signed) and the settings service's (it enrolls the users with the voice service).
        let contactsKeys = EventAuthenticator.generate(for: ["/contacts/demo", "/settings/demo"])
        let binaries = Bundle.main.executableURL?.deletingLastPathComponent() ?? URL(fileURLWithPath: ".")
        let port = try Loopback.freePort()
        let launcher = try WorkerLauncher(
            binaries: binaries, directory: work, bootstrapServers: bootstrapServers, topicPrefix: topics.prefix,
            keys: WorkerLauncher.Keys(
                sourceKeys: "/voice/demo \(Digest.hex(voiceKey))\n" + contactsKeys.keyFileText,
                bindingKey: Digest.hex(bindingKey), stageKeys: stageKeys.keyFileText, appKey: Digest.hex(appKey)),
            environment: [
                "INTENT_SLOW_SERVICES": "satellite=3", "INTENT_MESSAGING_SERVICES": "sms,chat,satellite",
                "INTENT_APPSTATE_PORT": String(port),
                "INTENT_APPSTATE_DB": work.appendingPathComponent("appstate.sqlite").path,
            ])

        output("▶ keys (in \(work.path)):")
        output(
            "  source-keys: /voice/demo signs the voice service's requests and answers; /contacts/demo the contacts; /settings/demo the users' settings"
        )
        output(
            "  stage-keys: each stage signs what it publishes (\(PipelineSource.all.sorted().joined(separator: ", ")))")
        output("  binding-key: the confirm and payments stages bind each confirmation request to its terms")
        output("  app-key: the app-state service signs the users' page tokens")
        try await seed(topics, client, operatorKeys: stageKeys, contactsKeys: contactsKeys)

        // The app state's operations port, where its /ready is.
        let operationsPort = try Loopback.freePort()
        let app = AppStateClient(port: port, operationsPort: operationsPort, tokens: UserTokens(key: appKey))
        for worker in WorkerLauncher.stageWorkers + ["appstate"] {
            let process = try launcher.launch(
                worker,
                arguments: worker == "appstate"
                    ? ["--http-port", String(operationsPort), "--http-host", "127.0.0.1"] : [],
                logFile: logDirectory.appendingPathComponent("intent-\(worker).log"))
            started(process)
            output("▶ started intent-\(worker) (pid \(process.pid), log \(process.logFile.path))")
        }

        try await app.waitUntilReady()
        output("▶ app-state service ready at http://127.0.0.1:\(port)/")

        let script = try VoiceScript.load(
            Data(contentsOf: root.appendingPathComponent("scripts/demo/conversation.json")))
        let simulator = try VoiceSimulator(
            configuration: client, topics: topics,
            authenticator: EventAuthenticator(keys: ["/voice/demo": voiceKey]), source: "/voice/demo",
            logger: logger, print: { output("  " + $0) })
        output("▶ the conversation (simulated voice service):")
        let played: VoiceSimulator.Outcome
        do {
            played = try await simulator.play(script)
            await simulator.close()
        } catch {
            await simulator.close()
            throw error
        }
        try await printBalances(topics, client)
        try await printAppState(app, user: "alice", finishedIntents: script.steps.count)
        let findings = try await audit(topics, client, keys: stageKeys, bindingKey: BindingKey(bindingKey))
        result.withLock {
            $0.failures += findings
            $0.failures += played.failures
            $0.succeeded = played.succeeded
        }
        if keepRunning {
            output("▶ everything keeps running; press Ctrl-C to stop")
            try await gracefulShutdown()
        }
    }

    /// Payment accounts (with opening deposits), Alice's address book, and every user enrolled
    /// with the demo's voice service (a payment needs its user bound to the service that asks).
    private func seed(
        _ topics: PipelineTopics, _ client: KafkaConfiguration, operatorKeys: EventAuthenticator,
        contactsKeys: EventAuthenticator
    ) async throws {
        var records: [KafkaProducerMessage] = []
        for account in Self.accounts {
            records += KafkaProducerMessage.accountOpening(
                account.user, handles: [account.handle],
                deposits: account.deposits.compactMap(CurrencyAmount.init(parsing:)), topics: topics,
                signedWith: operatorKeys)
        }
        let contacts = try BatchResolution.contacts(
            from: Data(contentsOf: root.appendingPathComponent("scripts/demo/contacts-alice.json")))
        let partitions = try await KafkaOffsetLookup.partitionCount(
            of: topics.contacts, configuration: client, logger: logger)
        // A version from the clock: a demo run again publishes the contacts as newer.
        let version = RecordVersion.fromClock()
        records += contacts.map {
            KafkaProducerMessage.contact(
                $0, of: "alice", version: version, topic: topics.contacts, partitions: partitions,
                source: "/contacts/demo",
                signedWith: contactsKeys)
        }
        let settingsPartitions = try await KafkaOffsetLookup.partitionCount(
            of: topics.settings, configuration: client, logger: logger)
        records += Self.accounts.map {
            KafkaProducerMessage.userSettings(
                UserSettings(voiceServices: ["/voice/demo"]), of: $0.user, version: version, topic: topics.settings,
                partitions: settingsPartitions, source: "/settings/demo", signedWith: contactsKeys)
        }
        let producer = try KafkaProducer(configuration: KafkaProducerConfiguration(client: client), logger: logger)
        _ = try await producer.sendAll(records)
        await producer.shutdown()
        output(
            "▶ \(Self.accounts.count) payment accounts, \(contacts.count) contacts for alice, and the users enrolled with /voice/demo published"
        )
    }

    /// What the ledger says now, read from its topic.
    private func printBalances(_ topics: PipelineTopics, _ client: KafkaConfiguration) async throws {
        let ledger = Mutex(Ledger())
        let follower = try TopicFollower(
            configuration: client, topic: topics.ledger, logger: logger,
            apply: { message throws(EventDecodingError) in
                let event = try EventEnvelope.decode(message.value ?? []).decodeData(as: LedgerEvent.self)
                ledger.withLock { _ = try? $0.apply(event, checkingBalances: false) }
            }, reject: { _, _ in })
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { try await follower.follow() }
            try await follower.caughtUp()
            group.cancelAll()
        }
        await follower.close()
        let snapshot = ledger.withLock { $0 }
        output("▶ balances in the ledger:")
        for (account, money) in snapshot.allBalances where account.hasPrefix("users/") && money.micros != 0 {
            output("  \(account): \(money)")
        }
        for request in snapshot.requests.values.sorted(by: { $0.id < $1.id }) {
            output(
                "  payment request \(request.requester) → \(request.payer): \(request.money), \(request.status.rawValue)"
            )
        }
    }
}

extension PipelineDemo {
    /// The app state of a user as the parent app sees it, once every intent of the conversation is in.
    func printAppState(_ app: AppStateClient, user: String, finishedIntents: Int) async throws {
        let state = try await app.state(of: user, timeout: .seconds(30)) { state in
            (state["intents"] as? [[String: Any]] ?? []).filter { $0["status"] as? String == "done" }.count
                >= finishedIntents
        }
        output("▶ the app state of \(user) (intent-appstate, as the iOS app would refresh it):")
        // The counterparty as the server names it from the user's contacts (never an account id).
        func person(_ item: [String: Any]) -> String {
            (item["counterpartyName"] as? String) ?? (item["counterparty"] as? String) ?? "someone"
        }
        for balance in state["balances"] as? [[String: Any]] ?? [] {
            output("  balance: \(balance["available"] ?? "?") \(balance["currency"] ?? "") available")
        }
        for payment in state["payments"] as? [[String: Any]] ?? [] {
            let direction = payment["direction"] as? String == "received" ? "received from" : "to"
            output(
                "  payment \(direction) \(person(payment)): \(payment["amount"] ?? ""), \(payment["status"] ?? "")"
            )
        }
        for request in state["paymentRequests"] as? [[String: Any]] ?? [] {
            output(
                "  payment request: \(request["role"] ?? "") \(request["amount"] ?? "") with \(person(request)): \(request["status"] ?? "")"
            )
        }
        for message in state["messages"] as? [[String: Any]] ?? [] {
            output(
                "  message to \((message["to"] as? [String] ?? []).joined(separator: ", ")): \"\(message["content"] ?? "")\" \(message["status"] ?? "")"
            )
        }
        let intents = state["intents"] as? [[String: Any]] ?? []
        output("  intents: \(intents.count), \(intents.filter { $0["code"] as? String == "success" }.count) succeeded")
        output("▶ web page: \(app.pageURL(for: user))")
    }
}

extension PipelineDemo {
    /// Replays the topics as an auditor would (`intentctl audit`) and prints what it found.
    func audit(
        _ topics: PipelineTopics, _ client: KafkaConfiguration, keys: EventAuthenticator, bindingKey: BindingKey
    ) async throws -> [String] {
        let report = try await TopicAudit.run(
            topics: topics, configuration: client, logger: logger, keys: keys, bindingKey: bindingKey)
        output(
            "▶ audit of the topics: \(report.intents) intents, \(report.postedTransfers) transfers posted, "
                + "\(report.voidedTransfers) released, \(report.messagesDelivered) messages: "
                + (report.findings.isEmpty ? "every rule holds" : "\(report.findings.count) broken rules"))
        for finding in report.findings { output("  ✘ \(finding)") }
        return report.findings.map { "audit: \($0)" }
    }
}
