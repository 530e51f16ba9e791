import BrokerTestSupport
public import ContactResolution
public import Foundation
import IntentCrypto
public import IntentEvents
import IntentResolution
import IntentWorkers
public import Intents
public import Kafka
public import LocalBroker
import Logging
import PipelineTools
public import PipelineTopics
public import ServiceLifecycle
import Synchronization
import Telemetry
public import VoiceSimulator

/// One key per stage (and the ledger operator), as a deployment issues them; every test
/// worker, in-process or as a process, signs and verifies with these.
public let testStageKeys = EventAuthenticator.generate(for: PipelineSource.all)

/// The contacts service's key: the resolve worker takes contacts only from a `/contacts/...`
/// source in its source keys, so every test keyring for resolve includes it.
public let testContactsKeys = EventAuthenticator(keys: [
    SigningKey(source: "/contacts/test", bytes: Array(repeating: UInt8(0xc0), count: 32)),
    SigningKey(source: ViewKey.source(viewing: "/contacts/test"), bytes: Array(repeating: UInt8(0xc1), count: 32)),
])
/// What the app state is given: the view keys of the stages, the ledger operator and the
/// contacts service (``ViewKey``), as the keyring that checks view signatures.
public let testViewKeys = EventAuthenticator(keys: testStageKeys.viewing.allKeys + testContactsKeys.viewing.allKeys)
/// A settings service's key: it enrolls users with their voice services (a payment needs it).
public let testSettingsKeys = EventAuthenticator(keys: ["/settings/test": Array(repeating: UInt8(0x5e), count: 32)])

extension KafkaProducerMessage {
    /// `user` enrolled with voice services by the tests' settings service (`/settings/test`):
    /// the workers, run as production runs them, refuse a payment of a user bound to none.
    public static func enrollment(
        _ user: String, with services: [String] = ["/voice/load"], topics: PipelineTopics, partitions: Int
    ) -> KafkaProducerMessage {
        .userSettings(
            UserSettings(voiceServices: services), of: user, version: 1, topic: topics.settings,
            partitions: partitions, source: "/settings/test", signedWith: testSettingsKeys)
    }
}

extension EventAuthenticator {
    /// These keys and the test contacts service's.
    public var withTestContacts: EventAuthenticator { EventAuthenticator(keys: allKeys + testContactsKeys.allKeys) }
}

/// A local broker with the pipeline's topics under a unique prefix, a
/// producer standing in for the voice service and the contacts service, a
/// reader of everything the worker publishes, and the worker under test.
public final class PipelineHarness: Sendable {
    /// Every topic's partition count: the contacts go to their user's partition.
    public static let partitions = 2
    public let broker: LocalBroker
    public let topics: PipelineTopics
    public let groupID = uniqueName("resolve")
    /// What the stages' consumer groups are named after (`startStages`): the same for every
    /// start, so stages started again resume where the last ones committed (a restart).
    public let stageGroups = uniqueName("stages")
    private let producer: KafkaProducer
    private let reader: KafkaConsumer
    private let received = Mutex<[KafkaConsumerMessage]>([])
    private let running = Mutex<[(group: ServiceGroup, task: Task<Void, any Error>)]>([])
    /// The version of the next contact record: one writer, growing (``RecordVersion``).
    private let contactVersion = Mutex<Int64>(0)

    public init(broker: LocalBroker) async throws {
        self.broker = broker
        let topics = PipelineTopics(prefix: uniqueName("t") + ".")
        self.topics = topics
        try await KafkaAdminClient.with(configuration: clientConfiguration(broker), logger: testLogger) {
            try await $0.createTopics(topics.specifications(partitions: Self.partitions))
        }
        producer = try KafkaProducer(configuration: producerConfiguration(broker), logger: testLogger)
        reader = try KafkaConsumer(
            configuration: consumerConfiguration(broker, group: uniqueName("reader")), logger: testLogger)
        try reader.subscribe(topics: [
            topics.prompts, topics.resolved, topics.deadLetter, topics.responses, topics.confirmed,
        ])
    }

    public func close() async {
        try? await stopWorker()
        await reader.close()
        await producer.shutdown()
    }

    // MARK: The worker

    public func startWorker() async throws {
        try await start(
            ResolveWorker(
                configuration: ResolveWorker.Configuration(
                    kafka: clientConfiguration(broker), topics: topics, groupID: groupID, keys: testStageKeys,
                    sessionTimeout: .seconds(6), voiceBinding: .optional),
                logger: testLogger))
    }

    /// Runs more services (other workers) next to the resolve worker, until `stopWorker()`.
    public func start(_ services: any Service...) async throws {
        try await start(services)
    }

    /// Runs `services` (each reporting to the telemetry of its configuration).
    public func start(_ services: [any Service]) async throws {
        let group = ServiceGroup(services: services, logger: testLogger)
        let task = Task { try await group.run() }
        running.withLock { $0.append((group, task)) }
    }

    /// Graceful shutdown of every running worker, as on SIGTERM; waits until each has committed and closed.
    public func stopWorker() async throws {
        let groups = running.withLock { state in
            defer { state = [] }
            return state
        }
        for current in groups { await current.group.triggerGracefulShutdown() }
        for current in groups { try await current.task.value }
    }

    // MARK: Publishing

    /// A version higher than every contact record this harness published before.
    public func nextContactVersion() -> Int64 {
        contactVersion.withLock { version in
            version += 1
            return version
        }
    }

    /// The contacts, signed by the test contacts service; returns the records as sent
    /// (a test may append one again, as an attacker replays it).
    @discardableResult
    public func publishContacts(_ contacts: [Contact], user: String) async throws -> [KafkaProducerMessage] {
        let records = contacts.map {
            KafkaProducerMessage.contact(
                $0, of: user, version: nextContactVersion(), topic: topics.contacts, partitions: Self.partitions,
                source: "/contacts/test", signedWith: testContactsKeys)
        }
        _ = try await producer.sendAll(records)
        return records
    }

    /// A signed tombstone; returns it as sent.
    @discardableResult
    public func deleteContact(_ contactID: String, user: String) async throws -> KafkaProducerMessage {
        let record = KafkaProducerMessage.contactDeletion(
            contactID, of: user, version: nextContactVersion(), topic: topics.contacts, partitions: Self.partitions,
            source: "/contacts/test", signedWith: testContactsKeys)
        _ = try await producer.send(record)
        return record
    }

    public func sendRaw(topic: String, key: [UInt8], value: [UInt8]?, headers: [KafkaHeader] = []) async throws {
        _ = try await producer.send(KafkaProducerMessage(topic: topic, key: key, value: value, headers: headers))
    }

    /// Any record; returns where it was stored.
    public func send(_ record: KafkaProducerMessage) async throws -> KafkaDeliveryReport {
        try await producer.send(record)
    }

    /// An event as-is (a voice service's answer, a ledger seed), keyed by its user, with extra headers.
    public func publish(_ event: EventEnvelope, to topic: String, headers: [KafkaHeader] = []) async throws {
        var record = KafkaProducerMessage(topic: topic, event: event)
        record.headers += headers
        _ = try await producer.send(record)
    }

    /// An event signed with the last key its source has in `keys`.
    public func publish(_ event: EventEnvelope, to topic: String, signedWith keys: EventAuthenticator) async throws {
        _ = try await producer.send(KafkaProducerMessage(topic: topic, event: event, signedWith: keys))
    }

    /// Enrolls `user` with voice services (``KafkaProducerMessage/enrollment(_:with:topics:partitions:)``).
    /// Published before the workers start, so their settings follower has it before the first request.
    public func enroll(_ user: String, with services: [String] = ["/voice/load"]) async throws {
        _ = try await send(.enrollment(user, with: services, topics: topics, partitions: Self.partitions))
    }

    /// A payment account with an optional opening deposit, written to the ledger topic.
    public func openAccount(_ user: String, handle: String, deposit: CurrencyAmount? = nil) async throws {
        for record in KafkaProducerMessage.accountOpening(
            user, handles: [handle], deposits: deposit.map { [$0] } ?? [], topics: topics,
            signedWith: testStageKeys)
        {
            _ = try await send(record)
        }
    }

    public func requestID(_ intentID: String, turn: Int) -> String { "req-\(intentID)-\(turn)" }

    public func requestEvent(_ intentID: String, user: String = "u1", turn: Int, _ intent: Intent) -> EventEnvelope {
        EventEnvelope(
            id: requestID(intentID, turn: turn), source: "/voice/test", type: IntentRequested.type, time: Date(),
            dataSchema: IntentRequested.dataSchema, userID: user, conversationID: "conversation-\(user)",
            intentID: intentID, payload: IntentRequested(turn: turn, intent: intent))
    }

    public func request(_ intentID: String, user: String = "u1", turn: Int, _ intent: Intent) async throws {
        try await request(event: requestEvent(intentID, user: user, turn: turn, intent))
    }

    public func request(event: EventEnvelope) async throws {
        _ = try await producer.send(KafkaProducerMessage(topic: topics.requested, event: event))
    }

    // MARK: Reading what the worker published

    /// The prompt or resolved event answering this turn; waits for it (each
    /// poll blocks until a record arrives), failing after `timeout`.
    public func output(for intentID: String, turn: Int, timeout: Duration = .seconds(60)) async throws -> EventEnvelope
    {
        let causation = requestID(intentID, turn: turn)
        return try await waitFor(timeout: timeout, "the output for \(intentID) turn \(turn)") {
            self.outputs(for: intentID).first { $0.causationID == causation }
        }
    }

    /// The first event of this type for the intent; waits for it.
    public func event(for intentID: String, type: String, timeout: Duration = .seconds(60)) async throws
        -> EventEnvelope
    {
        try await waitFor(timeout: timeout, "\(type) for \(intentID)") {
            self.outputs(for: intentID).first { $0.type == type }
        }
    }

    /// The first event for the intent of any of these types; waits for it.
    public func event(for intentID: String, anyOf types: Set<String>, timeout: Duration = .seconds(60)) async throws
        -> EventEnvelope
    {
        try await waitFor(timeout: timeout, "\(types.sorted()) for \(intentID)") {
            self.outputs(for: intentID).first { types.contains($0.type) }
        }
    }

    /// Every prompt and resolved event received so far for an intent.
    public func outputs(for intentID: String) -> [EventEnvelope] {
        received.withLock { messages in
            messages.filter { $0.topic != topics.deadLetter }.compactMap { try? EventEnvelope.decode($0.value ?? []) }
                .filter { $0.intentID == intentID }
        }
    }

    /// Every record read so far, as it came (headers included).
    public func receivedRecords() -> [KafkaConsumerMessage] { received.withLock { $0 } }

    public func deadLetters(count: Int, timeout: Duration = .seconds(60)) async throws -> [KafkaConsumerMessage] {
        try await waitFor(timeout: timeout, "\(count) dead letters") {
            let letters = self.received.withLock { $0.filter { $0.topic == self.topics.deadLetter } }
            return letters.count >= count ? letters : nil
        }
    }

    private func waitFor<Value>(
        timeout: Duration, _ what: String, _ found: () -> Value?
    ) async throws -> Value {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let value = found() { return value }
            guard ContinuousClock.now < deadline else { throw Failure("timed out waiting for \(what)") }
            let batch = try await reader.poll(timeout: .milliseconds(500))
            received.withLock { $0 += batch }
        }
    }
}

/// A harness on a fresh broker for the duration of `body`.
public func withPipeline(_ body: (PipelineHarness) async throws -> Void) async throws {
    try await withBroker { broker in
        let pipeline = try await PipelineHarness(broker: broker)
        do {
            try await body(pipeline)
            await pipeline.close()
        } catch {
            await pipeline.close()
            throw error
        }
    }
}

/// What the app-state service needs to run as a process beside the workers:
/// its key file (0600) and database in a directory of its own, and a free port.
public struct AppStateLaunch: Sendable {
    public let directory: URL
    public let port: Int
    /// For ``WorkerProcesses``' `extraEnvironment`.
    public let environment: [String: String]

    public init(key: [UInt8]) throws {
        directory = testFileURL(uniqueName("appstate"))
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let keyFile = directory.appendingPathComponent("app-key")
        try Digest.hex(key).write(to: keyFile, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyFile.path)
        port = try Loopback.freePort()
        environment = [
            "INTENT_APP_KEY_FILE": keyFile.path, "INTENT_APPSTATE_PORT": String(port),
            "INTENT_APPSTATE_DB": directory.appendingPathComponent("state.sqlite").path,
        ]
    }
}

extension VoiceSimulator {
    /// Plays a script written as JSON text (`scripts/demo/conversation.json`'s format).
    public func play(json: String) async throws -> VoiceSimulator.Outcome {
        try await play(VoiceScript.load(Data(json.utf8)))
    }
}

public func money(_ amount: String, _ currency: String) -> CurrencyAmount {
    CurrencyAmount(amount: DecimalAmount(amount)!, currency: currency)
}

/// A test's own failure, with what went wrong.
public struct Failure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
