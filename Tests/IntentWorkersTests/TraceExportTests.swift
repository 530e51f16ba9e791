import BrokerTestSupport
import ContactResolution
import Foundation
import IntentEvents
import IntentResolution
import IntentWorkers
import Intents
import Kafka
import LocalBroker
import Payments
import PipelineTestSupport
import PipelineTopics
import Testing

/// A voice service's W3C trace through every executable, as processes
/// configured by environment (`INTENT_OTLP_ENDPOINT`), into a stand-in
/// collector: every hop exports one span whose parent is the span that
/// produced its input, and the `traceparent` each hop publishes names that
/// same span, from the request to the app state.
@Suite("Traces across the workers", .heavyTimeLimit(minutes: 10))
struct TraceExportTests {
    static let messageTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
    static let paymentTrace = "5cf92f3577b34da6a3ce929d0e0e4737"
    static let voiceSpan = "00f067aa0ba902b7"

    func request(_ intentID: String, trace: String, _ intent: Intent) throws -> KafkaProducerMessage {
        var event = EventEnvelope(
            id: "request-\(intentID)", source: "/voice/load", type: IntentRequested.type, time: Date(),
            dataSchema: IntentRequested.dataSchema, userID: "alice", conversationID: "trace-alice",
            intentID: intentID, payload: IntentRequested(turn: 1, intent: intent))
        try event.extensions.set("traceparent", .string("00-\(trace)-\(Self.voiceSpan)-01"))
        return KafkaProducerMessage(topic: "", event: event, signedWith: LoadFixture.authenticator)
    }

    @Test("every hop's span is exported with the parent that produced its input, through to the app state")
    func tracesThroughEveryHop() async throws {
        try await withPipeline { pipeline in
            try await pipeline.openAccount("alice", handle: "+1 555 0100", deposit: money("1000", "CNY"))
            try await pipeline.enroll("alice")
            try await pipeline.openAccount("sunbo", handle: "sunbo@example.cn")
            try await pipeline.publishContacts(
                [
                    Contact(id: "c-sb", displayName: "孙波", handles: ["sunbo@example.cn"]),
                    Contact(id: "c-xm", displayName: "小明", handles: ["+86 138"]),
                ], user: "alice")
            let receiver = try await OTLPReceiver.start()
            let appState = try AppStateLaunch(key: Array(repeating: UInt8(0x61), count: 32))
            let workers = try WorkerProcesses(
                broker: pipeline.broker, topics: pipeline.topics,
                workers: ["resolve", "confirm", "payments", "handle", "appstate"],
                extraEnvironment: appState.environment.merging([
                    "INTENT_OTLP_ENDPOINT": receiver.endpoint.absoluteString
                ]) { $1 })

            var message = try request(
                "trace-msg", trace: Self.messageTrace,
                .sendMessage(SendMessageIntent(recipients: [Person(spoken: "小明")], content: "在路上")))
            message.topic = pipeline.topics.requested
            var payment = try request(
                "trace-pay", trace: Self.paymentTrace,
                .sendPayment(
                    SendPaymentIntent(
                        payee: Person(spoken: "孙波"),
                        currencyAmount: CurrencyAmount(amount: DecimalAmount("20")!, currency: "CNY"))))
            payment.topic = pipeline.topics.requested
            _ = try await pipeline.send(message)
            _ = try await pipeline.send(payment)

            // The voice service answers within the trace: its answer's parent is the question's span.
            let question = try await pipeline.event(for: "trace-pay", type: ConfirmationRequest.type)
            var answer = EventEnvelope(
                id: "answer-\(question.id)", source: "/voice/load", type: ConfirmationAnswer.type, time: Date(),
                dataSchema: ConfirmationAnswer.dataSchema, userID: "alice", conversationID: question.conversationID,
                intentID: "trace-pay",
                payload: ConfirmationAnswer(
                    decision: .confirmed, binding: try question.decodeData(as: ConfirmationRequest.self).binding))
            let questionTrace = question.extensions["traceparent"]
            #expect(questionTrace != nil, "the question carries the trace")
            try answer.extensions.set("traceparent", questionTrace)
            _ = try await pipeline.send(
                KafkaProducerMessage(
                    topic: pipeline.topics.confirmations, event: answer, signedWith: LoadFixture.authenticator))
            for intent in ["trace-msg", "trace-pay"] {
                let response = try await pipeline.event(for: intent, type: IntentResponse.type)
                #expect(try response.decodeData(as: IntentResponse.self).code == .success, "\(intent)")
            }

            // Message: resolve, confirm, handle, and the app state (the response and the message event).
            // Payment: resolve, confirm, payments three times (proposal, answer, the payee's credit),
            // and the app state.
            let received = try await receiver.spans(until: "both traces reach the app state") { spans in
                let services = { (trace: String) in spans.filter { $0.traceId == trace }.compactMap(\.service) }
                return Set(services(Self.messageTrace)).isSuperset(of: [
                    "intent-resolve", "intent-confirm", "intent-handle", "intent-appstate",
                ])
                    && services(Self.paymentTrace).filter { $0 == "intent-payments" }.count >= 3
                    && services(Self.paymentTrace).contains("intent-appstate")
            }
            await workers.stopAll()
            await receiver.stop()

            func spans(_ trace: String, _ service: String) -> [OTLPReceiver.Span] {
                received.filter { $0.traceId == trace && $0.service == service }
            }
            // The message's chain, hop by hop.
            let resolve = try #require(spans(Self.messageTrace, "intent-resolve").first)
            let confirm = try #require(spans(Self.messageTrace, "intent-confirm").first)
            let handle = try #require(spans(Self.messageTrace, "intent-handle").first)
            #expect(spans(Self.messageTrace, "intent-resolve").count == 1)
            #expect(resolve.parentSpanId == Self.voiceSpan)
            #expect(confirm.parentSpanId == resolve.spanId)
            #expect(handle.parentSpanId == confirm.spanId)
            for span in spans(Self.messageTrace, "intent-appstate") { #expect(span.parentSpanId == handle.spanId) }
            #expect(Set([Self.voiceSpan, resolve.spanId, confirm.spanId, handle.spanId]).count == 4)
            #expect(resolve.kind == 5 && resolve.attribute("intent.id") == "trace-msg")
            #expect(resolve.attribute("messaging.destination.name") == pipeline.topics.requested)

            // What each hop published names its exported span.
            let response = try await pipeline.event(for: "trace-msg", type: IntentResponse.type)
            #expect(response.extensions["traceparent"] == .string("00-\(Self.messageTrace)-\(handle.spanId)-01"))
            let resolved = try await pipeline.event(for: "trace-msg", type: IntentResolutionReport.resolvedType)
            #expect(resolved.extensions["traceparent"] == .string("00-\(Self.messageTrace)-\(resolve.spanId)-01"))

            // The payment's chain: the payments worker decides twice, on the proposal and on the
            // answer; confirm asked the question, so both continue from confirm's span. The
            // payee's member then records the credit the decision sent it: a third span, its child.
            let paymentResolve = try #require(spans(Self.paymentTrace, "intent-resolve").first)
            let paymentConfirm = try #require(spans(Self.paymentTrace, "intent-confirm").first)
            let payments = spans(Self.paymentTrace, "intent-payments")
            #expect(paymentResolve.parentSpanId == Self.voiceSpan)
            #expect(paymentConfirm.parentSpanId == paymentResolve.spanId)
            let decisions = payments.filter { $0.parentSpanId == paymentConfirm.spanId }
            #expect(payments.count == 3 && decisions.count == 2, "\(payments.map(\.parentSpanId))")
            #expect(
                question.extensions["traceparent"] == .string("00-\(Self.paymentTrace)-\(paymentConfirm.spanId)-01"))
            let proposal = try #require(decisions.first { $0.attribute("intent.published") == LedgerEvent.type })
            let decision = try #require(decisions.first { $0.spanId != proposal.spanId })
            #expect(decision.attribute("intent.published")?.contains(IntentResponse.type) == true)
            let credit = try #require(payments.first { $0.parentSpanId == decision.spanId })
            #expect(credit.attribute("intent.published") == LedgerEvent.type)
            for span in spans(Self.paymentTrace, "intent-appstate") {
                #expect(Set(payments.map(\.spanId)).contains(span.parentSpanId ?? ""), "app state after payments")
            }
            try? FileManager.default.removeItem(at: appState.directory)
        }
    }
}
