import ArgumentParser
import CommandLineSupport
import Foundation
import IntentEvents
import Kafka

/// Consumer groups as `kafka-consumer-groups` shows and moves them: where a group has
/// committed on each partition, how far behind the end that is, and resetting those
/// positions (a dry run unless `--execute`), for replaying a topic into a worker.
struct GroupsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "groups",
        abstract: "List consumer groups, describe one's committed offsets and lag, or reset them.",
        subcommands: [List.self, Describe.self, Reset.self])

    /// The topics to look at: the ones given, else every pipeline topic that exists.
    static func partitions(
        of topics: [String], pipeline: TopicOptions, lookup: KafkaOffsetLookup, configuration: KafkaConfiguration,
        logging: LoggingOptions
    ) async throws -> [KafkaTopicPartition] {
        let names: [String]
        if topics.isEmpty {
            let existing = try await KafkaAdminClient.with(
                configuration: configuration, logger: logging.makeLogger(label: "intentctl.groups")
            ) { Set(try await $0.listTopics()) }
            names = pipeline.topics.all.filter(existing.contains)
        } else {
            names = topics
        }
        var partitions: [KafkaTopicPartition] = []
        for name in names { partitions += try await lookup.partitions(of: name) }
        return partitions
    }

    /// The group's lag on `topics` (every pipeline topic when none), by topic and partition.
    static func lags(
        of group: String, topics: [String], pipeline: TopicOptions, kafka: KafkaOptions, logging: LoggingOptions
    ) async throws -> [KafkaPartitionLag] {
        let configuration = try kafka.configuration(clientID: "intentctl-groups")
        let lookup = try KafkaOffsetLookup(
            configuration: configuration, groupID: group, logger: logging.makeLogger(label: "intentctl.groups"))
        do {
            let partitions = try await Self.partitions(
                of: topics, pipeline: pipeline, lookup: lookup, configuration: configuration, logging: logging)
            let lags = try await lookup.lag(partitions)
            await lookup.close()
            return lags.sorted {
                ($0.topicPartition.topic, $0.topicPartition.partition)
                    < ($1.topicPartition.topic, $1.topicPartition.partition)
            }
        } catch {
            await lookup.close()
            throw error
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the cluster's consumer groups and their state, as kafka-consumer-groups --list --state.",
            discussion: """
                The workers' groups are named after them (intent-resolve, intent-confirm, ...; --group-id); \
                see one's lag with `intentctl groups describe GROUP`. Exit status 0; --json prints one object: \
                {"groups": [{"group", "state", "simple"}]}.
                """)
        @Flag(help: "Print JSON instead of text.") var json = false
        @OptionGroup var kafka: KafkaOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let groups = try await KafkaAdminClient.with(
                configuration: try kafka.configuration(clientID: "intentctl-groups"),
                logger: logging.makeLogger(label: "intentctl.groups")
            ) { try await $0.listConsumerGroups() }
            if json {
                let rows = groups.map { group in
                    JSONValue.object([
                        "group": .string(group.id), "state": .string(group.state), "simple": .bool(group.isSimple),
                    ])
                }
                output(
                    String(decoding: CanonicalJSON.encode(JSONValue.object(["groups": .array(rows)])), as: UTF8.self))
                return
            }
            output("GROUP\tSTATE")
            for group in groups { output("\(group.id)\t\(group.state)") }
        }
    }

    struct Describe: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a group's committed offset, the end and the lag of each partition it has committed on.",
            discussion: """
                Reads the committed offsets without joining the group, so it changes nothing. Without \\
                --topic, looks at every pipeline topic (--topic-prefix). Exit status 0; --json prints one \\
                object: {"group", "lag", "partitions": [{"topic", "partition", "committed", "end", "lag"}]}.
                """)
        @Argument(help: "The consumer group, e.g. intent-resolve.") var group: String
        @Option(name: .customLong("topic"), help: "A topic to look at. Repeatable. Default: the pipeline's.")
        var topics: [String] = []
        @Flag(help: "Print JSON instead of text.") var json = false
        @OptionGroup var topicOptions: TopicOptions
        @OptionGroup var kafka: KafkaOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let sorted = try await GroupsCommand.lags(
                of: group, topics: topics, pipeline: topicOptions, kafka: kafka, logging: logging
            ).filter { $0.committedOffset != nil || !topics.isEmpty }
            let total = sorted.reduce(Int64(0)) { $0 + $1.lag }
            if json {
                let rows = sorted.map { lag in
                    JSONValue.object([
                        "topic": .string(lag.topicPartition.topic),
                        "partition": .integer(Int64(lag.topicPartition.partition)),
                        "committed": lag.committedOffset.map(JSONValue.integer) ?? .null,
                        "end": .integer(lag.highWatermark), "lag": .integer(lag.lag),
                    ])
                }
                output(
                    String(
                        decoding: CanonicalJSON.encode(
                            JSONValue.object([
                                "group": .string(group), "lag": .integer(total), "partitions": .array(rows),
                            ])), as: UTF8.self))
                return
            }
            guard !sorted.isEmpty else {
                output(
                    "group \(group) has committed nothing on \(topics.isEmpty ? "the pipeline's topics" : "these topics")"
                )
                return
            }
            output("group \(group): lag \(total)")
            output("TOPIC\tPARTITION\tCOMMITTED\tEND\tLAG")
            for lag in sorted {
                output(
                    "\(lag.topicPartition.topic)\t\(lag.topicPartition.partition)\t\(lag.committedOffset.map(String.init) ?? "-")\t\(lag.highWatermark)\t\(lag.lag)"
                )
            }
        }
    }

    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Move a group's committed offsets on a topic: to the earliest, the latest, or an offset.",
            discussion: """
                Prints the plan (each partition's current and new offset) and changes nothing, unless \\
                --execute is given: a dry run by default, as kafka-consumer-groups --reset-offsets. Stop the \\
                group's members first: the broker refuses offsets for a group with members.
                """)
        @Argument(help: "The consumer group.") var group: String
        @Option(name: .customLong("topic"), help: "The topic whose offsets move. Repeatable.") var topics: [String] = []
        @Flag(help: "To the oldest retained record (replays everything).") var toEarliest = false
        @Flag(help: "To the end (skips everything not yet read).") var toLatest = false
        @Option(help: "To this offset on every partition (kept within what is retained).") var toOffset: Int64?
        @Flag(help: "Commit the new offsets (without it, only the plan is printed).") var execute = false
        @Flag(help: "Print the plan only (the default; for scripts that say so).") var dryRun = false
        @OptionGroup var topicOptions: TopicOptions
        @OptionGroup var kafka: KafkaOptions
        @OptionGroup var logging: LoggingOptions

        func validate() throws {
            guard !topics.isEmpty else { throw ValidationError("Give --topic TOPIC (repeatable).") }
            guard [toEarliest, toLatest, toOffset != nil].filter({ $0 }).count == 1 else {
                throw ValidationError("Give exactly one of --to-earliest, --to-latest, --to-offset N.")
            }
            if let toOffset, toOffset < 0 { throw ValidationError("--to-offset must be 0 or more") }
            if execute && dryRun { throw ValidationError("--execute and --dry-run: give one") }
        }

        func run() async throws {
            let configuration = try kafka.configuration(clientID: "intentctl-groups")
            let logger = try logging.makeLogger(label: "intentctl.groups")
            let lags = try await GroupsCommand.lags(
                of: group, topics: topics, pipeline: topicOptions, kafka: kafka, logging: logging)
            let start: ReadStart = toEarliest ? .beginning : toLatest ? .end : .offset(toOffset ?? 0)
            let plan = lags.map { lag in
                (
                    lag,
                    KafkaPartitionOffset(
                        topic: lag.topicPartition.topic, partition: lag.topicPartition.partition,
                        offset: start.offset(low: lag.lowWatermark, high: lag.highWatermark))
                )
            }
            output("TOPIC\tPARTITION\tCURRENT\tNEW")
            for (lag, new) in plan {
                output(
                    "\(lag.topicPartition.topic)\t\(lag.topicPartition.partition)\t\(lag.committedOffset.map(String.init) ?? "-")\t\(new.offset)"
                )
            }
            guard execute else {
                output("dry run: nothing changed (add --execute to commit these offsets for group \(group))")
                return
            }
            let consumer = try KafkaConsumer(
                configuration: KafkaConsumerConfiguration(client: configuration, groupID: group), logger: logger)
            do {
                try consumer.assign(plan.map(\.1))
                try await consumer.commit(plan.map(\.1))
                await consumer.close()
            } catch {
                await consumer.close()
                throw CommandFailure(
                    "could not commit the offsets of group \(group) (\(error)); a group with running members refuses them: stop its members first"
                )
            }
            output("committed the new offsets for group \(group)")
        }
    }
}
