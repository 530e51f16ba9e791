internal import CRdkafka
import Foundation
public import Logging
public import ServiceLifecycle

/// A consumer-group member that hands out batches of records and commits
/// only what the application says it has finished.
///
/// The model is pull-based: ``poll(maxMessages:timeout:)`` (or iterating
/// ``batches(maxMessages:timeout:)``) returns up to `maxMessages` records
/// already fetched by librdkafka. Rebalance callbacks run inside that same
/// poll, i.e. between two batches, so "finished work" is exactly what the
/// application marked with ``markProcessed(_:)`` before polling again, and
/// that is committed before any partition is handed to another member.
public final class KafkaConsumer: Service, Sendable {
    public let configuration: KafkaConsumerConfiguration
    let handle: RDKafkaHandle
    private let executor: BlockingExecutor
    private let consumedNames: ConsumedNameCache
    /// The consumer queue, for taking already-fetched records in one call.
    private let queue: ConsumerQueue
    private let logger: Logger

    /// Partition assignment changes, in order.
    public var rebalances: AsyncStream<KafkaRebalanceEvent> { handle.callbacks.rebalances }

    /// Errors librdkafka reports in the background (broker down, topic missing).
    /// Consumer errors are informational: librdkafka keeps retrying.
    public var errors: AsyncStream<KafkaError> { handle.callbacks.errors }

    /// - Parameter beforeRevoke: Called (on the thread serving the rebalance,
    ///   which may block) before partitions are taken away and the finished
    ///   work is committed; see ``KafkaProducer/waitForDeliveries(timeout:)``.
    /// - Parameter afterAssign: Called (on the thread serving the rebalance) with the
    ///   partitions just assigned, before the poll that served the assignment returns.
    /// - Parameter startingOffsets: Called (on the thread serving the rebalance, which may
    ///   block) with the partitions about to be assigned; returns where to start reading each
    ///   (a partition it leaves out starts at ``beginning``). For an application that stores
    ///   its positions in the same transaction as its state, so a lost state is rebuilt from
    ///   the start instead of resuming at the group's committed offsets. nil: the committed
    ///   offsets, else `auto.offset.reset`.
    /// - Parameter statistics: Receives librdkafka's statistics (inside ``poll(maxMessages:timeout:)``)
    ///   every `statistics.interval.ms`, when that property is set.
    public init(
        configuration: KafkaConsumerConfiguration, logger: Logger, beforeRevoke: (@Sendable () -> Void)? = nil,
        afterAssign: (@Sendable ([KafkaTopicPartition]) -> Void)? = nil,
        startingOffsets: (@Sendable ([KafkaTopicPartition]) -> [KafkaTopicPartition: Int64])? = nil,
        statistics: (@Sendable (KafkaStatistics) -> Void)? = nil
    ) throws(KafkaError) {
        self.configuration = configuration
        self.logger = logger
        let properties = configuration.librdkafkaProperties
        // librdkafka refuses a mix of eager and cooperative assignors.
        let cooperative =
            properties["group.protocol"] == "consumer"
            || (properties["partition.assignment.strategy"] ?? "").contains("cooperative-sticky")
        let callbacks = ClientCallbacks(
            logger: logger, beforeRevoke: beforeRevoke, afterAssign: afterAssign, startingOffsets: startingOffsets,
            cooperativeRebalance: cooperative, statistics: statistics)
        handle = try RDKafkaHandle(
            kind: .consumer, properties: properties, callbacks: callbacks
        ) { conf in
            rd_kafka_conf_set_rebalance_cb(conf, rebalanceCallback)
        }
        // Serve errors and rebalances from the consumer queue, i.e. inside poll().
        let queue = try handle.withPointer("create consumer") { (pointer) throws(KafkaError) in
            try KafkaError.check(rd_kafka_poll_set_consumer(pointer), "route events to consumer queue")
            return ConsumerQueue(consumerOf: pointer)
        }
        executor = BlockingExecutor(label: "\(handle.name)-blocking")
        consumedNames = ConsumedNameCache()
        self.queue = queue
    }

    deinit {
        // A consumer that was never closed still leaves its group cleanly.
        let queue = self.queue
        handle.close { pointer in
            rd_kafka_consumer_close(pointer)
            // The queue reference must go before the instance it belongs to.
            queue.destroy()
        }
        handle.callbacks.finish()
    }

    /// Joins the group for these topics. Assignment happens during later polls.
    public func subscribe(topics: [String]) throws(KafkaError) {
        let list = TopicPartitionList(topics.map { KafkaTopicPartition(topic: $0, partition: RD_KAFKA_PARTITION_UA) })
        try handle.withPointer("subscribe") { (pointer) throws(KafkaError) in
            try KafkaError.check(rd_kafka_subscribe(pointer, list.pointer), "subscribe to \(topics)")
        }
        handle.callbacks.membership.withLock { $0.subscribed = true }
    }

    /// Reads exactly these partitions from these offsets, outside any group
    /// rebalancing (used to replay topics). Offsets may be
    /// ``KafkaConsumer/beginning`` or ``KafkaConsumer/end``.
    public func assign(_ offsets: [KafkaPartitionOffset]) throws(KafkaError) {
        let list = TopicPartitionList(offsets)
        try handle.withPointer("assign") { (pointer) throws(KafkaError) in
            try KafkaError.check(rd_kafka_assign(pointer, list.pointer), "assign \(offsets)")
        }
        handle.callbacks.contiguity.withLock { $0.forgetAll() }
    }

    /// How many times a partition was read again because a fetch left records out
    /// (``ContiguousOffsets``): against Apache Kafka, only across transaction markers and
    /// compacted ranges; against the local broker, its visibility race (docs/kafka.md, the local broker's known gaps).
    public var holesReadAgain: Int { handle.callbacks.contiguity.withLock { $0.rewound } }

    /// Logical offset: the oldest retained record.
    public static let beginning = Int64(RD_KAFKA_OFFSET_BEGINNING)
    /// Logical offset: after the newest record.
    public static let end = Int64(RD_KAFKA_OFFSET_END)

    /// Waits up to `timeout` for the first record, then takes whatever else is
    /// already fetched, up to `maxMessages`. Returns an empty batch on timeout.
    public func poll(
        maxMessages: Int = 500, timeout: Duration = .milliseconds(100)
    ) async throws(KafkaError) -> [KafkaConsumerMessage] {
        let handle = self.handle
        let consumedNames = self.consumedNames
        let queue = self.queue
        return try await executor.perform(on: handle, "poll") {
            (pointer) throws(KafkaError) -> [KafkaConsumerMessage] in
            try Self.pollBlocking(pointer, handle, queue, consumedNames, maxMessages: maxMessages, timeout: timeout)
        }
    }

    private static func pollBlocking(
        _ pointer: OpaquePointer, _ handle: RDKafkaHandle, _ queue: ConsumerQueue, _ consumedNames: ConsumedNameCache,
        maxMessages: Int,
        timeout: Duration
    ) throws(KafkaError) -> [KafkaConsumerMessage] {
        var batch: [KafkaConsumerMessage] = []
        batch.reserveCapacity(min(maxMessages, 1024))
        // Wait for the first record; rebalance and error callbacks are served here too.
        guard let first = rd_kafka_consumer_poll(pointer, timeout.timeoutMilliseconds) else { return batch }
        try accept(first, into: &batch, handle, consumedNames)
        // Then take what is already fetched in one call, under one queue lock.
        let wanted = maxMessages - batch.count
        if wanted > 0 { try takeFetched(upTo: wanted, into: &batch, handle, queue, consumedNames) }
        guard !batch.isEmpty else { return batch }
        let verdicts = handle.callbacks.contiguity.withLock { $0.inspect(batch) }
        return verdicts.isEmpty ? batch : repair(batch, verdicts, pointer, handle)
    }

    /// Appends up to `wanted` records librdkafka has already fetched, without waiting.
    private static func takeFetched(
        upTo wanted: Int, into batch: inout [KafkaConsumerMessage], _ handle: RDKafkaHandle, _ queue: ConsumerQueue,
        _ consumedNames: ConsumedNameCache
    ) throws(KafkaError) {
        try withUnsafeTemporaryAllocation(of: UnsafeMutablePointer<rd_kafka_message_t>?.self, capacity: wanted) {
            (raw) throws(KafkaError) in
            let count = rd_kafka_consume_batch_queue(queue.pointer, 0, raw.baseAddress, wanted)
            guard count > 0 else { return }
            var failure: KafkaError?
            for index in 0..<count {
                guard let message = raw[index] else { continue }
                if failure == nil {
                    do throws(KafkaError) {
                        try accept(message, into: &batch, handle, consumedNames)
                    } catch {
                        failure = error
                    }
                } else {
                    rd_kafka_message_destroy(message)
                }
            }
            if let failure { throw failure }
        }
    }

    /// A batch with holes (``ContiguousOffsets``): each partition to read again is rewound to
    /// its first missing offset, and its records from the hole on are left out (they come
    /// again, after the missing ones); a hole read again often enough is delivered as it is.
    private static func repair(
        _ batch: [KafkaConsumerMessage], _ verdicts: [ContiguousOffsets.Verdict], _ pointer: OpaquePointer,
        _ handle: RDKafkaHandle
    ) -> [KafkaConsumerMessage] {
        let logger = handle.callbacks.logger
        var holes: [ContiguousOffsets.Hole] = []
        for verdict in verdicts {
            switch verdict {
            case .rewind(let hole): holes.append(hole)
            case .accepted(let hole):
                logger.warning(
                    "offsets missing from a partition, still after reading it again: taken as the log's own (transaction markers, compaction) and skipped",
                    metadata: ["hole": "\(hole)", "rewinds": "\(ContiguousOffsets.maximumRewinds)"])
            }
        }
        guard !holes.isEmpty else { return batch }
        let list = TopicPartitionList(
            holes.map {
                KafkaPartitionOffset(topic: $0.partition.topic, partition: $0.partition.partition, offset: $0.expected)
            })
        let failure = rd_kafka_seek_partitions(pointer, list.pointer, 10_000).map {
            KafkaError(consuming: $0, operation: "seek back to a hole")
        }
        let refused = Set(list.elements.filter { $0.error != RD_KAFKA_RESP_ERR_NO_ERROR }.map(\.topicPartition))
        var rewound: [KafkaTopicPartition: Int64] = [:]
        for hole in holes {
            if failure != nil || refused.contains(hole.partition) {
                let last = batch.last { $0.topicPartition == hole.partition }?.offset ?? hole.received
                handle.callbacks.contiguity.withLock { $0.rewindFailed(hole, lastPolled: last) }
                logger.warning(
                    "offsets missing from a partition, and reading it again failed: delivered as polled",
                    metadata: ["hole": "\(hole)", "error": "\(failure.map { "\($0)" } ?? "refused")"])
            } else {
                rewound[hole.partition] = hole.expected
                logger.notice(
                    "a fetch left out records; reading the partition again from the first one missing",
                    metadata: ["hole": "\(hole)"])
            }
        }
        guard !rewound.isEmpty else { return batch }
        return batch.filter { message in rewound[message.topicPartition].map { message.offset < $0 } ?? true }
    }

    /// Appends a record, or reports a consumer error; destroys the librdkafka message either way.
    private static func accept(
        _ raw: UnsafeMutablePointer<rd_kafka_message_t>, into batch: inout [KafkaConsumerMessage],
        _ handle: RDKafkaHandle, _ consumedNames: ConsumedNameCache
    ) throws(KafkaError) {
        defer { rd_kafka_message_destroy(raw) }
        let message = raw.pointee
        guard message.err == RD_KAFKA_RESP_ERR_NO_ERROR else {
            if message.err == RD_KAFKA_RESP_ERR__PARTITION_EOF { return }
            let error = KafkaError(
                rawCode: message.err, operation: "consume",
                message: message.payload.map {
                    String(decoding: UnsafeRawBufferPointer(start: $0, count: message.len), as: UTF8.self)
                })
            if let fatal = handle.fatalError(operation: "consume") { throw fatal }
            handle.callbacks.report(error)
            return
        }
        batch.append(makeMessage(raw, consumedNames))
    }

    /// Copies a librdkafka message into Swift values; the C memory is freed right after.
    private static func makeMessage(
        _ raw: UnsafeMutablePointer<rd_kafka_message_t>, _ consumedNames: ConsumedNameCache
    ) -> KafkaConsumerMessage {
        let message = raw.pointee
        let value = message.payload.map {
            Array(UnsafeRawBufferPointer(start: $0, count: message.len).assumingMemoryBound(to: UInt8.self))
        }
        let key = message.key.map {
            Array(UnsafeRawBufferPointer(start: $0, count: message.key_len).assumingMemoryBound(to: UInt8.self))
        }
        var headers: [KafkaHeader] = []
        var headerList: OpaquePointer?
        if rd_kafka_message_headers(raw, &headerList) == RD_KAFKA_RESP_ERR_NO_ERROR, let headerList {
            headers.reserveCapacity(rd_kafka_header_cnt(headerList))
            var index = 0
            var name: UnsafePointer<CChar>?
            var headerValue: UnsafeRawPointer?
            var size = 0
            while rd_kafka_header_get_all(headerList, index, &name, &headerValue, &size) == RD_KAFKA_RESP_ERR_NO_ERROR {
                let bytes = headerValue.map {
                    Array(UnsafeRawBufferPointer(start: $0, count: size).assumingMemoryBound(to: UInt8.self))
                }
                headers.append(
                    KafkaHeader(key: name.map { consumedNames.headerName($0, at: index) } ?? "", value: bytes))
                index += 1
            }
        }
        var timestampType = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE
        let milliseconds = rd_kafka_message_timestamp(raw, &timestampType)
        return KafkaConsumerMessage(
            topic: consumedNames.name(of: message.rkt),
            partition: message.partition,
            offset: message.offset,
            key: key,
            value: value,
            headers: headers,
            timestamp: milliseconds >= 0 ? Date(timeIntervalSince1970: Double(milliseconds) / 1000) : nil
        )
    }

    /// Batches until the task is cancelled or the service group shuts down.
    /// Empty polls are skipped, not yielded.
    public func batches(
        maxMessages: Int = 500, timeout: Duration = .milliseconds(100)
    ) -> KafkaConsumerBatches {
        KafkaConsumerBatches(consumer: self, maxMessages: maxMessages, timeout: timeout)
    }

    // MARK: Offsets

    /// Marks records as finished: their offsets are committed by the next
    /// ``commit()``, or by a rebalance before their partitions move.
    public func markProcessed(_ messages: some Sequence<KafkaConsumerMessage>) throws(KafkaError) {
        var latest: [KafkaTopicPartition: Int64] = [:]
        for message in messages {
            latest[message.topicPartition] = max(latest[message.topicPartition] ?? -1, message.offset + 1)
        }
        try storeOffsets(
            latest.map { KafkaPartitionOffset(topic: $0.key.topic, partition: $0.key.partition, offset: $0.value) })
    }

    public func markProcessed(_ message: KafkaConsumerMessage) throws(KafkaError) {
        try markProcessed(CollectionOfOne(message))
    }

    /// Stores positions (next offsets to read) for the next commit. Partitions
    /// no longer assigned are skipped: their work is redone by the new owner.
    public func storeOffsets(_ offsets: [KafkaPartitionOffset]) throws(KafkaError) {
        guard !offsets.isEmpty else { return }
        let list = TopicPartitionList(offsets)
        let code = try handle.withPointer("store offsets") { rd_kafka_offsets_store($0, list.pointer) }
        for element in list.elements where element.error != RD_KAFKA_RESP_ERR_NO_ERROR {
            logger.debug(
                "offset not stored; partition no longer assigned",
                metadata: [
                    "partition": "\(element.topicPartition)",
                    "reason": "\(KafkaError(rawCode: element.error, operation: "store offset"))",
                ])
        }
        if code != RD_KAFKA_RESP_ERR_NO_ERROR, code != RD_KAFKA_RESP_ERR__STATE,
            code != RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION
        {
            throw KafkaError(rawCode: code, operation: "store offsets")
        }
    }

    /// Synchronously commits every stored offset. Nothing stored is not an error.
    ///
    /// Returns false when the commit was refused because the group is
    /// rebalancing: the offsets stay stored and go with the next commit, or
    /// with the commit made before the partitions move, so the caller simply
    /// carries on. Other failures throw.
    @discardableResult
    public func commit() async throws(KafkaError) -> Bool {
        let code = try await executor.perform(on: handle, "commit offsets") { rd_kafka_commit($0, nil, 0) }
        if code == RD_KAFKA_RESP_ERR_NO_ERROR || code == RD_KAFKA_RESP_ERR__NO_OFFSET { return true }
        let error = KafkaError(rawCode: code, operation: "commit offsets")
        if error.code.isRebalance {
            logger.info("commit deferred until the group has rebalanced", metadata: ["reason": "\(error.name)"])
            return false
        }
        throw error
    }

    /// Synchronously commits exactly these positions.
    public func commit(_ offsets: [KafkaPartitionOffset]) async throws(KafkaError) {
        let handle = self.handle
        try await executor.perform(on: handle, "commit offsets") { (pointer) throws(KafkaError) in
            let list = TopicPartitionList(offsets)
            try KafkaError.check(rd_kafka_commit(pointer, list.pointer, 0), "commit \(offsets)")
            try list.checkElements("commit")
        }
    }

    /// The group's committed positions; nil where nothing is committed.
    public func committed(
        _ partitions: [KafkaTopicPartition], timeout: Duration? = nil
    ) async throws(KafkaError) -> [KafkaTopicPartition: Int64?] {
        let handle = self.handle
        let timeout = timeout ?? configuration.client.requestTimeout
        return try await executor.perform(on: handle, "fetch committed offsets") {
            (_) throws(KafkaError) -> [KafkaTopicPartition: Int64?] in
            try handle.committedOffsets(partitions, timeout: timeout)
        }
    }

    /// The application's position in each of `partitions`: the offset of the next record
    /// ``poll(maxMessages:timeout:)`` hands over, past the transaction markers it never hands
    /// over (a commit or abort marker takes an offset, so the last record delivered is not
    /// always the partition's end). Partitions with no position yet are absent.
    public func positions(_ partitions: [KafkaTopicPartition]) throws(KafkaError) -> [KafkaTopicPartition: Int64] {
        let list = TopicPartitionList(partitions)
        let code = try handle.withPointer("read positions") { pointer in rd_kafka_position(pointer, list.pointer) }
        try KafkaError.check(code, "read positions")
        var positions: [KafkaTopicPartition: Int64] = [:]
        for element in list.elements where element.error == RD_KAFKA_RESP_ERR_NO_ERROR && element.offset >= 0 {
            positions[element.topicPartition] = element.offset
        }
        return positions
    }

    // MARK: Flow control

    /// The partitions currently assigned to this member.
    public func assignment() throws(KafkaError) -> [KafkaTopicPartition] {
        try handle.withPointer("read assignment") { (pointer) throws(KafkaError) in try Self.assignment(of: pointer) }
    }

    /// The assignment of the instance behind `pointer`, for callers that already hold it
    /// (a lease, or the closing instance to itself).
    static func assignment(of pointer: OpaquePointer) throws(KafkaError) -> [KafkaTopicPartition] {
        var raw: UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?
        try KafkaError.check(rd_kafka_assignment(pointer, &raw), "read assignment")
        guard let raw else { return [] }
        return TopicPartitionList(owning: raw).topicPartitions
    }

    /// Stops fetching from these partitions (e.g. while a downstream is slow) without leaving the group.
    public func pause(_ partitions: [KafkaTopicPartition]) throws(KafkaError) {
        try setPaused(partitions, true)
    }

    public func resume(_ partitions: [KafkaTopicPartition]) throws(KafkaError) {
        try setPaused(partitions, false)
    }

    private func setPaused(_ partitions: [KafkaTopicPartition], _ paused: Bool) throws(KafkaError) {
        let operation = paused ? "pause" : "resume"
        let list = TopicPartitionList(partitions)
        let code = try handle.withPointer(operation) { pointer in
            paused
                ? rd_kafka_pause_partitions(pointer, list.pointer)
                : rd_kafka_resume_partitions(pointer, list.pointer)
        }
        try KafkaError.check(code, "\(operation) \(partitions)")
        try list.checkElements(operation)
    }

    /// Moves the fetch position of assigned partitions.
    public func seek(_ offsets: [KafkaPartitionOffset], timeout: Duration = .seconds(10)) async throws(KafkaError) {
        let handle = self.handle
        return try await executor.perform(on: handle, "seek") { (pointer) throws(KafkaError) -> Void in
            let list = TopicPartitionList(offsets)
            try KafkaError.check(
                rd_kafka_seek_partitions(pointer, list.pointer, timeout.timeoutMilliseconds),
                "seek \(offsets)")
            try list.checkElements("seek")
            handle.callbacks.contiguity.withLock { $0.forget(offsets.map(\.topicPartition)) }
        }
    }

    /// Lag of this consumer's group on the given partitions (default: the
    /// current assignment), against end offsets verified by reading (see
    /// ``KafkaOffsetLookup``).
    public func lag(partitions: [KafkaTopicPartition]? = nil) async throws(KafkaError) -> [KafkaPartitionLag] {
        let partitions = if let partitions { partitions } else { try assignment() }
        let lookup = try KafkaOffsetLookup(
            configuration: configuration.client, groupID: configuration.groupID, logger: logger)
        do {
            let lag = try await lookup.lag(partitions)
            await lookup.close()
            return lag
        } catch {
            await lookup.close()
            throw error
        }
    }

    // MARK: Lifecycle

    /// Runs until the service group shuts down, then leaves the group cleanly.
    public func run() async throws {
        try? await gracefulShutdown()
        await close()
    }

    /// Commits finished work (through the final revoke), leaves the group and
    /// destroys the librdkafka instance; later calls fail with `destroyed`.
    /// Safe to call twice.
    public func close() async {
        await finishJoining()
        let handle = self.handle
        let logger = self.logger
        let queue = self.queue
        let subscribed = handle.callbacks.membership.withLock { $0.subscribed }
        let leaveTimeout = configuration.sessionTimeout
        await executor.run {
            // Calls in progress finish first; later ones fail with `_DESTROY`.
            handle.close { pointer in
                // Commit before leaving: once this member leaves, the group
                // rebalances and a later commit may be refused as stale.
                let committed = rd_kafka_commit(pointer, nil, 0)
                if committed != RD_KAFKA_RESP_ERR_NO_ERROR, committed != RD_KAFKA_RESP_ERR__NO_OFFSET {
                    logger.warning(
                        "commit before close: \(KafkaError(rawCode: committed, operation: "commit before close"))")
                }
                if subscribed { Self.leaveGroup(pointer, within: leaveTimeout, logger) }
                let code = rd_kafka_consumer_close(pointer)
                if code != RD_KAFKA_RESP_ERR_NO_ERROR {
                    logger.warning("consumer close: \(KafkaError(rawCode: code, operation: "close consumer"))")
                }
                queue.destroy()
            }
        }
    }
}

extension KafkaConsumer {
    /// Leaves the group before the consumer is closed: unsubscribes, then serves the
    /// revocation (and any assignment the group handed out while nobody polled) until
    /// nothing is assigned, up to `timeout`.
    ///
    /// librdkafka (2.5 to at least 2.8) aborts the process inside `rd_kafka_consumer_close`
    /// when, with cooperative rebalancing, an assignment arrives while the group terminates:
    /// `rd_kafka_cgrp_terminated: assert: !rd_kafka_assignment_in_progress` (librdkafka
    /// issues 4527 and 4792). Seen here once in 32 runs of `ConsumerGroupTests`: three
    /// members stop polling and close one after another, so each one's close serves the
    /// rebalance the previous one's leave started ("revoked", then "assigned []", then the
    /// abort). The workaround its maintainers give: unsubscribe, wait until nothing is
    /// assigned, then close. Records polled meanwhile are dropped unprocessed (their
    /// offsets are never stored), so the next owner reads them. Blocking: run on the
    /// consumer's executor.
    static func leaveGroup(_ pointer: OpaquePointer, within timeout: Duration, _ logger: Logger) {
        let code = rd_kafka_unsubscribe(pointer)
        guard code == RD_KAFKA_RESP_ERR_NO_ERROR else {
            logger.warning("unsubscribe before close: \(KafkaError(rawCode: code, operation: "unsubscribe"))")
            return
        }
        let deadline = ContinuousClock.now + timeout
        // Two polls in a row with nothing assigned: a queued assignment is served by the first.
        var emptyPolls = 0
        while emptyPolls < 2, ContinuousClock.now < deadline {
            if let message = rd_kafka_consumer_poll(pointer, 50) { rd_kafka_message_destroy(message) }
            guard let assigned = try? assignment(of: pointer) else { return }
            emptyPolls = assigned.isEmpty ? emptyPolls + 1 : 0
        }
        if emptyPolls < 2 {
            logger.warning("closing with partitions still assigned after \(timeout) of leaving the group")
        }
    }

    /// A member closed while its first join is under way leaves with a member
    /// id the coordinator has not finished admitting. Measured with the local
    /// broker (Tansu 0.6): after such a LeaveGroup the group never rebalances
    /// again, and the next instance (a Kubernetes rollout's replacement) gets
    /// no partitions at all, while a member killed mid-join is expired after
    /// the session timeout and one closed after its join leaves cleanly. So a
    /// consumer still joining first finishes the join, up to its session
    /// timeout, then leaves as a member. Records polled meanwhile are dropped
    /// unprocessed: their offsets are never stored, so the next owner reads them.
    func finishJoining() async {
        let membership = handle.callbacks.membership
        guard membership.withLock({ $0.subscribed && !$0.joined }) else { return }
        let deadline = ContinuousClock.now + configuration.sessionTimeout
        logger.info("closing while joining the group: finishing the join first, then leaving")
        while !membership.withLock({ $0.joined }), ContinuousClock.now < deadline {
            do {
                _ = try await poll(maxMessages: 1, timeout: .milliseconds(100))
            } catch {
                return
            }
        }
    }
}

/// Consumer batches as an async sequence.
public struct KafkaConsumerBatches: AsyncSequence, Sendable {
    public typealias Element = [KafkaConsumerMessage]
    let consumer: KafkaConsumer
    let maxMessages: Int
    let timeout: Duration

    public struct AsyncIterator: AsyncIteratorProtocol {
        let consumer: KafkaConsumer
        let maxMessages: Int
        let timeout: Duration

        public mutating func next() async throws -> [KafkaConsumerMessage]? {
            while !Task.isCancelled && !Task.isShuttingDownGracefully {
                let batch = try await consumer.poll(maxMessages: maxMessages, timeout: timeout)
                if !batch.isEmpty { return batch }
            }
            return nil
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(consumer: consumer, maxMessages: maxMessages, timeout: timeout)
    }
}

/// The handle's consumer queue (`rd_kafka_queue_get_consumer`), released
/// before the handle is destroyed.
final class ConsumerQueue: @unchecked Sendable {
    let pointer: OpaquePointer
    private let released = Locked(false)

    /// Call with a lease on the consumer (``RDKafkaHandle/withPointer(_:_:)``).
    init(consumerOf consumer: OpaquePointer) {
        pointer = rd_kafka_queue_get_consumer(consumer)
    }

    func destroy() {
        let first = released.withLock { released in
            defer { released = true }
            return !released
        }
        if first { rd_kafka_queue_destroy(pointer) }
    }

    deinit { destroy() }
}

/// Topic names by librdkafka topic handle, and header names seen, so consuming does not
/// build a new String for every record and header (a stage's record has several headers, and
/// most of their names are too long for a small string: one allocation each). Used only on
/// the consumer's serial executor.
final class ConsumedNameCache: @unchecked Sendable {
    private var names: [OpaquePointer: (name: String, cString: [CChar])] = [:]
    private var last: (topic: OpaquePointer, name: String, cString: [CChar])?
    /// In the order first seen; a topic's records carry their headers in one order, so the
    /// name at a header's own position is nearly always the one.
    private var headerNames: [(name: String, cString: [CChar])] = []
    /// Header names kept, at most: a producer sending ever new names gets new strings, not memory.
    static let headerNameLimit = 64

    /// The header name at `cString`, the String made once.
    func headerName(_ cString: UnsafePointer<CChar>, at index: Int) -> String {
        if index < headerNames.count, strcmp(headerNames[index].cString, cString) == 0 {
            return headerNames[index].name
        }
        if let known = headerNames.first(where: { strcmp($0.cString, cString) == 0 }) { return known.name }
        let name = String(cString: cString)
        if headerNames.count < Self.headerNameLimit { headerNames.append((name, Array(name.utf8CString))) }
        return name
    }

    func name(of topic: OpaquePointer?) -> String {
        guard let topic else { return "" }
        let current = rd_kafka_topic_name(topic)!
        // Topic handles are reference-counted by librdkafka; verify the cached
        // name in case a freed handle's address was reused for another topic.
        if let last, last.topic == topic, strcmp(last.cString, current) == 0 {
            return last.name
        }
        let entry: (name: String, cString: [CChar])
        if let cached = names[topic], strcmp(cached.cString, current) == 0 {
            entry = cached
        } else {
            let name = String(cString: current)
            entry = (name, Array(name.utf8CString))
            names[topic] = entry
        }
        last = (topic, entry.name, entry.cString)
        return entry.name
    }
}

/// librdkafka's rebalance callback, served inside `rd_kafka_consumer_poll`
/// (and `rd_kafka_consumer_close`) on the consumer's executor.
private let rebalanceCallback:
    @convention(c) (
        OpaquePointer?, rd_kafka_resp_err_t, UnsafeMutablePointer<rd_kafka_topic_partition_list_t>?,
        UnsafeMutableRawPointer?
    ) -> Void = { handle, code, partitions, opaque in
        guard let handle, let partitions, let callbacks = ClientCallbacks.from(opaque) else { return }
        let topicPartitions = TopicPartitionList(copying: partitions).topicPartitions
        let cooperative = callbacks.cooperativeRebalance
        switch code {
        case RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS:
            if let startingOffsets = callbacks.startingOffsets {
                // The application's own positions replace the group's committed offsets.
                let offsets = startingOffsets(topicPartitions)
                for index in 0..<Int(partitions.pointee.cnt) {
                    let element = partitions.pointee.elems[index]
                    let topicPartition = KafkaTopicPartition(
                        topic: String(cString: element.topic), partition: element.partition)
                    partitions.pointee.elems[index].offset = offsets[topicPartition] ?? KafkaConsumer.beginning
                }
            }
            if cooperative {
                if let error = rd_kafka_incremental_assign(handle, partitions) {
                    callbacks.report(KafkaError(consuming: error, operation: "assign partitions"))
                }
            } else {
                _ = rd_kafka_assign(handle, partitions)
            }
            callbacks.membership.withLock { $0.joined = true }
            callbacks.contiguity.withLock { $0.forget(topicPartitions) }
            callbacks.afterAssign?(topicPartitions)
            callbacks.logger.info("partitions assigned", metadata: ["partitions": "\(topicPartitions)"])
            callbacks.rebalanceSink.yield(.assigned(topicPartitions))
        case RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS:
            callbacks.beforeRevoke?()
            let lost = rd_kafka_assignment_lost(handle) != 0
            if !lost {
                // Commit finished work before the partitions move, so the next
                // owner does not process it again.
                let commit = rd_kafka_commit(handle, nil, 0)
                if commit != RD_KAFKA_RESP_ERR_NO_ERROR, commit != RD_KAFKA_RESP_ERR__NO_OFFSET {
                    callbacks.report(KafkaError(rawCode: commit, operation: "commit before revoke"))
                }
            }
            if cooperative {
                if let error = rd_kafka_incremental_unassign(handle, partitions) {
                    callbacks.report(KafkaError(consuming: error, operation: "revoke partitions"))
                }
            } else {
                _ = rd_kafka_assign(handle, nil)
            }
            callbacks.contiguity.withLock { $0.forget(topicPartitions) }
            callbacks.logger.info(
                lost ? "partitions lost" : "partitions revoked", metadata: ["partitions": "\(topicPartitions)"])
            callbacks.rebalanceSink.yield(lost ? .lost(topicPartitions) : .revoked(topicPartitions))
        default:
            callbacks.report(KafkaError(rawCode: code, operation: "rebalance"))
            _ = rd_kafka_assign(handle, nil)
        }
    }
