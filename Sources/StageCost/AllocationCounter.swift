import CMallocCounter

/// Heap allocations made by the calling thread, as counted by the `CMallocCounter`
/// target's malloc definitions. A count taken around synchronous work with no
/// suspension point in it stays on one thread, so what other threads (other tests,
/// librdkafka) allocate meanwhile is not in it, and the same work on the same
/// input gives the same count on every run: a measure a gate can hold exactly.
public enum AllocationCounter {
    /// False when the counting definitions are compiled out (a sanitizer build).
    public static var isCounting: Bool { intent_malloc_counting() != 0 }

    /// Allocations so far on this thread.
    public static var current: UInt64 { intent_malloc_count() }

    /// The allocations `body` makes on this thread, and its result.
    public static func counting<Result>(_ body: () throws -> Result) rethrows -> (allocations: UInt64, result: Result) {
        let before = intent_malloc_count()
        let result = try body()
        return (intent_malloc_count() - before, result)
    }
}
