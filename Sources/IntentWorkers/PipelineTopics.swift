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
    /// Records no worker could accept, with the reason in headers.
    public var deadLetter: String

    public init(prefix: String = "") {
        requested = prefix + "intents.requested"
        prompts = prefix + "intents.prompts"
        resolved = prefix + "intents.resolved"
        contacts = prefix + "contacts"
        deadLetter = prefix + "intents.deadletter"
    }

    /// What `--create-topics` creates; user-keyed topics get `partitions`.
    public func specifications(partitions: Int = 6) -> [KafkaTopicSpecification] {
        [
            KafkaTopicSpecification(name: requested, partitions: partitions),
            KafkaTopicSpecification(name: prompts, partitions: partitions),
            KafkaTopicSpecification(name: resolved, partitions: partitions),
            KafkaTopicSpecification.compacted(name: contacts, partitions: partitions),
            KafkaTopicSpecification(name: deadLetter, partitions: 1),
        ]
    }
}
