internal import CRdkafka
import Synchronization

/// Collects the delivery reports of one batch of produced messages and
/// resumes the task awaiting them once every message is acknowledged or failed.
///
/// Each message's librdkafka opaque points at a ``Slot`` inside one buffer the
/// batch owns, so tracking a message costs no allocation. The batch retains
/// itself while any message is in flight, so a report can never arrive at a
/// freed batch.
final class DeliveryBatch: Sendable {
    struct Slot {
        var batch: Unmanaged<DeliveryBatch>
        var index: Int
    }

    private struct State {
        var results: [Result<KafkaDeliveryReport, KafkaError>?]
        var pending: Int
        var sealed = false
        var continuation: CheckedContinuation<Void, Never>?
    }

    private nonisolated(unsafe) let slots: UnsafeMutablePointer<Slot>
    private let count: Int
    private let state: Mutex<State>
    /// Topic of each message, so reports need not copy the name out of librdkafka.
    let topics: [String]

    init(topics: [String]) {
        let count = topics.count
        self.topics = topics
        self.count = count
        self.slots = .allocate(capacity: max(count, 1))
        self.state = Mutex(State(results: Array(repeating: nil, count: count), pending: 0))
        let unmanaged = Unmanaged.passUnretained(self)
        for index in 0..<count {
            (slots + index).initialize(to: Slot(batch: unmanaged, index: index))
        }
    }

    deinit {
        slots.deinitialize(count: count)
        slots.deallocate()
    }

    /// The opaque pointer to hand librdkafka for message `index`; call just before
    /// producing it. The first in-flight message retains the batch.
    func opaque(forEnqueuing index: Int) -> UnsafeMutableRawPointer {
        state.withLock { state in
            if state.pending == 0 { _ = Unmanaged.passUnretained(self).retain() }
            state.pending += 1
        }
        return UnsafeMutableRawPointer(slots + index)
    }

    /// Records that message `index` was never handed to librdkafka.
    func failBeforeEnqueue(_ index: Int, _ error: KafkaError) {
        state.withLock { $0.results[index] = .failure(error) }
    }

    /// Undoes ``opaque(forEnqueuing:)`` for a message librdkafka refused for now
    /// (queue full) and that will be enqueued again.
    func rollBackEnqueueForRetry(_ index: Int) {
        let release = state.withLock { state in
            state.pending -= 1
            return state.pending == 0
        }
        if release { Unmanaged.passUnretained(self).release() }
    }

    /// Records that librdkafka refused a message it had been given an opaque for.
    func rollBackEnqueue(_ index: Int, _ error: KafkaError) {
        complete(index, .failure(error))
    }

    /// Called from librdkafka's delivery callback on the poll thread.
    func complete(_ index: Int, _ result: Result<KafkaDeliveryReport, KafkaError>) {
        let (continuation, release) = state.withLock { state -> (CheckedContinuation<Void, Never>?, Bool) in
            state.results[index] = result
            state.pending -= 1
            guard state.pending == 0 else { return (nil, false) }
            defer { state.continuation = nil }
            return (state.sealed ? state.continuation : nil, true)
        }
        continuation?.resume()
        if release { Unmanaged.passUnretained(self).release() }
    }

    /// Waits for every enqueued message's report, then returns all results in input order.
    func results() async -> [Result<KafkaDeliveryReport, KafkaError>] {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state in
                state.sealed = true
                if state.pending == 0 { return true }
                state.continuation = continuation
                return false
            }
            if done { continuation.resume() }
        }
        return state.withLock { state in
            state.results.map {
                $0 ?? .failure(.client("no delivery report", operation: "produce", code: .state))
            }
        }
    }
}

/// librdkafka's delivery report callback, served on the producer's poll thread.
let deliveryReportCallback:
    @convention(c) (OpaquePointer?, UnsafePointer<rd_kafka_message_t>?, UnsafeMutableRawPointer?) -> Void = {
        _, message, _ in
        guard let message = message?.pointee, let opaque = message._private else { return }
        let slot = opaque.assumingMemoryBound(to: DeliveryBatch.Slot.self).pointee
        let batch = slot.batch.takeUnretainedValue()
        let topic = batch.topics[slot.index]
        let result: Result<KafkaDeliveryReport, KafkaError> =
            if message.err == RD_KAFKA_RESP_ERR_NO_ERROR {
                .success(KafkaDeliveryReport(topic: topic, partition: message.partition, offset: message.offset))
            } else {
                .failure(KafkaError(rawCode: message.err, operation: "deliver message to \(topic)"))
            }
        batch.complete(slot.index, result)
    }
