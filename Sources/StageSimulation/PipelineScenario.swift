import Foundation
import IntentEvents
import Intents
import Payments

/// The simulated pipeline driven by a script instead of the seed's draws: a test says
/// which requests come, when a member crashes, how a group scales, when the operator
/// writes to the ledger, which record is appended again, and checks one property after
/// any step, then the run's invariants at the end (``PipelineSimulation/checked()``).
/// What the broker tests of stage logic did with processes and wall-clock waits, here
/// on the in-memory cluster with the real deciders, in milliseconds and replayable.
///
/// The voice service still speaks its seeded requests (``speak(_:)``) and answers them
/// as in a seeded run; intents a script asks itself (``pay(_:from:to:)``) are answered
/// "confirmed" at once, so their outcome is the pipeline's alone.
struct PipelineScenario {
    var simulation: PipelineSimulation
    private var scripted = 0
    /// Scripted intents whose user answers only when the script says (``answer(_:)``).
    private var withheld: Set<String> = []
    /// Their confirmation requests, kept until then.
    private var unanswered: [EventEnvelope] = []

    /// The accounts opened, each stage a group of one member. `faults`: publishes and
    /// commits fail as in a seeded run (crashes and scaling are the script's).
    init(seed: UInt64 = 1, intents: Int, faults: Bool = false, mutations: Set<PipelineSimulation.Mutation> = []) {
        simulation = PipelineSimulation(seed: seed, intents: intents, mutations: mutations)
        simulation.world.faultsOn = faults
        simulation.world.openAccounts()
        simulation.resolve.join(&simulation.world)
        simulation.confirm.join(&simulation.world)
        simulation.payments.join(&simulation.world)
        simulation.handle.join(&simulation.world)
    }

    var world: SimulatedWorld { simulation.world }

    // MARK: Input

    /// The voice service speaks `count` more of its seeded requests now.
    mutating func speak(_ count: Int) {
        let voice = simulation.voice
        simulation.voice.step(voice.spoken + count - 1, of: voice.intents, &simulation.world)
    }

    /// `user` asks, through the voice service, to pay `payee` `amount` CNY; returns the intent's id.
    @discardableResult
    mutating func pay(_ amount: String, from user: String, to payee: String) -> String {
        scripted += 1
        let intentID = "scripted-\(scripted)"
        let request = EventEnvelope(
            id: "request-\(intentID)", source: SimulatedWorld.voiceSource, type: IntentRequested.type,
            time: world.date, dataSchema: IntentRequested.dataSchema, userID: user,
            conversationID: "conversation-\(user)", intentID: intentID,
            payload: IntentRequested(
                turn: 1,
                intent: .sendPayment(
                    SendPaymentIntent(
                        payee: Person(spoken: payee, contactID: "c-\(payee)"),
                        currencyAmount: CurrencyAmount(amount: DecimalAmount(amount)!, currency: "CNY")))))
        append(Self.voiceSigned(request, world), to: SimulatedWorld.topics.requested)
        simulation.voice.expected.insert(intentID)
        return intentID
    }

    /// The user of the scripted intent `intentID` answers only when ``answer(_:)`` is called
    /// (late, past the confirmation window, if the script lets time run meanwhile).
    mutating func withholdAnswer(_ intentID: String) { withheld.insert(intentID) }

    /// The withheld intent's confirmation request answered "confirmed" now.
    mutating func answer(_ intentID: String) {
        withheld.remove(intentID)
        let requests = unanswered.filter { $0.intentID == intentID }
        unanswered.removeAll { $0.intentID == intentID }
        simulation.world.confirmationRequests += requests
        Self.answerScripted(&simulation.world)
    }

    /// The ledger operator deposits `amount` CNY into `user`'s account (a top-up).
    mutating func deposit(_ amount: String, to user: String) {
        let event = LedgerEvent.deposit(
            id: "top-up-\(user)-\(amount)", userID: user,
            amount: CurrencyAmount(amount: DecimalAmount(amount)!, currency: "CNY"))
        let envelope = event.envelope(source: PipelineSource.ledgerOperator, time: world.date)
        append(world.record(of: envelope), to: SimulatedWorld.topics.ledger)
    }

    /// Appends `record` to `topic` as it is (a replayed copy, a forged record).
    mutating func append(_ record: InMemoryCluster.Record, to topic: String) {
        simulation.world.publish(record, to: topic)
    }

    // MARK: Membership

    /// Member `index` of the stage dies with whatever it had in flight; with `restart`, a
    /// new member joins at once (otherwise only when the group is empty, at its next turn).
    mutating func crash<Decider>(
        _ stage: WritableKeyPath<PipelineSimulation, SimulatedGroup<Decider>>, member index: Int = 0,
        restart: Bool = true
    ) {
        withGroup(stage) { group, world in
            group.crash(index, &world)
            if restart { group.join(&world) }
        }
    }

    /// Every member of every stage dies and a new one joins: nothing is remembered but the topics.
    mutating func restartEveryStage() {
        func restart<Decider>(_ stage: WritableKeyPath<PipelineSimulation, SimulatedGroup<Decider>>) {
            withGroup(stage) { group, world in
                while !group.members.isEmpty { group.crash(0, &world) }
                group.join(&world)
            }
        }
        restart(\.resolve)
        restart(\.confirm)
        restart(\.payments)
        restart(\.handle)
    }

    /// The stage scales to `count` members: new ones join, the newest extra ones shut down
    /// gracefully (they leave once they finished, at a later step).
    mutating func scale<Decider>(_ stage: WritableKeyPath<PipelineSimulation, SimulatedGroup<Decider>>, to count: Int) {
        withGroup(stage) { group, world in
            while group.members.count < count { group.join(&world) }
            for index in group.members.indices.dropFirst(count) { group.members[index].shutdown(&world) }
        }
    }

    /// The member named `name` loses the broker: nothing it publishes lands, every acknowledgement
    /// and commit fails (its runtime retries), until ``reconnect(_:)``.
    mutating func cutOff(_ name: String) { simulation.world.unreachable.insert(name) }

    mutating func reconnect(_ name: String) { simulation.world.unreachable.remove(name) }

    func members<Decider>(of stage: KeyPath<PipelineSimulation, SimulatedGroup<Decider>>) -> Int {
        simulation[keyPath: stage].members.count
    }

    /// Runs `body` on one group and the world (the group taken out meanwhile, so neither is copied).
    private mutating func withGroup<Decider>(
        _ stage: WritableKeyPath<PipelineSimulation, SimulatedGroup<Decider>>,
        _ body: (inout SimulatedGroup<Decider>, inout SimulatedWorld) -> Void
    ) {
        var group = simulation[keyPath: stage]
        simulation[keyPath: stage] = SimulatedGroup()
        body(&group, &simulation.world)
        simulation[keyPath: stage] = group
    }

    // MARK: Running

    /// `count` steps: time moves by `interval`, due answers arrive, every member of every
    /// stage takes a turn, then `check` sees the world (a property that must hold at every
    /// moment, not only at the end).
    mutating func run(
        steps count: Int, interval: Duration = .milliseconds(1), check: (SimulatedWorld) -> Void = { _ in }
    ) {
        for _ in 0..<count {
            simulation.world.report.steps += 1
            simulation.world.clock.advance(by: interval)
            withhold()
            Self.answerScripted(&simulation.world)
            // Answers only: nothing more is spoken at a step before the next request's.
            let voice = simulation.voice
            simulation.voice.step(voice.spoken - 1, of: max(1, voice.intents), &simulation.world)
            simulation.resolve.turnAll(&simulation.world)
            simulation.confirm.turnAll(&simulation.world)
            simulation.payments.turnAll(&simulation.world)
            simulation.handle.turnAll(&simulation.world)
            check(simulation.world)
        }
    }

    /// No more faults: runs until every stage consumed, answered and committed everything
    /// and time has passed every window (the seeded run's quiet end; snapshots are taken).
    mutating func settle() {
        simulation.world.faultsOn = false
        simulation.runQuietly(beforeEachStep: Self.answerScripted)
    }

    /// The run's invariants over the topics as they are now.
    func checked() -> PipelineSimulation.Report { simulation.checked() }

    // MARK: Reading

    /// Every event on `topic` that decodes, in partition order.
    func events(of topic: String) -> [EventEnvelope] {
        world.cluster.records(of: topic).compactMap { try? EventEnvelope.decode($0.record.value) }
    }

    /// The intent's final responses (not "in progress").
    func finalResponses(of intentID: String) -> [IntentResponse] {
        events(of: SimulatedWorld.topics.responses).filter { $0.intentID == intentID }.compactMap {
            try? $0.decodeData(as: IntentResponse.self)
        }.filter { $0.code != .inProgress }
    }

    // MARK: Scripted answers

    /// The withheld intents' confirmation requests taken aside.
    private mutating func withhold() {
        let withheld = self.withheld
        unanswered += simulation.world.confirmationRequests.filter { withheld.contains($0.intentID ?? "") }
        simulation.world.confirmationRequests.removeAll { withheld.contains($0.intentID ?? "") }
    }

    /// The scripted intents' confirmation requests answered "confirmed" now, echoing the binding;
    /// the others are left to the voice service.
    private static func answerScripted(_ world: inout SimulatedWorld) {
        let (scripted, others) = world.confirmationRequests.reduce(into: ([EventEnvelope](), [EventEnvelope]())) {
            if $1.intentID?.hasPrefix("scripted-") == true { $0.0.append($1) } else { $0.1.append($1) }
        }
        world.confirmationRequests = others
        for request in scripted {
            guard let binding = try? request.decodeData(as: ConfirmationRequest.self).binding else { continue }
            let answer = EventEnvelope(
                id: "answer-\(request.intentID ?? "")", source: SimulatedWorld.voiceSource,
                type: ConfirmationAnswer.type, time: world.date, dataSchema: ConfirmationAnswer.dataSchema,
                userID: request.userID, conversationID: request.conversationID, intentID: request.intentID,
                payload: ConfirmationAnswer(decision: .confirmed, binding: binding))
            world.publish(voiceSigned(answer, world), to: SimulatedWorld.topics.confirmations)
        }
    }

    private static func voiceSigned(_ event: EventEnvelope, _ world: SimulatedWorld) -> InMemoryCluster.Record {
        let bytes = event.encoded()
        return InMemoryCluster.Record(
            key: event.userID, value: bytes,
            signature: world.voiceKeys.signature(forCanonical: bytes, source: SimulatedWorld.voiceSource))
    }
}
