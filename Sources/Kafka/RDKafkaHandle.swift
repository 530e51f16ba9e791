internal import CRdkafka
import Logging

/// Owns one `rd_kafka_t` and the Swift object its C callbacks report to.
///
/// librdkafka calls log and error callbacks from its own threads and the rest
/// from whichever thread polls; they reach Swift through the handle's opaque
/// pointer, which points at ``ClientCallbacks``. The handle keeps that object
/// alive until after `rd_kafka_destroy`, so no callback can outlive it.
///
/// The pointer is reachable only through ``withPointer(_:_:)``, which holds a
/// lease for the call (see ``HandleLifecycle``): ``close(_:)`` refuses new
/// leases, waits for those held, and only then destroys the instance. So a
/// call racing a close either runs on a live instance or fails with
/// `_DESTROY`; it never touches freed memory. (swift-kafka-client routes
/// every call through a locked state machine for the same reason.)
final class RDKafkaHandle: @unchecked Sendable {
    enum Kind {
        case producer
        case consumer
    }

    /// Valid while a lease is held or before the first close.
    private let pointer: OpaquePointer
    let callbacks: ClientCallbacks
    let name: String
    private let lifecycle = HandleLifecycle()

    init(
        kind: Kind, properties: [String: String], callbacks: ClientCallbacks,
        configure: (OpaquePointer) -> Void = { _ in }
    ) throws(KafkaError) {
        let operation = "create Kafka \(kind) client"
        guard let conf = rd_kafka_conf_new() else {
            throw .client("rd_kafka_conf_new failed", operation: operation)
        }
        var errorText = [CChar](repeating: 0, count: 512)
        for (key, value) in properties.sorted(by: { $0.key < $1.key }) {
            let result = rd_kafka_conf_set(conf, key, value, &errorText, errorText.count)
            if result != RD_KAFKA_CONF_OK {
                rd_kafka_conf_destroy(conf)
                // librdkafka's text may quote the value it refused.
                let reason = KafkaConfiguration.redacting(String(cBuffer: errorText), properties: properties)
                throw .client(
                    "invalid property \(key)=\(KafkaConfiguration.displayValue(of: key, value)): \(reason)",
                    operation: operation)
            }
        }
        callbacks.protect(properties)
        rd_kafka_conf_set_opaque(conf, Unmanaged.passUnretained(callbacks).toOpaque())
        rd_kafka_conf_set_log_cb(conf, logCallback)
        rd_kafka_conf_set_error_cb(conf, errorCallback)
        if callbacks.statistics != nil { rd_kafka_conf_set_stats_cb(conf, statisticsCallback) }
        configure(conf)

        let type = kind == .producer ? RD_KAFKA_PRODUCER : RD_KAFKA_CONSUMER
        // rd_kafka_new takes ownership of conf on success only.
        guard let handle = rd_kafka_new(type, conf, &errorText, errorText.count) else {
            rd_kafka_conf_destroy(conf)
            throw .client(
                KafkaConfiguration.redacting(String(cBuffer: errorText), properties: properties), operation: operation)
        }
        self.pointer = handle
        self.callbacks = callbacks
        self.name = String(cString: rd_kafka_name(handle))
    }

    deinit {
        // Nothing can hold a lease here: every lease holder holds this object.
        close()
    }

    /// Runs `body` with the librdkafka instance, which cannot be destroyed
    /// until `body` returns; throws `_DESTROY` once the client is closing.
    /// Leases nest, and cost two uncontended lock round trips: take one per
    /// batch or blocking call, not per record.
    func withPointer<Result>(
        _ operation: @autoclosure () -> String, _ body: (OpaquePointer) throws(KafkaError) -> Result
    ) throws(KafkaError) -> Result {
        guard lifecycle.beginLease() else {
            throw .client("the client has been closed", operation: operation(), code: .destroyed)
        }
        defer { lifecycle.endLease() }
        return try body(pointer)
    }

    /// `body`'s result, or nil once the client is closing: for calls with a
    /// natural answer after close (nothing in flight, nothing to flush).
    func ifOpen<Result>(_ body: (OpaquePointer) -> Result) -> Result? {
        guard lifecycle.beginLease() else { return nil }
        defer { lifecycle.endLease() }
        return body(pointer)
    }

    /// Closes the client: refuses new calls (they fail with `_DESTROY`), waits
    /// for those in progress, runs `finalSteps` with the instance to itself
    /// (a consumer's last commit and group leave, a producer's purge), then
    /// destroys it. Blocking: call it on a ``BlockingExecutor``, never on the
    /// cooperative pool. A second call waits for the first to finish.
    func close(_ finalSteps: (OpaquePointer) -> Void = { _ in }) {
        guard lifecycle.beginClose() else { return }
        finalSteps(pointer)
        rd_kafka_destroy(pointer)
        lifecycle.finishClose()
    }

    /// Whether ``close(_:)`` has begun: calls now fail with `_DESTROY`.
    var isClosed: Bool { lifecycle.isClosing }

    /// The fatal error raised by this instance, if any (idempotent/transactional producers).
    func fatalError(operation: String) -> KafkaError? {
        ifOpen { Self.fatalError(of: $0, operation: operation) } ?? nil
    }

    /// The group's committed positions for these partitions (nil where it has
    /// committed nothing). Requires `group.id`; does not join the group. Blocking.
    func committedOffsets(
        _ partitions: [KafkaTopicPartition], timeout: Duration
    ) throws(KafkaError) -> [KafkaTopicPartition: Int64?] {
        let list = TopicPartitionList(partitions)
        try withPointer("fetch committed offsets") { (pointer) throws(KafkaError) in
            try KafkaError.check(
                rd_kafka_committed(pointer, list.pointer, timeout.timeoutMilliseconds), "fetch committed offsets")
        }
        var offsets: [KafkaTopicPartition: Int64?] = [:]
        for element in list.elements {
            offsets[element.topicPartition] = element.offset >= 0 ? element.offset : nil
        }
        return offsets
    }

    /// Asks the cluster for metadata: the cheapest round trip that proves the
    /// brokers are reachable (and that TLS/SASL work). Blocking.
    func metadata(topic: String?, timeout: Duration) throws(KafkaError) -> ClusterMetadata {
        let operation = topic.map { "fetch metadata for topic \($0)" } ?? "fetch cluster metadata"
        return try withPointer(operation) { (pointer) throws(KafkaError) -> ClusterMetadata in
            var result: UnsafePointer<rd_kafka_metadata>?
            var topicHandle: OpaquePointer?
            if let topic {
                topicHandle = rd_kafka_topic_new(pointer, topic, nil)
            }
            defer { if let topicHandle { rd_kafka_topic_destroy(topicHandle) } }
            let code = rd_kafka_metadata(
                pointer, topic == nil ? 1 : 0, topicHandle, &result, timeout.timeoutMilliseconds)
            try KafkaError.check(code, operation)
            guard let result else { throw .client("no metadata returned", operation: operation) }
            defer { rd_kafka_metadata_destroy(result) }
            return ClusterMetadata(result.pointee)
        }
    }
}

/// What a client's C callbacks report to. Shared by all callback threads.
final class ClientCallbacks: Sendable {
    let logger: Logger
    let errors: AsyncStream<KafkaError>
    private let errorSink: AsyncStream<KafkaError>.Continuation
    let rebalances: AsyncStream<KafkaRebalanceEvent>
    let rebalanceSink: AsyncStream<KafkaRebalanceEvent>.Continuation
    /// Sensitive property values, scrubbed from librdkafka's log and error
    /// texts: its `debug=conf` dump redacts only the properties it flags
    /// itself, not e.g. `sasl.oauthbearer.client.secret`.
    private let secrets = Locked<[String: String]>([:])
    /// Runs inside a consumer's revoke callback, before the final commit:
    /// a worker that publishes ahead of its commits waits there for its
    /// records in flight, so the next owner of a partition finds them.
    let beforeRevoke: (@Sendable () -> Void)?
    /// Runs inside a consumer's assign callback, once the partitions are
    /// assigned and before the poll that served it returns: a worker learns
    /// of every assignment before it decides on any record polled after it.
    let afterAssign: (@Sendable ([KafkaTopicPartition]) -> Void)?
    /// Runs inside a consumer's assign callback, before the partitions are assigned:
    /// where to start reading each (``KafkaConsumer/beginning`` for none stored), for an
    /// application that keeps its positions with its own state instead of the group's
    /// committed offsets. nil: the committed offsets (else `auto.offset.reset`).
    let startingOffsets: (@Sendable ([KafkaTopicPartition]) -> [KafkaTopicPartition: Int64])?
    /// Whether the group rebalances incrementally (`cooperative-sticky`, or
    /// KIP-848's `group.protocol=consumer`), known from the configuration.
    /// The rebalance callback must not ask `rd_kafka_rebalance_protocol()`:
    /// that is a request to librdkafka's main thread which, while the
    /// consumer closes, can answer NULL or never.
    let cooperativeRebalance: Bool
    /// Receives librdkafka's statistics every `statistics.interval.ms`, on the
    /// thread that polls; nil leaves the stats callback unset.
    let statistics: (@Sendable (KafkaStatistics) -> Void)?
    /// Whether this consumer subscribed to topics (a group member) and whether
    /// the group has since given it its first assignment (possibly empty):
    /// until then it is still joining (``KafkaConsumer/close()``).
    let membership = Locked<(subscribed: Bool, joined: Bool)>((false, false))
    /// Where each assigned partition's next record must start (a consumer's; see
    /// ``ContiguousOffsets``): forgotten by the rebalance callback as partitions move.
    let contiguity = Locked(ContiguousOffsets())

    init(
        logger: Logger, beforeRevoke: (@Sendable () -> Void)? = nil,
        afterAssign: (@Sendable ([KafkaTopicPartition]) -> Void)? = nil,
        startingOffsets: (@Sendable ([KafkaTopicPartition]) -> [KafkaTopicPartition: Int64])? = nil,
        cooperativeRebalance: Bool = false, statistics: (@Sendable (KafkaStatistics) -> Void)? = nil
    ) {
        self.logger = logger
        self.beforeRevoke = beforeRevoke
        self.afterAssign = afterAssign
        self.startingOffsets = startingOffsets
        self.cooperativeRebalance = cooperativeRebalance
        self.statistics = statistics
        (errors, errorSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(256))
        (rebalances, rebalanceSink) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(256))
    }

    func protect(_ properties: [String: String]) {
        let sensitive = properties.filter { KafkaConfiguration.isSensitive($0.key) }
        if !sensitive.isEmpty { secrets.withLock { $0.merge(sensitive) { $1 } } }
    }

    /// `text` without any sensitive value this client was configured with.
    func scrub(_ text: String) -> String {
        let secrets = self.secrets.withLock { $0 }
        return secrets.isEmpty ? text : KafkaConfiguration.redacting(text, properties: secrets)
    }

    func report(_ error: KafkaError) {
        if error.isFatal {
            logger.critical("\(error)")
        } else {
            logger.warning("\(error)")
        }
        errorSink.yield(error)
    }

    func finish() {
        errorSink.finish()
        rebalanceSink.finish()
    }

    static func from(_ opaque: UnsafeMutableRawPointer?) -> ClientCallbacks? {
        opaque.map { Unmanaged<ClientCallbacks>.fromOpaque($0).takeUnretainedValue() }
    }
}

/// Cluster metadata copied out of librdkafka's structure.
struct ClusterMetadata: Sendable {
    struct Topic: Sendable {
        var name: String
        var partitions: [KafkaPartitionDescription]
        var error: KafkaError?
    }

    var brokers: [(id: Int32, host: String, port: Int32)]
    var topics: [Topic]

    init(_ metadata: rd_kafka_metadata) {
        brokers = (0..<Int(metadata.broker_cnt)).map { index in
            let broker = metadata.brokers[index]
            return (broker.id, String(cString: broker.host), broker.port)
        }
        topics = (0..<Int(metadata.topic_cnt)).map { index in
            let topic = metadata.topics[index]
            let name = String(cString: topic.topic)
            let partitions = (0..<Int(topic.partition_cnt)).map { partitionIndex in
                let partition = topic.partitions[partitionIndex]
                return KafkaPartitionDescription(
                    id: partition.id, leader: partition.leader,
                    replicas: (0..<Int(partition.replica_cnt)).map { partition.replicas[$0] },
                    inSyncReplicas: (0..<Int(partition.isr_cnt)).map { partition.isrs[$0] })
            }
            let error =
                topic.err == RD_KAFKA_RESP_ERR_NO_ERROR
                ? nil : KafkaError(rawCode: topic.err, operation: "describe topic \(name)")
            return Topic(name: name, partitions: partitions, error: error)
        }
    }
}

/// Parses the statistics JSON and hands it on; returning 0 lets librdkafka free the text.
private let statisticsCallback:
    @convention(c) (OpaquePointer?, UnsafeMutablePointer<CChar>?, Int, UnsafeMutableRawPointer?)
        -> Int32 = { _, json, length, opaque in
            guard let json, let callbacks = ClientCallbacks.from(opaque), let handler = callbacks.statistics else {
                return 0
            }
            let bytes = UnsafeRawBufferPointer(start: json, count: length)
            if let statistics = KafkaStatistics(json: bytes) { handler(statistics) }
            return 0
        }

private let logCallback: @convention(c) (OpaquePointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Void =
    {
        handle, level, facility, text in
        guard let handle, let callbacks = ClientCallbacks.from(rd_kafka_opaque(handle)) else { return }
        let facility = facility.map { String(cString: $0) } ?? "?"
        let text = callbacks.scrub(text.map { String(cString: $0) } ?? "")
        // syslog levels: 0-3 error, 4 warning, 5 notice, 6 info, 7 debug.
        let swiftLevel: Logger.Level =
            switch level {
            case ...3: .error
            case 4: .warning
            case 5: .notice
            case 6: .info
            default: .debug
            }
        callbacks.logger.log(level: swiftLevel, "\(text)", metadata: ["librdkafka.facility": "\(facility)"])
    }

private let errorCallback:
    @convention(c) (OpaquePointer?, Int32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void = {
        handle, code, reason, opaque in
        guard let callbacks = ClientCallbacks.from(opaque) else { return }
        let rawCode = rd_kafka_resp_err_t(rawValue: code)
        var error = KafkaError(
            rawCode: rawCode, operation: "background connection",
            message: reason.map { callbacks.scrub(String(cString: $0)) })
        if rawCode == RD_KAFKA_RESP_ERR__FATAL, let handle,
            let fatal = RDKafkaHandle.fatalError(of: handle, operation: "background connection")
        {
            error = fatal
        }
        callbacks.report(error)
    }

extension RDKafkaHandle {
    fileprivate static func fatalError(of handle: OpaquePointer, operation: String) -> KafkaError? {
        var text = [CChar](repeating: 0, count: 512)
        let code = rd_kafka_fatal_error(handle, &text, text.count)
        guard code != RD_KAFKA_RESP_ERR_NO_ERROR else { return nil }
        return KafkaError(
            code: .init(rawValue: code.rawValue), name: String(cString: rd_kafka_err2name(code)),
            message: String(cBuffer: text), operation: operation, isFatal: true)
    }
}
