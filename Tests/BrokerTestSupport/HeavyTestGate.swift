public import Foundation
import LocalBroker
public import Testing

#if canImport(Glibc)
    import Glibc
#endif

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
/// A test marked ``Testing/Trait/longHeavyTest`` (tens of seconds: load runs with
/// kills, a broker outage) goes ahead of the other waiting tests: the longest
/// first, so the run does not end with one long test alone in the gate
/// (docs/test-suite-time.md measured a 40 s tail from that).
///
/// The width is `INTENT_TEST_HEAVY_SLOTS`, else ``defaultWidth``. Waiting counts
/// towards a test's `.timeLimit`, which Swift Testing measures from the test's
/// start: a heavy suite's limit is ``Testing/Trait/heavyTimeLimit(minutes:)``,
/// its own budget plus the wait. A wait of a minute or more is reported on
/// standard error, next to a time limit it may have caused.
public actor HeavyTestGate {
    /// Five: each heavy test mostly waits (group joins, timeouts, its processes'
    /// start-up). Measured one at a time, the heavy tests held their slot 681 s
    /// and their processes used 124 s of CPU (docs/test-suite-time.md): a fifth of
    /// a core each, so five keep two cores busy without queueing runnable threads
    /// far beyond them, where three left the cores idle half the run.
    public static let defaultWidth = 5

    /// The gate every test of this process shares.
    public static let shared = HeavyTestGate(
        width: ProcessInfo.processInfo.environment["INTENT_TEST_HEAVY_SLOTS"].flatMap { Int($0) } ?? defaultWidth)

    /// The gates the current task (or a task it was started from) holds a slot of.
    @TaskLocal private static var held: Set<ObjectIdentifier> = []

    /// Whether the current task (or a task it was started from) holds a slot of this gate.
    public nonisolated var isHeldByCurrentTask: Bool { Self.held.contains(ObjectIdentifier(self)) }

    public let width: Int
    private var inUse = 0
    private var waiting: [(id: Int, ahead: Bool, continuation: CheckedContinuation<Void, any Error>)] = []
    private var nextID = 0

    public init(width: Int) {
        self.width = max(1, width)
    }

    /// Runs `body` holding a slot; waits for one first unless this task holds one already.
    /// An `ahead` test waits behind other `ahead` tests only (by default: a test marked
    /// ``Testing/Trait/longHeavyTest``). A cancelled wait (a test's time limit ran out)
    /// throws `CancellationError`. In the serial `lane` (by default: a test marked
    /// ``Testing/Trait/serialProcessLane``) `body` runs at once and takes no slot, as if it
    /// held one, so the helpers nested in it take none either.
    public nonisolated func withSlot<Result>(
        ahead: Bool = LongHeavyTestTrait.isCurrent, lane: Bool = SerialProcessLaneTrait.isCurrent,
        _ body: () async throws -> Result
    ) async throws -> Result {
        if isHeldByCurrentTask { return try await body() }
        let asked = ContinuousClock.now
        if !lane { try await acquire(ahead: ahead) }
        let waited = ContinuousClock.now - asked
        if waited >= .seconds(60) {
            FileHandle.standardError.write(Data("heavy-test gate: waited \(waited) for one of \(width) slots\n".utf8))
        }
        let hold = self === Self.shared ? SlotTiming.begin() : nil
        do {
            let result = try await Self.$held.withValue(Self.held.union([ObjectIdentifier(self)])) {
                try await body()
            }
            hold?.end(waited: waited, failed: false)
            if !lane { await release() }
            return result
        } catch {
            hold?.end(waited: waited, failed: true)
            if !lane { await release() }
            throw error
        }
    }

    /// Slots taken now, and tests waiting for one: for tests of the gate itself.
    public var occupancy: (inUse: Int, waiting: Int) { (inUse, waiting.count) }

    private func acquire(ahead: Bool) async throws {
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
                } else if ahead {
                    let behind = waiting.firstIndex { !$0.ahead } ?? waiting.endIndex
                    waiting.insert((id, true, continuation), at: behind)
                } else {
                    waiting.append((id, false, continuation))
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

/// One slot's hold, logged when `INTENT_TEST_HEAVY_LOG` names a file: how
/// docs/test-suite-time.md measured each heavy test's own time and CPU, since a
/// test's "passed after" time includes its wait at the gate. One tab-separated
/// line per slot (and per test of the serial process-level lane, which takes none): when
/// it was taken (Unix time), wall seconds held, seconds waited, CPU seconds of the child
/// processes reaped meanwhile (brokers, workers, Python, Chromium: exact only
/// with `INTENT_TEST_HEAVY_SLOTS=1`, since reaped children are per process), CPU
/// seconds of the test process meanwhile (light tests included), the outcome
/// and the test's name.
struct SlotTiming {
    static let logPath = ProcessInfo.processInfo.environment["INTENT_TEST_HEAVY_LOG"].flatMap {
        $0.isEmpty ? nil : $0
    }
    private static let lock = NSLock()

    let name: String
    let started: ContinuousClock.Instant
    /// When the slot was taken, as Unix time: lines of one run compare with each other and with
    /// the run's own start (whether the serial lane overlapped itself, when it began).
    let startedAt: Date
    let children: Double
    let own: Double

    /// Starts timing a slot, or nil when nothing is logged.
    static func begin() -> SlotTiming? {
        guard logPath != nil else { return nil }
        let test = Test.current.map { "\($0.id)" } ?? "(no test)"
        return SlotTiming(
            name: test, started: .now, startedAt: Date(), children: cpuSeconds(RUSAGE_CHILDREN),
            own: cpuSeconds(RUSAGE_SELF))
    }

    func end(waited: Duration, failed: Bool) {
        guard let path = Self.logPath else { return }
        func seconds(_ duration: Duration) -> String {
            String(format: "%.2f", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
        }
        let line = [
            String(format: "%.2f", startedAt.timeIntervalSince1970),
            seconds(ContinuousClock.now - started), seconds(waited),
            String(format: "%.2f", Self.cpuSeconds(RUSAGE_CHILDREN) - children),
            String(format: "%.2f", Self.cpuSeconds(RUSAGE_SELF) - own), failed ? "failed" : "ok", name,
        ].joined(separator: "\t")
        Self.lock.withLock {
            guard let file = FileHandle(forWritingAtPath: path) ?? create(path) else { return }
            defer { try? file.close() }
            _ = try? file.seekToEnd()
            try? file.write(contentsOf: Data((line + "\n").utf8))
        }
    }

    private func create(_ path: String) -> FileHandle? {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        return FileHandle(forWritingAtPath: path)
    }

    private static func cpuSeconds(_ who: __rusage_who) -> Double {
        var usage = rusage()
        getrusage(who.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
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

/// `ManagedProcess.run` without a slot of ``HeavyTestGate/shared``: for a command that
/// starts nothing and takes well under a second of CPU (`intentctl topics acls`, a YAML
/// cross-check of the manifests), which would otherwise queue behind broker tests for a slot
/// it holds only for an instant. Twelve such commands in the gate's queue kept its slots from
/// the suites that end a run last (docs/test-suite-time.md, session 25).
public func runLightProcess(
    name: String, executable: String, arguments: [String], outputFile: URL, timeout: Duration
) async throws -> (status: Int32, output: String) {
    try await ManagedProcess.run(
        name: name, executable: executable, arguments: arguments, outputFile: outputFile, timeout: timeout)
}

/// Marks a heavy test (or every test of a suite) that holds its slot far longer than
/// most, so ``HeavyTestGate`` lets it in ahead of the others (longest first).
public struct LongHeavyTestTrait: SuiteTrait, TestTrait {
    public var isRecursive: Bool { true }

    /// Whether the running test carries this trait (itself or from its suite).
    public static var isCurrent: Bool {
        Test.current?.traits.contains { $0 is LongHeavyTestTrait } ?? false
    }
}

extension Trait where Self == LongHeavyTestTrait {
    /// A heavy test of tens of seconds: it goes ahead at ``HeavyTestGate``.
    public static var longHeavyTest: Self { LongHeavyTestTrait() }
}

extension Trait where Self == TimeLimitTrait {
    /// How long a heavy test may wait for its slot: the heavy tests queued before it. A whole
    /// run's heavy tests take about 11 minutes one after another on the project's 2-core
    /// machines (docs/test-suite-time.md), so at five at a time the last one in the queue
    /// starts within 3, and within 11 if the gate were one wide (`INTENT_TEST_HEAVY_SLOTS=1`,
    /// how each test's own time is measured); 10 minutes
    /// leaves room for a machine that is slower or busier still (and the watchdog of
    /// scripts/run-tests.sh stops a hung run at 20 minutes anyway).
    public static var heavyQueueAllowanceMinutes: Int { 10 }

    /// The time limit of a heavy suite: `minutes` for the test itself plus
    /// ``heavyQueueAllowanceMinutes`` for its wait at ``HeavyTestGate``.
    public static func heavyTimeLimit(minutes: Int) -> Self {
        .timeLimit(.minutes(minutes + heavyQueueAllowanceMinutes))
    }
}
