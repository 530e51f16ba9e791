import ContactResolution
import Foundation
import IntentEvents
import IntentResolution
import Intents
import Messaging
import Payments
import PipelineTopics
import StageRuntime

/// Everything the simulated stages share and act on: the cluster and its topics, the
/// manual clock, the seeded randomness every fault is drawn from, the keys, and the
/// state topics kept decoded as they are appended (members restore and follow their
/// state from them; decoding a topic again on every rebalance cost the most).
struct SimulatedWorld {
    /// The pipeline's topics, as the workers name them by default.
    static let topics = PipelineTopics()
    /// Every topic a stage writes to, in the order the digest reads them.
    static let outputs = [
        topics.resolved, topics.confirmed, topics.confirmations, topics.prompts, topics.responses, topics.ledger,
        topics.messages, topics.deadLetter,
    ]

    /// When the simulation's time begins (requests are dated from it).
    static let epoch = Date(timeIntervalSince1970: 1_795_000_000)
    /// The voice service's source, with its own key.
    static let voiceSource = "/voice/simulated"
    /// Signs confirmation requests' bindings (the confirm stage) and checks the answers' (payments).
    static let bindingKey = BindingKey(Array(repeating: 0x17, count: 32))
    /// How long a user has to answer a confirmation request: short, so late answers and
    /// expiry sweeps happen within a run.
    static let confirmationWindow = Duration.seconds(5)
    /// A messaging service the handle stage delivers through only on its next tick.
    static let slowService = "satellite"
    /// Each user's payment account handle (also the handle of the contact other users have).
    static func handle(_ user: String) -> String { "\(user)@example.com" }
    /// What each user's account opens with.
    static let openingDeposit = CurrencyAmount(amount: DecimalAmount("1000")!, currency: "CNY")

    var cluster = InMemoryCluster(partitionCount: 6)
    var clock = ManualClock()
    var random: SplitMix64
    var report: PipelineSimulation.Report
    /// Whether acknowledgements and commits may fail now.
    var faultsOn = true
    /// Members cut off from the broker by a script: what they publish does not land, and
    /// their acknowledgements and commits fail.
    var unreachable: Set<String> = []
    /// Mutations to break the pipeline on purpose, to show the invariants catch it.
    let mutations: Set<PipelineSimulation.Mutation>
    /// The stages' keys (each stage signs what it publishes with its own).
    let stageKeys = EventAuthenticator(
        keys: PipelineSource.all.enumerated().map {
            SigningKey(source: $1, bytes: Array(repeating: UInt8($0 + 1), count: 32))
        })
    /// The voice service's key: requests and answers.
    let voiceKeys = EventAuthenticator(keys: [voiceSource: Array(repeating: 0x42, count: 32)])
    let users: [String]
    /// The contacts and settings tables the resolve stage reads, fixed for a run: every
    /// user has every other as a contact and speaks through the simulated voice service.
    let contactBooks: [String: ContactBook]
    let settings: UserSettingsDirectory
    /// The accounts directory (every user's account), as the accounts topic holds it.
    var accounts = AccountDirectory()
    /// The input records' events as the replay memory's checks found them (but freshness):
    /// the confirm and handle stages' (``StageInput``), the payments stage's, and the resolve
    /// stage's, each kept apart since each stage checks its input its own way.
    var verifiedInputs = VerifiedInputs<EventEnvelope?>()
    var verifiedProposals = VerifiedInputs<EventEnvelope?>()
    var verifiedRequests = VerifiedInputs<ResolveStage.ReadBack?>()
    /// The ledger topic decoded: each partition's events with their envelope times.
    private(set) var ledgerEvents: [Int32: [(event: LedgerEvent, time: Timestamp)?]] = [:]
    /// The messages topic decoded.
    private(set) var messageEvents: [Int32: [MessageEvent?]] = [:]
    /// The envelopes of the records decoded above (nil: not decoded, or refused), by topic
    /// and partition, in offset order: the invariants read them instead of decoding the same
    /// bytes again at the end (decoding is deterministic; a nil is decoded there).
    private(set) var decodedEnvelopes: [String: [Int32: [EventEnvelope?]]] = [:]
    /// Each ledger partition as a member gaining it restores it: the last snapshot and
    /// every ledger event after it, replayed once as they are appended.
    var restoredLedgers = RestoredPartitions(Ledger(), apply: PartitionedLedgers.replay)
    /// Each messages partition as a handle member gaining it restores it (no snapshots: from the first record).
    var restoredHistories = RestoredPartitions<MessageHistory, MessageEvent>(MessageHistory()) { history, event in
        history.apply(event)
        return false
    }
    /// The last snapshot of each ledger partition as a restore reads it back (decoded from
    /// its bytes once, when taken: decoding is deterministic, and decoding it again on every
    /// restore was a few percent of a run; nil when the bytes do not decode), and how many
    /// of the partition's records it holds.
    var ledgerSnapshots: [Int32: (ledger: Ledger?, records: Int)] = [:]
    /// Keeps `snapshot` as `partition`'s last: members gaining it restore from it on.
    mutating func keep(_ snapshot: (ledger: Ledger?, records: Int), of partition: Int32) {
        ledgerSnapshots[partition] = snapshot
        restoredLedgers.restart(
            partition, from: snapshot.ledger, records: snapshot.records, ledgerEvents[partition] ?? [])
    }

    /// Confirmation requests published and not yet read by the voice service.
    var confirmationRequests: [EventEnvelope] = []

    init(seed: UInt64, intents: Int, mutations: Set<PipelineSimulation.Mutation>) {
        random = SplitMix64(seed: seed)
        report = PipelineSimulation.Report(seed: seed, intents: intents)
        self.mutations = mutations
        (users, contactBooks, settings) = Self.tables
    }

    /// The users, their contact books and settings: the same for every seed, so built once
    /// per process (building the books was a few percent of a 500-intent seed).
    private static let tables: ([String], [String: ContactBook], UserSettingsDirectory) = {
        let users = (100..<140).map { "user-\($0)" }
        var contacts = ContactDirectory()
        var settings = UserSettingsDirectory()
        for user in users {
            for other in users where other != user {
                contacts.apply(
                    .upsert(
                        userID: user,
                        contact: Contact(id: "c-\(other)", displayName: other, handles: [handle(other)]),
                        version: 1))
            }
            settings.apply(.set(userID: user, settings: UserSettings(voiceServices: [voiceSource]), version: 1))
        }
        let books = Dictionary(uniqueKeysWithValues: users.map { ($0, contacts.book(for: $0, now: epoch)) })
        return (users, books, settings)
    }()

    /// Every user's account opened, with its opening deposit, by the ledger operator: the
    /// accounts directory, and on the ledger topic the events each user's partition starts from.
    mutating func openAccounts() {
        for user in users {
            for event in LedgerEvent.opening(
                userID: user, handles: [Self.handle(user)], deposits: [Self.openingDeposit])
            {
                _ = accounts.apply(event)
                publish(
                    record(of: event.envelope(source: PipelineSource.ledgerOperator, time: Self.epoch)),
                    to: Self.topics.ledger)
            }
        }
    }

    /// The decisions' clock as a date.
    var date: Date {
        let since = clock.now.sinceStart.components
        return Self.epoch.addingTimeInterval(Double(since.seconds) + Double(since.attoseconds) / 1e18)
    }

    /// Whether the next operation's fault happens (never once faults are off).
    mutating func fault(percent: UInt64) -> Bool {
        faultsOn && random.next() % 100 < percent
    }

    /// An event signed by its stage, as the worker encodes and signs it once.
    func record(of event: EventEnvelope) -> InMemoryCluster.Record {
        let bytes = event.encoded()
        return InMemoryCluster.Record(
            key: event.userID, value: bytes, signature: stageKeys.signature(forCanonical: bytes, source: event.source))
    }

    /// Appends an output record; state topics' records are kept decoded too, and the
    /// voice service hears of confirmation requests.
    mutating func publish(_ record: InMemoryCluster.Record, to topic: String) {
        let (partition, _) = cluster.append(record, to: topic)
        switch topic {
        case Self.topics.ledger:
            let read = try? LedgerRecord.readWithEnvelope(
                key: record.key, value: record.value, signature: record.signature, keys: stageKeys)
            let event = read.map { (event: $0.event, time: Timestamp($0.envelope.time)) }
            ledgerEvents[partition, default: []].append(event)
            decodedEnvelopes[topic, default: [:]][partition, default: []].append(read?.envelope)
            restoredLedgers.append(event, to: partition)
        case Self.topics.messages:
            let envelope = try? EventEnvelope.decode(record.value)
            let event = envelope.flatMap { try? $0.decodeData(as: MessageEvent.self) }
            messageEvents[partition, default: []].append(event)
            decodedEnvelopes[topic, default: [:]][partition, default: []].append(envelope)
            restoredHistories.append(event, to: partition)
        case Self.topics.prompts:
            if let event = try? EventEnvelope.decode(record.value), event.type == ConfirmationRequest.type {
                confirmationRequests.append(event)
            }
        default:
            break
        }
    }
}
