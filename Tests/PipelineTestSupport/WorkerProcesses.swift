import BrokerTestSupport
public import Foundation
import IntentEvents
public import Intents
public import Kafka
public import LocalBroker
import Payments
public import PipelineTopics
import StageRuntime
import Synchronization

/// The four workers as OS processes, killed and restarted on demand.
public final class WorkerProcesses: Sendable {
    public let broker: LocalBroker
    public let topics: PipelineTopics
    public let directory: URL
    public let launcher: WorkerLauncher
    private let running = Mutex<[String: ManagedProcess]>([:])
    private let restarts = Mutex(0)
    /// Extra environment for a worker's processes until one of them exits by itself (a crash point that fires once).
    private let firstStart: Mutex<[String: [String: String]]>
    /// Exit statuses of processes that exited by themselves, by worker.
    private let crashes = Mutex<[String: [Int32]]>([:])
    private let stopping = Mutex(false)
    private let random: Mutex<SplitMix64>

    public init(
        broker: LocalBroker, topics: PipelineTopics, workers: [String] = ["resolve", "confirm", "payments", "handle"],
        extraEnvironment: [String: String] = [:], firstStartEnvironment: [String: [String: String]] = [:],
        seed: UInt64 = 1
    ) throws {
        self.broker = broker
        self.topics = topics
        firstStart = Mutex(firstStartEnvironment)
        random = Mutex(SplitMix64(seed: seed))
        directory = testFileURL(uniqueName("workers"))
        launcher = try WorkerLauncher(
            binaries: WorkerLauncher.binaries(), directory: directory, bootstrapServers: broker.bootstrapServers,
            topicPrefix: topics.prefix,
            keys: .loadFixture,
            groupSuffix: String(UUID().uuidString.prefix(8)),
            environment: GroupSession.current.environment.merging(extraEnvironment) { $1 })
        for worker in workers { try start(worker) }
    }

    public static var binaries: URL { WorkerLauncher.binaries() }

    public func start(_ worker: String) throws {
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
    public func selfCrashes(of worker: String) -> Int { crashes.withLock { $0[worker]?.count ?? 0 } }

    /// Kills each named worker `kills` times at random moments (SIGKILL: no cleanup, no commit) and restarts it.
    /// Returns `progress()` (how many intents were published) at each kill.
    public func chaos(kills: Int, of workers: [String], progress: @Sendable () -> Int) async throws -> [Int] {
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
    public struct Termination: Sendable {
        public var worker: String
        public var status: Int32?
        public var elapsed: Duration
        public var publishedAtSignal: Int
    }

    /// Sends each named worker SIGTERM at a seeded moment, as Kubernetes does on a rollout or
    /// a drain, waits up to `grace` for it to exit, and starts it again.
    public func terminations(of workers: [String], grace: Duration, progress: @Sendable () -> Int) async throws
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
    public func scale(_ worker: String, to count: Int) async throws {
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

    public static func instance(_ worker: String, _ number: Int) -> String {
        number == 1 ? worker : "\(worker)#\(number)"
    }

    /// Kills one instance (SIGKILL: no cleanup, no commit) and starts it again.
    public func kill(_ instance: String) async throws {
        guard let process = running.withLock({ $0.removeValue(forKey: instance) }) else { return }
        await process.kill()
        try start(instance)
    }

    /// How many instances of `worker` run now.
    public func instances(of worker: String) -> Int {
        running.withLock { $0.keys.filter { $0 == worker || $0.hasPrefix(worker + "#") }.count }
    }

    public func stopAll() async {
        stopping.withLock { $0 = true }
        for process in running.withLock({ Array($0.values) }) { await process.stop() }
    }

    /// Workers a process of which exited on its own (restarted since, or not yet), with the last exit status.
    public func exited() -> [String: Int32] {
        var exited = crashes.withLock { $0.compactMapValues(\.last) }
        for (worker, process) in running.withLock({ $0 }) where !process.isRunning {
            exited[worker] = process.exitStatus
        }
        return exited
    }
}

/// The voice side of the load: answers every confirmation request (declining
/// one in ten), and collects final responses.
public final class Responder: Sendable {
    private let reader: KafkaConsumer
    private let producer: KafkaProducer
    private let topics: PipelineTopics
    private let broker: LocalBroker

    public init(broker: LocalBroker, topics: PipelineTopics, producer: KafkaProducer) throws {
        self.producer = producer
        self.topics = topics
        self.broker = broker
        reader = try KafkaConsumer(
            configuration: consumerConfiguration(broker, group: uniqueName("voice")), logger: testLogger)
        try reader.subscribe(topics: [topics.prompts, topics.responses])
    }

    public func close() async { await reader.close() }

    /// Runs until every intent has a final response; returns intent id → final response.
    ///
    /// The topics are the truth: when nothing new has arrived for 20 s while intents are
    /// still open, the prompts and responses topics are read again from the beginning (a
    /// record the subscription did not deliver, seen once in hundreds of runs, would
    /// otherwise leave its payment unanswered or its response unseen until the timeout).
    public func run(until intents: Set<String>, timeout: Duration) async throws -> [String: IntentResponse] {
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
                            decision: LoadFixture.declines(intentID) ? .declined : .confirmed,
                            binding: request.binding))
                    replies.append(
                        KafkaProducerMessage(
                            topic: topics.confirmations, event: answer, signedWith: LoadFixture.authenticator))
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
public final class Counter: Sendable {
    private let state = Mutex(0)
    public init() {}
    public var value: Int { state.withLock { $0 } }
    public func set(_ value: Int) { state.withLock { $0 = value } }
}
