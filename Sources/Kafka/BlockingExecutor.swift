import Dispatch

/// Runs librdkafka calls that block (flush, commit, close, metadata, consumer
/// poll with a timeout) on a dedicated serial queue, so they never occupy a
/// thread of Swift's small cooperative pool. Serial, because librdkafka calls
/// on one consumer handle are easiest to reason about in one order.
final class BlockingExecutor: Sendable {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label, qos: .userInitiated)
    }

    func run<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Swift.Result { try body() })
            }
        }
    }

    func run<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(returning: body())
            }
        }
    }

    /// Runs a librdkafka call on this executor, with a lease on the client
    /// (``RDKafkaHandle/withPointer(_:_:)``) for its whole duration, and
    /// passes its typed error through.
    func perform<Result: Sendable>(
        on handle: RDKafkaHandle, _ operation: String,
        _ body: @escaping @Sendable (OpaquePointer) throws(KafkaError) -> Result
    ) async throws(KafkaError) -> Result {
        let outcome = await run { () -> Swift.Result<Result, KafkaError> in
            Swift.Result { () throws(KafkaError) in
                try handle.withPointer(operation) { (pointer) throws(KafkaError) in try body(pointer) }
            }
        }
        return try outcome.get()
    }
}
