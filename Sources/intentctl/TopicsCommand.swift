import ArgumentParser
import CommandLineSupport
import IntentEvents
import Kafka
import PipelineTopics

struct TopicsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "topics",
        abstract: "Create, list, describe and delete topics, and print the Kafka users that may use them.",
        subcommands: [Provision.self, Create.self, List.self, Describe.self, Delete.self, ACLs.self]
    )

    struct Provision: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create every pipeline topic that does not exist yet, and check the ones that do.",
            discussion: """
                Every topic of the pipeline (see docs/pipeline.md, Topics): user-keyed ones with --partitions, the \
                contacts topic compacted, the ledger and message history kept forever. A topic that exists \
                with another partition count, replication factor or configuration is reported, and the \
                command exits 1: recreating it would lose data, so fixing it is an operator's decision.
                """)
        @Option(help: "Partitions of each user-keyed topic: the most worker instances that can share the load.")
        var partitions = 6
        @Option(help: "Replication factor of every topic; -1 takes the broker's default (3 on a production cluster).")
        var replicationFactor = -1
        @Option(
            help: ArgumentHelp(
                "min.insync.replicas of every topic: how many replicas must have a record before an acks=all producer (every worker) is told it is stored. Default: the replication factor less one, at least 1 (2 with 3 replicas); with -1 replicas, the broker's.",
                valueName: "n"))
        var minInsyncReplicas: Int?
        @Flag(help: "Print one JSON line per topic instead of text.") var json = false
        @OptionGroup var topicOptions: TopicOptions
        @OptionGroup var kafka: KafkaOptions
        @OptionGroup var logging: LoggingOptions

        func validate() throws {
            guard partitions >= 1 else { throw ValidationError("--partitions must be at least 1") }
            guard replicationFactor == -1 || replicationFactor >= 1 else {
                throw ValidationError("--replication-factor must be -1 (the broker's default) or at least 1")
            }
            if let minInsyncReplicas {
                guard minInsyncReplicas >= 1 else { throw ValidationError("--min-insync-replicas must be at least 1") }
                guard replicationFactor == -1 || minInsyncReplicas <= replicationFactor else {
                    throw ValidationError(
                        "--min-insync-replicas \(minInsyncReplicas) exceeds --replication-factor \(replicationFactor): every acks=all write would fail"
                    )
                }
            }
        }

        /// What `min.insync.replicas` to set: the flag, else one replica may be down (the
        /// replication factor less one, so 2 of 3, Kafka's usual production setting); nil
        /// leaves the broker's default (a single replica, or an unknown factor).
        var effectiveMinInsyncReplicas: Int? {
            if let minInsyncReplicas { return minInsyncReplicas }
            return replicationFactor >= 2 ? replicationFactor - 1 : nil
        }

        func run() async throws {
            let minInsync = effectiveMinInsyncReplicas
            let specifications = topicOptions.topics.specifications(partitions: partitions).map {
                var specification = $0
                specification.replicationFactor = replicationFactor
                if let minInsync { specification.config["min.insync.replicas"] = String(minInsync) }
                return specification
            }
            let drift = try await KafkaAdminClient.with(
                configuration: kafka.configuration(), logger: logging.makeLogger(label: "intentctl.topics")
            ) { admin in
                try await admin.createTopics(specifications)
                var drift: [String: [String]] = [:]
                for specification in specifications {
                    drift[specification.name] = specification.drift(
                        from: try await admin.describeTopic(specification.name),
                        configuration: try await admin.topicConfiguration(specification.name))
                }
                return drift
            }
            for topic in specifications {
                let compacted = topic.config["cleanup.policy"] == "compact"
                let differences = drift[topic.name] ?? []
                if json {
                    output(
                        String(
                            decoding: CanonicalJSON.encode(
                                JSONValue.object([
                                    "topic": .string(topic.name), "partitions": .integer(Int64(topic.partitions)),
                                    "compacted": .bool(compacted), "matches": .bool(differences.isEmpty),
                                    "differences": .array(differences.map(JSONValue.string)),
                                ])), as: UTF8.self))
                } else {
                    output(
                        "\(topic.name) (\(topic.partitions) partitions\(compacted ? ", compacted" : ""))"
                            + (differences.isEmpty ? "" : ": DIFFERS: " + differences.joined(separator: "; ")))
                }
            }
            if drift.values.contains(where: { !$0.isEmpty }) {
                throw CommandFailure("some existing topics differ from what the pipeline needs (see above)")
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

        func validate() throws {
            guard partitions >= 1 else { throw ValidationError("--partitions must be at least 1, got \(partitions)") }
            guard replicationFactor == -1 || replicationFactor >= 1 else {
                throw ValidationError("--replication-factor must be -1 (the broker's default) or at least 1")
            }
        }

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
        @Flag(help: "Print a JSON array of names instead of one name per line.") var json = false
        @OptionGroup var kafka: KafkaOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let topics = try await KafkaAdminClient.with(
                configuration: kafka.configuration(), logger: logging.makeLogger(label: "intentctl.topics")
            ) { try await $0.listTopics() }.sorted()
            if json {
                output(String(decoding: CanonicalJSON.encode(topics), as: UTF8.self))
            } else {
                for topic in topics { output(topic) }
            }
        }
    }

    struct Describe: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a topic's partitions, leaders, replicas, offsets and configuration.")
        @Argument var name: String
        @Flag(help: "Print JSON instead of text.") var json = false
        @OptionGroup var kafka: KafkaOptions
        @OptionGroup var logging: LoggingOptions

        func run() async throws {
            let logger = try logging.makeLogger(label: "intentctl.topics")
            let configuration = try kafka.configuration()
            let (description, topicConfiguration) = try await KafkaAdminClient.with(
                configuration: configuration, logger: logger
            ) { admin in
                (try await admin.describeTopic(name), try await admin.topicConfiguration(name))
            }
            let partitions = description.partitions.map { KafkaTopicPartition(topic: name, partition: $0.id) }
            let watermarks = try await KafkaOffsetLookup.with(configuration: configuration, logger: logger) {
                try await $0.watermarks(partitions)
            }
            if json {
                let items = description.partitions.sorted(by: { $0.id < $1.id }).map { partition in
                    let bounds = watermarks[KafkaTopicPartition(topic: name, partition: partition.id)]
                    return JSONValue.object([
                        "partition": .integer(Int64(partition.id)), "leader": .integer(Int64(partition.leader)),
                        "replicas": .integer(Int64(partition.replicas.count)),
                        "low": bounds.map { .integer($0.low) } ?? .null,
                        "high": bounds.map { .integer($0.high) } ?? .null,
                    ])
                }
                output(
                    String(
                        decoding: CanonicalJSON.encode(
                            JSONValue.object([
                                "topic": .string(name), "partitions": .array(items),
                                "config": .object(topicConfiguration.mapValues(JSONValue.string)),
                            ])),
                        as: UTF8.self))
                return
            }
            output("topic \(name): \(description.partitions.count) partitions")
            for partition in description.partitions.sorted(by: { $0.id < $1.id }) {
                let bounds = watermarks[KafkaTopicPartition(topic: name, partition: partition.id)]
                output(
                    "  partition \(partition.id): leader \(partition.leader), replicas \(partition.replicas), in sync \(partition.inSyncReplicas), offsets \(bounds.map { "\($0.low)..<\($0.high)" } ?? "?")"
                )
            }
            output("configuration:")
            for (key, value) in topicConfiguration.sorted(by: { $0.key < $1.key }) { output("  \(key)=\(value)") }
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

    struct ACLs: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "acls",
            abstract:
                "Print the Kafka user and ACLs of each workload and outside party, as Strimzi KafkaUser resources.",
            discussion: """
                One user per workload (intent-resolve, intent-confirm, intent-payments, intent-handle, \
                intent-appstate, intent-provision-topics for the topics Job, intent-kafka-check for the \
                kafka-check Job, intent-keda for KEDA's lag scaler) and per party outside the cluster's workloads \
                (intent-voice-service, one copy per voice service; intent-contacts-service; \
                intent-settings-service; intent-ledger-operator for intentctl ledger; intent-auditor for \
                intentctl audit, replay, events and trace), each with SCRAM-SHA-512 and exactly the \
                access the code declares (PipelineTopics.KafkaAccess; the stage workers check those same topics \
                exist at start): Read on the topics it consumes, Write on those it produces to, Describe on \
                both, Read on its own consumer group only, and Describe on the groups of its readers that never \
                commit (prefixes follower-, chain-, snapshot-, reader-, intentctl-read-, and \
                intent-pipeline-offset-lookup). Only intent-payments and the ledger operator may write the \
                ledger, only intent-payments its snapshots, only the ledger operator the accounts topic; the app \
                state and the auditors write nothing; the topics Job may Create and DescribeConfigs but neither \
                read nor write. Topics are granted by LITERAL name, with the topic \
                prefix applied (--topic-prefix, else $INTENT_TOPIC_PREFIX), never a prefixed grant on the \
                pipeline's prefix, which would reach the ledger.

                Output: multi-document YAML (kafka.strimzi.io/v1beta2 KafkaUser, namespace intent-pipeline, label \
                strimzi.io/cluster from --cluster), in a fixed order: deploy/kubernetes/strimzi/kafka-users.yaml \
                is this output at the defaults. Strimzi's User Operator, watching namespace intent-pipeline, \
                creates each user and a Secret of its name with key `password`, which that workload mounts. \
                Without Strimzi, grant the same entries with your broker's tools (kafka-acls: --allow-principal \
                User:NAME --operation OP --topic NAME or --group NAME, --resource-pattern-type literal or prefixed).

                Consumer groups: each stage worker, the app state and a voice service read in a group named after \
                the user (intent-payments, ...). A worker given another (its --group, or INTENT_<WORKER>_GROUP in \
                its Deployment) needs the same name here, --group payments=NAME (repeatable), or its user may \
                not join it; for a stage worker, KEDA's user then describes that group instead of the default. \
                No two workloads may share a group. \
                scripts/check_deploy_manifests.py fails while a Deployment's group and its user's differ.

                The workers produce idempotently (acks=all) without transactions, so no TransactionalId grant is \
                needed; on Kafka older than 2.8 an idempotent producer also needs IdempotentWrite on the cluster, \
                which is not printed. Moving a group's offsets (intentctl groups reset) is an administrator's, \
                with the cluster's own credentials.
                """)
        @Option(help: "The Strimzi Kafka cluster the users belong to (label strimzi.io/cluster).")
        var cluster = "kafka"
        @Option(
            name: .customLong("group"),
            help: ArgumentHelp(
                "A workload's consumer group where it is not intent-<workload>, as WORKLOAD=GROUP (repeatable).",
                discussion: "WORKLOAD is one of \(KafkaAccess.withGroup.map(\.rawValue).joined(separator: ", ")).",
                valueName: "workload=group"))
        var groups: [String] = []
        @OptionGroup var topicOptions: TopicOptions

        func run() throws {
            let manifest = KafkaUserManifest.render(
                topics: topicOptions.topics, cluster: cluster, groups: try Self.parse(groups))
            output(String(manifest.dropLast()))
        }

        /// `--group` values as each workload's group: one per workload, only workloads that
        /// consume in a group, and a name Kafka accepts.
        static func parse(_ values: [String]) throws -> [KafkaAccess.Workload: String] {
            var groups: [KafkaAccess.Workload: String] = [:]
            let named = KafkaAccess.withGroup.map(\.rawValue).joined(separator: ", ")
            for value in values {
                let parts = value.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                guard parts.count == 2, let workload = KafkaAccess.Workload(rawValue: parts[0]) else {
                    throw ValidationError("--group \(value): expected WORKLOAD=GROUP, WORKLOAD one of \(named)")
                }
                guard KafkaAccess.withGroup.contains(workload) else {
                    throw ValidationError(
                        "--group \(value): \(workload.rawValue) consumes in no group (one of \(named))")
                }
                // A literal ACL on "*" is Kafka's wildcard: it would let the user join every group.
                guard !parts[1].isEmpty, parts[1] != "*" else {
                    throw ValidationError("--group \(value): a group needs a name, and \"*\" would grant every group")
                }
                guard groups.updateValue(parts[1], forKey: workload) == nil else {
                    throw ValidationError("--group \(value): \(workload.rawValue) has a group already")
                }
            }
            // One group per workload: a user that may Read another workload's group could join
            // it and commit past records it never handled (SECURITY.md, attack 59).
            let accesses = KafkaAccess.all(topics: PipelineTopics(), groups: groups)
            for (workload, group) in groups {
                if let other = accesses.first(where: { $0.workload != workload && $0.group == group }) {
                    throw ValidationError(
                        "--group \(workload.rawValue)=\(group): that is \(other.workload.rawValue)'s group; each workload needs its own"
                    )
                }
            }
            return groups
        }
    }
}
