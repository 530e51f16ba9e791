import Foundation

/// Runs a CPU-bound simulation on a thread of its own and awaits its result.
///
/// Why: Swift's cooperative pool has one thread per core (two on the project's machines),
/// and a synchronous test runs on one of them for as long as it computes. A simulation
/// test computes for a second or more, so two at once stall every other test's
/// continuations (the broker tests' awaits, their wall-clock promises) until they end.
/// On a thread of its own it takes its share of the CPU from the scheduler instead.
public func onOwnThread<Result: Sendable>(_ body: @escaping @Sendable () -> Result) async -> Result {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: body()) }
        // The simulation recurses no deeper than a test's main thread would; the default
        // secondary-thread stack (512 KiB on some platforms) is too small for debug builds.
        thread.stackSize = 8 << 20
        thread.start()
    }
}
