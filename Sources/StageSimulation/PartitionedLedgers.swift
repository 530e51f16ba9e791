import Intents
import Payments

/// The ledger of each input partition a member owns, restored from its partition of
/// the ledger topic (from the last snapshot on, when there is one) and following it:
/// what the payments worker's and the confirm worker's ledger followers hold.
struct PartitionedLedgers {
    private var ledgers = FollowedState(Ledger())

    /// Holds exactly `owned`; a `gained` partition is read again (from its snapshot if any).
    mutating func restore(owned: Set<Int32>, gained: Set<Int32>, _ world: SimulatedWorld) {
        ledgers.restore(owned: owned, gained: gained) { partition in
            guard let snapshot = world.ledgerSnapshots[partition], let ledger = snapshot.ledger else { return nil }
            // Broken on purpose with the mutation: what was written after the snapshot is skipped.
            let skips = world.mutations.contains(.skipLedgerRestore)
            return (ledger, skips ? world.ledgerEvents[partition]?.count ?? 0 : snapshot.records)
        }
        follow(owned: owned, world)
    }

    /// Applies the ledger events appended since last read, in replay mode (each writer
    /// checked balances when it decided); its own decisions, already applied, change nothing.
    mutating func follow(owned: Set<Int32>, _ world: SimulatedWorld) {
        ledgers.follow(world.ledgerEvents, owned: owned) { ledger, record in
            _ = try? ledger.apply(record.event, at: record.time, checkingBalances: false)
        }
    }

    mutating func with<Result>(_ partition: Int32, _ body: (inout Ledger) -> Result) -> Result {
        ledgers.with(partition, body)
    }

    /// The expiry sweep over each owned partition's ledger, in partition order.
    mutating func withEach(_ body: (inout Ledger) -> StageResult) -> StageResult { ledgers.withEach(body) }

    /// Snapshots of the owned partitions, each written to bytes and read back from them as
    /// a restore would, with how many of its records it holds.
    func snapshots(owned: Set<Int32>, _ world: SimulatedWorld) -> [(Int32, (ledger: Ledger?, records: Int))] {
        owned.sorted().compactMap { partition in
            ledgers.value(in: partition).map {
                (partition, (try? Ledger(snapshotBytes: $0.snapshotBytes()), world.ledgerEvents[partition]?.count ?? 0))
            }
        }
    }
}
