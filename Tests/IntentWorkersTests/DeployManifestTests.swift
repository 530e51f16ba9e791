import BrokerTestSupport
import Foundation
import LocalBroker
import PipelineTestSupport
import Testing

/// deploy/ as an operator applies it: the manifests validate against the
/// Kubernetes schemas, the kustomization applies exactly the manifests (never
/// a template Secret), each worker mounts the stage keys it needs and no others,
/// and deploy/README's steps, followed one by one, deploy all of it.
@Suite("Deploy manifests")
struct DeployManifestTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let kubernetes = root.appendingPathComponent("deploy/kubernetes")

    func manifest(_ name: String) throws -> String {
        try String(contentsOf: Self.kubernetes.appendingPathComponent(name), encoding: .utf8)
    }

    @Test("every manifest validates (kubernetes-validate --strict, Kubernetes 1.37 schemas)")
    func validates() async throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.kubernetes.path)
            .filter { $0.hasSuffix(".yaml") && $0 != "kustomization.yaml" }.sorted()
        let validator = URL(fileURLWithPath: try ToolLocator.python()).deletingLastPathComponent()
            .appendingPathComponent("kubernetes-validate").path
        let report = testFileURL("k8s-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: report) }
        let (status, output) = try await runProcess(
            name: "kubernetes-validate", executable: validator,
            arguments: ["--strict"] + files.map { Self.kubernetes.appendingPathComponent($0).path },
            outputFile: report, timeout: .seconds(120))
        #expect(status == 0, "\(output)")
        #expect(output.components(separatedBy: " passed for resource ").count - 1 >= files.count, "\(output)")
    }

    @Test("the kustomization lists exactly the manifests, and nothing applied is a Secret")
    func kustomization() throws {
        let listed = try manifest("kustomization.yaml").split(separator: "\n")
            .compactMap { line -> String? in
                let text = line.trimmingCharacters(in: .whitespaces)
                return text.hasPrefix("- ") ? String(text.dropFirst(2)) : nil
            }
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.kubernetes.path)
            .filter { $0.hasSuffix(".yaml") && $0 != "kustomization.yaml" }
        #expect(Set(listed) == Set(files))
        #expect(listed.count == files.count, "listed twice")
        for file in files { #expect(try !manifest(file).contains("kind: Secret"), "\(file) would overwrite a Secret") }
    }

    @Test(
        "each worker mounts exactly the stage keys it signs or verifies with, and its own view key; the app state view keys alone",
        arguments: [
            ("intent-resolve.yaml", ["resolve": ["key", "view"]]),
            (
                "intent-confirm.yaml",
                ["confirm": ["key", "view"], "resolve": ["key"], "payments": ["view"], "ledger-operator": ["view"]]
            ),
            ("intent-payments.yaml", ["payments": ["key", "view"], "confirm": ["key"], "ledger-operator": ["key"]]),
            ("intent-handle.yaml", ["handle": ["key", "view"], "confirm": ["key"]]),
            (
                "intent-appstate.yaml",
                [
                    "resolve": ["view"], "confirm": ["view"], "payments": ["view"], "handle": ["view"],
                    "ledger-operator": ["view"],
                ]
            ),
        ])
    func stageKeys(_ file: String, _ expected: [String: [String]]) throws {
        let text = try manifest(file)
        // Each "name: stage-key-SECRET, items: [{ key: ITEM, ... }, ...]" line: the secret and its items.
        var mounted: [String: Set<String>] = [:]
        for line in text.split(separator: "\n") where line.contains("name: stage-key-") {
            let secret = line.components(separatedBy: "name: stage-key-")[1].prefix { $0 != "," && $0 != " " }
            let items = line.components(separatedBy: "{ key: ").dropFirst().map { String($0.prefix { $0 != "," }) }
            mounted[String(secret), default: []].formUnion(items)
        }
        #expect(mounted == expected.mapValues(Set.init), "\(file) mounts \(mounted)")
        if file == "intent-appstate.yaml" {
            #expect(text.contains("INTENT_VIEW_KEYS_FILE, value: /etc/view-keys"))
            #expect(!text.contains("INTENT_STAGE_KEYS_FILE"))
        } else {
            #expect(text.contains("INTENT_STAGE_KEYS_FILE, value: /etc/stage-keys"))
        }
        // Readable by the workers' uid through fsGroup, and by nobody else.
        #expect(text.contains("fsGroup: 10001"))
        #expect(!text.contains("defaultMode: 0400"), "root-only keys are unreadable by uid 10001")
        #expect(!text.contains("defaultMode: 0444") && !text.contains("defaultMode: 0644"))
    }

    @Test(
        "the app state gets the contacts and settings services' view keys (names, the user's language), and no voice, contacts or settings service's key"
    )
    func appStateContactsKeys() throws {
        let text = try manifest("intent-appstate.yaml")
        #expect(text.contains("secret: { name: contacts-view-keys, items: [{ key: view-keys, path: contacts }] }"))
        #expect(text.contains("secret: { name: settings-view-keys, items: [{ key: view-keys, path: settings }] }"))
        #expect(!text.contains("payment-keys") && !text.contains("source-keys"), "a voice key could sign requests")
        #expect(!text.contains("contacts-keys"), "a contacts service's own key could rename people for resolve")
    }

    @Test("strimzi/kafka-users.yaml is exactly what `intentctl topics acls` prints at its defaults")
    func kafkaUsersAreGenerated() async throws {
        let (status, printed) = try await KafkaAccessTests.intentctl(["topics", "acls"])
        #expect(status == 0, "\(printed)")
        #expect(printed.hasPrefix("# One Kafka user per intent-pipeline workload"), "\(printed)")
        let committed = try manifest("strimzi/kafka-users.yaml")
        #expect(
            committed == printed,
            "deploy/kubernetes/strimzi/kafka-users.yaml is not what the code declares; regenerate it: intentctl topics acls > deploy/kubernetes/strimzi/kafka-users.yaml"
        )
        let kustomization = try manifest("strimzi/kustomization.yaml")
        #expect(kustomization.contains("resources:\n  - kafka-users.yaml\n"))
    }

    /// Runs scripts/check_deploy_readme.py on `readme`: the README's shell
    /// steps with kubectl and docker recording what they are asked, and the
    /// real `intentctl keys generate`.
    func followReadme(_ readme: URL) async throws -> (status: Int32, output: String) {
        let output = testFileURL("readme-\(UUID().uuidString).log")
        defer { ManagedProcess.removeOutput(of: output) }
        let intentctl = WorkerProcesses.binaries.appendingPathComponent("intentctl").path
        return try await runLightProcess(
            name: "check_deploy_readme.py", executable: try ToolLocator.python(),
            arguments: [
                Self.root.appendingPathComponent("scripts/check_deploy_readme.py").path, "--readme", readme.path,
                "--kubernetes", Self.kubernetes.path, "--intentctl", intentctl,
            ],
            outputFile: output, timeout: .seconds(120))
    }

    @Test("deploy/README's steps, followed in order, apply every manifest after its namespace, ConfigMaps and Secrets")
    func readmeSteps() async throws {
        let (status, output) = try await followReadme(Self.root.appendingPathComponent("deploy/README.md"))
        #expect(status == 0, "\(output)")
        #expect(output.hasPrefix("ok: "), "\(output)")
    }

    @Test(
        "a README that forgets a Secret, a key of one, or a ConfigMap's step is caught",
        arguments: [
            ("kubectl -n intent-pipeline create secret generic app-key --from-file=app-key=…", "uses secret app-key"),
            ("--from-file=app-key=…", "secret app-key lacks key(s) ['app-key']"),
            ("--from-file=binding-key=…", "lacks key(s) ['binding-key']"),
            ("-f deploy/kubernetes/kafka-config.yaml", "uses ConfigMap kafka-config"),
            // Each workload's own Kafka user (SECURITY.md, attack 59), KEDA's included.
            ("intent-kafka-check intent-keda", "uses secret intent-kafka-check"),
            ("--from-file=password=", "lacks key(s) ['password']"),
            ("intent-keda", "TriggerAuthentication intent-pipeline-kafka uses secret intent-keda"),
        ])
    func brokenReadme(_ removed: String, _ expected: String) async throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("deploy/README.md"), encoding: .utf8)
        #expect(readme.contains(removed))
        let broken = testFileURL("README-\(UUID().uuidString).md")
        defer { try? FileManager.default.removeItem(at: broken) }
        try readme.replacingOccurrences(of: removed, with: "").write(to: broken, atomically: true, encoding: .utf8)
        let (status, output) = try await followReadme(broken)
        #expect(status == 1, "\(output)")
        #expect(output.contains(expected), "\(output)")
    }
}
