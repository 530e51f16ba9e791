import BrokerTestSupport
import Foundation
import IntentEvents
import IntentWorkers
import Intents
import Kafka
import LocalBroker
import Logging
import Payments
import PipelineTopics
import StageTestHost
import Synchronization
import Testing

/// The workers decide a batch while the previous ones are still being
/// acknowledged (``StageWorker``'s publishing pipeline). That must not let a
/// notice overtake the state it reports: here the state topic the confirm
/// worker writes proposals to does not exist yet, so its state round keeps
/// failing, and the confirmation request that asks about the proposal must not
/// appear until the proposal itself is on the broker.
@Suite("Publishing order with batches in flight", .heavyTimeLimit(minutes: 3))
struct PublishOrderingTests {
    @Test("no confirmation request is visible before the proposal it asks about is durable")
    func noticeWaitsForItsState() async throws {
        try await withPipeline { pipeline in
            try await pipeline.seedPayerAndPayee()
            try await pipeline.startWorker()

            // The confirm worker's state round (the proposals to the payments stage) is
            // reported failed six times in a row, as after broker time-outs, and retried
            // with backoff (0.1 s, 0.2 s, 0.4 s, ...).
            let log = LogCapture()
            try await pipeline.start(
                pipeline.confirmWorker(logger: log.logger, faults: PublishFaults(stateRoundFailures: 6)))
            for intent in ["pay-1", "pay-2"] {
                try await pipeline.request(
                    intent, turn: 1,
                    .sendPayment(SendPaymentIntent(payee: Person(spoken: "Bob"), currencyAmount: money("10", "CNY"))))
            }
            try await log.waitFor("publish a batch failed; retrying", timeout: .seconds(60))

            // The state round is failing: nothing that reports on it may be on the broker.
            let prompts = try await TopicReader.events(
                of: pipeline.topics.prompts, configuration: clientConfiguration(pipeline.broker), logger: testLogger
            ).events
            #expect(prompts.filter { $0.type == ConfirmationRequest.type }.map(\.intentID) == [])

            // Once the round succeeds the requests follow, each after its proposal.
            for intent in ["pay-1", "pay-2"] {
                let request = try await pipeline.event(for: intent, type: ConfirmationRequest.type)
                let proposals = try await TopicReader.events(
                    of: pipeline.topics.confirmations, configuration: clientConfiguration(pipeline.broker),
                    logger: testLogger
                ).events
                #expect(
                    proposals.contains { $0.intentID == intent }, "the request \(request.id) came before its proposal")
            }
        }
    }
}

/// A logger that also keeps every message, so a test can await a line the
/// code under test logs (there is no other event to wait for when a publish fails).
final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    var logger: Logger {
        Logger(label: "capture") { label in
            MultiplexLogHandler([StreamLogHandler.standardError(label: label), CapturingHandler(capture: self)])
        }
    }

    func append(_ line: String) { lines.withLock { $0.append(line) } }

    /// Whether a line logged so far contains `text`.
    func contains(_ text: String) -> Bool {
        lines.withLock { $0.contains { $0.contains(text) } }
    }

    func waitFor(_ text: String, timeout: Duration) async throws {
        try await waitUntil("a log line with \"\(text)\"", timeout: timeout) {
            lines.withLock { $0.contains { $0.contains(text) } }
        }
    }

    private struct CapturingHandler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            capture.append("\(event.message) \(event.metadata ?? [:])")
        }
    }
}
