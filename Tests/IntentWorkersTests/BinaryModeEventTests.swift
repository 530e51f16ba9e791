import BrokerTestSupport
import Confirmation
import ContactResolution
import Foundation
import IntentEvents
import IntentResolution
import IntentWorkers
import Intents
import Kafka
import LocalBroker
import Messaging
import Payments
import PipelineTestSupport
import PipelineTopics
import Testing

/// A voice service that publishes in the CloudEvents Kafka binding's binary
/// mode, against the resolve, confirm and handle workers on a real local
/// broker: its extension attributes reach the final response, and an invalid
/// binary-mode event is dead-lettered as it came, naming the header.
@Suite("CloudEvents binary mode through the workers", .heavyTimeLimit(minutes: 5))
struct BinaryModeEventTests {
    static let voiceKey = Array(repeating: UInt8(0x44), count: 32)
    static let traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"

    @Test("a signed binary-mode request is handled with its extensions carried to the response; bad ones are parked")
    func binaryModeRequests() async throws {
        try await withPipeline { pipeline in
            let voice = EventAuthenticator(keys: ["/voice/test": Self.voiceKey])
            try await pipeline.publishContacts(
                [Contact(id: "c-xm", displayName: "小明", handles: ["+86 138"])], user: "u5")
            try await pipeline.startStages(voice: voice, bindingKey: BindingKey(Array(repeating: 2, count: 32)))

            func request(_ intentID: String) throws -> EventEnvelope {
                var event = pipeline.requestEvent(
                    intentID, user: "u5", turn: 1,
                    .sendMessage(SendMessageIntent(recipients: [Person(spoken: "小明")], content: "hi")))
                try event.extensions.set("traceparent", .string(Self.traceparent))
                try event.extensions.set("comexamplevoice", .string("eu-1"))
                return event
            }
            func replacing(_ key: String, with value: String, in record: KafkaProducerMessage) -> KafkaProducerMessage {
                var record = record
                record.headers = record.headers.filter { $0.key != key } + [KafkaHeader(key: key, string: value)]
                return record
            }
            let topic = pipeline.topics.requested
            let signed = { (event: EventEnvelope) in
                KafkaProducerMessage(topic: topic, binaryModeEvent: event, signedWith: voice)
            }
            // Invalid, each in its own way, and all before the valid one on the user's partition.
            let badTime = replacing("ce_time", with: "yesterday", in: signed(try request("bad-time")))
            let badName = replacing("ce_Voice", with: "eu-1", in: signed(try request("bad-name")))
            let badData = replacing("content-type", with: "application/avro", in: signed(try request("bad-data")))
            // Valid in form, but a header changed after signing: the signature no longer matches.
            let forged = replacing("ce_comexamplevoice", with: "us-1", in: signed(try request("forged")))
            let bad = [badTime, badName, badData, forged]
            for record in bad { _ = try await pipeline.send(record) }
            _ = try await pipeline.send(signed(try request("good")))

            let response = try await pipeline.event(for: "good", type: IntentResponse.type)
            #expect(try response.decodeData(as: IntentResponse.self).code == .success)
            #expect(response.extensions["comexamplevoice"] == .string("eu-1"))
            // W3C Trace Context: each hop keeps the trace id and writes its own span as the parent id.
            let resolved = try await pipeline.output(for: "good", turn: 1)
            func parts(_ event: EventEnvelope) -> [String] {
                guard case .string(let value)? = event.extensions["traceparent"] else { return [] }
                return value.split(separator: "-").map(String.init)
            }
            let voiceParts = Self.traceparent.split(separator: "-").map(String.init)
            #expect(parts(resolved).count == 4 && parts(response).count == 4)
            #expect(parts(resolved)[...1] == voiceParts[...1], "the trace id, through resolve")
            #expect(parts(response)[...1] == voiceParts[...1], "the trace id, through three workers")
            #expect(parts(resolved)[3] == "01" && parts(response)[3] == "01", "the sampled flag is kept")
            let spans = [voiceParts[2], parts(resolved)[2], parts(response)[2]]
            #expect(Set(spans).count == 3, "every hop has a span of its own: \(spans)")
            #expect(spans.allSatisfy { $0.count == 16 && $0 != String(repeating: "0", count: 16) })
            // The same value as a plain `traceparent` Kafka header, for tools that read headers only.
            for record in pipeline.receivedRecords() {
                guard let event = try? EventEnvelope.decode(record.value ?? []), event.intentID == "good",
                    event.source.hasPrefix("/workers/")
                else { continue }
                let header = record.headers.last { $0.key == "traceparent" }?.stringValue
                #expect(event.extensions["traceparent"] == header.map(JSONValue.string), "\(event.type)")
            }

            let letters = try await pipeline.deadLetters(count: bad.count)
            #expect(
                letters.map { letter in letter.headers.last { $0.key == DeadLetter.fieldHeader }?.stringValue } == [
                    "ce_time", "ce_Voice", "content-type", EventSignature.header,
                ])
            #expect(
                letters.map { letter in letter.headers.last { $0.key == DeadLetter.reasonHeader }?.stringValue } == [
                    "schema_invalid", "schema_invalid", "schema_invalid", "unauthenticated",
                ])
            #expect(letters.map(\.value) == bad.map(\.value), "the original values are kept")
            for (letter, original) in zip(letters, bad) {
                #expect(original.headers.allSatisfy { letter.headers.contains($0) }, "the original headers are kept")
            }
            // `intentctl trace`: the good intent's path, hop by hop, with its trace id; the
            // forged one's request and its dead letter.
            let intentctl = WorkerProcesses.binaries.appendingPathComponent("intentctl").path
            let directory = testFileURL(uniqueName("trace"))
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            func trace(_ arguments: String...) async throws -> (status: Int32, output: String, error: String) {
                let output = directory.appendingPathComponent(uniqueName("output"))
                let (status, text) = try await runProcess(
                    name: "intentctl", executable: intentctl,
                    arguments: ["trace"] + arguments + [
                        "--bootstrap-servers", pipeline.broker.bootstrapServers, "--topic-prefix",
                        pipeline.topics.prefix,
                    ],
                    outputFile: output, timeout: .seconds(60))
                let error = (try? String(contentsOf: ManagedProcess.errorFile(of: output), encoding: .utf8)) ?? ""
                return (status, text, error)
            }
            let traced = try await trace("good")
            #expect(traced.status == 0, "\(traced.output)")
            #expect(traced.output.contains("trace 0af7651916cd43dd8448eb211c80319c"), "\(traced.output)")
            let types = traced.output.split(separator: "\n").compactMap { line in
                [IntentRequested.type, IntentResolutionReport.resolvedType, IntentConfirmation.type, MessageEvent.type]
                    .first { line.contains("  \($0)  ") }
            }
            #expect(
                types == [
                    IntentRequested.type, IntentResolutionReport.resolvedType, IntentConfirmation.type,
                    MessageEvent.type,
                ], "\(traced.output)")
            #expect(traced.output.contains(IntentResponse.type), "\(traced.output)")
            let forgedTrace = try await trace("forged", "--json")
            #expect(forgedTrace.output.contains(#""dead_letter_reason":"unauthenticated""#), "\(forgedTrace.output)")
            let missing = try await trace("no-such-intent")
            #expect(missing.status != 0)
            #expect(missing.error.contains("no event about intent no-such-intent"), "\(missing.error)")

            // Every record the workers published says what it holds.
            let published = pipeline.receivedRecords()
            #expect(!published.isEmpty)
            for record in published {
                let contentType = record.headers.last { $0.key == CloudEventsBinding.contentTypeHeader }?.stringValue
                if record.topic == pipeline.topics.deadLetter {
                    #expect(contentType == "application/avro" || contentType == "application/json")
                } else {
                    #expect(contentType == CloudEventsBinding.structuredContentType, "\(record.topic)")
                }
            }
        }
    }
}
