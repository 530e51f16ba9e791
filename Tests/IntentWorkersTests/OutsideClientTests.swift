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
import Testing

/// A voice service's client that is not ours: `examples/voice_client.py`,
/// Python with confluent-kafka (librdkafka underneath, as most producers use
/// it), written from docs/producers.md and schemas/ alone. If the guide leaves
/// out something a producer must do (millisecond times, raw UTF-8, hex keys,
/// murmur2), this client's events are dead-lettered and the test fails.
@Suite("A Python voice client written from the producer guide", .heavyTimeLimit(minutes: 5))
struct OutsideClientTests {
    static let voiceKey = Array(repeating: UInt8(0x5a), count: 32)
    static let bindingKey = BindingKey(Array(repeating: UInt8(0x2b), count: 32))

    /// murmur2_random is what the guide asks for; consistent_random is
    /// librdkafka's default, which a producer gets by leaving the setting out.
    /// With one instance of each worker reading every partition, both work:
    /// the guide's warning is about per-user order across partitions.
    @Test(
        "publishes a message and a payment, answers the confirmation, and both succeed",
        arguments: ["murmur2_random", "consistent_random"])
    func pythonClient(partitioner: String) async throws {
        try await withPipeline { pipeline in
            let voice = EventAuthenticator(keys: ["/voice/outside": Self.voiceKey])
            try await pipeline.openAccount("alice", handle: "+1 555 0100", deposit: money("100", "CNY"))
            try await pipeline.openAccount("lee", handle: "lee@example.com")
            try await pipeline.publishContacts(
                [Contact(id: "c-lee", displayName: "Brandon Lee", handles: ["lee@example.com"])], user: "alice")
            try await pipeline.startStages(voice: voice, bindingKey: Self.bindingKey)

            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(uniqueName("outside"))
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let keyFile = directory.appendingPathComponent("voice-keys")
            try "/voice/outside \(Digest.hex(Self.voiceKey))\n".write(to: keyFile, atomically: true, encoding: .utf8)
            let root = try #require(ToolLocator.projectRoot(), "the checkout's root")
            let (status, output) = try await runProcess(
                name: "voice_client.py", executable: try ToolLocator.python(),
                arguments: [
                    root.appendingPathComponent("examples/voice_client.py").path,
                    "--bootstrap-servers", pipeline.broker.bootstrapServers,
                    "--topic-prefix", pipeline.topics.prefix, "--source-keys", keyFile.path,
                    "--source", "/voice/outside", "--user", "alice", "--message-to", "Brandon Lee",
                    "--text", "在路上 / on my way", "--pay-to", "Brandon Lee", "--amount", "12.50",
                    "--partitioner", partitioner, "--timeout", "90",
                ],
                outputFile: directory.appendingPathComponent("output"), timeout: .seconds(150))

            let lines = output.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            let results = lines.filter { $0["intent"] != nil }
            #expect(status == 0, "voice_client.py exited \(status): \(output)")
            #expect(results.count == 2, "\(output)")
            for result in results {
                #expect(result["code"] as? String == "success", "\(result)")
            }
            let payment = try #require(results.first { $0["kind"] as? String == "sendPayment" })
            let paymentID = try #require(payment["intent"] as? String)
            #expect((payment["prompts"] as? [String])?.contains("payment.confirmation.requested.v1") == true)
            let message = try #require(results.first { $0["kind"] as? String == "sendMessage" })
            let messageID = try #require(message["intent"] as? String)

            // What the client says must be what the topics hold: the payment
            // posted once, with its confirmation; the message sent once.
            let report = try await pipeline.audit(bindingKey: Self.bindingKey)
            #expect(report.findings == [])
            #expect(report.postedIntents == [paymentID])
            #expect(report.deliveredMessages[messageID] == 1)
        }
    }
}
