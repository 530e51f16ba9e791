import ArgumentParser
import Kafka

struct TopicsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "topics",
        abstract: "Create, list, describe and delete topics.",
        subcommands: [Create.self, List.self, Describe.self, Delete.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a topic (no error if it exists).")
        @Argument var name: String
        @Option(help: "Number of partitions.") var partitions = 6
        @Option(help: "Replication factor; -1 uses the broker default.") var replicationFactor = -1
        @Flag(help: "cleanup.policy=compact: keep the newest record per key.") var compact = false
        @Option(name: .customLong("config"), help: ArgumentHelp("Topic configuration key=value. Repeatable.", valueName: "key=value"))
        var configs: [String] = []
        @OptionGroup var kafka: KafkaOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let admin = try KafkaAdminClient(configuration: kafka.configuration(), logger: logging.makeLogger(label: "intentctl.topics"))
            var config = try KafkaConfiguration.parseProperties(configs)
            if compact { config["cleanup.policy"] = "compact" }
            try await admin.createTopic(
                KafkaTopicSpecification(name: name, partitions: partitions, replicationFactor: replicationFactor, config: config))
            print("created \(name) (\(partitions) partitions\(compact ? ", compacted" : ""))")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List topic names.")
        @OptionGroup var kafka: KafkaOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let admin = try KafkaAdminClient(configuration: kafka.configuration(), logger: logging.makeLogger(label: "intentctl.topics"))
            for topic in try await admin.listTopics() { print(topic) }
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
            let admin = try KafkaAdminClient(configuration: configuration, logger: logger)
            let description = try await admin.describeTopic(name)
            let lookup = try KafkaOffsetLookup(configuration: configuration, logger: logger)
            let watermarks = try await lookup.watermarks(description.partitions.map { KafkaTopicPartition(topic: name, partition: $0.id) })
            print("topic \(name): \(description.partitions.count) partitions")
            for partition in description.partitions.sorted(by: { $0.id < $1.id }) {
                let bounds = watermarks[KafkaTopicPartition(topic: name, partition: partition.id)]
                print("  partition \(partition.id): leader \(partition.leader), offsets \(bounds.map { "\($0.low)..<\($0.high)" } ?? "?")")
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete topics (no error if missing).")
        @Argument var names: [String]
        @OptionGroup var kafka: KafkaOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let admin = try KafkaAdminClient(configuration: kafka.configuration(), logger: logging.makeLogger(label: "intentctl.topics"))
            try await admin.deleteTopics(names)
            print("deleted \(names.joined(separator: ", "))")
        }
    }
}
