import AppState
import Foundation
import IntentEvents
import Intents
import Payments
import PipelineAudit

/// What must hold at the end of a simulated run, read from the topics alone as an
/// auditor reads them: the audit's rules (one final response per intent, one hold and
/// one post-or-void per transfer, balances the sums of their entries, money neither
/// created nor lost, every message sent once), and beside them: every intent the voice
/// service asked with a valid signature answered, nothing left unconsumed by any stage,
/// every hostile record dead-lettered and none acted on, and the app state's projection
/// of the output topics showing the balances the ledger holds.
struct PipelineInvariants {
    private let world: SimulatedWorld
    private let voice: SimulatedVoiceService
    private var report: PipelineSimulation.Report

    /// Decode every record from its bytes, reusing nothing the world decoded: what a test
    /// compares the reusing check with.
    private let decodingEverything: Bool

    init(world: SimulatedWorld, voice: SimulatedVoiceService, decodingEverything: Bool = false) {
        self.world = world
        self.voice = voice
        self.decodingEverything = decodingEverything
        report = world.report
    }

    /// Every stage consumed and committed its whole input.
    mutating func checkCommitted<Resolve, Confirm, Payments, Handle>(
        _ resolve: SimulatedGroup<Resolve>, _ confirm: SimulatedGroup<Confirm>,
        _ payments: SimulatedGroup<Payments>, _ handle: SimulatedGroup<Handle>
    ) {
        let stages: [(String, [(partition: Int32, committed: Int64, end: Int64)])] = [
            (Resolve.group, resolve.uncommitted(world)), (Confirm.group, confirm.uncommitted(world)),
            (Payments.group, payments.uncommitted(world)), (Handle.group, handle.uncommitted(world)),
        ]
        for (group, partitions) in stages {
            for (partition, committed, end) in partitions {
                report.failures.append("\(group) partition \(partition): committed \(committed) of \(end) records")
            }
        }
    }

    /// The output topics the rules below read whole (the resolved intents, so every posted
    /// payment's proposal is held to its resolution as the audit holds it); the others
    /// (confirmed, prompts) are decoded only to say where an unanswered intent got to.
    private static let checked: Set<String> = [
        SimulatedWorld.topics.resolved, SimulatedWorld.topics.responses, SimulatedWorld.topics.ledger,
        SimulatedWorld.topics.confirmations, SimulatedWorld.topics.messages, SimulatedWorld.topics.deadLetter,
    ]

    mutating func check() -> PipelineSimulation.Report {
        var digest = Fingerprint.of([])
        var topics: [String: [EventEnvelope]] = [:]
        var deadLettered: Set<[UInt8]> = []
        // The ledger's events, beside its envelopes in `topics`.
        var ledgerDecoded: [LedgerEvent?] = []
        for topic in SimulatedWorld.outputs {
            let isChecked = Self.checked.contains(topic)
            let isDeadLetter = topic == SimulatedWorld.topics.deadLetter
            let isLedger = topic == SimulatedWorld.topics.ledger
            for (index, records) in world.cluster.partitions(of: topic).enumerated() {
                let partition = Int32(index)
                let kept = keptDecodings(of: topic, partition, records: records.count, ledger: isLedger)
                for (offset, record) in records.enumerated() {
                    report.outputRecords += 1
                    // FNV-1a runs byte by byte: the topic, the partition, the key and then the value,
                    // without joining them in a copy.
                    digest = Fingerprint.of(topic.utf8, continuing: digest)
                    digest = Fingerprint.of(CollectionOfOne(UInt8(truncatingIfNeeded: partition)), continuing: digest)
                    digest = Fingerprint.of((record.key ?? "").utf8, continuing: digest)
                    digest = Fingerprint.of(record.value, continuing: digest)
                    if isDeadLetter { deadLettered.insert(record.value) }
                    guard isChecked else { continue }
                    let envelope = kept?.envelopes[offset]
                    guard let event = envelope ?? (try? EventEnvelope.decode(record.value)) else { continue }
                    topics[topic, default: []].append(event)
                    if isLedger {
                        // A record the world verified was decoded into its event there too.
                        let verified = envelope == nil ? nil : kept?.ledger?[offset]?.event
                        ledgerDecoded.append(verified ?? (try? LedgerEvent.decode(from: event)))
                    }
                }
            }
        }
        report.digest = String(digest, radix: 16)
        report.deadLetters = world.cluster.records(of: SimulatedWorld.topics.deadLetter).count
        report.hostileRecords = voice.hostile.count
        // Each response and ledger event decoded once, for the audit and the checks below.
        let responses = (topics[SimulatedWorld.topics.responses] ?? []).map {
            (envelope: $0, response: try? $0.decodeData(as: IntentResponse.self))
        }
        let ledger = topics[SimulatedWorld.topics.ledger] ?? []
        let ledgerEvents = zip(ledger, ledgerDecoded).map { (envelope: $0, event: $1) }
        // ``PipelineAudit/audit(responses:ledger:confirmations:messages:deadLetters:accounts:bindingKey:)``,
        // fed the events decoded above.
        var streaming = StreamingAudit()
        for entry in ledgerEvents where entry.event?.kind == .accountOpened {
            streaming.accountRecord(decoded: entry.event)
        }
        for entry in responses { streaming.response(entry.envelope, decoded: entry.response) }
        for entry in ledgerEvents { streaming.ledgerRecord(entry.envelope, decoded: entry.event) }
        for record in topics[SimulatedWorld.topics.confirmations] ?? [] { streaming.confirmation(record) }
        for record in topics[SimulatedWorld.topics.resolved] ?? [] { streaming.resolvedIntent(record) }
        streaming.resolvedIntentsRead(complete: true)
        for record in topics[SimulatedWorld.topics.messages] ?? [] { streaming.message(record) }
        for record in topics[SimulatedWorld.topics.deadLetter] ?? [] { streaming.deadLetter(record) }
        let audit = streaming.report(bindingKey: SimulatedWorld.bindingKey)
        report.failures += audit.findings
        report.postedTransfers = audit.postedTransfers
        report.voidedTransfers = audit.voidedTransfers
        // Settled past every confirmation window: each hold was posted or released.
        if audit.heldTransfers > 0 { report.failures.append("\(audit.heldTransfers) transfers still held at the end") }
        for intent in audit.pendingIntents.sorted().prefix(5) {
            report.failures.append("intent \(intent) still in progress (of \(audit.pendingIntents.count))")
        }
        checkAnswered(responses, topics)
        let notParked = voice.hostile.subtracting(deadLettered)
        if !notParked.isEmpty { report.failures.append("\(notParked.count) hostile records not dead-lettered") }
        let acted = Set(
            (topics[SimulatedWorld.topics.messages] ?? []).compactMap(\.intentID)
                + ledger.compactMap(\.intentID)
        ).subtracting(voice.expected)
        if !acted.isEmpty { report.failures.append("acted on records it must refuse: \(acted.sorted().prefix(5))") }
        checkAppState(
            ids: responses.map(\.envelope.id) + (topics[SimulatedWorld.topics.messages] ?? []).map(\.id),
            ledger: ledgerEvents, replayed: streaming.replayedLedger)
        report.held = report.failures.isEmpty
        return report
    }

    /// What the world decoded of `partition` of `topic` as its `records` records were appended
    /// (``SimulatedWorld/decodedEnvelopes``; for the ledger, the events it verified too), to be
    /// read instead of decoding the same bytes again; nil when it kept nothing or its lists do
    /// not line up with the partition record for record (then every record is decoded here),
    /// or when this check decodes everything itself (``decodingEverything``).
    private func keptDecodings(
        of topic: String, _ partition: Int32, records: Int, ledger: Bool
    ) -> (envelopes: [EventEnvelope?], ledger: [(event: LedgerEvent, time: Timestamp)?]?)? {
        guard !decodingEverything, let envelopes = world.decodedEnvelopes[topic]?[partition],
            envelopes.count == records
        else { return nil }
        guard ledger else { return (envelopes, nil) }
        guard let events = world.ledgerEvents[partition], events.count == records else { return nil }
        return (envelopes, events)
    }

    /// Every intent asked with a valid signature has a final response.
    private mutating func checkAnswered(
        _ responses: [(envelope: EventEnvelope, response: IntentResponse?)], _ topics: [String: [EventEnvelope]]
    ) {
        var final: Set<String> = []
        for (event, response) in responses {
            guard let intentID = event.intentID, let response, response.code != .inProgress
            else { continue }
            final.insert(intentID)
        }
        report.finalResponses = final.count
        let unanswered = voice.expected.subtracting(final)
        if !unanswered.isEmpty {
            report.failures.append(
                "\(unanswered.count) intents never answered: \(unanswered.sorted().prefix(5))")
        }
        var topics = topics
        for topic in SimulatedWorld.outputs where !Self.checked.contains(topic) && !unanswered.isEmpty {
            topics[topic] = world.cluster.records(of: topic).compactMap { try? EventEnvelope.decode($0.record.value) }
        }
        for intent in unanswered.sorted().prefix(3) {
            // Where it got to, so a failing seed says where to look.
            let seen = SimulatedWorld.outputs.map { topic in
                // Ledger events by kind (a hold, a post, a void), the others by type.
                "\(topic): \((topics[topic] ?? []).filter { $0.intentID == intent }.map { (try? LedgerEvent.decode(from: $0)).map { "\($0.kind.rawValue)(\($0.reason ?? ""))" } ?? $0.type })"
            }
            let requested = world.cluster.records(of: SimulatedWorld.topics.requested).filter {
                (try? EventEnvelope.decode($0.record.value))?.intentID == intent
            }
            report.failures.append(
                "intent \(intent): requested \(requested.count)x (partition \(requested.first?.partition ?? -1)); \(seen.joined(separator: "; "))"
            )
        }
    }

    /// The app state's projection (``AppStateUpdates``) of the output topics (`events`, and the
    /// ledger's), each event applied once as the store applies it, ledger events under the
    /// ledger's fencing (``LedgerOwnership``, as `AppStateStore` keeps it): every user is shown
    /// the ledger's balances (`replayed`: the audit's replay of the ledger, which applies
    /// each event once under the same claims). Balances move only by ledger events: of the
    /// other events (responses, messages) only their ids are taken, as the store takes them, unread.
    private mutating func checkAppState(
        ids: [String], ledger: [(envelope: EventEnvelope, event: LedgerEvent?)], replayed: Ledger
    ) {
        var applied = Set(ids)
        var shown: [String: (available: Int64, held: Int64)] = [:]
        // A fenced copy is skipped without taking its id: the new owner's event under the
        // same id (its void of the same hold) still counts, as in the store.
        var ownership = LedgerOwnership()
        for case (let envelope, let event?) in ledger where ownership.admit(event) == nil {
            guard applied.insert(envelope.id).inserted else { continue }
            for case .balance(let user, _, let available, let held) in AppStateUpdates.of(ledger: event, in: envelope) {
                shown[user, default: (0, 0)].available += available
                shown[user, default: (0, 0)].held += held
            }
        }
        var mismatches: [String] = []
        for user in world.users {
            let currency = SimulatedWorld.openingDeposit.currency
            let available = replayed.balance(Ledger.available(user), currency).micros
            let held = replayed.balance(Ledger.held(user), currency).micros
            let app = shown[user] ?? (0, 0)
            if app.available != available || app.held != held {
                mismatches.append("\(user): app state \(app), ledger (\(available), \(held))")
            }
        }
        if !mismatches.isEmpty {
            report.failures.append("app state's balances differ from the ledger's: \(mismatches.prefix(3))")
        }
    }
}
