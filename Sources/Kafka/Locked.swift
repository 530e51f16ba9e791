import Foundation

/// A value under a pthread mutex (`NSLock`), with `Mutex`'s `withLock` shape.
///
/// The Kafka layer shares state between librdkafka's threads, its poll
/// thread and Swift tasks. `Synchronization.Mutex` on Linux locks with a
/// futex inside the uninstrumented standard library, which ThreadSanitizer
/// cannot see, so it reports every access under such a lock as a race; a
/// pthread mutex it does see. With this lock `make tsan` checks the layer's
/// shared state instead of having to suppress it.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    /// Only under `lock`.
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
