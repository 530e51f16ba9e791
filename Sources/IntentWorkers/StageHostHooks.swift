public import Kafka
public import PipelineTopics

/// The points of the stage host's publishing where a test host injects faults: a stall
/// before a state round goes out, a crash between a durable state round and the notices
/// that report it, and state-round acknowledgements taken as failed. The host calls them;
/// production workers run with ``NoStageHostHooks`` (empty calls, a few per batch and
/// none per record), and the fault-injecting implementations live in the tests'
/// `StageTestHost` library, which no production executable links.
public protocol StageHostHooks: Sendable {
    /// Before a batch's state round (`records`) is handed to the producer.
    func beforeStateRound(_ records: [KafkaProducerMessage], topics: PipelineTopics)
    /// After a batch's state round is durable, before its notices are handed to the producer.
    func betweenPublishRounds()
    /// When a state round's acknowledgements are in, and before it is sent again: an error
    /// thrown here is handled as the round's delivery failure.
    func stateRoundDelivered() throws(KafkaError)
}

/// No faults: what every production worker runs with.
public struct NoStageHostHooks: StageHostHooks {
    public init() {}

    @inlinable public func beforeStateRound(_ records: [KafkaProducerMessage], topics: PipelineTopics) {}
    @inlinable public func betweenPublishRounds() {}
    @inlinable public func stateRoundDelivered() throws(KafkaError) {}
}
