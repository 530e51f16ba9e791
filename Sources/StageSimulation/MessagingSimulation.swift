import Foundation
import IntentEvents
import Intents
import Messaging
import PipelineAudit
import StageRuntime

/// A seeded simulation of the handle stage (messaging) run by ``StageRuntime`` members
/// on an ``InMemoryCluster`` under a manual clock: members crash and restart, the group
/// scales between one and three members, acknowledgements are delayed, fail (with the
/// records landed or not) and commits fail, and the input holds hostile records
/// (unparseable, unsigned) and redelivered copies. At the end the audit's invariants
/// must hold over what is on the topics: every intent answered, one final response per
/// intent, every message sent once, nothing left unconsumed, every hostile record
/// dead-lettered. Everything random comes from the seed, so a seed replays exactly.
public struct MessagingSimulation {
    /// What a run found, as `intent-bench simulate` prints it.
    public struct Report: Sendable, Codable, Hashable {
        public var seed: UInt64
        public var intents: Int
        /// FNV-1a of every output record (topic, partition, key, value), in topic order.
        public var digest: String
        /// Every invariant held.
        public var held: Bool
        public var failures: [String]
        public var steps: Int
        public var crashes: Int
        public var rebalances: Int
        public var failedAcknowledgements: Int
        public var outputRecords: Int
    }

    static let input = "confirmed"
    static let messages = "messages"
    static let responses = "responses"
    static let deadLetter = "dead-letter"
    static let group = "intent-handle"
    /// When the simulation's time begins (the intents are dated from it).
    static let epoch = Date(timeIntervalSince1970: 1_795_000_000)

    let seed: UInt64
    let intents: Int
    let keys: EventAuthenticator
    let stage: HandleStage
    var random: SplitMix64
    var clock = ManualClock()
    var cluster = InMemoryCluster(partitionCount: 6)
    var members: [SimulatedMember] = []
    var memberCount = 0
    var report: Report
    /// Intents (valid, signed) the input holds; each must end with a final response.
    var expected: Set<String> = []
    /// Hostile records' values: each must be dead-lettered.
    var hostile: Set<[UInt8]> = []

    public init(seed: UInt64, intents: Int) {
        self.seed = seed
        self.intents = intents
        random = SplitMix64(seed: seed)
        keys = EventAuthenticator(
            keys: PipelineSource.all.enumerated().map {
                SigningKey(source: $1, bytes: Array(repeating: UInt8($0 + 1), count: 32))
            })
        stage = HandleStage(authenticator: keys, slowServices: ["satellite": .seconds(1)])
        report = Report(
            seed: seed, intents: intents, digest: "", held: false, failures: [], steps: 0, crashes: 0, rebalances: 0,
            failedAcknowledgements: 0, outputRecords: 0)
    }

    /// Runs the seed to the end and checks the invariants.
    public static func run(seed: UInt64, intents: Int) -> Report {
        var simulation = MessagingSimulation(seed: seed, intents: intents)
        simulation.fillInput()
        simulation.start()
        simulation.runWithFaults()
        simulation.runQuietly()
        simulation.check()
        return simulation.report
    }

    // MARK: Input

    private mutating func fillInput() {
        var sent: [InMemoryCluster.Record] = []
        for index in 0..<intents {
            let roll = random.next() % 100
            if roll < 3 {
                let garbage = (0..<(8 + Int(random.next() % 24))).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                hostile.insert(garbage)
                cluster.append(.init(key: "u\(index % 40)", value: garbage, signature: nil), to: Self.input)
                continue
            }
            let user = "u\(random.next() % 40)"
            let slow = roll < 13
            let intent = Intent.sendMessage(
                SendMessageIntent(
                    recipients: [Person(spoken: "Ann", handle: "+1 555 \(index % 97)")], content: "hello \(index)",
                    serviceName: slow ? "Satellite" : nil))
            let event = EventEnvelope(
                id: "confirmed-m\(index)", source: "/workers/confirm", type: IntentConfirmation.type,
                time: Self.epoch.addingTimeInterval(Double(index) / 100), dataSchema: IntentConfirmation.dataSchema,
                userID: user, conversationID: "c-\(user)", intentID: "m\(index)",
                payload: IntentConfirmation(turn: 1, intent: intent, code: .ready, proposedResponse: "?"))
            if roll < 5 {
                // Unsigned: must be refused, not acted on.
                hostile.insert(event.encoded())
                cluster.append(.init(key: user, value: event.encoded(), signature: nil), to: Self.input)
                continue
            }
            let record = InMemoryCluster.Record(
                key: user, value: event.encoded(), signature: keys.signature(for: event))
            cluster.append(record, to: Self.input)
            expected.insert("m\(index)")
            sent.append(record)
            // A producer's retry: the same record again, later.
            if roll < 10, let earlier = sent.randomElement(using: &random) { cluster.append(earlier, to: Self.input) }
        }
    }

    // MARK: Members and faults

    private mutating func start() {
        join()
    }

    private mutating func join() {
        memberCount += 1
        let name = "member-\(memberCount)"
        let policy = StageRuntimePolicy(
            maximumBatch: 1 + Int(random.next() % 64), commitInterval: .milliseconds(200),
            maximumBatchesInFlight: 4, tickInterval: .seconds(1), restoresOnAssignment: true)
        members.append(SimulatedMember(name: name, policy: policy, now: clock.now, seed: random.next()))
        cluster.join(Self.group, member: name)
        rebalance()
    }

    /// Tells every member what the group's new generation gives and takes.
    private mutating func rebalance() {
        report.rebalances += 1
        for index in members.indices where !members[index].left {
            let assignment = cluster.assignment(of: members[index].name, in: Self.group)
            withMember(index) { member, simulation in member.reassign(assignment, at: simulation.clock.now, &simulation)
            }
        }
    }

    private mutating func crash(_ index: Int) {
        report.crashes += 1
        let name = members[index].name
        members.remove(at: index)
        cluster.leave(Self.group, member: name)
        rebalance()
    }

    private mutating func runWithFaults() {
        let steps = 40 * intents + 2000
        for _ in 0..<steps {
            report.steps += 1
            clock.advance(by: .microseconds(Int64(random.next() % 3000)))
            let roll = random.next() % 1000
            if roll < 2, !members.isEmpty {
                crash(Int(random.next() % UInt64(members.count)))
                if members.isEmpty || random.next() % 2 == 0 { join() }
            } else if roll < 4, members.count < 3 {
                join()
            } else if roll < 6, members.count > 1 {
                withMember(Int(random.next() % UInt64(members.count))) { member, simulation in
                    member.shutdown(at: simulation.clock.now, &simulation)
                }
            } else if !members.isEmpty {
                turn(Int(random.next() % UInt64(members.count)))
            }
            removeLeft()
            if members.isEmpty { join() }
        }
    }

    /// No more faults: every member runs until everything is consumed and answered.
    private mutating func runQuietly() {
        faultsOn = false
        var idleRounds = 0
        for _ in 0..<(200 * intents + 20_000) {
            report.steps += 1
            // Settled, time runs faster: what is left is the slow service's delay and the tick.
            clock.advance(by: idleRounds > 0 ? .milliseconds(50) : .milliseconds(1))
            for index in members.indices { turn(index) }
            removeLeft()
            if members.isEmpty { join() }
            idleRounds = isSettled ? idleRounds + 1 : 0
            // Settled for longer than the slow service's delay and a tick: done.
            if idleRounds > 60 { return }
        }
        report.failures.append("did not settle within the step budget")
    }

    private var isSettled: Bool {
        members.allSatisfy(\.isIdle)
            && (0..<Int32(cluster.partitionCount)).allSatisfy {
                cluster.committed($0, group: Self.group) == cluster.endOffset(of: Self.input, partition: $0)
            }
    }

    /// The messages topic decoded once, as it is appended: what members restore and
    /// follow their history from (decoding it again on every rebalance cost the most).
    var messageEvents: [Int32: [MessageEvent?]] = [:]

    /// Appends an output record; a message event is also kept decoded.
    mutating func publish(_ record: InMemoryCluster.Record, to topic: String) {
        let (partition, _) = cluster.append(record, to: topic)
        if topic == Self.messages {
            let event = (try? EventEnvelope.decode(record.value)).flatMap { try? $0.decodeData(as: MessageEvent.self) }
            messageEvents[partition, default: []].append(event)
        }
    }

    /// Whether acknowledgements and commits may fail now.
    var faultsOn = true

    private mutating func turn(_ index: Int) {
        withMember(index) { member, simulation in member.turn(at: simulation.clock.now, &simulation) }
    }

    /// Runs `body` on a copy of one member with the simulation at hand (the member
    /// appends to the cluster and counts in the report), then keeps the copy.
    private mutating func withMember(
        _ index: Int, _ body: (inout SimulatedMember, inout MessagingSimulation) -> Void
    ) {
        // Taken out while it runs, so its state is not copied on every change.
        var member = members.remove(at: index)
        body(&member, &self)
        members.insert(member, at: index)
    }

    private mutating func removeLeft() {
        let left = members.filter(\.left).map(\.name)
        guard !left.isEmpty else { return }
        members.removeAll(where: \.left)
        for name in left { cluster.leave(Self.group, member: name) }
        rebalance()
    }

    // MARK: Invariants

    private mutating func check() {
        var digest = Fingerprint.of([])
        var responses: [EventEnvelope] = []
        var messages: [EventEnvelope] = []
        var deadLettered: Set<[UInt8]> = []
        for topic in [Self.messages, Self.responses, Self.deadLetter] {
            for (partition, record) in cluster.records(of: topic) {
                report.outputRecords += 1
                digest = Fingerprint.of(Array(topic.utf8) + [UInt8(partition)], continuing: digest)
                digest = Fingerprint.of(Array((record.key ?? "").utf8) + record.value, continuing: digest)
                if topic == Self.deadLetter {
                    deadLettered.insert(record.value)
                } else if let event = try? EventEnvelope.decode(record.value) {
                    if topic == Self.responses { responses.append(event) } else { messages.append(event) }
                }
            }
        }
        report.digest = String(digest, radix: 16)
        let audit = PipelineAudit.audit(responses: responses, ledger: [], confirmations: [], messages: messages)
        report.failures += audit.findings
        for intent in audit.pendingIntents.sorted().prefix(5) {
            // What is on the topics for it, so a failing seed says where to look.
            let kinds = messages.filter { $0.intentID == intent }.compactMap {
                try? $0.decodeData(as: MessageEvent.self).kind.rawValue
            }
            report.failures.append(
                "intent \(intent) still in progress (of \(audit.pendingIntents.count)); message events \(kinds)")
        }
        let answered = Set(responses.compactMap(\.intentID))
        let unanswered = expected.subtracting(answered)
        if !unanswered.isEmpty { report.failures.append("intents never answered: \(unanswered.sorted().prefix(5))") }
        let notParked = hostile.subtracting(deadLettered)
        if !notParked.isEmpty { report.failures.append("\(notParked.count) hostile records not dead-lettered") }
        let acted = Set(messages.compactMap(\.intentID)).subtracting(expected)
        if !acted.isEmpty { report.failures.append("acted on records it must refuse: \(acted.sorted().prefix(5))") }
        for partition in 0..<Int32(cluster.partitionCount) {
            let committed = cluster.committed(partition, group: Self.group)
            let end = cluster.endOffset(of: Self.input, partition: partition)
            if committed != end {
                report.failures.append("partition \(partition): committed \(committed) of \(end) records")
            }
        }
        report.held = report.failures.isEmpty
    }
}
