import BrokerTestSupport
import Foundation
import LocalBroker
import PipelineTopics
import Testing

/// What a platform team's admission and review would say about deploy/:
/// hadolint on the Containerfile, checkov's policy scan on every manifest, and
/// the operators' resources (KEDA, Prometheus Operator) cross-checked against
/// the Deployments and the topics the workers really consume. Each check is
/// also shown a broken input, so a check that stopped looking would fail here.
@Suite("Deploy policy checks")
struct DeployPolicyTests {
    static let root = DeployManifestTests.root
    static let deploy = root.appendingPathComponent("deploy")

    /// `light`: a command that starts nothing and takes well under a second (the YAML
    /// cross-check), run without a slot of the heavy tests' gate (``runLightProcess``).
    static func run(_ name: String, _ executable: String, _ arguments: [String], light: Bool = false) async throws
        -> (status: Int32, output: String)
    {
        let output = testFileURL("\(name)-\(UUID().uuidString).log")
        defer { ManagedProcess.removeOutput(of: output) }
        let launch = light ? runLightProcess : runProcess
        return try await launch(name, executable, arguments, output, .seconds(180))
    }

    static var hadolint: String {
        get throws {
            URL(fileURLWithPath: try ToolLocator.python()).deletingLastPathComponent()
                .appendingPathComponent("hadolint").path
        }
    }

    /// checkov lives in a virtual environment of its own (scripts/setup.sh).
    static let checkov = root.appendingPathComponent(".venv-checkov/bin/checkov").path

    @Test("hadolint finds nothing in deploy/Containerfile, and does flag a non-numeric USER")
    func containerfile() async throws {
        // One slot for both runs, so the second does not queue behind every heavy test again.
        try await withHeavySlot {
            let clean = try await Self.run(
                "hadolint", try Self.hadolint, [Self.deploy.appendingPathComponent("Containerfile").path])
            #expect(clean.status == 0, "\(clean.output)")
            #expect(clean.output.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(clean.output)")

            let text = try String(contentsOf: Self.deploy.appendingPathComponent("Containerfile"), encoding: .utf8)
            #expect(text.contains("USER 10001:10001"))
            let broken = testFileURL(
                "Containerfile-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: broken) }
            try text.replacingOccurrences(of: "USER 10001:10001", with: "USER intent")
                .write(to: broken, atomically: true, encoding: .utf8)
            let flagged = try await Self.run("hadolint", try Self.hadolint, [broken.path])
            #expect(flagged.status != 0)
            #expect(flagged.output.contains("DL3066"), "\(flagged.output)")
        }
    }

    /// checkov's JSON report: (failed check ids, skipped count) over every report it prints.
    static func checkov(_ directory: URL) async throws -> (failed: [String], skipped: Int, passed: Int) {
        let (status, output) = try await run(
            "checkov", checkov,
            [
                "-d", directory.path, "--framework", "kubernetes", "--skip-download", "--quiet", "--compact", "-o",
                "json",
            ])
        #expect(status == 0 || status == 1, "\(output)")
        let start = try #require(output.firstIndex { $0 == "{" || $0 == "[" }, "\(output)")
        let parsed = try JSONSerialization.jsonObject(with: Data(output[start...].utf8))
        let reports: [[String: Any]]
        if let list = parsed as? [[String: Any]] {
            reports = list
        } else {
            reports = [try #require(parsed as? [String: Any])]
        }
        var failed: [String] = []
        var skipped = 0
        var passed = 0
        for report in reports {
            let summary = report["summary"] as? [String: Any] ?? [:]
            skipped += summary["skipped"] as? Int ?? 0
            passed += summary["passed"] as? Int ?? 0
            let results = report["results"] as? [String: Any] ?? [:]
            for check in results["failed_checks"] as? [[String: Any]] ?? [] {
                failed.append("\(check["check_id"] ?? "?") \(check["resource"] ?? "?")")
            }
        }
        return (failed, skipped, passed)
    }

    @Test("checkov passes every manifest, each skip carries its reason, and a privileged pod is caught")
    func policyScan() async throws {
        // One slot for both checkov runs, so the second does not queue behind every heavy test again.
        try await withHeavySlot {
            let clean = try await Self.checkov(Self.deploy.appendingPathComponent("kubernetes"))
            #expect(clean.failed.isEmpty, "\(clean.failed)")
            #expect(clean.passed > 100)
            // Every skip is an annotation with a reason after the check id.
            let manifests = try FileManager.default.subpathsOfDirectory(
                atPath: Self.deploy.appendingPathComponent("kubernetes").path
            )
            .filter { $0.hasSuffix(".yaml") }
            for file in manifests {
                let text = try String(
                    contentsOf: Self.deploy.appendingPathComponent("kubernetes").appendingPathComponent(file),
                    encoding: .utf8)
                for line in text.split(separator: "\n") where line.contains("checkov.io/skip") {
                    let reason = line.split(separator: "=", maxSplits: 1).dropFirst().first ?? ""
                    #expect(reason.count > 20, "\(file): a skip without its reason: \(line)")
                }
            }

            let directory = testFileURL(
                "checkov-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let payments = try String(
                contentsOf: Self.deploy.appendingPathComponent("kubernetes/intent-payments.yaml"), encoding: .utf8)
            #expect(payments.contains("allowPrivilegeEscalation: false"))
            try payments.replacingOccurrences(of: "allowPrivilegeEscalation: false", with: "privileged: true")
                .write(to: directory.appendingPathComponent("intent-payments.yaml"), atomically: true, encoding: .utf8)
            let broken = try await Self.checkov(directory)
            #expect(broken.failed.contains { $0.hasPrefix("CKV_K8S_16 ") }, "privileged container: \(broken.failed)")
            #expect(broken.failed.contains { $0.hasPrefix("CKV_K8S_20 ") }, "privilege escalation: \(broken.failed)")
        }
    }

    /// The input topic of each worker, from the code (PipelineTopics), for the cross-check.
    static var inputs: [String] {
        let topics = PipelineTopics(prefix: "")
        return [
            "intent-resolve=\(topics.requested)", "intent-confirm=\(topics.resolved)",
            "intent-payments=\(topics.confirmations)", "intent-handle=\(topics.confirmed)",
        ]
    }

    static func crossCheck(_ kubernetes: URL) async throws -> (status: Int32, output: String) {
        try await run(
            "check_deploy_manifests.py", try ToolLocator.python(),
            [root.appendingPathComponent("scripts/check_deploy_manifests.py").path, "--kubernetes", kubernetes.path]
                + inputs.flatMap { ["--input", $0] }, light: true)
    }

    @Test("ScaledObjects, PodDisruptionBudgets, ServiceMonitor and probes agree with the Deployments and the code")
    func operatorResources() async throws {
        let clean = try await Self.crossCheck(Self.deploy.appendingPathComponent("kubernetes"))
        #expect(clean.status == 0, "\(clean.output)")
        #expect(clean.output.hasPrefix("ok: 4 workers, 4 ScaledObjects"), "\(clean.output)")
        // The 8 workloads of deploy/ and the 5 parties outside it (voice, contacts, settings, ledger operator, auditor).
        #expect(clean.output.hasSuffix("13 Kafka users\n"), "\(clean.output)")
    }

    @Test(
        "the cross-check notices a ScaledObject on the wrong group or topic, too many replicas, a root pod, and a workload on another's Kafka user",
        arguments: [
            (
                "autoscaling/keda.yaml", "consumerGroup: intent-payments", "consumerGroup: payments",
                "consumerGroup payments"
            ),
            (
                "autoscaling/keda.yaml", "topic: intents.confirmed", "topic: intents.confirmations2",
                "is not the worker's input"
            ),
            ("autoscaling/keda.yaml", "maxReplicaCount: 12", "maxReplicaCount: 24", "> 12 partitions"),
            (
                "autoscaling/keda.yaml", "minReplicaCount: 2", "minReplicaCount: 1",
                "minReplicaCount 1 is not the Deployment's replicas 2"
            ),
            ("intent-handle.yaml", "runAsUser: 10001", "runAsUser: 0", "numeric non-root uid"),
            ("intent-resolve.yaml", "path: /ready", "path: /health", "readinessProbe should GET /ready"),
            // Kafka identities (SECURITY.md, attack 59).
            (
                "intent-handle.yaml", "secretName: intent-handle,", "secretName: intent-payments,",
                "shares Kafka secret intent-payments"
            ),
            (
                "intent-payments.yaml", "secretName: intent-payments,", "secretName: kafka-credentials,",
                "uses the shared Secret kafka-credentials"
            ),
            (
                "intent-appstate.yaml", "KAFKA_SASL_USERNAME, value: intent-appstate",
                "KAFKA_SASL_USERNAME, value: intent-payments", "not exactly its own group intent-appstate"
            ),
            (
                "topics-job.yaml", "KAFKA_SASL_USERNAME, value: intent-provision-topics",
                "KAFKA_SASL_USERNAME, value: intent-admin", "intent-admin is no KafkaUser"
            ),
            (
                "strimzi/kafka-users.yaml", "type: group, name: \"intent-confirm\"",
                "type: group, name: \"intent-payments\"", "may be Read (joined, committed) by 2 users"
            ),
            ("autoscaling/keda.yaml", "intent-keda", "intent-payments", "KEDA uses Kafka secret intent-payments"),
        ])
    func brokenOperatorResources(_ file: String, _ original: String, _ replacement: String, _ expected: String)
        async throws
    {
        let copy = testFileURL("k8s-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: copy) }
        try FileManager.default.copyItem(at: Self.deploy.appendingPathComponent("kubernetes"), to: copy)
        let target = copy.appendingPathComponent(file)
        let text = try String(contentsOf: target, encoding: .utf8)
        #expect(text.contains(original))
        try text.replacingOccurrences(of: original, with: replacement).write(
            to: target, atomically: true, encoding: .utf8)
        let result = try await Self.crossCheck(copy)
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.contains(expected), "\(result.output)")
    }
}
