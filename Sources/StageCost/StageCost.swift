import Intents
import Kafka

/// What one stage's decision path cost per record over a measured run of
/// ``StageChain``: heap allocations (exact, the same on every run) and the thread's
/// CPU time (noisy: reported, not gated).
public struct StageCost: Sendable, Codable, Hashable {
    public var stage: StagePath
    /// Input records decided in the measured run.
    public var records: Int
    /// Records published for them.
    public var published: Int
    public var allocations: UInt64
    public var cpuNanoseconds: UInt64

    public var allocationsPerRecord: Double { records == 0 ? 0 : Double(allocations) / Double(records) }
    public var cpuMicrosecondsPerRecord: Double {
        records == 0 ? 0 : Double(cpuNanoseconds) / 1_000 / Double(records)
    }

    /// Runs `intents` requests (every second one a payment) through all four stages after
    /// `warmUp` others (contact books built, one-time caches filled, as in a worker that has
    /// run a while), and measures each stage on the second lot alone. A payment's answer and
    /// its payee's credit (an effect the payments stage reads back) are payments records too.
    public static func measure(intents: Int = 400, warmUp: Int = 100, users: Int = 20) throws -> [StageCost] {
        let first = 100_000
        precondition(warmUp + intents <= 899_999, "ids must keep one width")
        let chain = try StageChain(users: users)
        var costs = Dictionary(
            uniqueKeysWithValues: StagePath.allCases.map {
                ($0, StageCost(stage: $0, records: 0, published: 0, allocations: 0, cpuNanoseconds: 0))
            })
        func run(_ path: StagePath, _ records: [StageRecord], measured: Bool) -> [(Destination, KafkaProducerMessage)] {
            let cpu = ThreadCPUClock.nanoseconds
            let (allocations, published) = AllocationCounter.counting { chain.run(path, records) }
            let elapsed = ThreadCPUClock.nanoseconds - cpu
            if measured {
                costs[path]!.records += records.count
                costs[path]!.published += published.count
                costs[path]!.allocations += allocations
                costs[path]!.cpuNanoseconds += elapsed
            }
            return published
        }
        for (start, count, measured) in [(first, warmUp, false), (first + warmUp, intents, true)] {
            let resolved = run(.resolve, chain.requests(from: start, count: count), measured: measured)
            let confirmed = run(.confirm, chain.records(resolved, to: .resolved), measured: measured)
            let proposals = chain.records(confirmed, to: .confirmations)
            let answers = try chain.answers(to: confirmed)
            var effects = chain.records(run(.payments, proposals + answers, measured: measured), to: .effects)
            while !effects.isEmpty {
                effects = chain.records(run(.payments, effects, measured: measured), to: .effects)
            }
            _ = run(.handle, chain.records(confirmed, to: .confirmed), measured: measured)
        }
        return StagePath.allCases.map { costs[$0]! }
    }
}
