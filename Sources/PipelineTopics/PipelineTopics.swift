public import Intents
public import Kafka

/// The topics the pipeline's workers read and write. One prefix moves them
/// all (per environment, or per test so tests never share a topic).
public struct PipelineTopics: Sendable, Hashable {
    /// Intents from the voice services (`intent.requested.v1`), keyed by user id.
    public var requested: String
    /// Questions back to the voice services (`intent.prompt.v1`).
    public var prompts: String
    /// Fully resolved intents, for the confirm stage (`intent.resolved.v1`).
    public var resolved: String
    /// Every user's contacts, compacted (`contact.upserted.v1` and tombstones).
    public var contacts: String
    /// Every user's settings (`user.settings.v1`: the language to answer in), compacted, by user.
    public var settings: String
    /// Records no worker could accept, with the reason in headers.
    public var deadLetter: String
    /// Confirmed messaging intents, for the handle stage (`intent.confirmed.v1`).
    public var confirmed: String
    /// Confirmed financial intents and the users' signed answers, for the payments stage.
    public var confirmations: String
    /// How each intent ended (`intent.response.v1`), for voice services and the app.
    public var responses: String
    /// The payments worker's event log (`ledger.event.v1`): the truth about money, kept forever.
    public var ledger: String
    /// The messaging history.
    public var messages: String
    /// Who has a payment account and by which handles (the `accountOpened` and
    /// `accountClosed` ledger events again): the one table payments and confirm
    /// members hold whole, since a payee may be anyone's. One partition
    /// (``accountsPartition``), never compacted nor expired: who owns a handle is
    /// decided by the order of openings and closings, so every reader must read
    /// the same records in the same order (compaction would drop a superseded
    /// opening that decided a later collision). It grows with account changes, not payments.
    public var accounts: String
    /// Snapshots of each ledger partition's state (``SnapshotStore``), compacted,
    /// co-partitioned with the ledger: what a restart reads instead of the whole ledger.
    public var ledgerSnapshots: String

    /// The partition of ``accounts`` every account record is written to.
    public static let accountsPartition: Int32 = 0

    /// What every name starts with.
    public let prefix: String

    public init(prefix: String = "") {
        self.prefix = prefix
        requested = prefix + "intents.requested"
        prompts = prefix + "intents.prompts"
        resolved = prefix + "intents.resolved"
        contacts = prefix + "contacts"
        settings = prefix + "users.settings"
        deadLetter = prefix + "intents.deadletter"
        confirmed = prefix + "intents.confirmed"
        confirmations = prefix + "intents.confirmations"
        responses = prefix + "intents.responses"
        ledger = prefix + "payments.ledger"
        messages = prefix + "messages.history"
        accounts = prefix + "payments.accounts"
        ledgerSnapshots = prefix + "payments.snapshots"
    }

    public func topic(for destination: Destination) -> String {
        switch destination {
        case .prompts: prompts
        case .resolved: resolved
        case .confirmed: confirmed
        case .confirmations, .effects: confirmations
        case .responses: responses
        case .ledger: ledger
        case .messages: messages
        }
    }

    public var all: [String] { specifications().map(\.name) }

    /// The topics auditors rely on, whose stage records are chained (``RecordChain``): each
    /// name with the name without the prefix, which is what a chain link signs.
    public var chained: [String: String] {
        Dictionary(
            uniqueKeysWithValues: [ledger, confirmations, responses].map { ($0, String($0.dropFirst(prefix.count))) })
    }

    /// How long a compacted directory topic (contacts, settings) keeps a superseded record
    /// (`min.compaction.lag.ms`): compaction keeps the record appended last, not the newest
    /// version, so a replayed older record would become the one a reader rebuilding its
    /// state finds. For this long the newer record stays beside it, and readers ignore the
    /// replay (``RecordVersion``); each replay is counted as it arrives, for an alert.
    public static let directoryCompactionLag: Duration = .seconds(7 * 24 * 3600)
    /// How long a directory topic keeps a tombstone (`delete.retention.ms`): the deletion's
    /// version is known to a reader rebuilding from the topic only while it is there.
    public static let directoryTombstoneRetention: Duration = .seconds(90 * 24 * 3600)

    /// A compacted directory topic, configured as ``directoryCompactionLag`` and
    /// ``directoryTombstoneRetention`` say.
    static func directory(name: String, partitions: Int) -> KafkaTopicSpecification {
        var specification = KafkaTopicSpecification.compacted(name: name, partitions: partitions)
        specification.config["min.compaction.lag.ms"] = String(directoryCompactionLag.components.seconds * 1000)
        specification.config["delete.retention.ms"] = String(directoryTombstoneRetention.components.seconds * 1000)
        return specification
    }

    /// What `--create-topics` creates; user-keyed topics get `partitions`.
    public func specifications(partitions: Int = 6) -> [KafkaTopicSpecification] {
        [
            KafkaTopicSpecification(name: requested, partitions: partitions),
            KafkaTopicSpecification(name: prompts, partitions: partitions),
            KafkaTopicSpecification(name: resolved, partitions: partitions),
            Self.directory(name: contacts, partitions: partitions),
            Self.directory(name: settings, partitions: partitions),
            KafkaTopicSpecification(name: deadLetter, partitions: 1),
            KafkaTopicSpecification(name: confirmed, partitions: partitions),
            KafkaTopicSpecification(name: confirmations, partitions: partitions),
            KafkaTopicSpecification(name: responses, partitions: partitions),
            // Logs that are the state itself: never deleted by retention.
            KafkaTopicSpecification(name: ledger, partitions: partitions, config: ["retention.ms": "-1"]),
            KafkaTopicSpecification(name: messages, partitions: partitions, config: ["retention.ms": "-1"]),
            KafkaTopicSpecification(name: accounts, partitions: 1, config: ["retention.ms": "-1"]),
            KafkaTopicSpecification.compacted(name: ledgerSnapshots, partitions: partitions),
        ]
    }
}
