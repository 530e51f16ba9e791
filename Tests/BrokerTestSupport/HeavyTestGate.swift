public import Foundation
import LocalBroker
public import Testing

/// How many heavy tests run at once: tests that start a local broker, worker
/// processes, Python or Chromium. Swift Testing starts every test of a run at
/// the same time, and on the project's 2-core machines 50-odd brokers with their
/// workers made a load average of 28 and timeouts that no single test deserved
/// (issue 29). A heavy test waits here for a slot, first come first served, so
/// the load stays near the core count while light tests run alongside.
///
/// Every helper that starts something heavy (``withBroker(_:_:)``,
/// ``runProcess(name:executable:arguments:outputFile:timeout:)``,
/// ``BrowserLiveCheck``, ``OTLPReceiver``) takes its slot here, so a test gets
/// one by using them; `HeavyTestGateTests` fails when a test starts a process
/// any other way. A slot is held per task tree: helpers nested inside a slot
/// (workers inside ``withBroker(_:_:)``, their child tasks) do not take another.
///
/// The width is `INTENT_TEST_HEAVY_SLOTS`, else ``defaultWidth``. Waiting counts
/// towards a test's `.timeLimit`, which Swift Testing measures from the test's
/// start: a heavy suite's limit is ``Testing/Trait/heavyTimeLimit(minutes:)``,
/// its own budget plus the wait. A wait of a minute or more is reported on
/// standard error, next to a time limit it may have caused.
public actor HeavyTestGate {
    /// Three: each heavy test mostly waits on its processes, so three keep two
    /// cores busy without queueing runnable threads far beyond them.
    public static let defaultWidth = 3

    /// The gate every test of this process shares.
    public static let shared = HeavyTestGate(
        width: ProcessInfo.processInfo.environment["INTENT_TEST_HEAVY_SLOTS"].flatMap { Int($0) } ?? defaultWidth)

    /// The gates the current task (or a task it was started from) holds a slot of.
    @TaskLocal private static var held: Set<ObjectIdentifier> = []

    /// Whether the current task (or a task it was started from) holds a slot of this gate.
    public nonisolated var isHeldByCurrentTask: Bool { Self.held.contains(ObjectIdentifier(self)) }

    public let width: Int
    private var inUse = 0
    private var waiting: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
    private var nextID = 0

    public init(width: Int) {
        self.width = max(1, width)
    }

    /// Runs `body` holding a slot; waits for one first unless this task holds one already.
    /// A cancelled wait (a test's time limit ran out) throws `CancellationError`.
    public nonisolated func withSlot<Result>(_ body: () async throws -> Result) async throws -> Result {
        if isHeldByCurrentTask { return try await body() }
        let asked = ContinuousClock.now
        try await acquire()
        let waited = ContinuousClock.now - asked
        if waited >= .seconds(60) {
            FileHandle.standardError.write(Data("heavy-test gate: waited \(waited) for one of \(width) slots\n".utf8))
        }
        do {
            let result = try await Self.$held.withValue(Self.held.union([ObjectIdentifier(self)])) {
                try await body()
            }
            await release()
            return result
        } catch {
            await release()
            throw error
        }
    }

    /// Slots taken now, and tests waiting for one: for tests of the gate itself.
    public var occupancy: (inUse: Int, waiting: Int) { (inUse, waiting.count) }

    private func acquire() async throws {
        if inUse < width && waiting.isEmpty {
            inUse += 1
            return
        }
        let id = nextID
        nextID += 1
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    waiting.append((id, continuation))
                }
            }
        } onCancel: {
            Task { await self.cancelWait(id) }
        }
    }

    /// Hands the slot to the longest waiting test, or frees it.
    private func release() {
        if waiting.isEmpty {
            inUse -= 1
        } else {
            waiting.removeFirst().continuation.resume()
        }
    }

    private func cancelWait(_ id: Int) {
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return }
        waiting.remove(at: index).continuation.resume(throwing: CancellationError())
    }
}

/// Runs `body` holding a slot of ``HeavyTestGate/shared``: for a test that starts
/// something heavy without one of the helpers that take a slot themselves.
public func withHeavySlot<Result>(_ body: () async throws -> Result) async throws -> Result {
    try await HeavyTestGate.shared.withSlot(body)
}

/// `ManagedProcess.run` in a slot of ``HeavyTestGate/shared``: how tests run a
/// command (a worker binary, `intentctl`, Python, a validator) to completion.
public func runProcess(
    name: String, executable: String, arguments: [String], outputFile: URL, timeout: Duration
) async throws -> (status: Int32, output: String) {
    try await withHeavySlot {
        try await ManagedProcess.run(
            name: name, executable: executable, arguments: arguments, outputFile: outputFile, timeout: timeout)
    }
}

extension Trait where Self == TimeLimitTrait {
    /// How long a heavy test may wait for its slot: the heavy tests queued before it. A whole
    /// run's heavy tests take about 11 minutes one after another on the project's 2-core
    /// machines, so at three at a time the last one in the queue starts within 4; 10 minutes
    /// leaves room for a machine that is slower or busier still (and the watchdog of
    /// scripts/run-tests.sh stops a hung run at 20 minutes anyway).
    public static var heavyQueueAllowanceMinutes: Int { 10 }

    /// The time limit of a heavy suite: `minutes` for the test itself plus
    /// ``heavyQueueAllowanceMinutes`` for its wait at ``HeavyTestGate``.
    public static func heavyTimeLimit(minutes: Int) -> Self {
        .timeLimit(.minutes(minutes + heavyQueueAllowanceMinutes))
    }
}
