import Foundation
import IntentEvents
import StageRuntime

/// A seeded simulation of the whole pipeline on an ``InMemoryCluster`` under a manual
/// clock, in the manner of TigerBeetle's VOPR: the four stages (resolve, confirm,
/// payments, handle), each a consumer group of one to three ``SimulatedMember``s
/// driving a ``StageRuntime``, fed by a simulated voice service whose users confirm,
/// decline or answer late. Members crash and restart, groups scale up and down,
/// acknowledgements are delayed, fail (with the records landed or not) and commits
/// fail, and hostile records (garbage, unsigned, forged producers, replays) are mixed
/// in. At the end the audit's invariants must hold over what is on the topics
/// (``PipelineInvariants``). Everything random comes from the seed, so a seed replays
/// exactly: `intent-bench simulate --seed S --intents N`.
public struct PipelineSimulation {
    /// What a run found, as `intent-bench simulate` prints it.
    public struct Report: Sendable, Codable, Hashable {
        public var seed: UInt64
        public var intents: Int
        /// FNV-1a of every output record (topic, partition, key, value), in topic order.
        public var digest = ""
        /// Every invariant held.
        public var held = false
        public var failures: [String] = []
        public var steps = 0
        public var crashes = 0
        /// Payments members that stopped when another member's claim overtook their writes.
        public var fencedStops = 0
        public var rebalances = 0
        public var failedAcknowledgements = 0
        public var outputRecords = 0
        /// Intents that ended with a final response, and payments that moved money.
        public var finalResponses = 0
        public var postedTransfers = 0
        public var voidedTransfers = 0
        /// Records refused and parked, of them hostile ones the simulation sent.
        public var deadLetters = 0
        public var hostileRecords = 0
        public var snapshots = 0

        init(seed: UInt64, intents: Int) {
            self.seed = seed
            self.intents = intents
        }
    }

    /// A fault put into the pipeline on purpose, to show that the invariants catch it
    /// (`intent-bench simulate --mutation`): a run with one must fail.
    public enum Mutation: String, Sendable, Hashable, CaseIterable, Codable {
        /// A member gaining a ledger partition that has a snapshot restores the snapshot and
        /// skips the ledger records written after it.
        case skipLedgerRestore = "skip-ledger-restore"
        /// Input offsets are committed when a batch is decided, before its records are published.
        case commitAtDecision = "commit-at-decision"
        /// Rejected records are dropped instead of dead-lettered.
        case dropDeadLetters = "drop-dead-letters"
        /// Every ledger event is published twice under two ids.
        case duplicateLedgerEvents = "duplicate-ledger-events"
    }

    var world: SimulatedWorld
    var voice: SimulatedVoiceService
    var resolve = SimulatedGroup<ResolveDecider>()
    var confirm = SimulatedGroup<ConfirmDecider>()
    var payments = SimulatedGroup<PaymentsDecider>()
    var handle = SimulatedGroup<HandleDecider>()

    init(seed: UInt64, intents: Int, mutations: Set<Mutation>) {
        world = SimulatedWorld(seed: seed, intents: intents, mutations: mutations)
        voice = SimulatedVoiceService(intents: intents)
    }

    /// Runs the seed to the end and checks the invariants.
    public static func run(seed: UInt64, intents: Int, mutations: Set<Mutation> = []) -> Report {
        ran(seed: seed, intents: intents, mutations: mutations).checked()
    }

    /// The seed run to its end, not yet checked.
    static func ran(seed: UInt64, intents: Int, mutations: Set<Mutation> = []) -> PipelineSimulation {
        var simulation = PipelineSimulation(seed: seed, intents: intents, mutations: mutations)
        simulation.world.openAccounts()
        simulation.resolve.join(&simulation.world)
        simulation.confirm.join(&simulation.world)
        simulation.payments.join(&simulation.world)
        simulation.handle.join(&simulation.world)
        simulation.runWithFaults()
        simulation.runQuietly()
        return simulation
    }

    /// The invariants checked over the run so far: every stage committed its input, and the audit's rules.
    /// `decodingEverything`: the check decodes every record from its bytes instead of taking
    /// what the world decoded as they were appended (the same report; a test compares them).
    func checked(decodingEverything: Bool = false) -> Report {
        var invariants = PipelineInvariants(world: world, voice: voice, decodingEverything: decodingEverything)
        invariants.checkCommitted(resolve, confirm, payments, handle)
        return invariants.check()
    }

    /// Requests are spoken over the first 70% of these steps; every step, each group
    /// draws a fault or lets one member take a turn.
    private mutating func runWithFaults() {
        let steps = 12 * voice.intents + 400
        for step in 0..<steps {
            world.report.steps += 1
            world.clock.advance(by: .microseconds(Int64(world.random.next() % 3000)))
            voice.step(step, of: steps * 7 / 10, &world)
            resolve.step(&world)
            confirm.step(&world)
            payments.step(&world)
            handle.step(&world)
        }
    }

    /// No more faults: every member runs until everything is consumed and answered, and
    /// stays so for longer than a confirmation window, the slow service's delay and a tick.
    /// `beforeEachStep` lets a scripted scenario act first (answer its own intents).
    mutating func runQuietly(beforeEachStep: (inout SimulatedWorld) -> Void = { _ in }) {
        world.faultsOn = false
        var idleRounds = 0
        var stagesSettled = false
        for _ in 0..<(200 * voice.intents + 20_000) {
            world.report.steps += 1
            // With the stages settled, time runs faster: what is left are late answers,
            // expiries, the slow service, ticks.
            world.clock.advance(by: stagesSettled ? .milliseconds(250) : .milliseconds(1))
            beforeEachStep(&world)
            voice.step(1, of: 1, &world)
            resolve.turnAll(&world)
            confirm.turnAll(&world)
            payments.turnAll(&world)
            handle.turnAll(&world)
            stagesSettled =
                resolve.isSettled(world) && confirm.isSettled(world) && payments.isSettled(world)
                && handle.isSettled(world)
            idleRounds = stagesSettled && voice.isDone ? idleRounds + 1 : 0
            if idleRounds > 40 { return }
        }
        world.report.failures.append("did not settle within the step budget")
    }
}
