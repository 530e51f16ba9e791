import Foundation
import IntentEvents
import Intents
import Messaging
import StageRuntime

/// One member of the simulated handle stage's group: a ``StageRuntime`` and what a
/// Kafka host would keep beside it (fetch positions, polled records, each batch's
/// outputs, deliveries in flight, stored offsets, the message history of its
/// partitions), executing the runtime's actions on the ``InMemoryCluster``.
struct SimulatedMember {
    typealias Instant = ManualClock.Instant

    /// A delivery the cluster reports at `due`.
    struct Pending {
        var ticket: StageTicket
        var due: Instant
        var succeeds: Bool
    }

    /// One decided batch's outputs by round.
    struct Batch {
        var state: [(topic: String, record: InMemoryCluster.Record)] = []
        var notices: [(topic: String, record: InMemoryCluster.Record)] = []
    }

    let name: String
    var runtime: StageRuntime<Instant>
    var history = MessageHistory()
    var positions: [Int32: Int64] = [:]
    var held: [InMemoryCluster.Record] = []
    var batches: [BatchID: Batch] = [:]
    var pending: [Pending] = []
    var stored: [Int32: Int64] = [:]
    /// How far the messages topic's partitions were applied to the history.
    private var followed: [Int32: Int] = [:]
    /// Shut down and finished: leaves the group.
    var left = false
    private var nextPartition = 0

    init(name: String, policy: StageRuntimePolicy, now: Instant, seed: UInt64) {
        self.name = name
        runtime = StageRuntime(policy: policy, now: now, seed: seed)
    }

    var isIdle: Bool { runtime.isIdle && !runtime.hasUncommitted && pending.isEmpty && held.isEmpty }

    /// The group's new generation gives this member `assignment`.
    mutating func reassign(_ assignment: Set<Int32>, at now: Instant, _ simulation: inout MessagingSimulation) {
        let revoked = runtime.owned.subtracting(assignment)
        let gained = assignment.subtracting(runtime.owned)
        for partition in revoked { positions[partition] = nil }
        if !revoked.isEmpty { execute(runtime.revoked(revoked, now: now), now, &simulation) }
        if !gained.isEmpty { execute(runtime.assigned(gained, now: now), now, &simulation) }
    }

    mutating func shutdown(at now: Instant, _ simulation: inout MessagingSimulation) {
        held = []
        execute(runtime.shutdown(now: now), now, &simulation)
    }

    /// Reports the deliveries due by `now`, then does what the runtime waits for.
    mutating func turn(at now: Instant, _ simulation: inout MessagingSimulation) {
        var index = 0
        while index < pending.count {
            guard pending[index].due <= now else {
                index += 1
                continue
            }
            let delivery = pending.remove(at: index)
            let actions =
                delivery.succeeds
                ? runtime.acknowledged(delivery.ticket, now: now) : runtime.failed(delivery.ticket, now: now)
            execute(actions, now, &simulation)
        }
        switch runtime.next() {
        case .stopped, .acknowledgement:
            return
        case .timer(let due):
            if due <= now { execute(runtime.timer(now: now), now, &simulation) }
        case .poll(let maximum, _):
            let polled = poll(maximum, simulation.cluster)
            held += polled.map(\.record)
            execute(runtime.polled(polled.map(\.position), now: now), now, &simulation)
        }
    }

    /// Up to `maximum` records from the owned partitions, starting at a rotating partition.
    private mutating func poll(_ maximum: Int, _ cluster: InMemoryCluster) -> [(
        position: InputPosition, record: InMemoryCluster.Record
    )] {
        let partitions = positions.keys.sorted()
        guard !partitions.isEmpty else { return [] }
        nextPartition += 1
        var polled: [(position: InputPosition, record: InMemoryCluster.Record)] = []
        for step in 0..<partitions.count where polled.count < maximum {
            let partition = partitions[(nextPartition + step) % partitions.count]
            let from = positions[partition] ?? 0
            let records = cluster.records(
                of: MessagingSimulation.input, partition: partition, from: from, limit: maximum - polled.count)
            for (offset, record) in zip(from..., records) {
                polled.append((InputPosition(partition: partition, offset: offset), record))
            }
            positions[partition] = from + Int64(records.count)
        }
        return polled
    }

    private mutating func execute(_ actions: [StageAction], _ now: Instant, _ simulation: inout MessagingSimulation) {
        var queue = actions[...]
        while let action = queue.popFirst() {
            switch action {
            case .restore(let owned, let gained):
                restore(owned, simulation)
                for partition in gained {
                    positions[partition] = simulation.cluster.committed(partition, group: MessagingSimulation.group)
                }
                for partition in positions.keys where !owned.contains(partition) { positions[partition] = nil }
            case .claim, .readBack, .snapshot:
                break
            case .decide(let id, let records, let tick):
                let consumed = Array(held.prefix(records.count))
                held.removeFirst(consumed.count)
                follow(runtime.owned, simulation)
                let batch = decide(consumed, tick: tick, now, simulation)
                if !batch.state.isEmpty || !batch.notices.isEmpty { batches[id] = batch }
                queue += runtime.decided(id, state: !batch.state.isEmpty, notices: !batch.notices.isEmpty, now: now)
            case .publish(let round, let ids, _):
                // One fate per hand-over, as an idempotent producer fails what follows a failure too.
                let roll = simulation.faultsOn ? simulation.random.next() % 100 : 99
                let lands = roll >= 4
                let succeeds = roll >= 8
                for id in ids {
                    guard let batch = batches[id] else { continue }
                    if lands {
                        for (topic, record) in round == .state ? batch.state : batch.notices {
                            simulation.publish(record, to: topic)
                        }
                    }
                    if !succeeds { simulation.report.failedAcknowledgements += 1 }
                    let delay = Duration.microseconds(Int64(200 + simulation.random.next() % 4000))
                    pending.append(
                        Pending(
                            ticket: round == .state ? .state(id) : .notices(id), due: now.advanced(by: delay),
                            succeeds: succeeds))
                }
            case .storeOffsets(let id, let offsets):
                stored.merge(offsets, uniquingKeysWith: max)
                batches[id] = nil
            case .commit:
                if simulation.faultsOn && simulation.random.next() % 100 < 5 {
                    simulation.report.failedAcknowledgements += 1
                    queue += runtime.failed(.commit, now: now)
                } else {
                    simulation.cluster.commit(stored, group: MessagingSimulation.group, member: name)
                    queue += runtime.acknowledged(.commit, now: now)
                }
            case .stop(.finished):
                left = true
            case .stop(.gaveUp(let ticket, let failingFor)):
                simulation.report.failures.append("\(name) gave up on \(ticket) after \(failingFor)")
                left = true
            }
        }
    }

    /// The message history of `owned`, restored from the messages topic (the state topic).
    private mutating func restore(_ owned: Set<Int32>, _ simulation: MessagingSimulation) {
        history = MessageHistory()
        followed = [:]
        follow(owned, simulation)
    }

    /// Applies what was written to the owned partitions of the messages topic since last
    /// read, as the worker's follower does: another member that lost a partition may still
    /// finish a round there after this one restored it. (Own records read back change
    /// nothing: the history applies each event once.)
    private mutating func follow(_ owned: Set<Int32>, _ simulation: MessagingSimulation) {
        for partition in owned.sorted() {
            let events = simulation.messageEvents[partition] ?? []
            let from = followed[partition] ?? 0
            guard from < events.count else { continue }
            for event in events[from...] {
                if let event { history.apply(event) }
            }
            followed[partition] = events.count
        }
    }

    private mutating func decide(
        _ records: [InMemoryCluster.Record], tick: Bool, _ now: Instant, _ simulation: MessagingSimulation
    ) -> Batch {
        let date = MessagingSimulation.epoch.addingTimeInterval(
            Double(now.sinceStart.components.seconds) + Double(now.sinceStart.components.attoseconds) / 1e18)
        var batch = Batch()
        var results: [(InMemoryCluster.Record?, StageResult)] = []
        for record in records {
            var unremembered: ReplayGuard?
            results.append(
                (
                    record,
                    simulation.stage.process(
                        key: record.key, value: record.value, signature: record.signature, history: &history,
                        now: date, seen: &unremembered)
                ))
        }
        if tick {
            let owned = runtime.owned
            let cluster = simulation.cluster
            results.append(
                (
                    nil,
                    simulation.stage.tick(history: &history, now: date) {
                        owned.contains(cluster.partition(forKey: $0))
                    }
                ))
        }
        for (record, result) in results {
            if result.rejected != nil, let record {
                batch.state.append(
                    (MessagingSimulation.deadLetter, .init(key: record.key, value: record.value, signature: nil)))
            }
            for (destination, event) in result.events {
                let output = InMemoryCluster.Record(
                    key: event.userID, value: event.encoded(), signature: simulation.keys.signature(for: event))
                if destination.isState {
                    batch.state.append((MessagingSimulation.messages, output))
                } else {
                    batch.notices.append((MessagingSimulation.responses, output))
                }
            }
        }
        return batch
    }
}
