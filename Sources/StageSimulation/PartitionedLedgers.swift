import Payments

/// The ledger of each input partition a member owns, restored from its partition of
/// the ledger topic (from the last snapshot on, when there is one) and following it:
/// what the payments worker's and the confirm worker's ledger followers hold.
struct PartitionedLedgers {
    private var ledgers: [Int32: Ledger] = [:]
    private var followed = FollowedPositions()

    /// Holds exactly `owned`; a `gained` partition is read again (from its snapshot if any).
    mutating func restore(owned: Set<Int32>, gained: Set<Int32>, _ world: SimulatedWorld, fromSnapshots: Bool) {
        for partition in ledgers.keys where !owned.contains(partition) {
            ledgers[partition] = nil
            followed.drop(partition)
        }
        for partition in gained {
            if fromSnapshots, let snapshot = world.ledgerSnapshots[partition],
                let ledger = try? Ledger(snapshotBytes: snapshot.bytes)
            {
                ledgers[partition] = ledger
                // Broken on purpose with the mutation: what was written after the snapshot is skipped.
                let skips = world.mutations.contains(.skipLedgerRestore)
                followed.reset(partition, to: skips ? world.ledgerEvents[partition]?.count ?? 0 : snapshot.records)
            } else {
                ledgers[partition] = Ledger()
                followed.reset(partition)
            }
        }
        follow(owned: owned, world)
    }

    /// Applies the ledger events appended since last read, in replay mode (each writer
    /// checked balances when it decided); its own decisions, already applied, change nothing.
    mutating func follow(owned: Set<Int32>, _ world: SimulatedWorld) {
        // Taken out while it runs: the closure writes to the ledgers.
        var followed = self.followed
        followed.follow(world.ledgerEvents, owned: owned) { partition, record in
            _ = try? ledgers[partition, default: Ledger()].apply(record.event, at: record.time, checkingBalances: false)
        }
        self.followed = followed
    }

    subscript(partition: Int32) -> Ledger {
        get { ledgers[partition] ?? Ledger() }
        set { ledgers[partition] = newValue }
    }

    /// The owned partitions in order, for the expiry sweep.
    var partitions: [Int32] { ledgers.keys.sorted() }

    /// Snapshots of the owned partitions, each with how many of its records it holds.
    func snapshots(owned: Set<Int32>, _ world: SimulatedWorld) -> [(Int32, (bytes: [UInt8], records: Int))] {
        owned.sorted().compactMap { partition in
            ledgers[partition].map { (partition, ($0.snapshotBytes(), world.ledgerEvents[partition]?.count ?? 0)) }
        }
    }
}
