import Testing

@testable import Payments
@testable import StageSimulation

/// A member gaining a ledger partition restores it from what the world replayed once as
/// records were appended (``SimulatedWorld/restoredLedgers``), not by replaying the tail
/// itself: that must be the ledger a replay of the last snapshot and its tail gives, at
/// every moment of a run with crashes, snapshots and fencing.
@Suite struct RestoredLedgersSimulationTests {
    /// The partition's ledger replayed from scratch, as a restore did before the cache:
    /// the last snapshot (or an empty ledger) and every event after it.
    static func replayed(_ partition: Int32, _ world: SimulatedWorld) -> (ledger: Ledger, refused: Bool, tail: Int) {
        let snapshot = world.ledgerSnapshots[partition]
        var ledger = snapshot?.ledger ?? Ledger()
        let from = snapshot?.ledger == nil ? 0 : snapshot?.records ?? 0
        var refused = false
        let events = world.ledgerEvents[partition] ?? []
        for case let record? in events[from...] where PartitionedLedgers.replay(&ledger, record) { refused = true }
        return (ledger, refused, events.count - from)
    }

    /// Two ledgers hold the same state: every table a decision or a snapshot reads
    /// (snapshot bytes are not compared: they list tables in hash order).
    static func same(_ a: Ledger, _ b: Ledger) -> Bool {
        a.balances == b.balances && a.accounts == b.accounts && a.transfers == b.transfers
            && a.requests == b.requests && a.closedProposals == b.closedProposals && a.owners == b.owners
            && a.applied == b.applied && a.versions == b.versions
    }

    @Test("what a gained ledger partition restores is the snapshot and its tail replayed")
    func restoredIsReplayed() {
        var scenario = PipelineScenario(seed: 7, intents: 60, faults: true)
        scenario.speak(60)
        var compared = 0
        var withTail = 0
        for round in 0..<8 {
            var step = 0
            // Past the payments stage's snapshot interval (2 s) each round.
            scenario.run(steps: 150, interval: .milliseconds(20)) { world in
                step += 1
                guard step % 5 == 0 else { return }
                for partition in 0..<Int32(world.cluster.partitionCount) {
                    let restored = world.restoredLedgers.restored(partition)
                    let replayed = Self.replayed(partition, world)
                    #expect(Self.same(restored.value, replayed.ledger), "partition \(partition)")
                    #expect(restored.refused == replayed.refused)
                    #expect(restored.records == world.ledgerEvents[partition]?.count ?? 0)
                    compared += 1
                    if world.ledgerSnapshots[partition] != nil, replayed.tail > 0 { withTail += 1 }
                }
            }
            // Members move: partitions are gained (restored) and snapshotted anew.
            if round % 2 == 0 { scenario.crash(\.payments) } else { scenario.scale(\.payments, to: 1 + round % 3) }
        }
        scenario.settle()
        #expect(compared > 0)
        // Not only the empty case: snapshots were taken and records written after them.
        #expect(withTail > 20)
        #expect(scenario.checked().failures == [])
    }
}
