import Foundation
public import IntentEvents
public import Kafka
public import Logging
import Synchronization

/// Materializes a topic into in-memory state: reads from the beginning, then
/// follows new records, handing each to `apply`. Nothing is kept on local
/// disk, so a restart or a move to another machine rebuilds the same state.
///
/// Two scopes:
/// - a **global table** (``init(configuration:topic:logger:apply:reject:)``):
///   every partition, whatever input partitions the worker owns;
/// - **partitioned state** (with `forget`): only the partitions the worker
///   owns of its co-partitioned input (``caughtUp(owning:)``). A partition the
///   worker loses is unassigned and its state handed to `forget`, so an
///   instance's memory and restart cost follow the partitions it owns, not
///   the history of every user.
///
/// ``caughtUp()`` waits until everything the topic held when it was called
/// has been applied: a worker calls it at start (never decide on a
/// half-loaded state) and after gaining partitions (the previous owner's
/// last writes must be in before this instance decides for those users).
public final class TopicFollower: Sendable {
    public let topic: String
    /// How long a follower's fetch waits on idle partitions, whatever the
    /// stage consumer's `fetch.wait.max.ms`. A follower is on no request's
    /// path (a stage applies its own decisions as it makes them, and
    /// ``caughtUp()`` reads to the end offsets, where data is waiting), so on a
    /// broker that waits a fetch out (the local broker) a short wait would
    /// only multiply idle requests. (The payments worker's ledger follower waits less: it
    /// reads each round back before the round's notices go, ``readBack(_:)``.)
    public static let fetchWait = Duration.milliseconds(100)
    private let consumer: KafkaConsumer
    private let configuration: KafkaConfiguration
    private let apply: @Sendable (KafkaConsumerMessage) throws(EventDecodingError) -> Void
    private let reject: @Sendable (KafkaConsumerMessage, EventDecodingError) async throws -> Void
    /// Drops the state of a partition the worker no longer owns; nil for a global table.
    private let forget: (@Sendable (Int32) -> Void)?
    /// Partitioned state with snapshots: a gained partition starts from its latest one.
    public let snapshots: StateSnapshots?
    /// Called for each record passed over as this process's own, in the partition's order
    /// with the records applied (the payments worker checks its claim still held there).
    private let passedOver: (@Sendable (KafkaConsumerMessage) -> Void)?
    /// What places a record on its partition: its key, or (the contacts topic) the user in it.
    private let placementKey: @Sendable (KafkaConsumerMessage) -> [UInt8]?
    private let logger: Logger
    /// How end-offset lookups ride out an outage (the worker's ``RetryPolicy``).
    private let retry: RetryPolicy
    private let state = Mutex(State())

    private struct State {
        /// Next offset to apply, per partition.
        var positions: [KafkaTopicPartition: Int64] = [:]
        var waiters: [Waiter] = []
        /// The partitions followed (partitioned state), and those the worker asked for
        /// and the follow loop has not adopted yet.
        var owned: Set<Int32> = []
        var wanted: Set<Int32>?
        /// Work to run between polls, with the positions (``capture(_:)``).
        var captures: [@Sendable ([Int32: Int64]) -> Void] = []
        /// The follow loop has ended: captures run at once.
        var stopped = false
        var applied = 0
        /// Records this process published here itself, passed over unread (``OwnRecords``).
        var own = OwnRecords()
        var passedOver = 0
        /// Why ``follow()`` stopped, if it failed: later ``caughtUp()`` calls fail with it.
        var failure: (any Error)?
        /// Partitioned state: the topic's partition count, once the worker has checked it
        /// (``placesKeys(onPartitions:)``); a record whose key belongs elsewhere is refused.
        var partitionCount: Int?
    }

    private struct Waiter {
        var targets: [KafkaTopicPartition: Int64]
        var continuation: CheckedContinuation<Void, any Error>
    }

    /// Whether this follower holds only the partitions its worker owns (``caughtUp(owning:)``).
    public var isPartitioned: Bool { forget != nil }

    /// - Parameters:
    ///   - apply: Applies one record to the caller's state; throws for a record it cannot read.
    ///   - reject: Parks an unreadable record (the dead-letter topic).
    ///   - forget: For partitioned state: drops what was applied from a partition the
    ///     worker no longer owns. Nil follows every partition (a global table).
    ///   - retry: How lookups ride out an outage: a worker passes its own policy (`--give-up-after`).
    ///   - placementKey: The bytes the topic's producers place a record by (``placesKeys(onPartitions:)``):
    ///     its key unless said otherwise.
    public init(
        configuration: KafkaConfiguration, topic: String, logger: Logger,
        apply: @escaping @Sendable (KafkaConsumerMessage) throws(EventDecodingError) -> Void,
        reject: @escaping @Sendable (KafkaConsumerMessage, EventDecodingError) async throws -> Void,
        forget: (@Sendable (Int32) -> Void)? = nil, snapshots: StateSnapshots? = nil,
        fetchWait: Duration = TopicFollower.fetchWait, passedOver: (@Sendable (KafkaConsumerMessage) -> Void)? = nil,
        retry: RetryPolicy = .standard, placementKey: @escaping @Sendable (KafkaConsumerMessage) -> [UInt8]? = \.key
    ) throws(KafkaError) {
        self.retry = retry
        self.passedOver = passedOver
        self.placementKey = placementKey
        precondition(snapshots == nil || forget != nil, "snapshots are of partitioned state")
        self.configuration = configuration
        self.topic = topic
        self.logger = logger
        self.apply = apply
        self.reject = reject
        self.forget = forget
        self.snapshots = snapshots
        // A group id librdkafka requires but never joins: partitions are assigned, not subscribed.
        var consumerConfiguration = KafkaConsumerConfiguration(
            client: configuration, groupID: "follower-\(UUID().uuidString)")
        consumerConfiguration.maximumFetchWait = fetchWait
        consumerConfiguration.client.properties["fetch.wait.max.ms"] = nil
        consumer = try KafkaConsumer(configuration: consumerConfiguration, logger: logger)
    }

    /// Partitioned state: from now on, a record is applied only on the partition its key
    /// (`placementKey`) is placed on (of `count`, the worker's checked partition count). A
    /// genuine, signed record copied onto another partition (any producer picks the partition) was applied to that
    /// partition's state: a payment request's records copied onto its payer's partition
    /// reopened a request the payer had paid, which could then be paid again, and a hold
    /// copied beside its owner's was swept there (SECURITY.md, attack 55). The stage's input
    /// forwards such a record to its home partition; state refuses it.
    public func placesKeys(onPartitions count: Int) {
        state.withLock { $0.partitionCount = count }
    }

    /// Applies records until cancelled. Starts from the beginning of every partition.
    /// If it fails, whoever waits in ``caughtUp()`` fails too instead of waiting forever.
    public func follow() async throws {
        do {
            try await applyRecords()
        } catch {
            stop(failing: error)
            throw error
        }
        // Whoever still waits is told the follower stopped (cancelled): a half-restored
        // partition must never look caught up.
        stop(failing: CancellationError())
    }

    /// The follow loop has ended: later ``caughtUp()`` calls fail with `error` (or an
    /// earlier failure), waiters fail with it now, and captures run at once.
    private func stop(failing error: any Error) {
        let waiters = state.withLock { state in
            state.failure = state.failure ?? error
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.continuation.resume(throwing: error) }
        runCaptures(stopping: true)
    }

    /// Applies `update` to the state, then resumes the waiters it satisfied.
    private func resumeSatisfiedWaiters(after update: (inout State) -> Void = { _ in }) {
        let ready = state.withLock { state in
            update(&state)
            return takeSatisfiedWaiters(&state)
        }
        for continuation in ready { continuation.resume() }
    }

    private func applyRecords() async throws {
        if !isPartitioned {
            let partitions = try await endOffsets().keys
            state.withLock { $0.owned = Set(partitions.map(\.partition)) }
            try consumer.assign(
                partitions.map {
                    KafkaPartitionOffset(topic: $0.topic, partition: $0.partition, offset: KafkaConsumer.beginning)
                })
        }
        while !Task.isCancelled {
            try await adoptWantedPartitions()
            runCaptures()
            var batch = try await consumer.poll(timeout: .milliseconds(100))
            let (own, partitionCount) = state.withLock { state in
                // A record fetched before a reassignment: of a partition dropped since, or
                // already applied (a kept partition is reassigned at its position).
                if isPartitioned {
                    // A batch holds runs of one partition's records: its position is looked up
                    // once a run (hashing the topic's name), not once a record.
                    var run: (partition: Int32, position: Int64)?
                    batch.removeAll { message in
                        guard state.owned.contains(message.partition) else { return true }
                        let position: Int64
                        if let run, run.partition == message.partition {
                            position = run.position
                        } else {
                            position = state.positions[message.topicPartition] ?? 0
                            run = (message.partition, position)
                        }
                        return message.offset < position
                    }
                }
                return (state.own.isEmpty ? [] : batch.map { state.own.take($0) }, state.partitionCount)
            }
            for (index, message) in batch.enumerated() {
                if !own.isEmpty && own[index] {
                    passedOver?(message)
                    continue
                }
                do throws(EventDecodingError) {
                    if let partitionCount, let key = placementKey(message) {
                        let home = KafkaPartitioner.partition(forKey: key, partitions: partitionCount)
                        guard home == message.partition else {
                            throw EventDecodingError(
                                .wrongUser, field: "key",
                                "keyed to partition \(home) of \(partitionCount), read on partition \(message.partition)"
                            )
                        }
                    }
                    // Binary-mode records (CloudEvents Kafka binding) are applied as their structured event.
                    try apply(try message.structuredEvent())
                } catch {
                    logger.warning(
                        "record rejected",
                        metadata: ["record": "\(message.topicPartition)@\(message.offset)", "error": "\(error)"])
                    try await reject(message, error)
                }
            }
            resumeSatisfiedWaiters { state in
                // A partition's records come in order: the last of each run moves its position
                // (the last of all of them last), one write a run.
                for index in batch.indices
                where index == batch.count - 1 || batch[index + 1].partition != batch[index].partition {
                    state.positions[batch[index].topicPartition] = batch[index].offset + 1
                }
                state.applied += batch.count
                state.passedOver += own.count { $0 }
                if !state.own.isEmpty {
                    for (partition, position) in state.positions {
                        state.own.drop(below: position, in: partition.partition)
                    }
                }
            }
            try skipTransactionMarkers()
        }
    }

    /// After each poll, with someone waiting short of an end offset: moves each waited-for
    /// partition's position to the consumer's own, which steps over transaction markers. A
    /// marker takes an offset but is never delivered, so a position counted from delivered
    /// records stopped one short of a partition whose last record is a marker, and
    /// every catch-up to that end (each restore, each snapshot) waited for ever; any producer
    /// can end a partition so (SECURITY.md, attack 57). After every poll, not only an idle one:
    /// records on other partitions may never stop coming; and every record the consumer has
    /// handed over is applied by then, so its position skips nothing unapplied.
    private func skipTransactionMarkers() throws {
        let short = state.withLock { state in
            state.waiters.flatMap { waiter in
                waiter.targets.filter { (state.positions[$0.key] ?? 0) < $0.value }.map(\.key)
            }
        }
        guard !short.isEmpty else { return }
        let positions = try consumer.positions(Array(Set(short)))
        resumeSatisfiedWaiters { state in
            for (partition, position) in positions where position > state.positions[partition] ?? 0 {
                state.positions[partition] = position
            }
        }
    }

    /// Partitioned state: follows exactly `partitions` from now on (the input
    /// partitions the worker owns), dropping the state of those it no longer
    /// owns, and returns once every record those partitions hold now has been
    /// applied. A worker calls it whenever its assignment changes, before it
    /// decides for any user of a partition it gained.
    public func caughtUp(owning partitions: Set<Int32>) async throws {
        precondition(isPartitioned, "a global table follows every partition")
        state.withLock { $0.wanted = partitions }
        try await caughtUp(partitions: partitions)
    }

    /// Returns once every record the topic holds now has been applied (for
    /// partitioned state: of the partitions the worker owns).
    public func caughtUp() async throws {
        try await caughtUp(partitions: isPartitioned ? state.withLock { $0.wanted ?? $0.owned } : nil)
    }

    private func caughtUp(partitions: Set<Int32>?) async throws {
        let started = ContinuousClock.now
        let targets = try await endOffsets().filter { $0.value > 0 && partitions?.contains($0.key.partition) ?? true }
        try await wait(for: targets)
        logger.debug(
            "caught up", metadata: ["topic": "\(topic)", "elapsed": "\(ContinuousClock.now - started)"])
    }

    /// Returns once each partition of `offsets` has been read past its offset (records this
    /// worker wrote, read back: every record before them has been applied), or is no longer
    /// followed. No end-offset lookup: the offsets are known from the delivery reports.
    public func readBack(_ offsets: [Int32: Int64]) async throws {
        try await wait(
            for: Dictionary(
                uniqueKeysWithValues: offsets.map {
                    (KafkaTopicPartition(topic: topic, partition: $0.key), $0.value + 1)
                }
            ))
    }

    private func wait(for targets: [KafkaTopicPartition: Int64]) async throws {
        try await withCheckedThrowingContinuation { continuation in
            let (ready, failure): ([CheckedContinuation<Void, any Error>], (any Error)?) = state.withLock { state in
                if let failure = state.failure { return ([], failure) }
                state.waiters.append(Waiter(targets: targets, continuation: continuation))
                return (takeSatisfiedWaiters(&state), nil)
            }
            if let failure { continuation.resume(throwing: failure) }
            for waiter in ready { waiter.resume() }
        }
    }

    /// The partitions followed now.
    public var followedPartitions: Set<Int32> { state.withLock { $0.owned } }

    /// Records read, including those passed over.
    public var appliedCount: Int { state.withLock { $0.applied } }

    /// Why ``follow()`` stopped, if it failed: a worker must not go on deciding
    /// on state that no longer follows its topic.
    public var failure: (any Error)? { state.withLock { $0.failure } }

    /// Records passed over because this process published them (``published(_:)``).
    public var passedOverCount: Int { state.withLock { $0.passedOver } }

    /// Registrations still waiting for their record (``OwnRecords``): stays small, drains as the follower reads.
    var pendingOwnCount: Int { state.withLock { $0.own.count + $0.own.expectedCount } }

    /// Tells the follower about records this process is about to publish to its topic,
    /// after applying the state they carry: ``follow()`` passes over records equal to
    /// them instead of decoding and applying them again (``OwnRecords``). Call
    /// ``published(_:)`` with every one's delivery report. Other topics' records are ignored.
    public func publishing(_ records: [KafkaProducerMessage]) {
        state.withLock { state in
            for message in records where message.topic == topic {
                guard let value = message.value else { continue }
                state.own.expect(OwnRecords.Fingerprint(key: message.key, value: value, headers: message.headers))
            }
        }
    }

    /// The delivery reports of records announced with ``publishing(_:)`` (nil: not
    /// delivered): one the follower has not read yet is passed over at its position.
    public func published(_ records: [(message: KafkaProducerMessage, report: KafkaDeliveryReport?)]) {
        state.withLock { state in
            for (message, report) in records where message.topic == topic {
                guard let value = message.value else { continue }
                guard let report else {
                    state.own.withdraw(OwnRecords.Fingerprint(key: message.key, value: value, headers: message.headers))
                    continue
                }
                // Partitioned state: a record for a partition another member owns is that member's to read.
                if isPartitioned && !state.owned.contains(report.partition) {
                    state.own.withdraw(OwnRecords.Fingerprint(key: message.key, value: value, headers: message.headers))
                    continue
                }
                let partition = KafkaTopicPartition(topic: topic, partition: report.partition)
                state.own.confirm(
                    OwnRecords.Entry(offset: report.offset, key: message.key, value: value, headers: message.headers),
                    in: report.partition, position: state.positions[partition] ?? 0)
            }
        }
    }

    public func close() async {
        await consumer.close()
    }

    /// Adopts the partitions the worker asked for (``caughtUp(owning:)``): forgets
    /// the state of those it lost, and reads the kept ones on from their
    /// positions and the gained ones from the beginning. Runs in the follow
    /// loop, between polls, so no record of a forgotten partition is applied after it.
    private func adoptWantedPartitions() async throws {
        // `wanted` stays set until the partitions are adopted (restores can take a while):
        // a waiter must not see the old partitions as the adopted ones meanwhile.
        let change = state.withLock { state -> (lost: Set<Int32>, gained: Set<Int32>, wanted: Set<Int32>)? in
            guard let wanted = state.wanted else { return nil }
            let lost = state.owned.subtracting(wanted)
            let gained = wanted.subtracting(state.owned)
            for partition in lost {
                state.positions[KafkaTopicPartition(topic: topic, partition: partition)] = nil
            }
            // Own records announced before the change are forgotten too, the expected ones
            // included: a record of a lost partition, read after the partition comes back,
            // must be applied, not passed over (applying one twice changes nothing).
            if !lost.isEmpty || !gained.isEmpty { state.own = OwnRecords() }
            return (lost, gained, wanted)
        }
        guard let change else { return }
        guard !change.lost.isEmpty || !change.gained.isEmpty else {
            // The same partitions: nothing to reassign (that would fetch again what is buffered).
            resumeSatisfiedWaiters { if $0.wanted == change.wanted { $0.wanted = nil } }
            return
        }
        if let forget { for partition in change.lost { forget(partition) } }
        // A gained partition starts from its latest snapshot (else from the beginning).
        var restored: [Int32: Int64] = [:]
        if let snapshots, !change.gained.isEmpty {
            restored = await snapshots.restore(change.gained.sorted(), logger: logger)
        }
        let assignment = state.withLock { state in
            for (partition, position) in restored where position > 0 {
                state.positions[KafkaTopicPartition(topic: topic, partition: partition)] = position
            }
            state.owned = change.wanted
            // A newer set asked for meanwhile is adopted on the next turn.
            if state.wanted == change.wanted { state.wanted = nil }
            return change.wanted.sorted().map { partition in
                let position = state.positions[KafkaTopicPartition(topic: topic, partition: partition)] ?? 0
                return KafkaPartitionOffset(
                    topic: topic, partition: partition, offset: position > 0 ? position : KafkaConsumer.beginning)
            }
        }
        try consumer.assign(assignment)
        logger.debug(
            "following partitions",
            metadata: [
                "topic": "\(topic)", "partitions": "\(assignment.map(\.topicPartition.partition))",
                "forgotten": "\(change.lost.sorted())", "from snapshots": "\(restored.filter { $0.value > 0 })",
            ])
        resumeSatisfiedWaiters()
    }

    /// Runs `body` between two polls of the follow loop, with the position of each
    /// followed partition: no record is applied meanwhile, so the caller's state and
    /// the positions agree (a snapshot is taken this way).
    public func capture<Result: Sendable>(_ body: @escaping @Sendable ([Int32: Int64]) -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            let stopped = state.withLock { state in
                if !state.stopped {
                    state.captures.append { positions in continuation.resume(returning: body(positions)) }
                }
                return state.stopped
            }
            // No loop to run it: nothing is applied any more, so now is as good.
            if stopped { continuation.resume(returning: body(currentPositions)) }
        }
    }

    private var currentPositions: [Int32: Int64] {
        state.withLock { Dictionary(uniqueKeysWithValues: $0.positions.map { ($0.key.partition, $0.value) }) }
    }

    private func runCaptures(stopping: Bool = false) {
        let (captures, positions) = state.withLock { state in
            defer { state.captures = [] }
            if stopping { state.stopped = true }
            return (
                state.captures,
                Dictionary(uniqueKeysWithValues: state.positions.map { ($0.key.partition, $0.value) })
            )
        }
        for capture in captures { capture(positions) }
    }

    private func takeSatisfiedWaiters(_ state: inout State) -> [CheckedContinuation<Void, any Error>] {
        var ready: [CheckedContinuation<Void, any Error>] = []
        state.waiters.removeAll { waiter in
            // Partitioned: once the latest wanted set is adopted, the owned partitions'
            // targets (one the worker has given up since is no longer waited for).
            let done =
                !isPartitioned
                ? waiter.targets.allSatisfy { (state.positions[$0.key] ?? 0) >= $0.value }
                : state.wanted == nil
                    && waiter.targets.allSatisfy {
                        !state.owned.contains($0.key.partition) || (state.positions[$0.key] ?? 0) >= $0.value
                    }
            if done { ready.append(waiter.continuation) }
            return done
        }
        return ready
    }

    /// The offset after the last record of each partition, verified by reading
    /// (some brokers report the last batch's base offset instead).
    /// Retried through outages (a broker restarting answers lookups with time-outs for a while).
    private func endOffsets() async throws -> [KafkaTopicPartition: Int64] {
        try await retry.retrying("look up the end of \(topic)", logger: logger) {
            try await KafkaOffsetLookup.with(configuration: configuration, logger: logger) { [topic] in
                try await $0.bounds(of: topic).mapValues(\.high)
            }
        }
    }
}
