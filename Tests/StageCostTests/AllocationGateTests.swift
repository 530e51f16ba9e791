import StageCost
import Testing

/// The regression gate of issue 30: each stage's decision path (decode, verify, decide,
/// encode and sign, no broker) may allocate per record at most what
/// `benchmarks/thresholds.json` allows for this build's configuration. Allocation counts
/// are the same on every run of the same code, so this cannot flake the way a timing
/// would; a change that adds per-record allocations fails here, at its own commit.
@Suite("Allocation gate: each stage's decision path against benchmarks/thresholds.json")
struct AllocationGateTests {
    @Test("the counter counts this thread's allocations, one per allocation")
    func counterCounts() throws {
        try #require(AllocationCounter.isCounting, "malloc counting is compiled out (a sanitizer build)")
        let (allocations, _) = AllocationCounter.counting { () -> Void in
            for _ in 0..<5 {
                let memory = UnsafeMutableRawPointer.allocate(byteCount: 24, alignment: 8)
                memory.deallocate()
            }
        }
        #expect(allocations == 5)
    }

    @Test("no stage allocates more per record than its committed ceiling")
    func withinThresholds() throws {
        try #require(AllocationCounter.isCounting, "malloc counting is compiled out (a sanitizer build)")
        let thresholds = try StageCostThresholds.load(from: StageCostThresholds.committed)
        let costs = try StageCost.measure(intents: 400, warmUp: 100)
        // 400 requests, every second one a payment: resolve and confirm decide all 400; payments
        // 200 proposals, 200 answers and 200 payees' credits; handle the 200 messages.
        #expect(
            Dictionary(uniqueKeysWithValues: costs.map { ($0.stage, $0.records) })
                == [.resolve: 400, .confirm: 400, .payments: 600, .handle: 200])
        for cost in costs {
            let ceiling = try #require(
                thresholds.allocationsPerRecord(for: cost.stage),
                "benchmarks/thresholds.json has no \(StageCostThresholds.configuration) ceiling for \(cost.stage)")
            #expect(
                cost.allocationsPerRecord <= ceiling,
                """
                \(cost.stage) allocates \(cost.allocationsPerRecord) times per record; the ceiling is \(ceiling) \
                (benchmarks/thresholds.json, \(StageCostThresholds.configuration) build)
                """)
        }
    }
}
