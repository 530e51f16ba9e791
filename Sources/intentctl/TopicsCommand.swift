import ArgumentParser
import CommandLineSupport
import Kafka

struct TopicsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "topics",
        abstract: "Create, list, describe and delete topics.",
        subcommands: [Provision.self, Create.self, List.self, Describe.self, Delete.self]
    )

    struct Provision: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create every pipeline topic that does not exist yet.",
            discussion: """
                <prefix>intents.requested, .prompts and .resolved (keyed by user id), <prefix>contacts \
                (compacted), and <prefix>intents.deadletter.
                """)
        @Option(help: "Partitions of each user-keyed topic: the most worker instances that can share the load.")
        var partitions = 6
        @OptionGroup var topicOptions: TopicOptions
        @OptionGroup var kafka: KafkaOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let specifications = topicOptions.topics.specifications(partitions: partitions)
            try await KafkaAdminClient.with(
                configuration: kafka.configuration(), logger: logging.makeLogger(label: "intentctl.topics")
            ) {
                try await $0.createTopics(specifications)
            }
            for topic in specifications {
                let compacted = topic.config["cleanup.policy"] == "compact"
                output("\(topic.name) (\(topic.partitions) partitions\(compacted ? ", compacted" : ""))")
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a topic (no error if it exists).")
        @Argument var name: String
        @Option(help: "Number of partitions.") var partitions = 6
        @Option(help: "Replication factor; -1 uses the broker default.") var replicationFactor = -1
        @Flag(help: "cleanup.policy=compact: keep the newest record per key.") var compact = false
        @Option(
            name: .customLong("config"),
            help: ArgumentHelp("Topic configuration key=value. Repeatable.", valueName: "key=value"))
        var configs: [String] = []
        @OptionGroup var kafka: KafkaOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            var config = try KafkaConfiguration.parseProperties(configs)
            if compact { config["cleanup.policy"] = "compact" }
            let topic = KafkaTopicSpecification(
                name: name, partitions: partitions, replicationFactor: replicationFactor, config: config)
            try await KafkaAdminClient.with(
                configuration: kafka.configuration(), logger: logging.makeLogger(label: "intentctl.topics")
            ) {
                try await $0.createTopic(topic)
            }
            output("created \(name) (\(partitions) partitions\(compact ? ", compacted" : ""))")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List topic names.")
        @OptionGroup var kafka: KafkaOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let topics = try await KafkaAdminClient.with(
                configuration: kafka.configuration(), logger: logging.makeLogger(label: "intentctl.topics")
            ) { try await $0.listTopics() }
            for topic in topics { output(topic) }
        }
    }

    struct Describe: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a topic's partitions, leaders and end offsets.")
        @Argument var name: String
        @OptionGroup var kafka: KafkaOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let logger = try logging.makeLogger(label: "intentctl.topics")
            let configuration = try kafka.configuration()
            let description = try await KafkaAdminClient.with(configuration: configuration, logger: logger) {
                try await $0.describeTopic(name)
            }
            let partitions = description.partitions.map { KafkaTopicPartition(topic: name, partition: $0.id) }
            let watermarks = try await KafkaOffsetLookup.with(configuration: configuration, logger: logger) {
                try await $0.watermarks(partitions)
            }
            output("topic \(name): \(description.partitions.count) partitions")
            for partition in description.partitions.sorted(by: { $0.id < $1.id }) {
                let bounds = watermarks[KafkaTopicPartition(topic: name, partition: partition.id)]
                output(
                    "  partition \(partition.id): leader \(partition.leader), offsets \(bounds.map { "\($0.low)..<\($0.high)" } ?? "?")"
                )
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete topics (no error if missing).")
        @Argument var names: [String]
        @OptionGroup var kafka: KafkaOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            try await KafkaAdminClient.with(
                configuration: kafka.configuration(), logger: logging.makeLogger(label: "intentctl.topics")
            ) {
                try await $0.deleteTopics(names)
            }
            output("deleted \(names.joined(separator: ", "))")
        }
    }
}
