import BrokerTestSupport
import Foundation
import PipelineTestSupport
import Synchronization
import Testing

/// The gate that keeps heavy tests (brokers, workers, Python, Chromium) to a few
/// at a time, and the rule that makes every such test go through it.
@Suite("Heavy-test gate")
struct HeavyTestGateTests {
    /// Bodies that each wait until the test lets them go, counting how many run at once.
    final class Bodies: Sendable {
        let running = Mutex(0)
        let mostAtOnce = Mutex(0)
        let startedEvents: AsyncStream<Void>
        private let started: AsyncStream<Void>.Continuation
        private let waiting = Mutex<[CheckedContinuation<Void, Never>]>([])

        init() {
            (startedEvents, started) = AsyncStream.makeStream(of: Void.self)
        }

        func body() async {
            running.withLock { running in
                running += 1
                mostAtOnce.withLock { $0 = max($0, running) }
            }
            await withCheckedContinuation { continuation in
                waiting.withLock { $0.append(continuation) }
                started.yield()
            }
            running.withLock { $0 -= 1 }
        }

        /// Lets every body that is waiting go on.
        func releaseAll() {
            let released = waiting.withLock { waiting in
                defer { waiting = [] }
                return waiting
            }
            for continuation in released { continuation.resume() }
        }
    }

    /// The order bodies took their slot in.
    final class Order: Sendable {
        let names = Mutex<[String]>([])
    }

    /// Yields until `gate` has `count` tests waiting: the gate's own state, with no event to await.
    static func waitForWaiting(_ count: Int, at gate: HeavyTestGate) async {
        while await gate.occupancy.waiting < count { await Task.yield() }
    }

    @Test("no more bodies run at once than the gate is wide; the others wait their turn, and all run")
    func width() async throws {
        let gate = HeavyTestGate(width: 2)
        let bodies = Bodies()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<5 {
                group.addTask { try await gate.withSlot { await bodies.body() } }
            }
            var started = bodies.startedEvents.makeAsyncIterator()
            // Two run; the three others wait until those two are let go, then two, then one.
            for (turn, running) in [2, 2, 1].enumerated() {
                for _ in 0..<running { _ = await started.next() }
                let waitingNow = 5 - [2, 4, 5][turn]
                await Self.waitForWaiting(waitingNow, at: gate)
                #expect(await gate.occupancy == (running, waitingNow), "turn \(turn)")
                #expect(bodies.running.withLock { $0 } == running, "turn \(turn)")
                bodies.releaseAll()
            }
            try await group.waitForAll()
        }
        #expect(bodies.mostAtOnce.withLock { $0 } == 2)
        #expect(await gate.occupancy == (0, 0))
    }

    @Test("a body that already holds a slot takes no second one: nested helpers cannot deadlock")
    func nested() async throws {
        let gate = HeavyTestGate(width: 1)
        let inner = try await gate.withSlot {
            try await withThrowingTaskGroup(of: Int.self) { group in
                // A child task inherits the slot too, as the workers a test starts in a task group do.
                group.addTask { try await gate.withSlot { 42 } }
                return try await group.next() ?? 0
            }
        }
        #expect(inner == 42)
        #expect(!gate.isHeldByCurrentTask)
        #expect(await gate.occupancy == (0, 0))
    }

    @Test(
        "the serial process-level lane runs beside a full gate and takes no slot, nor do helpers nested in it",
        .timeLimit(.minutes(1)))
    func laneTakesNoSlot() async throws {
        let gate = HeavyTestGate(width: 1)
        let bodies = Bodies()
        let holder = Task { try await gate.withSlot(lane: false) { await bodies.body() } }
        var started = bodies.startedEvents.makeAsyncIterator()
        _ = await started.next()
        // The one slot is held: a gated body would wait here until the holder ends.
        let ran = try await gate.withSlot(lane: true) {
            let occupancy = await gate.occupancy
            let nested = try await gate.withSlot(lane: false) { gate.isHeldByCurrentTask }
            return (occupancy, nested)
        }
        #expect(ran.0 == (1, 0))
        #expect(ran.1, "a helper nested in the lane runs as in a held slot")
        #expect(await gate.occupancy == (1, 0))
        bodies.releaseAll()
        try await holder.value
        #expect(await gate.occupancy == (0, 0))
    }

    @Test("a test cancelled while it waits (its time limit ran out) leaves the queue and throws")
    func cancelledWait() async throws {
        let gate = HeavyTestGate(width: 1)
        let bodies = Bodies()
        let holder = Task { try await gate.withSlot { await bodies.body() } }
        var started = bodies.startedEvents.makeAsyncIterator()
        _ = await started.next()
        let waiter = Task { try await gate.withSlot { "ran" } }
        await Self.waitForWaiting(1, at: gate)
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(await gate.occupancy == (1, 0))
        bodies.releaseAll()
        try await holder.value
        #expect(await gate.occupancy == (0, 0))
    }

    @Test("a long test waits behind other long tests only: the longest start first, so none ends the run alone")
    func longTestsGoAhead() async throws {
        let gate = HeavyTestGate(width: 1)
        let bodies = Bodies()
        let order = Order()
        var started = bodies.startedEvents.makeAsyncIterator()
        let holder = Task { try await gate.withSlot(ahead: false) { await bodies.body() } }
        _ = await started.next()
        // Queued in this order while the slot is held: short, long, short, long.
        var waiters: [Task<Void, any Error>] = []
        for (index, (name, ahead)) in [("short 1", false), ("long 1", true), ("short 2", false), ("long 2", true)]
            .enumerated()
        {
            waiters.append(
                Task {
                    try await gate.withSlot(ahead: ahead) {
                        order.names.withLock { $0.append(name) }
                        await bodies.body()
                    }
                })
            await Self.waitForWaiting(index + 1, at: gate)
        }
        for _ in 0..<5 {
            bodies.releaseAll()
            if order.names.withLock({ $0.count }) < 4 { _ = await started.next() }
        }
        bodies.releaseAll()
        try await holder.value
        for waiter in waiters { try await waiter.value }
        #expect(order.names.withLock { $0 } == ["long 1", "long 2", "short 1", "short 2"])
        #expect(await gate.occupancy == (0, 0))
    }

    /// Where tests may start processes and brokers directly: the support library (whose
    /// helpers take the slot) and the tests of `ManagedProcess` itself, which run `sleep`.
    static let allowed: Set<String> = [
        "BrokerTestSupport", "ManagedProcessTests.swift", "HeavyTestGateTests.swift",
    ]

    @Test(
        "no test starts a broker or a process except through the helpers that take a slot; heavy suites' limits allow for the wait"
    )
    func everyHeavyTestPassesTheGate() throws {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let direct = ["ManagedProcess.run(", "ManagedProcess(", "LocalBroker.start(", "Process()"]
        // Helpers that start heavy things; a suite using them waits at the gate, so a plain
        // `.timeLimit` would count the wait against the test's own budget.
        let heavy = [
            "withBroker", "withPipeline", "withMoneyPipeline", "runProcess(", "withHeavySlot", "BrowserLiveCheck",
            "OTLPReceiver", "LoadRun", "WorkerProcesses(",
        ]
        var found: [String] = []
        var plainLimits: [String] = []
        let files = try #require(FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil))
        for case let file as URL in files where file.pathExtension == "swift" {
            guard Set(file.pathComponents).isDisjoint(with: Self.allowed) else { continue }
            let text = try String(contentsOf: file, encoding: .utf8)
            for call in direct where text.contains(call) {
                found.append("\(file.lastPathComponent): \(call)")
            }
            if text.contains(".timeLimit("), heavy.contains(where: text.contains) {
                plainLimits.append(file.lastPathComponent)
            }
        }
        #expect(
            found.isEmpty,
            "start brokers with withBroker, commands with runProcess, anything else inside withHeavySlot: \(found)")
        #expect(plainLimits.isEmpty, "heavy suites use .heavyTimeLimit(minutes:), not .timeLimit: \(plainLimits)")
        // The scan looked at the tests: this suite's own neighbours are among them.
        #expect(FileManager.default.fileExists(atPath: tests.appendingPathComponent("KafkaTests").path))
    }
}
