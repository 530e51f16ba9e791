import BrokerTestSupport
import Foundation
import Kafka
import LocalBroker
import PipelineTestSupport
import PipelineTopics
import Testing

/// intentctl as an operator and a voice-service team use it, against a real
/// local broker: read-only commands create nothing, `events read --idle`
/// returns, `--json` is JSON, `topics provision` checks existing topics, and
/// `events sign` / `events verify` agree with an HMAC computed outside Swift
/// and with the producer guide's worked example.
@Suite("Operator commands", .heavyTimeLimit(minutes: 5))
struct OperatorCommandTests {
    static let intentctl = WorkerProcesses.binaries.appendingPathComponent("intentctl").path

    /// Runs `intentctl ARGUMENTS` (with `stdin` piped in when given) through bash.
    static func run(
        _ broker: LocalBroker?, _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]
    ) async throws -> (status: Int32, output: String) {
        let directory = testFileURL(uniqueName("intentctl"))
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var command = ([intentctl] + arguments).map { "'\($0)'" }.joined(separator: " ") + " 2>&1"
        if let stdin {
            let input = directory.appendingPathComponent("stdin")
            try stdin.write(to: input, atomically: true, encoding: .utf8)
            command += " < '\(input.path)'"
        }
        var variables = environment
        if let broker { variables["KAFKA_BOOTSTRAP_SERVERS"] = broker.bootstrapServers }
        let exports = variables.map { "export \($0.key)='\($0.value)'; " }.joined()
        return try await runProcess(
            name: "intentctl", executable: "/bin/bash", arguments: ["-c", exports + command],
            outputFile: directory.appendingPathComponent("output"), timeout: .seconds(60))
    }

    /// Runs `intentctl ARGUMENTS` and decodes its last line that is a JSON object as `Report`.
    static func runJSON<Report: Decodable>(
        _ broker: LocalBroker, _ arguments: [String], as _: Report.Type, environment: [String: String] = [:]
    ) async throws -> (status: Int32, report: Report?, output: String) {
        let (status, output) = try await run(broker, arguments, environment: environment)
        let line = output.split(separator: "\n").last { $0.hasPrefix("{") } ?? ""
        return (status, try? JSONDecoder().decode(Report.self, from: Data(line.utf8)), output)
    }

    /// The stages' test keys in a file only its owner may read (as key files must be),
    /// removed after `body`.
    static func withStageKeyFile<Result>(_ body: (URL) async throws -> Result) async throws -> Result {
        let file = testFileURL(uniqueName("stage-keys"))
        try testStageKeys.keyFileText.write(to: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        defer { try? FileManager.default.removeItem(at: file) }
        return try await body(file)
    }

    static func topics(_ broker: LocalBroker) async throws -> [String] {
        let (status, output) = try await run(broker, ["topics", "list", "--json"])
        #expect(status == 0, "\(output)")
        let line = try #require(output.split(separator: "\n").last { $0.hasPrefix("[") }, "\(output)")
        return try JSONDecoder().decode([String].self, from: Data(line.utf8))
    }

    @Test("describe of a missing topic fails and creates nothing; provision checks what exists; --json is JSON")
    func topicCommands() async throws {
        try await withBroker { broker in
            let missing = uniqueName("missing")
            let described = try await Self.run(broker, ["topics", "describe", missing])
            #expect(described.status != 0)
            #expect(!(try await Self.topics(broker)).contains(missing), "a read-only command created \(missing)")

            let prefix = uniqueName("ops") + "."
            let environment = ["INTENT_TOPIC_PREFIX": prefix]
            let provisioned = try await Self.run(
                broker, ["topics", "provision", "--partitions", "3", "--replication-factor", "1"],
                environment: environment)
            #expect(provisioned.status == 0, "\(provisioned.output)")
            let names = PipelineTopics(prefix: prefix).specifications(partitions: 3).map(\.name)
            #expect(Set(names).isSubset(of: Set(try await Self.topics(broker))))
            // Existing topics that do not match are reported, not silently accepted.
            let mismatch = try await Self.run(
                broker, ["topics", "provision", "--partitions", "4", "--replication-factor", "1"],
                environment: environment)
            #expect(mismatch.status != 0, "\(mismatch.output)")
            #expect(mismatch.output.contains("has 3 partitions, 4 wanted"), "\(mismatch.output)")
            let badFactor = try await Self.run(
                broker, ["topics", "provision", "--partitions", "3", "--replication-factor", "0"],
                environment: environment)
            #expect(badFactor.status != 0)

            let json = try await Self.run(broker, ["topics", "describe", names[0], "--json"])
            #expect(json.status == 0, "\(json.output)")
            let line = try #require(json.output.split(separator: "\n").last { $0.hasPrefix("{") })
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["topic"] as? String == names[0])
            #expect((object["partitions"] as? [[String: Any]])?.count == 3)
        }
    }

    @Test("events read --idle returns once the topic has been quiet that long, having printed what it read")
    func readIdle() async throws {
        try await withBroker { broker in
            let topic = uniqueName("read")
            try await createTopic(broker, topic)
            let producer = try KafkaProducer(configuration: producerConfiguration(broker), logger: testLogger)
            try await producer.sendAll(
                ["one", "two"].map { KafkaProducerMessage(topic: topic, key: "k", value: bytes(#"{"n":"\#($0)"}"#)) })
            await producer.shutdown()
            // Without --idle the command follows the topic forever and `run` times out.
            let (status, output) = try await Self.run(broker, ["events", "read", topic, "--idle", "1"])
            #expect(status == 0, "\(output)")
            #expect(output.contains("one") && output.contains("two"), "\(output)")
        }
    }

    static let keyHex = String(repeating: "ab", count: 32)
    /// The producer guide's worked example (docs/producers.md), input and canonical bytes.
    static let example = """
        {"type":"intent.requested.v1","specversion":"1.0","id":"req-1","source":"/voice/eu-1","time":"2026-11-23T17:00:00.5Z","userid":"alice","conversationid":"conv-1","intentid":"intent-1","dataschema":"urn:intent-pipeline:schema:intent.requested:v1","data":{"turn":1,"intent":{"kind":"sendMessage","recipients":[{"spoken":"小明"}],"content":"see you at 7"}}}
        """

    /// HMAC-SHA256 by Python's standard library: independent of the code under test.
    static func pythonHMAC(_ value: String) async throws -> String {
        let directory = testFileURL(uniqueName("hmac"))
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("value")
        try value.write(to: input, atomically: true, encoding: .utf8)
        let script =
            "import hmac, hashlib, sys; print(hmac.new(bytes.fromhex('\(keyHex)'), open(sys.argv[1], 'rb').read(), hashlib.sha256).hexdigest())"
        let (status, output) = try await runProcess(
            name: "python", executable: try ToolLocator.python(), arguments: ["-c", script, input.path],
            outputFile: directory.appendingPathComponent("output"), timeout: .seconds(30))
        #expect(status == 0, "\(output)")
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("events sign prints the guide's canonical bytes and a signature Python's HMAC agrees with; verify checks it")
    func signAndVerify() async throws {
        let directory = testFileURL(uniqueName("keys"))
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let keys = directory.appendingPathComponent("source-keys")
        try "/voice/eu-1 \(Self.keyHex)\n".write(to: keys, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keys.path)

        let signed = try await Self.run(
            nil, ["events", "sign", "--source-keys", keys.path, "--partitions", "6"], stdin: Self.example + "\n")
        #expect(signed.status == 0, "\(signed.output)")
        struct Signed: Decodable {
            var value: String
            var key: String
            var partition: Int?
            var headers: [String: String]
        }
        let line = try #require(signed.output.split(separator: "\n").last { $0.hasPrefix("{") })
        let record = try JSONDecoder().decode(Signed.self, from: Data(line.utf8))
        let guide = try String(
            contentsOf: DeployManifestTests.root.appendingPathComponent("docs/producers.md"), encoding: .utf8)
        #expect(guide.contains(record.value), "the canonical bytes are the guide's")
        #expect(record.key == "alice")
        let signature = try #require(record.headers["intent-signature"])
        #expect(signature == (try await Self.pythonHMAC(record.value)))
        #expect(guide.contains("intent-signature: \(signature)"))

        let verified = try await Self.run(
            nil, ["events", "verify", "--source-keys", keys.path, "--signature", signature], stdin: Self.example + "\n")
        #expect(verified.status == 0, "\(verified.output)")
        #expect(verified.output.contains("ok: signed by /voice/eu-1"), "\(verified.output)")
        let tampered = String(signature.dropLast()) + (signature.hasSuffix("0") ? "1" : "0")
        let refused = try await Self.run(
            nil, ["events", "verify", "--source-keys", keys.path, "--signature", tampered], stdin: Self.example + "\n")
        #expect(refused.status != 0, "\(refused.output)")
        #expect(!refused.output.contains("ok: signed"))
    }
}
