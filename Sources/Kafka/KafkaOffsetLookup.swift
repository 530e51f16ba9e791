internal import CRdkafka
public import Foundation
public import Logging

/// The first offset at or after a point in time, per partition.
public struct KafkaTimestampOffset: Sendable, Hashable {
    public enum Source: String, Sendable, Hashable {
        /// The broker's time index answered and the answer checked out.
        case broker
        /// The broker's answer was wrong or missing; found by reading timestamps.
        case scan
    }

    public var offset: KafkaPartitionOffset
    public var source: Source
}

/// A partition's log bounds.
public struct KafkaWatermarks: Sendable, Hashable {
    /// Oldest retained offset.
    public var low: Int64
    /// Offset after the newest record, verified by reading.
    public var high: Int64
    /// What the broker answered for the high watermark; differs from ``high``
    /// on brokers that report the last batch's base offset (the local one does).
    public var reportedHigh: Int64
}

/// Offset questions answered without trusting the broker blindly.
///
/// Some brokers answer offset queries wrongly: the local broker (Tansu 0.6)
/// answers `offsets_for_times` with 0 and reports a high watermark of "last
/// batch's base offset + 1". So every answer here is checked by reading
/// records: end offsets by reading from the reported end to the real end,
/// timestamp offsets by reading the record at and just before the answer,
/// falling back to scanning the partition's timestamps (linear, but right
/// even when timestamps are not monotonic).
///
/// Uses its own group-less consumer (assignments only, it never joins a
/// group). With a `groupID` it can also read that group's committed offsets.
public final class KafkaOffsetLookup: Sendable {
    private let handle: RDKafkaHandle
    private let executor: BlockingExecutor
    private let timeout: Duration

    public init(configuration: KafkaConfiguration, groupID: String? = nil, logger: Logger) throws(KafkaError) {
        var properties = configuration.librdkafkaProperties
        properties["enable.auto.commit"] = "false"
        properties["enable.auto.offset.store"] = "false"
        properties["enable.partition.eof"] = "true"
        // Looking up a topic must not create it.
        properties["allow.auto.create.topics"] = "false"
        // Reads here stop at the end of the log; let the broker answer an
        // empty fetch at once instead of holding it for new records.
        properties["fetch.wait.max.ms"] = "10"
        properties["group.id"] = groupID ?? "intent-pipeline-offset-lookup"
        handle = try RDKafkaHandle(kind: .consumer, properties: properties, callbacks: ClientCallbacks(logger: logger))
        try handle.withPointer("create offset lookup") { (pointer) throws(KafkaError) in
            try KafkaError.check(rd_kafka_poll_set_consumer(pointer), "route events to consumer queue")
        }
        executor = BlockingExecutor(label: "\(handle.name)-offset-lookup")
        timeout = configuration.requestTimeout
    }

    deinit {
        handle.callbacks.finish()
    }

    /// Runs `body` with a new lookup and closes it afterwards, whether `body` returns or throws.
    public static func with<Result>(
        configuration: KafkaConfiguration, logger: Logger, _ body: (KafkaOffsetLookup) async throws -> Result
    ) async throws -> Result {
        let lookup = try KafkaOffsetLookup(configuration: configuration, logger: logger)
        do {
            let result = try await body(lookup)
            await lookup.close()
            return result
        } catch {
            await lookup.close()
            throw error
        }
    }

    /// How many partitions `topic` has (publishers that place records by user need it).
    public static func partitionCount(
        of topic: String, configuration: KafkaConfiguration, logger: Logger
    ) async throws -> Int {
        try await with(configuration: configuration, logger: logger) { try await $0.partitions(of: topic).count }
    }

    /// Destroys the librdkafka instance. Safe to call twice.
    public func close() async {
        let handle = self.handle
        await executor.run { handle.close { rd_kafka_consumer_close($0) } }
    }

    /// Every partition of a topic with its verified bounds: where reading the whole topic ends.
    public func bounds(of topic: String) async throws(KafkaError) -> [KafkaTopicPartition: KafkaWatermarks] {
        try await watermarks(partitions(of: topic))
    }

    /// The partitions of a topic.
    public func partitions(of topic: String) async throws(KafkaError) -> [KafkaTopicPartition] {
        try await run { (reader) throws(KafkaError) in try reader.partitions(of: topic) }
    }

    /// Low and verified high watermarks.
    public func watermarks(_ partitions: [KafkaTopicPartition]) async throws(KafkaError) -> [KafkaTopicPartition:
        KafkaWatermarks]
    {
        try await run { (reader) throws(KafkaError) in
            var result: [KafkaTopicPartition: KafkaWatermarks] = [:]
            for partition in partitions {
                result[partition] = try reader.watermarks(partition)
            }
            return result
        }
    }

    /// The group's committed positions (nil where it has committed nothing).
    /// Requires the `groupID` this lookup was made with.
    public func committed(_ partitions: [KafkaTopicPartition]) async throws(KafkaError) -> [KafkaTopicPartition: Int64?]
    {
        try await run { (reader) throws(KafkaError) in try reader.committed(partitions) }
    }

    /// How far the group's committed offsets trail the verified ends of the partitions.
    public func lag(_ partitions: [KafkaTopicPartition]) async throws(KafkaError) -> [KafkaPartitionLag] {
        try await run { (reader) throws(KafkaError) in
            let committed = try reader.committed(partitions)
            return try partitions.map { (partition) throws(KafkaError) in
                let watermarks = try reader.watermarks(partition)
                return KafkaPartitionLag(
                    topicPartition: partition, committedOffset: committed[partition] ?? nil,
                    lowWatermark: watermarks.low, highWatermark: watermarks.high)
            }
        }
    }

    /// For each partition of `topic`: the offset of the first record whose
    /// timestamp is at or after `time`, or the end offset when there is none.
    public func offsets(topic: String, at time: Date) async throws(KafkaError) -> [KafkaTimestampOffset] {
        try await run { (reader) throws(KafkaError) in try reader.offsets(topic: topic, at: time) }
    }

    private func run<Result: Sendable>(
        _ body: @escaping @Sendable (PartitionReader) throws(KafkaError) -> Result
    ) async throws(KafkaError) -> Result {
        let handle = self.handle
        let timeout = self.timeout
        return try await executor.perform(on: handle, "offset lookup") { (pointer) throws(KafkaError) -> Result in
            try body(PartitionReader(pointer: pointer, handle: handle, timeout: timeout))
        }
    }
}

/// The blocking work of ``KafkaOffsetLookup``, run on its executor with a
/// lease on the client: `pointer` is valid for the reader's whole life.
private struct PartitionReader {
    let pointer: OpaquePointer
    let handle: RDKafkaHandle
    let timeout: Duration

    func partitions(of topic: String) throws(KafkaError) -> [KafkaTopicPartition] {
        let metadata = try handle.metadata(topic: topic, timeout: timeout)
        guard let description = metadata.topics.first(where: { $0.name == topic }) else {
            throw .client("topic \(topic) not found", operation: "look up partitions", code: .unknownTopicOrPartition)
        }
        if let error = description.error { throw error }
        return description.partitions.map { KafkaTopicPartition(topic: topic, partition: $0.id) }
    }

    func committed(_ partitions: [KafkaTopicPartition]) throws(KafkaError) -> [KafkaTopicPartition: Int64?] {
        try handle.committedOffsets(partitions, timeout: timeout)
    }

    func watermarks(_ partition: KafkaTopicPartition) throws(KafkaError) -> KafkaWatermarks {
        var low: Int64 = 0
        var high: Int64 = 0
        try KafkaError.check(
            rd_kafka_query_watermark_offsets(
                pointer, partition.topic, partition.partition, &low, &high, timeout.timeoutMilliseconds),
            "query watermarks of \(partition)")
        guard high > low else { return KafkaWatermarks(low: low, high: high, reportedHigh: high) }
        // Read from the last record the broker admits to until the end of the log.
        let tail = try records(in: partition, from: high - 1, count: .max)
        let verified = max(high, (tail.last?.offset ?? high - 1) + 1)
        return KafkaWatermarks(low: low, high: verified, reportedHigh: high)
    }

    func offsets(topic: String, at time: Date) throws(KafkaError) -> [KafkaTimestampOffset] {
        let milliseconds = Int64((time.timeIntervalSince1970 * 1000).rounded(.up))
        let query = TopicPartitionList(try partitions(of: topic), offset: milliseconds)
        try KafkaError.check(
            rd_kafka_offsets_for_times(pointer, query.pointer, timeout.timeoutMilliseconds),
            "offsets for times on \(topic)")
        return try query.elements.map { (element) throws(KafkaError) in
            let bounds = try watermarks(element.topicPartition)
            let candidate = element.error == RD_KAFKA_RESP_ERR_NO_ERROR ? element.offset : nil
            if let candidate,
                try isFirst(atOrAfter: milliseconds, offset: candidate, in: element.topicPartition, bounds)
            {
                return KafkaTimestampOffset(
                    offset: position(element.topicPartition, candidate < 0 ? bounds.high : candidate), source: .broker)
            }
            let scanned = try firstOffset(atOrAfter: milliseconds, in: element.topicPartition, bounds)
            return KafkaTimestampOffset(offset: position(element.topicPartition, scanned), source: .scan)
        }
    }

    private func position(_ partition: KafkaTopicPartition, _ offset: Int64) -> KafkaPartitionOffset {
        KafkaPartitionOffset(topic: partition.topic, partition: partition.partition, offset: offset)
    }

    /// True when `offset` (or -1 for "end") is the correct answer for `time`.
    private func isFirst(
        atOrAfter time: Int64, offset: Int64, in partition: KafkaTopicPartition, _ bounds: KafkaWatermarks
    ) throws(KafkaError) -> Bool {
        let position = offset < 0 ? bounds.high : offset
        guard position >= bounds.low, position <= bounds.high else { return false }
        if position < bounds.high {
            guard let record = try records(in: partition, from: position, count: 1).first,
                record.offset == position, record.time >= time
            else { return false }
        }
        if position > bounds.low {
            guard let previous = try records(in: partition, from: position - 1, count: 1).first,
                previous.offset == position - 1, previous.time < time
            else { return false }
        }
        return true
    }

    private func firstOffset(
        atOrAfter time: Int64, in partition: KafkaTopicPartition, _ bounds: KafkaWatermarks
    ) throws(KafkaError) -> Int64 {
        guard bounds.low < bounds.high else { return bounds.high }
        for record in try records(in: partition, from: bounds.low, count: Int(bounds.high - bounds.low))
        where record.time >= time {
            return record.offset
        }
        return bounds.high
    }

    /// Offsets and timestamps of up to `count` records from `offset`, stopping at the end of the partition.
    private func records(
        in partition: KafkaTopicPartition, from offset: Int64, count: Int
    ) throws(KafkaError) -> [(offset: Int64, time: Int64)] {
        let assignment = TopicPartitionList([position(partition, offset)])
        let assign = { () throws(KafkaError) in
            try KafkaError.check(rd_kafka_assign(pointer, assignment.pointer), "assign \(partition)")
        }
        try assign()
        defer { _ = rd_kafka_assign(pointer, nil) }
        var records: [(offset: Int64, time: Int64)] = []
        let deadline = ContinuousClock.now + timeout
        var lastProgress = ContinuousClock.now
        while records.count < count {
            guard ContinuousClock.now < deadline else {
                throw .client(
                    "reading \(partition) from \(offset) took longer than \(timeout)", operation: "read offsets",
                    code: .timedOut)
            }
            guard let raw = rd_kafka_consumer_poll(pointer, 100) else {
                // Each read re-assigns the one partition it reads. Under load
                // (CI, many brokers on two cores) a read was seen to get
                // nothing at all until its timeout. An answer (records or end
                // of log) takes milliseconds on a healthy broker, so after
                // three silent seconds assign again rather than keep waiting.
                if ContinuousClock.now - lastProgress > .seconds(3) {
                    _ = rd_kafka_assign(pointer, nil)
                    try assign()
                    lastProgress = ContinuousClock.now
                }
                continue
            }
            defer { rd_kafka_message_destroy(raw) }
            lastProgress = ContinuousClock.now
            let message = raw.pointee
            // Events of an earlier assignment may still be queued; skip them.
            guard message.partition == partition.partition,
                message.rkt.map({ String(cString: rd_kafka_topic_name($0)) }) == partition.topic
            else { continue }
            if message.err == RD_KAFKA_RESP_ERR__PARTITION_EOF { break }
            if message.err != RD_KAFKA_RESP_ERR_NO_ERROR {
                throw KafkaError(rawCode: message.err, operation: "read \(partition)")
            }
            guard message.offset >= offset else { continue }
            var type = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE
            records.append((message.offset, rd_kafka_message_timestamp(raw, &type)))
        }
        return records
    }
}
