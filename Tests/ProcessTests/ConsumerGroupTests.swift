import BrokerTestSupport
import Foundation
import Kafka
import LocalBroker
import Synchronization
import Testing

/// What every group member processed, in order, shared between member tasks.
/// Tests await "n distinct records processed" as an event, not by sleeping.
final class ProcessingLog: Sendable {
    struct Entry: Hashable {
        var member: String
        var partition: Int32
        var offset: Int64
    }

    private struct State {
        var entries: [Entry] = []
        var distinct: Set<String> = []
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
        /// Per member: records processed whose offsets no successful commit has covered yet.
        var unconfirmed: [String: Set<KafkaPartitionOffset>] = [:]
        /// Records whose first processing was never confirmed committed (their member moved on).
        var atRisk: Set<KafkaPartitionOffset> = []
        var failedCommits = 0
    }

    private let state = Mutex(State())

    func record(_ member: String, _ batch: [KafkaConsumerMessage]) {
        let ready = state.withLock { state in
            for message in batch {
                state.entries.append(Entry(member: member, partition: message.partition, offset: message.offset))
                state.distinct.insert("\(message.partition)/\(message.offset)")
                state.unconfirmed[member, default: []].insert(
                    KafkaPartitionOffset(topic: message.topic, partition: message.partition, offset: message.offset))
            }
            let ready = state.waiters.filter { $0.count <= state.distinct.count }
            state.waiters.removeAll { $0.count <= state.distinct.count }
            return ready
        }
        for waiter in ready { waiter.continuation.resume() }
    }

    var all: [Entry] { state.withLock { $0.entries } }
    var atRisk: Set<KafkaPartitionOffset> { state.withLock { $0.atRisk.union($0.unconfirmed.values.joined()) } }
    var failedCommits: Int { state.withLock { $0.failedCommits } }

    /// A commit succeeded: work on partitions the member still owns is committed.
    /// Work on partitions it lost meanwhile stays unconfirmed: it was committed
    /// only if the commit made before the revoke succeeded, which is not observable here.
    func committed(_ member: String, stillAssigned: Set<KafkaTopicPartition>) {
        state.withLock { state in
            let pending = state.unconfirmed[member] ?? []
            let lost = pending.filter { !stillAssigned.contains($0.topicPartition) }
            state.atRisk.formUnion(lost)
            state.unconfirmed[member] = []
        }
    }

    /// The member is about to give up partitions (the commit made before a revoke may fail,
    /// and a partition may come straight back): none of its unconfirmed work counts as
    /// committed any more, even if a later commit, with nothing left to commit, succeeds.
    func revoking(_ member: String) {
        state.withLock { state in
            state.atRisk.formUnion(state.unconfirmed[member] ?? [])
            state.unconfirmed[member] = []
        }
    }

    func commitFailed() {
        state.withLock { $0.failedCommits += 1 }
    }

    /// Returns once `count` distinct records were processed, or after `timeout`.
    func waitForDistinct(_ count: Int, timeout: Duration = .seconds(90)) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    let done = self.state.withLock { state in
                        if state.distinct.count >= count { return true }
                        state.waiters.append((count, continuation))
                        return false
                    }
                    if done { continuation.resume() }
                }
            }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
            // Release a still-waiting continuation so the first task can finish.
            let stale = self.state.withLock { state in
                defer { state.waiters.removeAll { $0.count == count } }
                return state.waiters.filter { $0.count == count }
            }
            for waiter in stale { waiter.continuation.resume() }
        }
    }
}

/// A worker loop as the pipeline's workers run it: poll, process, mark, commit.
func runMember(_ name: String, _ consumer: KafkaConsumer, _ log: ProcessingLog) async throws {
    // Commit failures librdkafka reports itself (the commit made before a revoke).
    let watcher = Task {
        for await error in consumer.errors where error.operation.contains("commit") { log.commitFailed() }
    }
    defer { watcher.cancel() }
    for try await batch in consumer.batches(maxMessages: 50, timeout: .milliseconds(200)) {
        log.record(name, batch)
        try consumer.markProcessed(batch)
        if try await consumer.commit() {
            log.committed(name, stillAssigned: Set(try consumer.assignment()))
        } else {
            log.commitFailed()
        }
    }
}

extension ProcessLevel {
    @Suite("Consumer groups")
    struct ConsumerGroupTests {
        @Test(
            "members share partitions; a joining member rebalances with nothing lost and no committed work redone")
        func rebalanceWithoutLossOrDuplicates() async throws {
            try await withBroker { broker in
                let topic = uniqueName("group")
                let group = uniqueName("group")
                let partitions = 6
                try await createTopic(broker, topic, partitions: partitions)
                let producer = try KafkaProducer(configuration: producerConfiguration(broker), logger: testLogger)
                let log = ProcessingLog()

                func produce(_ range: Range<Int>) async throws {
                    try await producer.sendAll(
                        range.map { KafkaProducerMessage(topic: topic, key: "user-\($0)", value: bytes("\($0)")) })
                }
                let consumers = try ["a", "b", "c"].map { name in
                    try KafkaConsumer(
                        configuration: consumerConfiguration(broker, group: group), logger: testLogger,
                        beforeRevoke: { log.revoking(name) })
                }
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    for (name, consumer) in zip(["a", "b"], consumers) {
                        try consumer.subscribe(topics: [topic])
                        tasks.addTask { try await runMember(name, consumer, log) }
                    }
                    try await produce(0..<300)
                    await log.waitForDistinct(300)
                    #expect(Set(log.all.map { "\($0.partition)/\($0.offset)" }).count == 300)
                    let firstPhase = Set(log.all.map(\.member))
                    #expect(firstPhase == ["a", "b"], "both members got partitions")

                    // A third member joins; cooperative rebalancing moves some partitions to it.
                    let joining = consumers[2]
                    try joining.subscribe(topics: [topic])
                    tasks.addTask { try await runMember("c", joining, log) }
                    let assignedToC = await first(joining.rebalances, within: .seconds(60)) {
                        if case .assigned(let partitions) = $0 { return !partitions.isEmpty }
                        return false
                    }
                    #expect(assignedToC != nil, "the joining member was assigned partitions")
                    try await produce(300..<600)
                    await log.waitForDistinct(600)
                    // Members end their loops on cancellation; a member that failed rethrows here.
                    tasks.cancelAll()
                    try await tasks.waitForAll()
                }
                for consumer in consumers { await consumer.close() }

                let entries = log.all
                let positions = entries.map { "\($0.partition)/\($0.offset)" }
                #expect(Set(positions).count == 600, "nothing lost")
                // At-least-once: a record may be processed again only if its first
                // processing was never confirmed committed. The local broker bumps
                // the group generation mid-rebalance, so commits can fail with
                // ILLEGAL_GENERATION; when none failed, nothing may repeat at all.
                let duplicates = Dictionary(
                    grouping: entries,
                    by: { KafkaPartitionOffset(topic: topic, partition: $0.partition, offset: $0.offset) }
                )
                .filter { $0.value.count > 1 }.keys
                let atRisk = log.atRisk
                #expect(
                    duplicates.allSatisfy { atRisk.contains($0) },
                    "committed work processed twice: \(duplicates.filter { !atRisk.contains($0) }.sorted { $0.description < $1.description }.prefix(5))"
                )
                if log.failedCommits == 0 {
                    #expect(duplicates.isEmpty, "no commit failed, yet records were processed twice")
                }
                #expect(entries.contains { $0.member == "c" }, "the new member processed records")

                // Every partition's committed offset is at its end.
                let verifier = try KafkaConsumer(
                    configuration: consumerConfiguration(broker, group: group), logger: testLogger)
                let lag = try await verifier.lag(
                    partitions: (0..<Int32(partitions)).map { KafkaTopicPartition(topic: topic, partition: $0) })
                // Committed offsets trail the end only by work never confirmed committed.
                let totalLag = lag.map(\.lag).reduce(0, +)
                #expect(
                    totalLag <= Int64(atRisk.count), "lag \(totalLag) exceeds the \(atRisk.count) unconfirmed records")
                if log.failedCommits == 0 { #expect(totalLag == 0) }
                #expect(lag.map(\.highWatermark).reduce(0, +) == 600)
                await verifier.close()
                await producer.shutdown()
            }
        }
    }
}
