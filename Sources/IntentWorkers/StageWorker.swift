import Foundation
public import IntentEvents
public import Intents
public import Kafka
public import Logging
public import Payments
public import PipelineTopics
public import ServiceLifecycle
import StageRuntime
import Synchronization
public import Telemetry
import Tracing

/// A pipeline stage as a worker: consumes one input topic in a consumer
/// group, hands each record to the pure stage, publishes what it decided
/// (dead-lettering what it rejected), and commits only after the broker has
/// acknowledged every output of the batch. At-least-once with deterministic
/// event ids, so a crash repeats work with the same ids and never loses it.
///
/// Optional parts: topic followers (global tables the stage reads, caught up
/// before the first decision and again whenever this member gains
/// partitions), and a periodic tick (the payments stage's expiry sweep) that
/// is told which users this member owns.
public final class StageWorker: Service, Sendable {
    public struct Configuration: Sendable {
        public var kafka: KafkaConfiguration
        public var topics: PipelineTopics
        public var groupID: String
        public var input: String
        /// The stages' keys: this worker signs everything it publishes with its own
        /// source's key, and checks with the others' what it reads.
        public var keys: EventAuthenticator
        public var sessionTimeout: Duration
        public var tickInterval: Duration
        /// Dead letters larger than this are parked as references
        /// (``DeadLetter/reference(for:error:worker:topic:refusal:)``); nil
        /// takes the producer's `message.max.bytes`, so the copy is never
        /// refused for its size by the producer itself.
        public var deadLetterMaximumBytes: Int?
        /// The source this worker's events come from: what it writes to the audited
        /// topics (ledger, confirmations, responses) is chained as this source
        /// (``RecordChain``). Nil chains nothing.
        public var chainSource: String?
        /// How the loop batches and commits (``BatchPolicy``), an argument of its runtime.
        public var batching: BatchPolicy = .standard
        /// How the loop rides out failed publishes and commits, and when it gives up.
        public var retry: RetryPolicy = .standard
        /// Where the loop reports health, metrics and spans (the operations endpoints'
        /// registry, or ``Telemetry/unobserved``).
        public var telemetry: Telemetry = .unobserved

        public init(
            kafka: KafkaConfiguration, topics: PipelineTopics, groupID: String, input: String,
            keys: EventAuthenticator, sessionTimeout: Duration = .seconds(10), tickInterval: Duration = .seconds(1)
        ) {
            self.kafka = kafka
            self.topics = topics
            self.groupID = groupID
            self.input = input
            self.keys = keys
            self.sessionTimeout = sessionTimeout
            self.tickInterval = tickInterval
        }
    }

    /// Decides for one record.
    public typealias Process = @Sendable (KafkaConsumerMessage) -> StageResult
    /// Periodic work; the argument says whether this member owns a user.
    public typealias Tick = @Sendable (_ owns: (String) -> Bool) -> StageResult
    /// Builds the followers once the worker's producer exists (their rejects go to the dead-letter topic).
    public typealias Followers =
        @Sendable (_ reject: @escaping @Sendable (KafkaConsumerMessage, EventDecodingError) async throws -> Void) throws
        -> [TopicFollower]
    /// Money moved by the decisions since the last call (the payments worker's); called once per batch.
    public typealias MoneyMoved = @Sendable () -> MoneyMovements

    public let configuration: Configuration
    /// The keys without view keys, for destinations no view reader reads (``Destination/isViewed``).
    private let unviewedKeys: EventAuthenticator
    private let name: String
    private let makeFollowers: Followers
    private let process: Process
    private let tick: Tick?
    private let moneyMoved: MoneyMoved?
    /// Fencing by claims in a state topic (the payments worker's), nil for the other stages.
    private let ownership: PartitionOwnership?
    /// What the stage remembers of its input, read back from each gained input partition.
    private let replayMemory: ReplayMemory?
    private let logger: Logger
    /// The running followers, so ``send(_:parked:_:)`` can tell them which records this
    /// worker published to their topics (``TopicFollower/published(_:)``).
    private let followed = Mutex<[TopicFollower]>([])
    /// Links what this worker writes to the audited topics into its chains.
    private let chains: ChainStamper?
    /// Where a test host injects faults into publishing (``StageHostHooks``); none in production.
    private let hooks: any StageHostHooks

    public init(
        name: String, configuration: Configuration, logger: Logger, followers: @escaping Followers = { _ in [] },
        tick: Tick? = nil, moneyMoved: MoneyMoved? = nil, ownership: PartitionOwnership? = nil,
        replayMemory: ReplayMemory? = nil, hooks: any StageHostHooks = NoStageHostHooks(),
        process: @escaping Process
    ) {
        self.name = name
        self.hooks = hooks
        self.ownership = ownership
        self.replayMemory = replayMemory
        self.configuration = configuration
        self.unviewedKeys = configuration.keys.withoutViewKeys
        self.logger = logger
        self.makeFollowers = followers
        self.tick = tick
        self.moneyMoved = moneyMoved
        self.process = process
        let topics = configuration.topics
        chains = configuration.chainSource.map { source in
            ChainStamper(
                source: source, topics: topics.chained,
                keys: configuration.keys, configuration: configuration.kafka, retry: configuration.retry, logger: logger
            )
        }
    }

    public func run() async throws {
        let configuration = self.configuration
        let producerConfiguration = KafkaProducerConfiguration(client: configuration.kafka)
        let producer = try KafkaProducer(configuration: producerConfiguration, logger: logger)
        let deadLetterLimit =
            configuration.deadLetterMaximumBytes ?? producerConfiguration.effectiveMaximumMessageBytes
        let metrics = StageMetrics(input: configuration.input, telemetry: configuration.telemetry)
        var followers: [TopicFollower] = []
        var consumer: KafkaConsumer?
        do {
            followers = try makeFollowers { message, error in
                metrics.deadLettered(error, from: message.topic)
                try await self.send(
                    [self.deadLetter(message, error, limit: deadLetterLimit)], parked: [0: (message, error)],
                    producer)
            }
            followed.withLock { $0 = followers }
            // Subscribed before anything else that takes time: the group join (seconds on
            // some brokers) runs while the topics are checked and the global tables load.
            let changes = AssignmentChanges(input: configuration.input)
            let stageConsumer = try makeConsumer(producer, followers, metrics, changes)
            consumer = stageConsumer
            try stageConsumer.subscribe(topics: [configuration.input])
            let partitionCount = try await inputPartitionCount(checking: followers)
            for follower in followers where follower.isPartitioned { follower.placesKeys(onPartitions: partitionCount) }
            if !followers.isEmpty { metrics.health.needsState() }
            try await withThrowingDiscardingTaskGroup { group in
                for follower in followers { group.addTask { try await follower.follow() } }
                try await self.consume(
                    stageConsumer, producer, followers, metrics, changes, partitionCount: partitionCount,
                    deadLetterLimit: deadLetterLimit)
                group.cancelAll()
            }
        } catch {
            await consumer?.close()
            for follower in followers { await follower.close() }
            await producer.shutdown()
            throw error
        }
        await consumer?.close()
        for follower in followers { await follower.close() }
        await producer.shutdown()
        logger.info(
            "\(name) stopped",
            metadata: followers.isEmpty
                ? [:]
                : [
                    "records": "\(followers.map { "\($0.topic)=\($0.appliedCount)" }.joined(separator: ", "))",
                    "own passed over":
                        "\(followers.map { "\($0.topic)=\($0.passedOverCount)" }.joined(separator: ", "))",
                ])
    }

    /// The stage's group consumer, reporting librdkafka's statistics when telemetry asks for them.
    private func makeConsumer(
        _ producer: KafkaProducer, _ followers: [TopicFollower], _ metrics: StageMetrics, _ changes: AssignmentChanges
    ) throws(KafkaError) -> KafkaConsumer {
        let telemetry = configuration.telemetry
        var client = configuration.kafka
        var statistics: (@Sendable (KafkaStatistics) -> Void)?
        if let interval = telemetry.statisticsInterval, client.properties["statistics.interval.ms"] == nil {
            client.properties["statistics.interval.ms"] = String(interval.nanoseconds / 1_000_000)
        }
        if client.properties["statistics.interval.ms"].flatMap(Int.init) ?? 0 > 0 {
            let kafkaMetrics = KafkaStatisticsMetrics(factory: telemetry.metrics, health: telemetry.health)
            statistics = { report in
                kafkaMetrics.record(report)
                metrics.stateSize(followers)
            }
        }
        // Before partitions move, whatever this member has in flight must be on the
        // broker: the next owner catches up on the state topics from what is there.
        return try KafkaConsumer(
            configuration: KafkaConsumerConfiguration(
                client: client, groupID: configuration.groupID, sessionTimeout: configuration.sessionTimeout),
            logger: logger,
            beforeRevoke: { [configuration] in
                _ = producer.waitForDeliveries(timeout: configuration.kafka.requestTimeout)
                changes.recordRevoked()
            },
            afterAssign: { changes.recordAssigned($0) }, statistics: statistics)
    }

    private func consume(
        _ consumer: KafkaConsumer, _ producer: KafkaProducer, _ followers: [TopicFollower], _ metrics: StageMetrics,
        _ changes: AssignmentChanges, partitionCount: Int, deadLetterLimit: Int
    ) async throws {
        // Partitioned state is restored as partitions are assigned (see `loop`).
        for follower in followers where !follower.isPartitioned { try await follower.caughtUp() }
        metrics.health.stateRestored()
        if !followers.isEmpty {
            logger.info(
                "state loaded",
                metadata: [
                    "records": "\(followers.map { "\($0.topic)=\($0.appliedCount)" }.joined(separator: ", "))"
                ])
        }
        logger.info(
            "\(name) consuming", metadata: ["topic": "\(configuration.input)", "group": "\(configuration.groupID)"])
        try await withThrowingDiscardingTaskGroup { group in
            // Rebalances are counted and tell readiness whether this member owns partitions.
            // (The loop learns which partitions it was given from the assign callback itself,
            // ``AssignmentChanges``, before any record polled after them.)
            group.addTask {
                var owned: Set<KafkaTopicPartition> = []
                for await event in consumer.rebalances {
                    metrics.rebalanced(event)
                    switch event {
                    case .assigned(let partitions):
                        owned.formUnion(partitions)
                    case .revoked(let partitions), .lost(let partitions): owned.subtract(partitions)
                    }
                    metrics.health.assigned(partitions: owned.count)
                }
            }
            // Snapshots of the partitioned state are written beside the loop.
            let snapshotted = followers.first { $0.snapshots?.writes == true }
            let writer = snapshotted?.snapshots.map {
                SnapshotWriter(snapshots: $0, producer: producer, logger: logger)
            }
            if let writer { group.addTask { await writer.run() } }
            try await withGracefulShutdownHandler {
                try await self.loop(
                    consumer, producer, followers, metrics, changes: changes, partitionCount: partitionCount,
                    snapshots: snapshotted.flatMap { follower in writer.map { (follower, $0) } },
                    deadLetterLimit: deadLetterLimit)
            } onGracefulShutdown: { [logger, name] in
                metrics.health.stopping()
                logger.info("\(name): shutdown requested; finishing the batches in flight, then committing")
            }
            await writer?.finish()
            group.cancelAll()
        }
    }

    /// The Kafka host of the stage's ``StageRuntime/StageRuntime``: polls, reports what
    /// librdkafka tells it (records, acknowledgements, assignment changes) to the state
    /// machine, and executes the actions it returns. The orders (state before notices,
    /// offsets after both, commit cadence, draining, retries) are the runtime's; this
    /// host only knows how to do each thing over Kafka.
    private func loop(
        _ consumer: KafkaConsumer, _ producer: KafkaProducer, _ followers: [TopicFollower], _ metrics: StageMetrics,
        changes: AssignmentChanges, partitionCount: Int,
        snapshots: (follower: TopicFollower, writer: SnapshotWriter)?, deadLetterLimit: Int
    ) async throws {
        let retry = configuration.retry
        let batching = configuration.batching
        let policy = StageRuntimePolicy(
            maximumBatch: batching.maximumBatch, commitInterval: batching.commitInterval,
            tickInterval: tick == nil ? nil : configuration.tickInterval,
            snapshotInterval: snapshots?.writer.snapshots.interval, fencing: ownership != nil,
            restoresOnAssignment: followers.contains(where: \.isPartitioned),
            retry: RetrySchedule(
                initialDelay: retry.initialDelay, maximumDelay: retry.maximumDelay, giveUpAfter: retry.giveUpAfter))
        let host = Host(
            consumer: consumer, producer: producer, followers: followers, metrics: metrics,
            tracing: HopTracing(
                group: configuration.groupID, operation: "\(name) decide", tracer: configuration.telemetry.tracer),
            partitionCount: partitionCount, snapshots: snapshots, deadLetterLimit: deadLetterLimit)
        var runtime = StageRuntime(policy: policy, now: ContinuousClock.now, seed: .random(in: 0 ... .max))
        var pipeline = PublishingPipeline()
        var shutdownReported = false
        while true {
            metrics.health.loopTurned()
            // A follower that failed leaves the state stale: stop rather than decide on it
            // (its task's error does not cancel this loop, which runs in the group's body).
            for follower in followers {
                if let failure = follower.failure {
                    logger.critical(
                        "\(name): the follower of \(follower.topic) failed; stopping",
                        metadata: ["error": "\(failure)"])
                    throw failure
                }
            }
            if !shutdownReported, Task.isCancelled || Task.isShuttingDownGracefully {
                shutdownReported = true
                pipeline.held = []
                try await execute(runtime.shutdown(now: .now), &runtime, &pipeline, host)
            }
            // Acknowledgements and read-backs already in are reported without waiting.
            for (ticket, delivery) in pipeline.completed() {
                try await report(ticket, delivery, &runtime, &pipeline, host)
            }
            for (id, readBack) in pipeline.finishedReadBacks() {
                try await report(readBack: id, readBack, &runtime, &pipeline, host)
            }
            switch runtime.next() {
            case .stopped:
                return
            case .poll(let maximum, let timeout):
                var batch = try await consumer.poll(maxMessages: maximum, timeout: timeout)
                // The assignment is looked at when a callback reported a change (an assignment or a
                // revocation), and with every batch: another member may have written meanwhile.
                if !batch.isEmpty || changes.hasNew {
                    let gained = changes.take()
                    let current = Set(
                        try consumer.assignment().filter { $0.topic == configuration.input }.map(\.partition))
                    let revoked = runtime.owned.subtracting(current)
                    if !revoked.isEmpty {
                        try await execute(runtime.revoked(revoked, now: .now), &runtime, &pipeline, host)
                    }
                    let assigned = gained.intersection(current).union(current.subtracting(runtime.owned))
                    if !assigned.isEmpty {
                        try await execute(runtime.assigned(assigned, now: .now), &runtime, &pipeline, host)
                    }
                    batch = AssignedRecords.keeping(batch, input: configuration.input, assigned: current)
                }
                pipeline.held += batch
                let positions = batch.map { InputPosition(partition: $0.partition, offset: $0.offset) }
                try await execute(runtime.polled(positions, now: .now), &runtime, &pipeline, host)
            case .acknowledgement(.readBack(let id)):
                guard let readBack = pipeline.readBacks.removeValue(forKey: id) else {
                    preconditionFailure("the stage runtime waits for the read-back of \(id), which nothing runs")
                }
                try await report(readBack: id, readBack, &runtime, &pipeline, host)
            case .acknowledgement(let ticket):
                guard let delivery = pipeline.deliveries.removeValue(forKey: ticket) else {
                    preconditionFailure("the stage runtime waits for \(ticket), which nothing delivers")
                }
                try await report(ticket, delivery, &runtime, &pipeline, host)
            case .timer(let due):
                try await Task.sleep(until: due, clock: .continuous)
                try await execute(runtime.timer(now: .now), &runtime, &pipeline, host)
            }
        }
    }

    /// What the loop's actions are done with.
    private struct Host {
        let consumer: KafkaConsumer
        let producer: KafkaProducer
        let followers: [TopicFollower]
        let metrics: StageMetrics
        let tracing: HopTracing
        let partitionCount: Int
        let snapshots: (follower: TopicFollower, writer: SnapshotWriter)?
        let deadLetterLimit: Int
    }

    private typealias Runtime = StageRuntime<ContinuousClock.Instant>

    /// Waits for `delivery` and reports how it went.
    private func report(
        _ ticket: StageTicket, _ delivery: KafkaPendingDelivery, _ runtime: inout Runtime,
        _ pipeline: inout PublishingPipeline, _ host: Host
    ) async throws {
        let results = await delivery.results()
        switch ticket {
        case .state(let id):
            guard let batch = pipeline.batches[id] else { return }
            if let ownership, !batch.notices.isEmpty {
                var written = pipeline.written[id] ?? [:]
                for (record, result) in zip(batch.state, results) where record.topic == ownership.topic {
                    if case .success(let report) = result {
                        written[report.partition] = max(written[report.partition] ?? -1, report.offset)
                    }
                }
                pipeline.written[id] = written
            }
            do {
                try hooks.stateRoundDelivered()
                try await settle(results, batch.state, parked: batch.parked, host.producer)
            } catch {
                try retried("publish a batch", error, &pipeline)
                return try await execute(runtime.failed(ticket, now: .now), &runtime, &pipeline, host)
            }
        case .notices:
            if let failure = results.failures.first {
                try retried("publish notices", failure, &pipeline)
                return try await execute(runtime.failed(ticket, now: .now), &runtime, &pipeline, host)
            }
        case .commit, .readBack:
            return
        }
        try await execute(runtime.acknowledged(ticket, now: .now), &runtime, &pipeline, host)
    }

    /// Waits for a state round's read-back and reports it; its error (``StageFenced``, or the
    /// follower's failure) stops the worker, as when the loop read the round back itself.
    private func report(
        readBack id: BatchID, _ readBack: RunningReadBack, _ runtime: inout Runtime,
        _ pipeline: inout PublishingPipeline, _ host: Host
    ) async throws {
        try await readBack.result()
        try await execute(runtime.acknowledged(.readBack(id), now: .now), &runtime, &pipeline, host)
    }

    /// A failure the runtime retries; one that retrying cannot heal stops the worker here.
    private func retried(_ operation: String, _ error: any Error, _ pipeline: inout PublishingPipeline) throws {
        if RetryPolicy.verdict(for: error) == .stop {
            logger.critical(
                "\(operation) failed with an error that retrying cannot fix; stopping", metadata: ["error": "\(error)"])
            throw error
        }
        pipeline.lastError = error
        logger.warning("\(operation) failed; retrying", metadata: ["error": "\(error)"])
    }

    /// Executes the runtime's actions in order, and those its reports of them return.
    private func execute(
        _ actions: [StageAction], _ runtime: inout Runtime, _ pipeline: inout PublishingPipeline, _ host: Host
    ) async throws {
        var queue = actions[...]
        while let action = queue.popFirst() {
            switch action {
            case .restore(let owned, let gained):
                // Another member may have written to these partitions' chains meanwhile.
                chains?.forget(partitions: owned.union(gained))
                try await catchUp(host.followers, owning: owned, gained: !gained.isEmpty, host.metrics)
                try await restoreReplayMemory(gained.intersection(owned), host.consumer)
            case .claim(let owned):
                if let ownership {
                    try await claim(
                        owned, ownership, host.followers, host.producer, partitionCount: host.partitionCount)
                }
            case .dropHeld(let partitions):
                pipeline.held.removeAll { partitions.contains($0.partition) }
            case .decide(let id, let records, let tick):
                let consumed = Array(pipeline.held.prefix(records.count))
                pipeline.held.removeFirst(consumed.count)
                // The runtime's positions and the records held must be the same: a record decided
                // under another's offsets would be lost without a trace.
                guard
                    consumed.count == records.count,
                    zip(consumed, records).allSatisfy({ $0.partition == $1.partition && $0.offset == $1.offset })
                else {
                    preconditionFailure("the records held and the runtime's positions disagree")
                }
                let batch = try decide(consumed, tick: tick, owned: runtime.owned, host)
                if !batch.isEmpty { pipeline.batches[id] = batch }
                queue += runtime.decided(
                    id, state: !batch.state.isEmpty, notices: !batch.notices.isEmpty, now: .now)
            case .publish(.state, let ids, resend: false):
                for id in ids {
                    guard var batch = pipeline.batches[id] else { continue }
                    hooks.beforeStateRound(batch.state, topics: configuration.topics)
                    batch.state = try await chained(batch.state)
                    announce(batch.state)
                    pipeline.batches[id] = batch
                    pipeline.deliveries[.state(id)] = await host.producer.enqueue(batch: batch.state)
                }
            case .publish(.state, let ids, resend: true):
                // The failed batch and every later one of the round again (same event ids), one
                // after another, so the state topics keep their order. Where each of their chains
                // ends is read again first (a later batch's failures were not looked at).
                chains?.forget(ids.flatMap { pipeline.batches[$0]?.state ?? [] })
                var failed = false
                for id in ids {
                    guard let batch = pipeline.batches[id] else { continue }
                    pipeline.written[id] = nil
                    if !failed {
                        do {
                            try hooks.stateRoundDelivered()
                            try await send(batch.state, parked: batch.parked, host.producer)
                            queue += runtime.acknowledged(.state(id), now: .now)
                            continue
                        } catch {
                            try retried("publish a batch", error, &pipeline)
                            failed = true
                        }
                    }
                    queue += runtime.failed(.state(id), now: .now)
                }
            case .publish(.notices, let ids, let resend):
                for id in ids {
                    guard var batch = pipeline.batches[id] else { continue }
                    if resend {
                        // Notices are derived with deterministic ids: sending them again is harmless
                        // (each copy with its own link: where the chains end is read again first).
                        chains?.forget(batch.notices)
                        do {
                            _ = try await host.producer.sendAll(try await chained(batch.notices))
                            queue += runtime.acknowledged(.notices(id), now: .now)
                        } catch {
                            try retried("publish notices", error, &pipeline)
                            queue += runtime.failed(.notices(id), now: .now)
                        }
                        continue
                    }
                    if !batch.state.isEmpty { hooks.betweenPublishRounds() }
                    batch.notices = try await chained(batch.notices)
                    pipeline.batches[id] = batch
                    pipeline.deliveries[.notices(id)] = await host.producer.enqueue(batch: batch.notices)
                }
            case .readBack(let ids, let resent):
                // Sent again after a failure, without reports at hand: the claimed partitions are
                // read back to their end instead.
                var written: [Int32: Int64] = [:]
                for id in ids {
                    written.merge(pipeline.written.removeValue(forKey: id) ?? [:], uniquingKeysWith: max)
                }
                let partitions = resent ? nil : written
                pipeline.readBacks[ids[0]] = RunningReadBack { [self] in try await self.readBack(partitions) }
            case .storeOffsets(let id, _):
                guard let batch = pipeline.batches.removeValue(forKey: id) else { continue }
                pipeline.written[id] = nil
                if !batch.consumed.isEmpty {
                    try host.consumer.markProcessed(batch.consumed)
                    host.metrics.finished(batch.consumed)
                }
            case .commit:
                do {
                    if try await !host.consumer.commit() {
                        logger.notice("commit refused during a rebalance; the next commit or revoke covers it")
                    }
                    queue += runtime.acknowledged(.commit, now: .now)
                } catch {
                    try retried("commit offsets", error, &pipeline)
                    queue += runtime.failed(.commit, now: .now)
                }
            case .snapshot(let owned, let final):
                guard let snapshots = host.snapshots else { continue }
                do {
                    try await snapshot(snapshots.follower, snapshots.writer, owning: owned)
                } catch  where final {
                    // Best effort: the state topic stays the truth, and the next owner reads more of it.
                    logger.warning("no snapshot at shutdown", metadata: ["error": "\(error)"])
                }
            case .stop(.finished):
                return
            case .stop(.gaveUp(let ticket, let failingFor)):
                let gaveUp = GaveUpError(
                    operation: "\(ticket)", failingFor: failingFor,
                    lastError: pipeline.lastError ?? KafkaError.client("no error recorded", operation: "\(ticket)"))
                logger.critical("\(gaveUp)")
                throw gaveUp
            }
        }
    }

    /// Decides one batch: each record by the pure stage (forwarding one keyed to another
    /// partition than it came on), and with `tick` the periodic work for the owned partitions.
    private func decide(
        _ batch: [KafkaConsumerMessage], tick tickDue: Bool, owned: Set<Int32>, _ host: Host
    ) throws -> OutgoingBatch {
        let partitioned = host.followers.contains(where: \.isPartitioned)
        let partitionCount = host.partitionCount
        // A binary-mode record (CloudEvents Kafka binding) is decided on as its
        // structured event; a rejection dead-letters the record as it came.
        let decidingStarted = ContinuousClock.now
        let wallStarted = DefaultTracerClock.now
        var results: [(KafkaConsumerMessage?, StageResult)] = []
        results.reserveCapacity(batch.count)
        var rerouted: [KafkaProducerMessage] = []
        for message in batch {
            // Partitioned state: a record keyed to another partition than it came on (a
            // producer with another partitioner) is forwarded, as it came, to its user's
            // partition, whose owner holds that user's state.
            if partitioned, let key = message.key {
                let home = KafkaPartitioner.partition(forKey: key, partitions: partitionCount)
                if home != message.partition {
                    rerouted.append(
                        KafkaProducerMessage(
                            topic: message.topic, partition: home, key: key, value: message.value,
                            headers: message.headers))
                    continue
                }
            }
            do throws(EventDecodingError) {
                results.append((message, process(try message.structuredEvent())))
            } catch {
                results.append((message, .rejected(error)))
            }
        }
        if let tick, tickDue {
            let result = tick { user in
                owned.contains(KafkaPartitioner.partition(forKey: user, partitions: partitionCount))
            }
            results.append((nil, result))
        }
        // Decided on a partition another member has claimed since: nothing of it may go out.
        if let ownership {
            let fenced = ownership.fenced(Set(batch.map(\.partition)).union(tickDue ? owned : []))
            if !fenced.isEmpty {
                throw StageFenced(topic: ownership.topic, partitions: fenced, when: "while deciding")
            }
        }
        var next = outgoing(
            batch, results, host.metrics, host.tracing, started: wallStarted, deadLetterLimit: host.deadLetterLimit)
        if !rerouted.isEmpty {
            // State round: on the broker before the input offsets move past the originals.
            next.state.append(contentsOf: rerouted)
            host.metrics.rerouted(rerouted.count)
        }
        host.metrics.consumed(batch.count, processingTime: ContinuousClock.now - decidingStarted)
        if let moneyMoved {
            let moved = moneyMoved()
            if !moved.isEmpty { host.metrics.moneyMoved(moved) }
        }
        return next
    }

    /// Captures the owned partitions whose state moved, for the writer. Called with
    /// nothing in flight: once the follower has read this worker's own records back,
    /// the state is exactly its state topic up to the follower's positions.
    private func snapshot(_ follower: TopicFollower, _ writer: SnapshotWriter, owning partitions: Set<Int32>)
        async throws
    {
        let snapshots = writer.snapshots
        try await follower.caughtUp(owning: partitions)
        let captured = await follower.capture { positions in
            partitions.sorted().compactMap { partition -> SnapshotWriter.Captured? in
                guard let position = positions[partition], position > 0, writer.hasMoved(partition, to: position),
                    let encode = snapshots.capture(partition)
                else { return nil }
                return SnapshotWriter.Captured(partition: partition, position: position, encode: encode)
            }
        }
        for snapshot in captured { writer.submit(snapshot) }
    }

    /// With fencing: before a round's notices go, reads the round's records on the claimed
    /// state topic back (`written`: the last offset per partition; nil: every owned
    /// partition to its end), so every claim written before them has been applied, then
    /// stops if any of them was read back behind another member's claim. A member that stalled
    /// past its session and lost those partitions thus sends no response and no effect of
    /// what it decided, and every reader refuses the records themselves.
    private func readBack(_ written: [Int32: Int64]?) async throws {
        guard let ownership, written?.isEmpty != true,
            let follower = followed.withLock({ $0.first { $0.topic == ownership.topic && $0.isPartitioned } })
        else { return }
        let partitions: Set<Int32>
        if let written {
            try await follower.readBack(written)
            partitions = Set(written.keys)
        } else {
            try await follower.caughtUp()
            partitions = Set(follower.followedPartitions)
        }
        // A partition no longer followed was not read back: whether its records count is
        // unknown, so nothing of them goes out (its next owner redoes what is uncommitted).
        let overtaken = ownership.overtaken(partitions).union(partitions.subtracting(follower.followedPartitions))
        if !overtaken.isEmpty {
            throw StageFenced(
                topic: ownership.topic, partitions: overtaken, when: "before sending a round's notices")
        }
    }

    /// Claims every partition of `partitions` this member holds no claim on (``PartitionOwnership``):
    /// writes the claims, reads them back, and stops if another member's claim won on any.
    private func claim(
        _ partitions: Set<Int32>, _ ownership: PartitionOwnership, _ followers: [TopicFollower],
        _ producer: KafkaProducer, partitionCount: Int
    ) async throws {
        // A partition still held whose claim was overtaken (another member held it meanwhile,
        // and this one did not notice): its state may hold decisions no reader accepts.
        let overtaken = ownership.fenced(partitions)
        if !overtaken.isEmpty {
            throw StageFenced(topic: ownership.topic, partitions: overtaken, when: "when partitions were assigned")
        }
        let claims = ownership.claims(partitions, partitionCount)
        guard !claims.isEmpty,
            let follower = followers.first(where: { $0.topic == ownership.topic && $0.isPartitioned })
        else { return }
        // Not announced to the follower: it applies each claim where the topic put it.
        let records = claims.map { destination, event in
            KafkaProducerMessage(
                topic: configuration.topics.topic(for: destination), event: event, signedWith: configuration.keys)
        }
        try await configuration.retry.retrying("claim partitions", logger: logger) {
            do {
                try await producer.sendAll(try await self.chained(records))
            } catch {
                // A claim that may or may not have landed: its chain's end is read again.
                self.chains?.forget(records)
                throw error
            }
        }
        try await follower.caughtUp(owning: partitions)
        let lost = ownership.adopt(partitions)
        if !lost.isEmpty {
            throw StageFenced(topic: ownership.topic, partitions: lost, when: "claiming partitions")
        }
        logger.info(
            "claimed partitions", metadata: ["topic": "\(ownership.topic)", "claims": "\(claims.count)"])
    }

    /// Sorts one batch's decisions into the two publishing rounds: first what
    /// is state (the ledger, the message history, proposals to the payments
    /// stage) and dead letters, then, once the broker has acknowledged those,
    /// what others react to (prompts, responses, the next stage's input). A
    /// response is never seen before the decision it reports is durable, and a
    /// confirmation request never before the proposal it asks about has
    /// reached the payments stage's topic.
    private func outgoing(
        _ consumed: [KafkaConsumerMessage], _ results: [(KafkaConsumerMessage?, StageResult)],
        _ metrics: StageMetrics, _ tracing: HopTracing, started: DefaultTracerClock.Instant, deadLetterLimit: Int
    ) -> OutgoingBatch {
        let topics = configuration.topics
        var batch = OutgoingBatch(consumed: consumed)
        // Asked once a batch: `logger.debug` asks the handler for its level on every call (0.5%
        // of the payments worker, one call per published event).
        let debugging = logger.logLevel <= .debug
        for (message, result) in results {
            // Described only when a line is logged (metadata is an autoclosure):
            // at the info level nothing is formatted for a record that is simply published.
            func record() -> String { message.map { "\($0.topicPartition)@\($0.offset)" } ?? "tick" }
            if let error = result.rejected, let message {
                batch.parked[batch.state.count] = (message, error)
                batch.state.append(deadLetter(message, error, limit: deadLetterLimit))
                metrics.deadLettered(error, from: message.topic)
                logger.warning(
                    "dead-lettered",
                    metadata: ["record": "\(record())", "reason": "\(error.reason.rawValue)", "error": "\(error)"])
            }
            if let note = result.note {
                logger.info("skipped", metadata: ["record": "\(record())", "reason": "\(note)"])
            }
            // A traced input: its events continue the trace with this hop's span.
            var events = result.events
            let span = message == nil ? nil : tracing.span(for: events)
            if let span, let message {
                events = tracing.continuing(events, in: span)
                tracing.record(span, input: message, events: events, started: started)
            }
            let traceHeader = span.map { KafkaHeader(key: TraceParent.name, string: $0.traceParent.description) }
            for (destination, event) in events {
                let topic = topics.topic(for: destination)
                var outgoing = KafkaProducerMessage(
                    topic: topic, event: event, signedWith: destination.isViewed ? configuration.keys : unviewedKeys)
                if let traceHeader { outgoing.headers.append(traceHeader) }
                metrics.produced(destination, topic: topic, type: event.type)
                if destination.isState { batch.state.append(outgoing) } else { batch.notices.append(outgoing) }
                guard debugging else { continue }
                logger.debug(
                    "publish",
                    metadata: ["record": "\(record())", "type": "\(event.type)", "intent": "\(event.intentID ?? "")"])
            }
        }
        return batch
    }

    private typealias Rejection = StageRejection

    private func deadLetter(_ message: KafkaConsumerMessage, _ error: EventDecodingError, limit: Int)
        -> KafkaProducerMessage
    {
        DeadLetter.record(
            for: message, error: error, worker: configuration.groupID, topic: configuration.topics.deadLetter,
            maximumBytes: limit)
    }

    /// Sends `records` and waits for every acknowledgement; the records at the
    /// indices of `parked` are dead letters of those rejections. A dead letter
    /// refused for what it is (too large for the broker's topic limit, more
    /// headers than allowed, malformed) is parked again as a reference, so no
    /// input record can make the worker fail and be redelivered forever. Any
    /// other failure is thrown: the batch is not committed and is redone.
    private func send(
        _ records: [KafkaProducerMessage], parked: [Int: Rejection], _ producer: KafkaProducer
    ) async throws {
        let records = try await chained(records)
        announce(records)
        try await settle(await producer.send(batch: records), records, parked: parked, producer)
    }

    /// What ``send(_:parked:_:)`` does once the reports of `records` are in.
    private func settle(
        _ results: KafkaDeliveryResults, _ records: [KafkaProducerMessage], parked: [Int: Rejection],
        _ producer: KafkaProducer
    ) async throws(KafkaError) {
        tellFollowers(records, results)
        guard !results.allSucceeded else { return }
        // A failed record may be on the broker or not: its chain's end is read again.
        chains?.forget(zip(records, results).filter { if case .failure = $0.1 { true } else { false } }.map(\.0))
        var references: [KafkaProducerMessage] = []
        for (index, result) in zip(results.indices, results) {
            guard case .failure(let error) = result else { continue }
            guard let rejection = parked[index], error.code.isRecordRefused else { throw error }
            logger.warning(
                "dead letter refused; parking a reference to the record instead",
                metadata: [
                    "record": "\(rejection.message.topicPartition)@\(rejection.message.offset)", "error": "\(error)",
                ])
            references.append(
                DeadLetter.reference(
                    for: rejection.message, error: rejection.error, worker: configuration.groupID,
                    topic: configuration.topics.deadLetter, refusal: error))
        }
        if !references.isEmpty { _ = try await producer.sendAll(references) }
    }

    /// `records` linked into their chains, when this worker chains.
    private func chained(_ records: [KafkaProducerMessage]) async throws -> [KafkaProducerMessage] {
        guard let chains else { return records }
        return try await chains.stamp(records)
    }

    /// Hands each follower the delivery reports of the records of its topic announced
    /// with ``announce(_:)`` (``TopicFollower/published(_:)``).
    private func tellFollowers(_ records: [KafkaProducerMessage], _ results: KafkaDeliveryResults) {
        for follower in followed.withLock({ $0 }) {
            var own: [(message: KafkaProducerMessage, report: KafkaDeliveryReport?)] = []
            for (index, message) in records.enumerated() where message.topic == follower.topic {
                if case .success(let report) = results[index] {
                    own.append((message, report))
                } else {
                    own.append((message, nil))
                }
            }
            if !own.isEmpty { follower.published(own) }
        }
    }

    /// Tells each follower which records of its topic this worker is about to hand to
    /// the producer (their state is applied): it passes over them even if it reads them
    /// before their acknowledgement is in (``TopicFollower/publishing(_:)``).
    private func announce(_ records: [KafkaProducerMessage]) {
        for follower in followed.withLock({ $0 }) { follower.publishing(records) }
    }

    /// After an assignment: partitioned followers adopt exactly the owned
    /// partitions and restore them, global tables catch up if partitions were
    /// gained; no decision for a gained user is taken before.
    private func catchUp(
        _ followers: [TopicFollower], owning partitions: Set<Int32>, gained: Bool, _ metrics: StageMetrics
    ) async throws {
        let started = ContinuousClock.now
        for follower in followers {
            if follower.isPartitioned {
                try await follower.caughtUp(owning: partitions)
            } else if gained {
                try await follower.caughtUp()
            }
        }
        if followers.contains(where: \.isPartitioned) {
            metrics.health.stateRestored()
            logger.info(
                "state restored for the assigned partitions",
                metadata: [
                    "partitions": "\(partitions.sorted())", "elapsed": "\(ContinuousClock.now - started)",
                    "records": "\(followers.map { "\($0.topic)=\($0.appliedCount)" }.joined(separator: ", "))",
                ])
        }
    }

    /// Before the first decision on gained partitions: what the stage acted on there, read
    /// back from them up to the group's committed offsets (``ReplayMemory``).
    private func restoreReplayMemory(_ partitions: Set<Int32>, _ consumer: KafkaConsumer) async throws {
        guard let replayMemory, !partitions.isEmpty else { return }
        let started = ContinuousClock.now
        let input = configuration.input
        let count = try await configuration.retry.retrying("restore the replay memory", logger: logger) {
            try await replayMemory.restore(
                partitions, of: input,
                committed: try await consumer.committed(
                    partitions.map { KafkaTopicPartition(topic: input, partition: $0) }),
                configuration: configuration.kafka, logger: logger)
        }
        logger.info(
            "replay memory restored from the input",
            metadata: [
                "partitions": "\(partitions.sorted())", "records": "\(count)",
                "elapsed": "\(ContinuousClock.now - started)",
            ])
    }

    /// The input's partition count (what a user's home partition is computed with),
    /// looked up once at start. Partitioned state must be co-partitioned with the
    /// input (same key, same partition count): otherwise a user's input and state
    /// would land on partitions owned by different members, so a state topic with
    /// another count stops the worker before its first decision.
    private func inputPartitionCount(checking followers: [TopicFollower]) async throws -> Int {
        let input = configuration.input
        // The snapshots of a state partition are on the same partition of their topic.
        let stateTopics = followers.filter(\.isPartitioned).flatMap {
            [$0.topic] + ($0.snapshots.map { [$0.store.topic] } ?? [])
        }
        let counts = try await configuration.retry.retrying("look up partition counts", logger: logger) {
            try await KafkaOffsetLookup.with(configuration: configuration.kafka, logger: logger) { lookup in
                var counts: [String: Int] = [input: try await lookup.partitions(of: input).count]
                for topic in stateTopics {
                    counts[topic] = try await lookup.partitions(of: topic).count
                }
                return counts
            }
        }
        let mismatched = stateTopics.filter { counts[$0] != counts[input] }
        guard mismatched.isEmpty else {
            throw StatePartitioningError(
                input: input, inputPartitions: counts[input] ?? 0,
                stateTopics: mismatched.map { ($0, counts[$0] ?? 0) })
        }
        return max(counts[input] ?? 0, 1)
    }
}
