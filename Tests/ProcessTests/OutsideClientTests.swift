import BrokerTestSupport
import ContactResolution
import Foundation
import IntentCrypto
import IntentEvents
import IntentWorkers
import Intents
import LocalBroker
import Payments
import PipelineAudit
import PipelineTestSupport
import PipelineTools
import Testing

extension ProcessLevel {
    /// A voice service's client that is not ours: `examples/voice_client.py`,
    /// Python with confluent-kafka (librdkafka underneath, as most producers use
    /// it), written from docs/producers.md and schemas/ alone. If the guide leaves
    /// out something a producer must do (millisecond times, raw UTF-8, hex keys,
    /// murmur2, the partition its answers come on), this client's events are
    /// dead-lettered or its answers missed, and the test fails. It runs as a voice
    /// team deploys it, against the stages as deployed (the worker executables,
    /// with their default `--voice-binding required`): its user enrolled with it,
    /// a message, a payment and a payment request confirmed, and a malformed
    /// request answered with a final failure.
    @Suite("A Python voice client written from the producer guide", .heavyTimeLimit(minutes: 5))
    struct OutsideClientTests {
        /// murmur2_random is what the guide asks for; consistent_random is
        /// librdkafka's default, which a producer gets by leaving the setting out.
        /// With one instance of each worker reading every partition, both work:
        /// the guide's warning is about per-user order across partitions. The
        /// client runs once with each, one after the other against the same workers.
        static let partitioners = ["murmur2_random", "consistent_random"]

        @Test(
            "publishes a message, a payment and a payment request, confirms them, and hears a malformed request refused"
        )
        func pythonClient() async throws {
            try await withPipeline { pipeline in
                try await pipeline.openAccount("alice", handle: "+1 555 0100", deposit: money("100", "CNY"))
                try await pipeline.openAccount("lee", handle: "lee@example.com")
                try await pipeline.publishContacts(
                    [Contact(id: "c-lee", displayName: "Brandon Lee", handles: ["lee@example.com"])], user: "alice")
                // Alice speaks through this voice service: her settings service enrolled her with it.
                try await pipeline.enroll("alice", with: ["/voice/load"])
                let workers = try WorkerProcesses(broker: pipeline.broker, topics: pipeline.topics)

                let directory = testFileURL(uniqueName("outside"))
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: directory) }
                let keyFile = directory.appendingPathComponent("voice-keys")
                try "/voice/load \(Digest.hex(LoadFixture.voiceKey))\n".write(
                    to: keyFile, atomically: true, encoding: .utf8)
                let root = try #require(ToolLocator.projectRoot(), "the checkout's root")
                var payments: [String] = []
                var messages: [String] = []
                for partitioner in Self.partitioners {
                    let (status, output) = try await runProcess(
                        name: "voice_client.py", executable: try ToolLocator.python(),
                        arguments: [
                            root.appendingPathComponent("examples/voice_client.py").path,
                            "--bootstrap-servers", pipeline.broker.bootstrapServers,
                            "--topic-prefix", pipeline.topics.prefix, "--source-keys", keyFile.path,
                            "--source", "/voice/load", "--user", "alice", "--message-to", "Brandon Lee",
                            "--text", "在路上 / on my way", "--pay-to", "Brandon Lee", "--request-from", "Brandon Lee",
                            "--amount", "12.50", "--invalid", "--partitioner", partitioner, "--timeout", "90",
                        ],
                        outputFile: directory.appendingPathComponent("output-\(partitioner)"), timeout: .seconds(150))

                    let lines = output.split(separator: "\n").compactMap {
                        try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
                    }
                    let results = lines.filter { $0["intent"] != nil }
                    #expect(status == 0, "voice_client.py (\(partitioner)) exited \(status): \(output)")
                    #expect(results.count == 4, "\(partitioner): \(output)")
                    func result(_ name: String) throws -> [String: Any] {
                        try #require(
                            results.first { ($0["intent"] as? String)?.hasPrefix("py-\(name)-") == true },
                            "\(partitioner): \(output)")
                    }
                    for name in ["message", "payment", "request"] {
                        #expect(try result(name)["code"] as? String == "success", "\(partitioner) \(name): \(output)")
                    }
                    // The malformed request (an amount as a JSON number) ended with a failure naming the
                    // dead letter's reason, without any prompt: the client did not have to time out.
                    let invalid = try result("invalid")
                    #expect(invalid["code"] as? String == "failure" && invalid["reason"] as? String == "schema_invalid")
                    #expect((invalid["prompts"] as? [String]) == ["intent.response.v1"], "\(invalid)")
                    let request = try result("request")
                    #expect((request["prompts"] as? [String])?.contains("payment.confirmation.requested.v1") == true)
                    let payment = try result("payment")
                    payments.append(try #require(payment["intent"] as? String))
                    #expect((payment["prompts"] as? [String])?.contains("payment.confirmation.requested.v1") == true)
                    messages.append(try #require(try result("message")["intent"] as? String))
                }
                let exited = workers.exited()
                await workers.stopAll()
                #expect(exited.isEmpty, "workers exited: \(exited); logs in \(workers.directory.path)")

                // What the client says must be what the topics hold: each payment
                // posted once, with its confirmation; each message sent once.
                let report = try await TopicAudit.run(
                    topics: pipeline.topics, configuration: clientConfiguration(pipeline.broker), logger: testLogger,
                    keys: testStageKeys, bindingKey: BindingKey(LoadFixture.bindingKey))
                #expect(report.findings == [])
                #expect(report.postedIntents == payments.sorted())
                for message in messages { #expect(report.deliveredMessages[message] == 1, "\(message)") }
            }
        }
    }
}
