import Foundation
public import IntentEvents
public import Kafka
public import Logging
import Synchronization

/// Materializes a whole topic into in-memory state (a global table): reads
/// every partition from the beginning, then follows new records, handing each
/// to `apply`. Each worker instance holds all of it, whatever input
/// partitions it is assigned, and nothing is kept on local disk, so a restart
/// or a move to another machine rebuilds the same state.
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
    /// only multiply idle requests.
    public static let fetchWait = Duration.milliseconds(100)
    private let consumer: KafkaConsumer
    private let configuration: KafkaConfiguration
    private let apply: @Sendable (KafkaConsumerMessage) throws(EventDecodingError) -> Void
    private let reject: @Sendable (KafkaConsumerMessage, EventDecodingError) async throws -> Void
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        /// Next offset to apply, per partition.
        var positions: [KafkaTopicPartition: Int64] = [:]
        var waiters: [(targets: [KafkaTopicPartition: Int64], continuation: CheckedContinuation<Void, any Error>)] =
            []
        var applied = 0
        /// Records this process published here itself, passed over unread (``OwnRecords``).
        var own = OwnRecords()
        var passedOver = 0
        /// Why ``follow()`` stopped, if it failed: later ``caughtUp()`` calls fail with it.
        var failure: (any Error)?
    }

    /// - Parameters:
    ///   - apply: Applies one record to the caller's state; throws for a record it cannot read.
    ///   - reject: Parks an unreadable record (the dead-letter topic).
    public init(
        configuration: KafkaConfiguration, topic: String, logger: Logger,
        apply: @escaping @Sendable (KafkaConsumerMessage) throws(EventDecodingError) -> Void,
        reject: @escaping @Sendable (KafkaConsumerMessage, EventDecodingError) async throws -> Void
    ) throws(KafkaError) {
        self.configuration = configuration
        self.topic = topic
        self.logger = logger
        self.apply = apply
        self.reject = reject
        // A group id librdkafka requires but never joins: partitions are assigned, not subscribed.
        var consumerConfiguration = KafkaConsumerConfiguration(
            client: configuration, groupID: "follower-\(UUID().uuidString)")
        consumerConfiguration.maximumFetchWait = Self.fetchWait
        consumerConfiguration.client.properties["fetch.wait.max.ms"] = nil
        consumer = try KafkaConsumer(configuration: consumerConfiguration, logger: logger)
    }

    /// Applies records until cancelled. Starts from the beginning of every partition.
    /// If it fails, whoever waits in ``caughtUp()`` fails too instead of waiting forever.
    public func follow() async throws {
        do {
            try await applyRecords()
        } catch {
            let waiters = state.withLock { state in
                state.failure = error
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.continuation.resume(throwing: error) }
            throw error
        }
    }

    private func applyRecords() async throws {
        let partitions = try await endOffsets().keys
        try consumer.assign(
            partitions.map {
                KafkaPartitionOffset(topic: $0.topic, partition: $0.partition, offset: KafkaConsumer.beginning)
            })
        while !Task.isCancelled {
            let batch = try await consumer.poll(timeout: .milliseconds(100))
            let own = state.withLock { state in state.own.isEmpty ? [] : batch.map { state.own.take($0) } }
            for (index, message) in batch.enumerated() where own.isEmpty || !own[index] {
                do throws(EventDecodingError) {
                    // Binary-mode records (CloudEvents Kafka binding) are applied as their structured event.
                    try apply(try message.structuredEvent())
                } catch {
                    logger.warning(
                        "record rejected",
                        metadata: ["record": "\(message.topicPartition)@\(message.offset)", "error": "\(error)"])
                    try await reject(message, error)
                }
            }
            let ready = state.withLock { state in
                for message in batch { state.positions[message.topicPartition] = message.offset + 1 }
                state.applied += batch.count
                state.passedOver += own.count { $0 }
                if !state.own.isEmpty {
                    for (partition, position) in state.positions {
                        state.own.drop(below: position, in: partition.partition)
                    }
                }
                return Self.takeSatisfiedWaiters(&state)
            }
            for continuation in ready { continuation.resume() }
        }
        // Release anyone still waiting: the worker is stopping.
        for waiter in state.withLock({ state in
            defer { state.waiters = [] }
            return state.waiters
        }) {
            waiter.continuation.resume()
        }
    }

    /// Returns once every record the topic holds now has been applied.
    public func caughtUp() async throws {
        let started = ContinuousClock.now
        let targets = try await endOffsets().filter { $0.value > 0 }
        try await withCheckedThrowingContinuation { continuation in
            let (ready, failure): ([CheckedContinuation<Void, any Error>], (any Error)?) = state.withLock { state in
                if let failure = state.failure { return ([], failure) }
                state.waiters.append((targets, continuation))
                return (Self.takeSatisfiedWaiters(&state), nil)
            }
            if let failure { continuation.resume(throwing: failure) }
            for waiter in ready { waiter.resume() }
        }
        logger.debug(
            "caught up", metadata: ["topic": "\(topic)", "elapsed": "\(ContinuousClock.now - started)"])
    }

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

    private static func takeSatisfiedWaiters(_ state: inout State) -> [CheckedContinuation<Void, any Error>] {
        var ready: [CheckedContinuation<Void, any Error>] = []
        state.waiters.removeAll { waiter in
            let done = waiter.targets.allSatisfy { (state.positions[$0.key] ?? 0) >= $0.value }
            if done { ready.append(waiter.continuation) }
            return done
        }
        return ready
    }

    /// The offset after the last record of each partition, verified by reading
    /// (some brokers report the last batch's base offset instead).
    /// Retried through outages (a broker restarting answers lookups with time-outs for a while).
    private func endOffsets() async throws -> [KafkaTopicPartition: Int64] {
        try await RetryPolicy.current.retrying("look up the end of \(topic)", logger: logger) {
            try await KafkaOffsetLookup.with(configuration: configuration, logger: logger) { [topic] in
                try await $0.bounds(of: topic).mapValues(\.high)
            }
        }
    }
}
