internal import CRdkafka
import Foundation
public import Logging
public import ServiceLifecycle

/// Produces records and reports, per record, where it was stored or why not.
///
/// Idempotent with `acks=all` by default. ``send(_:)`` and ``send(batch:)``
/// return only once the broker acknowledged (or refused) every record, which
/// is what a worker needs before it commits its input offsets. Delivery
/// reports are served by a dedicated poll thread, so awaiting them costs no
/// polling sleep. As a `Service` it flushes everything still in flight when
/// the service group shuts down.
///
/// A fatal error, or a broker rejecting the producer's identity (fenced, out
/// of sequence, which the local broker does after an outage), makes a
/// librdkafka instance unusable for good. The records of the batch that hit it fail; the producer then
/// replaces the instance, so a caller that retries the batch, as workers do,
/// carries on. Exactly-once effects never rest on one producer id: consumers
/// de-duplicate by event id.
public final class KafkaProducer: Service, Sendable {
    public let configuration: KafkaProducerConfiguration
    private let callbacks: ClientCallbacks
    private let current: Locked<ProducerInstance>
    private let executor: BlockingExecutor
    private let logger: Logger

    /// Errors librdkafka reports in the background (broker down, authentication
    /// failed, fatal idempotence violations). Sends fail on their own; this
    /// stream is for monitoring and for noticing connectivity problems early.
    public var errors: AsyncStream<KafkaError> { callbacks.errors }

    public init(configuration: KafkaProducerConfiguration, logger: Logger) throws(KafkaError) {
        self.configuration = configuration
        self.logger = logger
        callbacks = ClientCallbacks(logger: logger)
        let instance = try ProducerInstance(configuration: configuration, callbacks: callbacks)
        current = Locked(instance)
        executor = BlockingExecutor(label: "\(instance.handle.name)-blocking")
    }

    deinit {
        current.withLock { $0 }.pollThread.stopAndWait()
        callbacks.finish()
    }

    private var instance: ProducerInstance { current.withLock { $0 } }

    /// Swaps in a new librdkafka instance when `instance` has failed fatally
    /// or the broker rejected its producer identity.
    private func replaceIfFatal(_ instance: ProducerInstance, failures: [KafkaError] = []) {
        guard
            let fatal = instance.handle.fatalError(operation: "produce")
                ?? failures.first(where: { $0.code.isProducerIdentityRejected })
        else { return }
        let replaced: Bool
        do {
            let fresh = try ProducerInstance(configuration: configuration, callbacks: callbacks)
            replaced = current.withLock { current in
                guard current === instance else { return false }
                current = fresh
                return true
            }
        } catch {
            logger.critical("could not replace failed producer instance", metadata: ["error": "\(error)"])
            return
        }
        guard replaced else { return }
        logger.error("replaced the producer instance after a fatal error", metadata: ["error": "\(fatal)"])
        let executor = self.executor
        Task { await executor.run { instance.retire() } }
    }

    /// Produces one record and waits for the broker's acknowledgement.
    @discardableResult
    public func send(_ message: KafkaProducerMessage) async throws(KafkaError) -> KafkaDeliveryReport {
        try await send(batch: [message])[0].get()
    }

    /// Produces records (librdkafka batches them per partition) and waits until
    /// each is acknowledged or failed. Results are in input order. Records with
    /// the same key keep their relative order.
    public func send(batch messages: [KafkaProducerMessage]) async -> KafkaDeliveryResults {
        await enqueue(batch: messages).results()
    }

    /// Hands records to librdkafka and returns without waiting for the broker:
    /// a worker encodes its next batch while this one is acknowledged. Records
    /// enqueued by one caller, one call after another, keep that order per
    /// partition. Suspends only while librdkafka's local queue is full.
    public func enqueue(batch messages: [KafkaProducerMessage]) async -> KafkaPendingDelivery {
        var instance = self.instance
        replaceIfFatal(instance)
        instance = self.instance
        let batch = DeliveryBatch(messages: messages)
        var next = 0
        // Hand messages to librdkafka in a tight synchronous loop; suspend only
        // when its local queue is full, until delivery reports free space.
        while let refused = enqueue(messages, from: next, batch: batch, on: instance) {
            next = refused
            // Resume once the queue has drained to half its capacity: one
            // suspension per half-queue of deliveries, not one per report burst.
            await instance.pollThread.waitUntilQueued(below: instance.lowWaterMark)
        }
        return KafkaPendingDelivery(producer: self, instance: instance, batch: batch)
    }

    /// Called once a pending delivery completed: a failed batch may mean the
    /// instance must be replaced before the caller retries.
    fileprivate func completed(_ results: KafkaDeliveryResults, on instance: ProducerInstance) {
        if !results.allSucceeded {
            replaceIfFatal(instance, failures: results.failures)
        }
    }

    /// Like ``send(batch:)`` but throws the first failure, for callers that
    /// treat any lost record as a failure of the whole batch.
    @discardableResult
    public func sendAll(_ messages: [KafkaProducerMessage]) async throws(KafkaError) -> [KafkaDeliveryReport] {
        var reports: [KafkaDeliveryReport] = []
        reports.reserveCapacity(messages.count)
        for result in await send(batch: messages) {
            reports.append(try result.get())
        }
        return reports
    }

    /// Enqueues `messages[start...]` under one lease on the instance; returns
    /// the index of the first message refused because the queue is full, or
    /// nil when all were handed over (or failed: a closed producer fails each
    /// with `_DESTROY`).
    private func enqueue(
        _ messages: [KafkaProducerMessage], from start: Int, batch: DeliveryBatch, on instance: ProducerInstance
    ) -> Int? {
        let refused = instance.handle.ifOpen { pointer in
            messages.withUnsafeBufferPointer { buffer -> Int? in
                for index in start..<buffer.count {
                    let opaque = batch.opaque(forEnqueuing: index)
                    guard let error = produce(buffer[index], opaque: opaque, handle: pointer) else { continue }
                    if error.code == .queueFull {
                        batch.rollBackEnqueueForRetry(index)
                        return index
                    }
                    batch.rollBackEnqueue(index, error)
                }
                return nil
            }
        }
        guard let refused else {
            let closed = KafkaError.client("the producer has been shut down", operation: "produce", code: .destroyed)
            for index in start..<messages.count {
                _ = batch.opaque(forEnqueuing: index)
                batch.rollBackEnqueue(index, closed)
            }
            return nil
        }
        return refused
    }

    /// Hands one record to librdkafka. Never blocks; copies key, value and headers.
    private func produce(
        _ message: KafkaProducerMessage, opaque: UnsafeMutableRawPointer, handle: OpaquePointer
    ) -> KafkaError? {
        // The operation text is built only on failure: this runs per message.
        if message.headers.count > 64 {
            return .client("at most 64 headers per message", operation: "produce to \(message.topic)")
        }
        let timestamp = message.timestamp.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) } ?? 0
        let partition = message.partition ?? RD_KAFKA_PARTITION_UA
        let error: OpaquePointer? = message.key.withOptionalBytes { key in
            message.value.withOptionalBytes { value in
                withHeaderArrays(message.headers) { names, values, lengths, count in
                    intent_rd_kafka_produce(
                        handle, message.topic, partition,
                        key?.baseAddress, key?.count ?? 0,
                        value?.baseAddress, value?.count ?? 0,
                        names, values, lengths, count,
                        timestamp, opaque)
                }
            }
        }
        return error.map { KafkaError(consuming: $0, operation: "produce to \(message.topic)") }
    }

    /// Waits until every queued record is delivered or failed, at most `timeout`.
    public func flush(timeout: Duration = .seconds(30)) async throws(KafkaError) {
        let handle = instance.handle
        let result = try await executor.perform(on: handle, "flush producer") {
            rd_kafka_flush($0, timeout.timeoutMilliseconds)
        }
        try KafkaError.check(result, "flush producer")
    }

    /// Blocks the calling thread until every queued record is delivered or
    /// failed, at most `timeout`: for a consumer's revoke callback
    /// (`KafkaConsumer(beforeRevoke:)`), which runs on a thread that may block,
    /// never on the cooperative pool. Returns false on time-out.
    @discardableResult
    public func waitForDeliveries(timeout: Duration) -> Bool {
        let result = instance.handle.ifOpen { rd_kafka_flush($0, timeout.timeoutMilliseconds) }
        return (result ?? RD_KAFKA_RESP_ERR_NO_ERROR) == RD_KAFKA_RESP_ERR_NO_ERROR
    }

    /// Records produced but not yet acknowledged; 0 once shut down.
    public var inFlightCount: Int { instance.handle.ifOpen { Int(rd_kafka_outq_len($0)) } ?? 0 }

    /// Checks that the cluster answers, failing within `timeout` with a clear
    /// error instead of librdkafka's silent background retries.
    public func checkConnectivity(timeout: Duration? = nil) async throws(KafkaError) {
        let handle = instance.handle
        let timeout = timeout ?? configuration.client.requestTimeout
        try await executor.perform(on: handle, "check connectivity") { (_) throws(KafkaError) in
            _ = try handle.metadata(topic: nil, timeout: timeout)
        }
    }

    /// Runs until the service group shuts down, then flushes records in flight.
    public func run() async throws {
        try? await gracefulShutdown()
        await shutdown()
    }

    /// Flushes what is in flight, stops the poll thread and destroys the
    /// librdkafka instance; later sends fail with `destroyed`. Safe to call twice.
    public func shutdown(flushTimeout: Duration = .seconds(30)) async {
        let instance = self.instance
        // Shut down already: nothing to flush, nothing to close.
        guard !instance.handle.isClosed else { return }
        do {
            try await flush(timeout: flushTimeout)
        } catch {
            logger.error("producer shut down with undelivered records", metadata: ["error": "\(error)"])
        }
        await executor.run { instance.retire() }
    }

    // MARK: Transactions

    /// Registers the transactional id with the coordinator and fences older
    /// instances. Requires ``KafkaProducerConfiguration/transactionalID``.
    public func initTransactions(timeout: Duration = .seconds(30)) async throws(KafkaError) {
        try await transactionCall { (producer) throws(KafkaError) in
            try KafkaError.check(
                rd_kafka_init_transactions(producer, timeout.timeoutMilliseconds), "initialize transactions")
        }
    }

    public func beginTransaction() async throws(KafkaError) {
        try await transactionCall { (producer) throws(KafkaError) in
            try KafkaError.check(rd_kafka_begin_transaction(producer), "begin transaction")
        }
    }

    /// Adds the consumer's offsets to the transaction, so they commit atomically with its records.
    public func sendOffsetsToTransaction(
        _ offsets: [KafkaPartitionOffset], consumer: KafkaConsumer, timeout: Duration = .seconds(30)
    ) async throws(KafkaError) {
        let consumerHandle = consumer.handle
        let operation = "send offsets to transaction"
        try await transactionCall { (producer) throws(KafkaError) in
            let list = TopicPartitionList(offsets)
            guard let metadata = try consumerHandle.withPointer(operation, { rd_kafka_consumer_group_metadata($0) })
            else {
                throw .client("consumer has no group metadata", operation: operation, code: .state)
            }
            defer { rd_kafka_consumer_group_metadata_destroy(metadata) }
            try KafkaError.check(
                rd_kafka_send_offsets_to_transaction(producer, list.pointer, metadata, timeout.timeoutMilliseconds),
                operation)
        }
    }

    public func commitTransaction(timeout: Duration = .seconds(30)) async throws(KafkaError) {
        try await transactionCall { (producer) throws(KafkaError) in
            try KafkaError.check(
                rd_kafka_commit_transaction(producer, timeout.timeoutMilliseconds), "commit transaction")
        }
    }

    public func abortTransaction(timeout: Duration = .seconds(30)) async throws(KafkaError) {
        try await transactionCall { (producer) throws(KafkaError) in
            try KafkaError.check(rd_kafka_abort_transaction(producer, timeout.timeoutMilliseconds), "abort transaction")
        }
    }

    private func transactionCall(
        _ call: @escaping @Sendable (OpaquePointer) throws(KafkaError) -> Void
    ) async throws(KafkaError) {
        let handle = instance.handle
        try await executor.perform(on: handle, "transaction") { (pointer) throws(KafkaError) in try call(pointer) }
    }
}

/// One librdkafka producer and the thread serving its delivery reports.
final class ProducerInstance: Sendable {
    let handle: RDKafkaHandle
    let pollThread: PollThread
    /// When the local queue is full, enqueueing resumes below this many messages.
    let lowWaterMark: Int

    init(configuration: KafkaProducerConfiguration, callbacks: ClientCallbacks) throws(KafkaError) {
        let capacity = configuration.librdkafkaProperties["queue.buffering.max.messages"].flatMap(Int.init) ?? 100_000
        lowWaterMark = max(1, capacity / 2)
        handle = try RDKafkaHandle(
            kind: .producer, properties: configuration.librdkafkaProperties, callbacks: callbacks
        ) { conf in
            rd_kafka_conf_set_dr_msg_cb(conf, deliveryReportCallback)
        }
        pollThread = PollThread(handle: handle, name: "\(handle.name)-poll")
    }

    /// Closes the instance: sends in progress finish handing over their
    /// records, later ones fail with `_DESTROY`; whatever is still queued
    /// fails with a purge error (so no awaiting task hangs), then callbacks
    /// stop and the instance is destroyed. Blocking.
    func retire() {
        handle.close { pointer in
            rd_kafka_purge(pointer, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT)
            // Serves the purged records' delivery reports.
            _ = rd_kafka_flush(pointer, 5000)
        }
        pollThread.stopAndWait()
    }
}

extension Optional where Wrapped == [UInt8] {
    /// Calls `body` with the bytes, or with nil (a Kafka null) when there are none.
    func withOptionalBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>?) -> Result) -> Result {
        switch self {
        case .none: return body(nil)
        case .some(let bytes):
            // An empty array may have no base address, but empty is not null in Kafka.
            if bytes.isEmpty {
                return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1) {
                    body(UnsafeBufferPointer(rebasing: $0[0..<0]))
                }
            }
            return bytes.withUnsafeBufferPointer { body($0) }
        }
    }
}

/// Lays headers out as the parallel C arrays `intent_rd_kafka_produce` takes.
///
/// Every produced record passes here (a stage's record carries its CloudEvents, signature
/// and chain headers), so the names and values are copied into one scratch buffer and the
/// three arrays are scratch too (`withUnsafeTemporaryAllocation`: on the stack at these
/// sizes), sized exactly beforehand: no heap allocation and no regrowth per record.
/// librdkafka copies them all before the call returns.
private func withHeaderArrays<Result>(
    _ headers: [KafkaHeader],
    _ body: (
        UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<UnsafeRawPointer?>?, UnsafePointer<Int>?, Int
    ) -> Result
) -> Result {
    if headers.isEmpty { return body(nil, nil, nil, 0) }
    var bytes = 0
    for header in headers { bytes += header.key.utf8.count + 1 + (header.value?.count ?? 0) }
    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes) { storage in
        withUnsafeTemporaryAllocation(of: UnsafePointer<CChar>?.self, capacity: headers.count) { names in
            withUnsafeTemporaryAllocation(of: UnsafeRawPointer?.self, capacity: headers.count) { values in
                withUnsafeTemporaryAllocation(of: Int.self, capacity: headers.count) { lengths in
                    let base = storage.baseAddress!
                    var offset = 0
                    for (index, header) in headers.enumerated() {
                        names.initializeElement(
                            at: index, to: UnsafeRawPointer(base + offset).assumingMemoryBound(to: CChar.self))
                        for byte in header.key.utf8 {
                            storage.initializeElement(at: offset, to: byte)
                            offset += 1
                        }
                        storage.initializeElement(at: offset, to: 0)
                        offset += 1
                        guard let value = header.value else {
                            values.initializeElement(at: index, to: nil)
                            lengths.initializeElement(at: index, to: -1)
                            continue
                        }
                        values.initializeElement(at: index, to: UnsafeRawPointer(base + offset))
                        lengths.initializeElement(at: index, to: value.count)
                        value.withUnsafeBufferPointer { value in
                            if let source = value.baseAddress {
                                (base + offset).initialize(from: source, count: value.count)
                            }
                        }
                        offset += value.count
                    }
                    return body(
                        UnsafePointer(names.baseAddress), UnsafePointer(values.baseAddress),
                        UnsafePointer(lengths.baseAddress), headers.count)
                }
            }
        }
    }
}

/// Records handed to librdkafka whose acknowledgements are still to come
/// (``KafkaProducer/enqueue(batch:)``).
public struct KafkaPendingDelivery: Sendable {
    fileprivate let producer: KafkaProducer
    fileprivate let instance: ProducerInstance
    fileprivate let batch: DeliveryBatch

    /// Whether every record is acknowledged or failed, without waiting.
    public var isComplete: Bool { batch.isComplete }

    /// Waits until every record is acknowledged or failed; results in input
    /// order. Call once per delivery.
    public func results() async -> KafkaDeliveryResults {
        await batch.waitForCompletion()
        let results = KafkaDeliveryResults(batch: batch)
        producer.completed(results, on: instance)
        return results
    }
}
