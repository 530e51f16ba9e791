internal import CRdkafka
import Synchronization

/// Collects the delivery reports of one batch of produced messages and
/// resumes the task awaiting them once every message is acknowledged or failed.
///
/// Built for the hot path: each message's librdkafka opaque points at its own
/// ``Slot`` in one buffer the batch owns, so tracking a message costs no
/// allocation, and the delivery callback writes only that slot and one atomic
/// counter; no lock, no reference counting per message. Reports are assembled
/// once, when the batch completes. The batch retains itself while any message
/// is in flight, so a report can never reach a freed batch.
final class DeliveryBatch: Sendable {
    struct Slot {
        var batch: Unmanaged<DeliveryBatch>
        var index: Int
        var partition: Int32 = -1
        var offset: Int64 = -1
        var error: rd_kafka_resp_err_t = RD_KAFKA_RESP_ERR_NO_ERROR
        var completed = false
        /// Never handed to librdkafka; its error is in `detailedErrors`.
        var refused = false
    }

    private struct Completion {
        var sealed = false
        var continuation: CheckedContinuation<Void, Never>?
    }

    private nonisolated(unsafe) let slots: UnsafeMutablePointer<Slot>
    private let count: Int
    private let pending = Atomic<Int>(0)
    private let completion = Locked(Completion())
    /// Errors with more detail than a code (refused before sending); rare.
    private let detailedErrors = Locked<[Int: KafkaError]>([:])
    /// The messages themselves (one reference, no copy), for report topics.
    let messages: [KafkaProducerMessage]
    private let failures = Atomic<Int>(0)

    init(messages: [KafkaProducerMessage]) {
        self.messages = messages
        self.count = messages.count
        self.slots = .allocate(capacity: max(count, 1))
        let unmanaged = Unmanaged.passUnretained(self)
        for index in 0..<count {
            (slots + index).initialize(to: Slot(batch: unmanaged, index: index))
        }
    }

    deinit {
        slots.deinitialize(count: count)
        slots.deallocate()
    }

    /// The opaque pointer to hand librdkafka for message `index`; call just
    /// before producing it. While messages are in flight the batch retains itself.
    func opaque(forEnqueuing index: Int) -> UnsafeMutableRawPointer {
        if pending.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue == 0 {
            _ = Unmanaged.passUnretained(self).retain()
        }
        return UnsafeMutableRawPointer(slots + index)
    }

    /// Undoes ``opaque(forEnqueuing:)`` for a message librdkafka refused for
    /// now (queue full) and that will be enqueued again.
    func rollBackEnqueueForRetry(_ index: Int) {
        finishOne()
    }

    /// Records that librdkafka refused a message it had been given an opaque for.
    func rollBackEnqueue(_ index: Int, _ error: KafkaError) {
        detailedErrors.withLock { $0[index] = error }
        slots[index].refused = true
        slots[index].completed = true
        failures.wrappingAdd(1, ordering: .relaxed)
        finishOne()
    }

    /// Called from librdkafka's delivery callback on the poll thread.
    func complete(_ index: Int, partition: Int32, offset: Int64, error: rd_kafka_resp_err_t) {
        slots[index].partition = partition
        slots[index].offset = offset
        slots[index].error = error
        slots[index].completed = true
        if error != RD_KAFKA_RESP_ERR_NO_ERROR { failures.wrappingAdd(1, ordering: .relaxed) }
        finishOne()
    }

    private func finishOne() {
        guard pending.wrappingSubtract(1, ordering: .acquiringAndReleasing).newValue == 0 else { return }
        let continuation = completion.withLock { completion in
            defer { completion.continuation = nil }
            return completion.sealed ? completion.continuation : nil
        }
        continuation?.resume()
        Unmanaged.passUnretained(self).release()
    }

    /// Waits until every enqueued message has its report.
    func waitForCompletion() async {
        await withCheckedContinuation { continuation in
            let done = completion.withLock { completion in
                completion.sealed = true
                if pending.load(ordering: .acquiring) == 0 { return true }
                completion.continuation = continuation
                return false
            }
            if done { continuation.resume() }
        }
    }

    var failureCount: Int { failures.load(ordering: .acquiring) }

    /// Whether every enqueued message has its report; valid once enqueuing is done.
    var isComplete: Bool { pending.load(ordering: .acquiring) == 0 }

    /// The result of message `index`; valid after ``waitForCompletion()``.
    func result(_ index: Int) -> Result<KafkaDeliveryReport, KafkaError> {
        let slot = slots[index]
        let topic = messages[index].topic
        if slot.completed, !slot.refused, slot.error == RD_KAFKA_RESP_ERR_NO_ERROR {
            return .success(KafkaDeliveryReport(topic: topic, partition: slot.partition, offset: slot.offset))
        }
        if let error = detailedErrors.withLock({ $0[index] }) { return .failure(error) }
        guard slot.completed else {
            return .failure(.client("no delivery report", operation: "produce to \(topic)", code: .state))
        }
        return .failure(KafkaError(rawCode: slot.error, operation: "deliver message to \(topic)"))
    }
}

/// The outcome of ``KafkaProducer/send(batch:)``: one result per message, in
/// input order, built on access from the batch's slots, so a large batch
/// costs no per-message allocation unless the caller looks at every report.
public struct KafkaDeliveryResults: RandomAccessCollection, Sendable {
    let batch: DeliveryBatch

    public var startIndex: Int { 0 }
    public var endIndex: Int { batch.messages.count }
    public subscript(position: Int) -> Result<KafkaDeliveryReport, KafkaError> { batch.result(position) }

    /// How many messages failed; O(1).
    public var failureCount: Int { batch.failureCount }
    public var allSucceeded: Bool { failureCount == 0 }

    /// The errors of the failed messages.
    public var failures: [KafkaError] {
        guard failureCount > 0 else { return [] }
        return compactMap { if case .failure(let error) = $0 { error } else { nil } }
    }
}

/// librdkafka's delivery report callback, served on the producer's poll thread.
let deliveryReportCallback:
    @convention(c) (OpaquePointer?, UnsafePointer<rd_kafka_message_t>?, UnsafeMutableRawPointer?) -> Void = {
        _, message, _ in
        guard let message, let opaque = message.pointee._private else { return }
        let slot = opaque.assumingMemoryBound(to: DeliveryBatch.Slot.self)
        slot.pointee.batch.takeUnretainedValue().complete(
            slot.pointee.index, partition: message.pointee.partition, offset: message.pointee.offset,
            error: message.pointee.err)
    }
