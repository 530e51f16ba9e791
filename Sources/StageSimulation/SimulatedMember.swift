import Foundation
import IntentEvents
import Intents
import Payments
import StageRuntime

/// One member of a simulated stage's consumer group: a ``StageRuntime`` and what a
/// Kafka host keeps beside it (fetch positions, polled records, each batch's outputs,
/// deliveries in flight, stored offsets) and the stage's ``StageDecider``, executing the
/// runtime's actions on the ``InMemoryCluster``. One type for every stage: only the
/// decider differs, as only the `process` closure differs between the workers.
struct SimulatedMember<Decider: StageDecider> {
    typealias Instant = ManualClock.Instant

    /// A delivery the cluster reports at `due`, or a read-back that ends then (`readBack`:
    /// the partitions it reads, nil for every owned one; whether it succeeds is decided then).
    struct Pending: Due {
        var ticket: StageTicket
        var due: Instant
        var succeeds: Bool
        var readBack: Set<Int32>?? = nil
    }

    /// One decided batch's outputs by round.
    struct Batch {
        var state: [(topic: String, record: InMemoryCluster.Record)] = []
        var notices: [(topic: String, record: InMemoryCluster.Record)] = []
    }

    let name: String
    var runtime: StageRuntime<Instant>
    var decider: Decider
    private(set) var positions: [Int32: Int64] = [:]
    /// The partitions of ``positions`` in order, for the polls: recomputed wherever `positions`
    /// gains or loses a key (``reassign(_:_:)``, ``restore(_:_:_:)``); a poll only moves the
    /// existing keys' offsets, and sorting them at every poll was an allocation per turn.
    private var fetched: [Int32] = []
    var held: [(partition: Int32, record: InMemoryCluster.Record)] = []
    var batches: [BatchID: Batch] = [:]
    var pending = DueQueue<Pending>()
    var stored: [Int32: Int64] = [:]
    /// Shut down and finished, or stopped when fenced: leaves the group.
    var left = false
    /// Stopped because another member's claim overtook its writes (restarted by the group).
    var fenced = false
    private var nextPartition = 0

    init(name: String, policy: StageRuntimePolicy, seed: UInt64, _ world: SimulatedWorld) {
        self.name = name
        runtime = StageRuntime(policy: policy, now: world.clock.now, seed: seed)
        decider = Decider(world)
    }

    var isIdle: Bool { runtime.isIdle && !runtime.hasUncommitted && pending.isEmpty && held.isEmpty }

    /// The group's new generation gives this member `assignment`.
    mutating func reassign(_ assignment: Set<Int32>, _ world: inout SimulatedWorld) {
        let revoked = runtime.owned.subtracting(assignment)
        let gained = assignment.subtracting(runtime.owned)
        // A revoked partition's fetch position and stored offset go with it, as librdkafka
        // drops them: kept, a stale offset committed after regaining the partition would
        // move its committed offset back behind what the next owner finished.
        for partition in revoked {
            positions[partition] = nil
            stored[partition] = nil
        }
        fetched = positions.keys.sorted()
        let now = world.clock.now
        if !revoked.isEmpty { execute(runtime.revoked(revoked, now: now), &world) }
        if !gained.isEmpty { execute(runtime.assigned(gained, now: now), &world) }
    }

    mutating func shutdown(_ world: inout SimulatedWorld) {
        held = []
        execute(runtime.shutdown(now: world.clock.now), &world)
    }

    /// Reports the deliveries due by now, then does what the runtime waits for.
    mutating func turn(_ world: inout SimulatedWorld) {
        guard !left else { return }
        let now = world.clock.now
        for delivery in pending.removeDue(by: now) {
            if case .some(let partitions) = delivery.readBack {
                // Read back now: another member's claim may have landed since the round did.
                let overtaken = decider.readBack(partitions, world)
                if !overtaken.isEmpty { return fence() }
            }
            let actions =
                delivery.succeeds
                ? runtime.acknowledged(delivery.ticket, now: now) : runtime.failed(delivery.ticket, now: now)
            execute(actions, &world)
            guard !left else { return }
        }
        switch runtime.next() {
        case .stopped, .acknowledgement:
            return
        case .timer(let due):
            if due <= now { execute(runtime.timer(now: now), &world) }
        case .poll(let maximum, _):
            let polled = poll(maximum, world.cluster)
            held += polled.map { ($0.position.partition, $0.record) }
            execute(runtime.polled(polled.map(\.position), now: now), &world)
        }
    }

    /// Up to `maximum` records from the owned partitions, starting at a rotating partition.
    private mutating func poll(_ maximum: Int, _ cluster: InMemoryCluster) -> [(
        position: InputPosition, record: InMemoryCluster.Record
    )] {
        let partitions = fetched
        guard !partitions.isEmpty else { return [] }
        nextPartition += 1
        let log = cluster.partitions(of: Decider.input)
        var polled: [(position: InputPosition, record: InMemoryCluster.Record)] = []
        for step in 0..<partitions.count where polled.count < maximum {
            let partition = partitions[(nextPartition + step) % partitions.count]
            let from = positions[partition] ?? 0
            let available = log[Int(partition)].count - Int(from)
            guard available > 0 else { continue }
            let records = log[Int(partition)][Int(from)...].prefix(maximum - polled.count)
            for (offset, record) in zip(from..., records) {
                polled.append((InputPosition(partition: partition, offset: offset), record))
            }
            positions[partition] = from + Int64(records.count)
        }
        return polled
    }

    private mutating func execute(_ actions: [StageAction], _ world: inout SimulatedWorld) {
        let now = world.clock.now
        var queue = actions[...]
        while let action = queue.popFirst() {
            switch action {
            case .restore(let owned, let gained):
                restore(owned, gained, &world)
            case .claim(let owned):
                let lost = decider.claim(owned, member: name, &world)
                if !lost.isEmpty { return fence() }
            case .readBack(let ids, let resent):
                // Sent again after a failure: every partition held is read back, as the worker does.
                // It ends a little later, as the worker's follower reads the round back beside its loop.
                let written = ids.flatMap { batches[$0]?.state ?? [] }.filter {
                    $0.topic == SimulatedWorld.topics.ledger
                }
                .map { world.cluster.partition(forKey: $0.record.key) }
                let delay = Duration.microseconds(Int64(100 + world.random.next() % 3000))
                pending.append(
                    Pending(
                        ticket: .readBack(ids[0]), due: world.clock.now.advanced(by: delay), succeeds: true,
                        readBack: .some(resent ? nil : Set(written))))
            case .snapshot(let owned, _):
                decider.follow(owned: owned, world)
                decider.snapshot(owned: owned, &world)
            case .dropHeld(let partitions):
                held.removeAll { partitions.contains($0.partition) }
            case .decide(let id, let records, let tick):
                let consumed = held.prefix(records.count)
                held.removeFirst(consumed.count)
                if world.mutations.contains(.commitAtDecision) {
                    // Broken on purpose: a crash before the rounds land loses these records.
                    var offsets: [Int32: Int64] = [:]
                    for record in records {
                        offsets[record.partition] = max(offsets[record.partition] ?? 0, record.offset + 1)
                    }
                    world.cluster.commit(offsets, group: Decider.group, member: name)
                }
                decider.follow(owned: runtime.owned, world)
                let batch = decide(consumed, tick: tick, world)
                if !batch.state.isEmpty || !batch.notices.isEmpty { batches[id] = batch }
                queue += runtime.decided(id, state: !batch.state.isEmpty, notices: !batch.notices.isEmpty, now: now)
            case .publish(let round, let ids, _):
                publish(round, ids, &world)
            case .storeOffsets(let id, let offsets):
                // Only for partitions still owned (a drained batch of a revoked one stores nothing).
                stored.merge(offsets.filter { runtime.owned.contains($0.key) }, uniquingKeysWith: max)
                batches[id] = nil
            case .commit:
                if world.fault(percent: 5) || world.unreachable.contains(name) {
                    world.report.failedAcknowledgements += 1
                    queue += runtime.failed(.commit, now: now)
                } else {
                    world.cluster.commit(stored, group: Decider.group, member: name)
                    queue += runtime.acknowledged(.commit, now: now)
                }
            case .stop(.finished):
                left = true
            case .stop(.gaveUp(let ticket, let failingFor)):
                world.report.failures.append("\(name) gave up on \(ticket) after \(failingFor)")
                left = true
            }
        }
    }

    /// Another member's claim overtook what this member wrote (it lost a partition while a
    /// round was in flight): it stops at once, sending nothing more, and its uncommitted input
    /// is the next owner's to redo, as the worker stops on ``StageFenced``; the group restarts it.
    private mutating func fence() {
        held = []
        batches = [:]
        pending = DueQueue()
        left = true
        fenced = true
    }

    /// The assignment applied: state restored for `gained`, fetch positions from the
    /// committed offsets, and what was acted on there read back (the replay memory).
    private mutating func restore(_ owned: Set<Int32>, _ gained: Set<Int32>, _ world: inout SimulatedWorld) {
        decider.restore(owned: owned, gained: gained, world)
        for partition in gained.sorted() {
            let committed = world.cluster.committed(partition, group: Decider.group)
            positions[partition] = committed
            // Drained before the restore: anything stored for it is from an earlier ownership.
            stored[partition] = nil
            let from = max(0, committed - Self.replayMemoryDepth)
            let records = world.cluster.records(
                of: Decider.input, partition: partition, from: from, limit: Int(committed - from))
            for (offset, record) in zip(from..., records) {
                decider.remember(record, partition: partition, offset: offset, &world)
            }
        }
        for partition in positions.keys where !owned.contains(partition) { positions[partition] = nil }
        fetched = positions.keys.sorted()
        decider.follow(owned: owned, world)
    }

    /// How many records before the committed offset a gained partition's replay memory reads back.
    static var replayMemoryDepth: Int64 { 16 }

    /// One fate per hand-over, as an idempotent producer fails what follows a failure too:
    /// the records land or not, and the acknowledgement reports success or failure later.
    private mutating func publish(_ round: PublishRound, _ ids: [BatchID], _ world: inout SimulatedWorld) {
        let roll = world.faultsOn ? world.random.next() % 100 : 99
        let reachable = !world.unreachable.contains(name)
        let lands = roll >= 4 && reachable
        let succeeds = roll >= 8 && reachable
        for id in ids {
            guard let batch = batches[id] else { continue }
            if lands {
                for (topic, record) in round == .state ? batch.state : batch.notices {
                    world.publish(record, to: topic)
                }
            }
            if !succeeds { world.report.failedAcknowledgements += 1 }
            let delay = Duration.microseconds(Int64(200 + world.random.next() % 4000))
            pending.append(
                Pending(
                    ticket: round == .state ? .state(id) : .notices(id), due: world.clock.now.advanced(by: delay),
                    succeeds: succeeds))
        }
    }

    /// Decides the records (and the tick), each result's events signed into records by
    /// round: a rejected record is dead-lettered with the state, as the worker does.
    private mutating func decide(
        _ records: ArraySlice<(partition: Int32, record: InMemoryCluster.Record)>, tick: Bool,
        _ world: SimulatedWorld
    ) -> Batch {
        var batch = Batch()
        func add(_ result: StageResult, of record: InMemoryCluster.Record?) {
            if result.rejected != nil, let record, !world.mutations.contains(.dropDeadLetters) {
                batch.state.append(
                    (SimulatedWorld.topics.deadLetter, .init(key: record.key, value: record.value, signature: nil)))
            }
            for (destination, event) in result.events {
                let output = (SimulatedWorld.topics.topic(for: destination), world.record(of: event))
                if destination.isState { batch.state.append(output) } else { batch.notices.append(output) }
                if destination == .ledger, world.mutations.contains(.duplicateLedgerEvents),
                    var copy = try? LedgerEvent.decode(from: event)
                {
                    // Broken on purpose: the same decision recorded again under another id.
                    copy.id += "-again"
                    let envelope = copy.envelope(source: event.source, time: event.time)
                    batch.state.append((SimulatedWorld.topics.ledger, world.record(of: envelope)))
                }
            }
        }
        // A record held from a partition revoked since is not decided: its state is gone with
        // it (a fresh, empty one would decide), and its next owner reads it from the committed
        // offset. (The worker learns of a revocation when it polls, with nothing held then;
        // here the group tells a member at any time, also while it holds polled records.)
        for (partition, record) in records where runtime.owned.contains(partition) {
            add(decider.decide(record, partition: partition, world), of: record)
        }
        if tick { add(decider.tick(owned: runtime.owned, world), of: nil) }
        return batch
    }
}
