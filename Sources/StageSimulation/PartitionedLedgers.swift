import IntentEvents
import Intents
import Payments

/// The ledger of each input partition a member owns, restored from its partition of
/// the ledger topic (from the last snapshot on, when there is one) and following it:
/// what the payments worker's and the confirm worker's ledger followers hold. For a
/// payments member also its claims (``LedgerOwner``): fencing as the worker does it.
struct PartitionedLedgers {
    private var ledgers = FollowedState(Ledger())
    /// Partitions where this member's own record was read back behind another member's
    /// newer claim (every reader refuses it), or an event came under an id it decided with
    /// for something else: what the worker's follower marks `overtaken`.
    private var overtaken: Set<Int32> = []

    /// Holds exactly `owned`; a `gained` partition is read again (from its snapshot if any,
    /// and the ledger events after it: ``SimulatedWorld/restoredLedgers`` replayed them once).
    mutating func restore(owned: Set<Int32>, gained: Set<Int32>, _ world: SimulatedWorld) {
        var refused: Set<Int32> = []
        ledgers.restore(owned: owned, gained: gained) { partition in
            if world.mutations.contains(.skipLedgerRestore) {
                // Broken on purpose: what was written after the snapshot is skipped.
                guard let snapshot = world.ledgerSnapshots[partition], let ledger = snapshot.ledger else { return nil }
                return (ledger, world.ledgerEvents[partition]?.count ?? 0)
            }
            let restored = world.restoredLedgers.restored(partition)
            if restored.refused { refused.insert(partition) }
            return (restored.value, restored.records)
        }
        overtaken = overtaken.intersection(owned).subtracting(gained).union(refused)
        follow(owned: owned, world)
    }

    /// Applies one ledger event in replay mode (each writer checked balances when it
    /// decided); true when its id was used before for something else, which marks a
    /// member's partition overtaken (refusals of other kinds leave the ledger as it was).
    static func replay(_ ledger: inout Ledger, _ record: (event: LedgerEvent, time: Timestamp)) -> Bool {
        do throws(Ledger.ApplyError) {
            try ledger.apply(record.event, at: record.time, checkingBalances: false)
        } catch {
            if case .idReused = error { return true }
        }
        return false
    }

    /// Applies the ledger events appended since last read, in replay mode (each writer
    /// checked balances when it decided); its own decisions, already applied, change nothing,
    /// but one read back after another member's newer claim marks its partition overtaken.
    mutating func follow(owned: Set<Int32>, _ world: SimulatedWorld) {
        var overtaken: Set<Int32> = []
        for partition in owned.sorted() {
            ledgers.follow(world.ledgerEvents[partition] ?? [], partition: partition) { ledger, record in
                let own = ledger.writer.map { record.event.owner == $0.description } ?? false
                if Self.replay(&ledger, record) { overtaken.insert(partition) }
                if own && ledger.isFenced { overtaken.insert(partition) }
            }
        }
        self.overtaken.formUnion(overtaken)
    }

    /// Claims each of `partitions` this member holds no current claim on, as the payments
    /// worker does after a restore: the claims are appended, read back, and adopted where they
    /// are the latest. Returns the partitions where another member's claim won.
    mutating func claim(_ partitions: Set<Int32>, member: String, _ world: inout SimulatedWorld) -> Set<Int32> {
        var claims: [LedgerOwner] = []
        for partition in partitions.sorted() {
            guard let claim = ledgers.with(partition, { $0.claimNeeded(on: partition, member: member) }) else {
                continue
            }
            let cluster = world.cluster
            let envelope = claim.claimEnvelope(time: world.date) { cluster.partition(forKey: $0) }
            world.publish(world.record(of: envelope), to: SimulatedWorld.topics.ledger)
            claims.append(claim)
        }
        follow(owned: partitions, world)
        return Set(claims.filter { claim in !ledgers.with(claim.partition) { $0.adopt(claim) } }.map(\.partition))
    }

    /// A round's ledger records read back (`written`: the partitions it wrote to; nil: every
    /// partition held): those overtaken, or no longer held (whether their records count is
    /// unknown), whose notices must not go.
    mutating func readBack(_ written: Set<Int32>?, _ world: SimulatedWorld) -> Set<Int32> {
        let held = Set(ledgers.partitions)
        follow(owned: held, world)
        let partitions = written ?? held
        return overtaken.intersection(partitions).union(partitions.subtracting(held))
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
