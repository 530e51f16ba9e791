import BrokerTestSupport
import Foundation
import PipelineTestSupport
import PipelineTopics
import Testing

/// The one declaration of each workload's Kafka access (`KafkaAccess`, SECURITY.md
/// attack 59) has the properties the ACLs exist for, written out by hand here (never
/// computed by the code under test), and `intentctl topics acls` prints it as Strimzi
/// users with the prefix applied literally. ACL enforcement itself is not tested: the
/// local broker (Tansu) authenticates SASL users but has no authorizer.
@Suite("Kafka access per workload")
struct KafkaAccessTests {
    static let topics = PipelineTopics(prefix: "")
    static let all = KafkaAccess.all(topics: topics)

    /// Users that may do `operation` on topic `name`.
    static func users(_ operation: KafkaACL.Operation, topic name: String, in all: [KafkaAccess] = all) -> [String] {
        all.filter { access in
            access.acls.contains { $0.resourceType == .topic && $0.name == name && $0.operations.contains(operation) }
        }.map(\.workload.user)
    }

    @Test("the workloads and their users' names")
    func names() {
        #expect(
            Self.all.map(\.workload.user) == [
                "intent-resolve", "intent-confirm", "intent-payments", "intent-handle", "intent-appstate",
                "intent-provision-topics", "intent-kafka-check", "intent-keda", "intent-voice-service",
                "intent-contacts-service", "intent-settings-service", "intent-ledger-operator", "intent-auditor",
            ])
    }

    @Test(
        "only payments and the ledger operator may write the ledger, only payments its snapshots, only the operator the accounts"
    )
    func moneyTopics() {
        #expect(Self.users(.write, topic: "payments.ledger") == ["intent-payments", "intent-ledger-operator"])
        #expect(Self.users(.write, topic: "payments.snapshots") == ["intent-payments"])
        // Accounts are opened and closed by the ledger operator's tools alone (intentctl ledger).
        #expect(Self.users(.write, topic: "payments.accounts") == ["intent-ledger-operator"])
        #expect(
            Self.users(.read, topic: "payments.ledger") == [
                "intent-confirm", "intent-payments", "intent-appstate", "intent-ledger-operator", "intent-auditor",
            ])
        // What enters the pipeline from outside, each topic by its own party.
        #expect(Self.users(.write, topic: "intents.requested") == ["intent-resolve", "intent-voice-service"])
        #expect(Self.users(.write, topic: "contacts") == ["intent-contacts-service"])
        #expect(Self.users(.write, topic: "users.settings") == ["intent-settings-service"])
        // The auditors read everything and write nothing.
        let auditor = KafkaAccess(.auditor, topics: Self.topics)
        #expect(auditor.reads.count == 13 && auditor.writes.isEmpty && auditor.group == nil)
    }

    @Test("the app state reads six topics, writes nothing, and has no Write anywhere")
    func appStateOnlyReads() {
        let appState = KafkaAccess(.appstate, topics: Self.topics)
        #expect(appState.writes.isEmpty)
        #expect(!appState.acls.contains { $0.operations.contains(.write) })
        #expect(
            Set(appState.reads) == [
                "intents.responses", "payments.ledger", "messages.history", "contacts", "payments.accounts",
                "users.settings",
            ])
        #expect(appState.group == "intent-appstate")
    }

    @Test("each consumer group may be Read (joined, committed) by its own workload alone")
    func groups() {
        var readers: [String: [String]] = [:]
        for access in Self.all {
            for acl in access.acls where acl.resourceType == .group && acl.operations.contains(.read) {
                #expect(acl.patternType == .literal, "\(access.workload.user) reads groups by prefix \(acl.name)")
                readers[acl.name, default: []].append(access.workload.user)
            }
        }
        #expect(
            readers == [
                "intent-resolve": ["intent-resolve"], "intent-confirm": ["intent-confirm"],
                "intent-payments": ["intent-payments"], "intent-handle": ["intent-handle"],
                "intent-appstate": ["intent-appstate"], "intent-voice-service": ["intent-voice-service"],
            ])
        // A group given to the worker (--group, INTENT_<WORKER>_GROUP) is the one it reads, and
        // the one KEDA measures; the other workers keep theirs.
        let groups: [KafkaAccess.Workload: String] = [.payments: "payments-blue"]
        let renamed = KafkaAccess(.payments, topics: Self.topics, groups: groups)
        #expect(
            renamed.acls.filter { $0.operations.contains(.read) && $0.resourceType == .group }.map(\.name) == [
                "payments-blue"
            ])
        let keda = KafkaAccess(.keda, topics: Self.topics, groups: groups)
        #expect(
            keda.acls.filter { $0.resourceType == .group }.map(\.name) == [
                "intent-resolve", "intent-confirm", "payments-blue", "intent-handle",
            ])
        #expect(KafkaAccess.withGroup == [.resolve, .confirm, .payments, .handle, .appstate, .voiceService])
    }

    @Test("no grant on a topic is by prefix, and a prefix is applied to every name", arguments: ["", "staging."])
    func literalTopics(_ prefix: String) {
        for access in KafkaAccess.all(topics: PipelineTopics(prefix: prefix)) {
            for acl in access.acls where acl.resourceType == .topic {
                #expect(acl.patternType == .literal, "\(access.workload.user): \(acl)")
                #expect(acl.name.hasPrefix(prefix) && acl.name.count > prefix.count + 5, "\(acl.name)")
            }
            // Prefixed grants only on the readers' random groups, never on the pipeline's prefix.
            for acl in access.acls where acl.patternType == .prefix {
                #expect(acl.resourceType == .group)
                #expect(["follower-", "chain-", "snapshot-", "reader-", "intentctl-read-"].contains(acl.name))
                #expect(acl.operations == [.describe])
            }
        }
    }

    @Test("the topics Job may create and check every topic, and neither read nor write any")
    func provisioning() {
        let provision = KafkaAccess(.provisionTopics, topics: Self.topics)
        #expect(provision.group == nil)
        #expect(provision.acls.count == 13)
        for acl in provision.acls {
            #expect(acl.resourceType == .topic)
            #expect(acl.operations == [.create, .describe, .describeConfigs], "\(acl.name)")
        }
        let check = KafkaAccess(.kafkaCheck, topics: Self.topics)
        #expect(check.acls.count == 13 && check.acls.allSatisfy { $0.operations == [.describe] })
        let keda = KafkaAccess(.keda, topics: Self.topics)
        #expect(keda.acls.allSatisfy { $0.operations == [.describe] })
        #expect(
            Set(keda.acls.map(\.name)) == [
                "intents.requested", "intents.resolved", "intents.confirmations", "intents.confirmed",
                "intent-resolve", "intent-confirm", "intent-payments", "intent-handle",
            ])
    }

    @Test(
        "each stage worker checks at start exactly the topics it reads and writes (its own input, dead letters)",
        arguments: [
            (
                KafkaAccess.Workload.resolve,
                [
                    "intents.requested", "intents.prompts", "intents.resolved", "contacts", "users.settings",
                    "intents.deadletter", "intents.responses",
                ]
            ),
            (
                .confirm,
                [
                    "intents.prompts", "intents.resolved", "intents.deadletter", "intents.confirmed",
                    "intents.confirmations", "intents.responses", "payments.ledger", "payments.accounts",
                    "payments.snapshots",
                ]
            ),
            (
                .payments,
                [
                    "users.settings", "intents.deadletter", "intents.confirmations", "intents.responses",
                    "payments.ledger", "payments.accounts", "payments.snapshots",
                ]
            ),
            (.handle, ["intents.deadletter", "intents.confirmed", "intents.responses", "messages.history"]),
        ])
    func startupTopics(_ workload: KafkaAccess.Workload, _ expected: [String]) {
        let access = KafkaAccess(workload, topics: Self.topics)
        #expect(access.topics == expected)
        // Every stage worker writes dead letters and may re-key its own input; none writes prompts but resolve and confirm.
        #expect(access.writes.contains("intents.deadletter"))
        #expect(access.writes.contains(access.reads[0]))
        #expect(access.writes.contains("intents.prompts") == [.resolve, .confirm].contains(workload))
    }

    @Test("the payments user's grants, entry by entry")
    func paymentsGrants() {
        let lines = KafkaAccess(.payments, topics: Self.topics).acls.map {
            "\($0.resourceType.rawValue) \($0.name) \($0.patternType.rawValue) \($0.operations.map(\.rawValue))"
        }
        #expect(
            lines == [
                "topic users.settings literal [\"Read\", \"Describe\"]",
                "topic intents.deadletter literal [\"Write\", \"Describe\"]",
                "topic intents.confirmations literal [\"Read\", \"Write\", \"Describe\"]",
                "topic intents.responses literal [\"Read\", \"Write\", \"Describe\"]",
                "topic payments.ledger literal [\"Read\", \"Write\", \"Describe\"]",
                "topic payments.accounts literal [\"Read\", \"Describe\"]",
                "topic payments.snapshots literal [\"Read\", \"Write\", \"Describe\"]",
                "group intent-payments literal [\"Read\", \"Describe\"]",
                "group follower- prefix [\"Describe\"]",
                "group chain- prefix [\"Describe\"]",
                "group snapshot- prefix [\"Describe\"]",
                "group reader- prefix [\"Describe\"]",
                "group intent-pipeline-offset-lookup literal [\"Describe\"]",
            ])
    }

    /// Runs `intentctl ARGUMENTS` with `environment` and without INTENT_TOPIC_PREFIX
    /// otherwise; returns its exit status and standard output alone.
    static func intentctl(_ arguments: [String], environment: [String: String] = [:]) async throws -> (Int32, String) {
        let directory = testFileURL("acls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let stdout = directory.appendingPathComponent("stdout")
        let stderr = directory.appendingPathComponent("stderr")
        let settings = environment.map { "\($0.key)='\($0.value)'" }.joined(separator: " ")
        let command =
            "env -u INTENT_TOPIC_PREFIX \(settings) \"$0\" \"$@\" > '\(stdout.path)' 2> '\(stderr.path)'"
        let (status, log) = try await runLightProcess(
            name: "intentctl", executable: "/bin/bash",
            arguments: ["-c", command, WorkerProcesses.binaries.appendingPathComponent("intentctl").path] + arguments,
            outputFile: directory.appendingPathComponent("log"), timeout: .seconds(60))
        let output = (try? String(contentsOf: stdout, encoding: .utf8)) ?? ""
        let errors = (try? String(contentsOf: stderr, encoding: .utf8)) ?? ""
        return (status, status == 0 ? output : output + errors + log)
    }

    @Test("topics acls applies --topic-prefix (or INTENT_TOPIC_PREFIX) to literal names, and explains itself")
    func prefixedCommand() async throws {
        let (status, flagged) = try await Self.intentctl([
            "topics", "acls", "--topic-prefix", "staging.", "--cluster", "main",
        ])
        #expect(status == 0, "\(flagged)")
        #expect(
            flagged.contains("- resource: { type: topic, name: \"staging.payments.ledger\", patternType: literal }"))
        #expect(flagged.contains("strimzi.io/cluster: \"main\""))
        #expect(!flagged.contains("name: \"payments.ledger\""))
        #expect(!flagged.contains("name: \"staging.\""))
        let (_, fromEnvironment) = try await Self.intentctl(
            ["topics", "acls", "--cluster", "main"], environment: ["INTENT_TOPIC_PREFIX": "staging."])
        #expect(fromEnvironment == flagged)
        let (_, help) = try await Self.intentctl(["topics", "acls", "--help"])
        #expect(
            help.contains("LITERAL") && help.contains("IdempotentWrite") && help.contains("--topic-prefix")
                && help.contains("--group"), "\(help)")
    }

    /// An operator who renames a worker's group (its Deployment's INTENT_<WORKER>_GROUP) must
    /// grant that group instead: before `--group`, the printed users could only name the
    /// defaults, so the worker's user could not join its group on an enforcing broker.
    @Test(
        "intentctl topics acls --group grants a renamed group, to its worker and to KEDA, and refuses what it cannot mean"
    )
    func renamedGroups() async throws {
        let (status, renamed) = try await Self.intentctl([
            "topics", "acls", "--group", "payments=payments-blue", "--group", "appstate=app-state-2",
        ])
        #expect(status == 0, "\(renamed)")
        let (_, standard) = try await Self.intentctl(["topics", "acls"])
        let grant = "- resource: { type: group, name: \"payments-blue\", patternType: literal }"
        // Once for the payments user (Read), once for KEDA's (Describe).
        #expect(renamed.components(separatedBy: grant).count == 3, "\(renamed)")
        #expect(renamed.contains("name: \"app-state-2\""))
        #expect(!renamed.contains("name: \"intent-payments\", patternType"))
        #expect(standard.contains("name: \"intent-payments\", patternType"))
        for (flag, complaint) in [
            ("payments", "expected WORKLOAD=GROUP"), ("nobody=x", "expected WORKLOAD=GROUP"),
            ("auditor=x", "consumes in no group"), ("payments=*", "every group"), ("payments=", "needs a name"),
            // The handle user may not Read the payments group (join it, commit past records).
            ("handle=intent-payments", "that is payments's group"),
        ] {
            let (refused, said) = try await Self.intentctl(["topics", "acls", "--group", flag])
            #expect(refused != 0, "--group \(flag) was accepted")
            #expect(said.contains(complaint), "--group \(flag): \(said)")
        }
        let (twice, said) = try await Self.intentctl([
            "topics", "acls", "--group", "payments=a", "--group", "payments=b",
        ])
        #expect(twice != 0 && said.contains("has a group already"), "\(said)")
    }
}
