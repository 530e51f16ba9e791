public import ArgumentParser
import Foundation
public import PipelineTopics

/// Which pipeline topics to use: every executable and `intentctl` agree on
/// the names through one prefix.
public struct TopicOptions: ParsableArguments {
    public init() {}

    @Option(help: "Prefix of every pipeline topic name. Default: $INTENT_TOPIC_PREFIX, else none.")
    public var topicPrefix: String?

    public var topics: PipelineTopics {
        PipelineTopics(prefix: topicPrefix ?? ProcessInfo.processInfo.environment["INTENT_TOPIC_PREFIX"] ?? "")
    }
}
