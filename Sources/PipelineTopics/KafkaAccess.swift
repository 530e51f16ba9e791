/// What one workload of the pipeline may do on Kafka: the topics it reads,
/// writes or only describes, the consumer group it commits to, and the other
/// groups it only looks up. The one declaration of each workload's access:
/// the stage workers check at start that exactly these topics exist
/// (`WorkerOptions.run`), and `intentctl topics acls` prints the Kafka users
/// (Strimzi `KafkaUser`) that grant exactly this. So the list is used at every
/// start and cannot go stale unseen: a declared topic missing from the broker
/// stops the worker, and a topic used but not declared is refused by a broker
/// that enforces the ACLs.
///
/// Why one Kafka user per workload (SECURITY.md, attack 59): with one shared
/// credential, any workload (the internet-facing app state included) could
/// produce to the ledger, or join the payments group and commit offsets past
/// records it never handled. Every topic is granted by its literal name, with the topic
/// prefix applied: a prefixed grant on the pipeline's prefix would reach every
/// topic, the ledger included.
public struct KafkaAccess: Sendable, Hashable {
    /// A workload that connects to Kafka, named as its Kafka user is
    /// (`intent-<rawValue>`).
    public enum Workload: String, Sendable, Hashable, CaseIterable {
        case resolve
        case confirm
        case payments
        case handle
        /// The app state service: a reader with a group (it commits offsets for lag monitoring).
        case appstate
        /// `intentctl topics provision` (the topics Job): creates and checks topics, nothing else.
        case provisionTopics = "provision-topics"
        /// `intentctl kafka-config --check` (the kafka-check Job): lists the topics.
        case kafkaCheck = "kafka-check"
        /// KEDA's operator, scaling each stage worker on its group's lag: it only
        /// describes the workers' input topics and groups (offsets), never reads a record.
        case keda
        /// A voice service (give each its own user, a copy of this one): publishes the
        /// users' intents and their answers and declines, and reads the questions and the
        /// final responses in its own group. With an authorizer, a party without a user
        /// gets nothing in, so the parties outside the cluster's workloads are declared too.
        case voiceService = "voice-service"
        /// The contacts service (`intentctl contacts publish` stands in for it): writes
        /// the users' contacts.
        case contactsService = "contacts-service"
        /// The settings service (`intentctl settings set`): writes the users' settings.
        case settingsService = "settings-service"
        /// The ledger operator's tools (`intentctl ledger`): open and close accounts and
        /// deposit, on the ledger and the accounts topic, after reading both.
        case ledgerOperator = "ledger-operator"
        /// Auditors (`intentctl audit`, `replay`, `events`, `trace`): read every topic, write none.
        case auditor

        /// The Kafka user, and the Secret with its password (`password`, as
        /// Strimzi's User Operator writes it).
        public var user: String { "intent-" + rawValue }

        /// The four stage workers: idempotent producers that consume in a group.
        public static let stages: [Workload] = [.resolve, .confirm, .payments, .handle]
    }

    /// Groups of a stage worker's readers that consume without committing
    /// (`TopicFollower`, `ChainTipReader`, `SnapshotStore`, `TopicReader`), each
    /// with a random id after one of these prefixes: they need only Describe
    /// (librdkafka looks up their coordinator), never Read, so none can commit.
    public static let readerGroupPrefixes = ["follower-", "chain-", "snapshot-", "reader-"]
    /// Groups of the operators' tools' readers (`TopicReader`, `intentctl events`): Describe only.
    public static let toolGroupPrefixes = ["reader-", "intentctl-read-"]
    /// The group `KafkaOffsetLookup` names when it has none of its own (Describe only).
    public static let offsetLookupGroup = "intent-pipeline-offset-lookup"

    public let workload: Workload
    /// Topics it consumes (Read, which implies Describe).
    public let reads: [String]
    /// Topics it produces to (Write, which implies Describe).
    public let writes: [String]
    /// Topics it only looks at (Describe): listing, offsets, partition counts.
    public let describes: [String]
    /// Topics it creates and whose configuration it checks (Create, DescribeConfigs).
    public let provisions: [String]
    /// The consumer group it joins and commits offsets to (Read on the group), if any.
    public let group: String?
    /// Groups it may only look up (Describe): its readers' groups, or the groups KEDA measures.
    public let describedGroups: [KafkaACL]

    /// The access of `workload` to the pipeline's `topics`. `groups` names the groups the
    /// workloads consume in where they are not `intent-<workload>` (`--group`,
    /// `INTENT_<WORKER>_GROUP`, `WorkerOptions.groupID(worker:)`): the workload's own, and
    /// for KEDA the stage workers' it measures.
    public init(_ workload: Workload, topics t: PipelineTopics, groups: [Workload: String] = [:]) {
        self.workload = workload
        let ownGroup = groups[workload] ?? workload.user
        let readerGroups =
            Self.readerGroupPrefixes.map { KafkaACL(.group, $0, .prefix, [.describe]) }
            + [KafkaACL(.group, Self.offsetLookupGroup, .literal, [.describe])]
        var reads: [String] = []
        var writes: [String] = []
        var describes: [String] = []
        var provisions: [String] = []
        var consumerGroup: String? = ownGroup
        var describedGroups: [KafkaACL] = []
        switch workload {
        case .resolve:
            // Its input (written again when a record came on another partition than its
            // key's), the directories it follows, and the responses chain it extends.
            reads = [t.requested, t.contacts, t.settings, t.responses]
            writes = [t.requested, t.prompts, t.resolved, t.responses, t.deadLetter]
        case .confirm:
            reads = [t.resolved, t.confirmations, t.responses, t.ledger, t.accounts, t.ledgerSnapshots]
            writes = [t.resolved, t.prompts, t.confirmed, t.confirmations, t.responses, t.deadLetter]
        case .payments:
            reads = [t.confirmations, t.settings, t.responses, t.ledger, t.accounts, t.ledgerSnapshots]
            writes = [t.confirmations, t.responses, t.ledger, t.ledgerSnapshots, t.deadLetter]
        case .handle:
            reads = [t.confirmed, t.responses, t.messages]
            writes = [t.confirmed, t.responses, t.messages, t.deadLetter]
        case .appstate:
            reads = [t.contacts, t.settings, t.responses, t.ledger, t.messages, t.accounts]
        case .provisionTopics:
            provisions = t.all
            consumerGroup = nil
        case .kafkaCheck:
            describes = t.all
            consumerGroup = nil
        case .keda:
            describes = [t.requested, t.resolved, t.confirmed, t.confirmations]
            consumerGroup = nil
            describedGroups = Workload.stages.map { KafkaACL(.group, groups[$0] ?? $0.user, .literal, [.describe]) }
        case .voiceService:
            reads = [t.prompts, t.responses]
            writes = [t.requested, t.confirmations]
        case .contactsService:
            writes = [t.contacts]
            consumerGroup = nil
        case .settingsService:
            writes = [t.settings]
            consumerGroup = nil
        case .ledgerOperator:
            reads = [t.ledger, t.accounts]
            writes = [t.ledger, t.accounts]
            consumerGroup = nil
        case .auditor:
            reads = t.all
            consumerGroup = nil
        }
        if Workload.stages.contains(workload) { describedGroups = readerGroups }
        // The tools read topics through TopicReader, `intentctl events` and the offset
        // lookup, without committing (moving a group's offsets, `intentctl groups reset`,
        // is an administrator's, with the cluster's own credentials).
        if [.ledgerOperator, .auditor].contains(workload) {
            describedGroups =
                Self.toolGroupPrefixes.map { KafkaACL(.group, $0, .prefix, [.describe]) }
                + [KafkaACL(.group, Self.offsetLookupGroup, .literal, [.describe])]
        }
        self.reads = reads
        self.writes = writes
        self.describes = describes
        self.provisions = provisions
        self.group = consumerGroup
        self.describedGroups = describedGroups
        self.order = t.all
    }

    /// The pipeline's topics in their usual order, which every list here follows.
    private let order: [String]

    /// Every topic it uses (reads, writes, describes, provisions), in the pipeline's order:
    /// what a worker checks exists before it starts.
    public var topics: [String] {
        let used = Set(reads + writes + describes + provisions)
        return order.filter(used.contains)
    }

    /// The grants, derived: one per topic (Describe always, since Read and Write imply
    /// it and the workload lists or measures what it uses), then its group, then the
    /// groups it only describes. Literal names only on topics.
    public var acls: [KafkaACL] {
        let topicGrants = topics.map { topic in
            var operations: Set<KafkaACL.Operation> = [.describe]
            if reads.contains(topic) { operations.insert(.read) }
            if writes.contains(topic) { operations.insert(.write) }
            if provisions.contains(topic) { operations.formUnion([.create, .describeConfigs]) }
            return KafkaACL(.topic, topic, .literal, operations)
        }
        let groupGrant = group.map { [KafkaACL(.group, $0, .literal, [.read, .describe])] } ?? []
        return topicGrants + groupGrant + describedGroups
    }

    /// Every workload's access, in ``Workload``'s order, with `groups` as in ``init(_:topics:groups:)``.
    public static func all(topics: PipelineTopics, groups: [Workload: String] = [:]) -> [KafkaAccess] {
        Workload.allCases.map { KafkaAccess($0, topics: topics, groups: groups) }
    }

    /// The workloads that consume in a group of their own, whose name may be set.
    public static let withGroup: [Workload] = Workload.allCases.filter {
        KafkaAccess($0, topics: PipelineTopics()).group != nil
    }
}
