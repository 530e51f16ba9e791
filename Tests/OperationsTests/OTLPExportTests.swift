import BrokerTestSupport
import Foundation
import Telemetry
import Testing
import Tracing

/// What the tracer sends to a collector, received by a stand-in collector.
@Suite("OTLP span export", .heavyTimeLimit(minutes: 2))
struct OTLPExportTests {
    static let parent = TraceParent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")!

    @Test("a hop's span reaches the collector with the hop's ids, its parent, kind, times and attributes")
    func hopSpan() async throws {
        let started = DefaultTracerClock.now
        // The receiver is a Python process: it runs in a heavy-test slot.
        let spans = try await withHeavySlot {
            let receiver = try await OTLPReceiver.start()
            let tracer = try OTLPTracer(endpoint: receiver.endpoint, serviceName: "intent-test")
            let hop = HopSpan(parent: Self.parent, spanID: "00f067aa0ba902b7")
            var attributes: SpanAttributes = [:]
            attributes["messaging.kafka.offset"] = Int64(42)
            attributes["note"] = "quotes \" and \\ and\nnew lines, 小明"
            tracer.recordHop(
                hop, operation: "resolve decide", started: started, topic: "t.intents.requested",
                group: "intent-resolve", intentID: "i-1", attributes: attributes)
            tracer.forceFlush()
            let spans = try await receiver.spans(until: "one span arrives") { !$0.isEmpty }
            tracer.shutdown()
            await receiver.stop()
            return spans
        }

        let span = try #require(spans.first)
        #expect(spans.count == 1)
        #expect(span.traceId == "0af7651916cd43dd8448eb211c80319c")
        #expect(span.spanId == "00f067aa0ba902b7")
        #expect(span.parentSpanId == "b7ad6b7169203331")
        #expect(span.name == "resolve decide")
        #expect(span.kind == 5, "SPAN_KIND_CONSUMER")
        #expect(span.service == "intent-test")
        #expect(span.attribute("intent.id") == "i-1")
        #expect(span.attribute("messaging.destination.name") == "t.intents.requested")
        #expect(span.attribute("messaging.consumer.group.name") == "intent-resolve")
        #expect(span.attribute("messaging.kafka.offset") == "42")
        #expect(span.attribute("note") == "quotes \" and \\ and\nnew lines, 小明")
        let start = try #require(UInt64(span.startTimeUnixNano))
        let end = try #require(UInt64(span.endTimeUnixNano))
        #expect(start == started.nanosecondsSinceEpoch && start <= end)
    }

    @Test("with no collector listening, recording and shutting down neither block nor fail")
    func collectorDown() async throws {
        // A port nothing listens on: bound and closed again.
        let endpoint = try await withHeavySlot {
            let receiver = try await OTLPReceiver.start()
            await receiver.stop()
            return receiver.endpoint
        }
        let tracer = try OTLPTracer(endpoint: endpoint, serviceName: "intent-test")
        let started = ContinuousClock.now
        for index in 0..<2000 {
            tracer.recordHop(
                HopSpan(parent: Self.parent, spanID: TraceParent.spanID(derivedFrom: "\(index)")),
                operation: "x", started: DefaultTracerClock.now, topic: "t", group: "g", intentID: nil)
        }
        let recorded = ContinuousClock.now - started
        tracer.shutdown()
        // Recording 2,000 spans takes milliseconds; waiting on the dead collector would take at
        // least a connection attempt each. The bound only tells those apart: 10 s is over 5x
        // what the loop takes on a 2-core machine starved by a full parallel run.
        #expect(recorded < .seconds(10), "recording never waits on the collector: \(recorded)")
        // Shutting down sends what is queued once more to a port that refuses at once (5 s
        // socket timeout at the worst) and stops: 30 s is 6x that worst case, and an exporter
        // that retried per span against the dead collector would not finish within it.
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    @Test("only plain http endpoints are accepted, with a message that says what is expected")
    func endpoints() {
        #expect(throws: (any Error).self) {
            try OTLPTracer(endpoint: URL(string: "https://c:4318/v1/traces")!, serviceName: "x")
        }
        do {
            _ = try OTLPTracer(endpoint: URL(string: "grpc://c:4317")!, serviceName: "x")
            Issue.record("accepted grpc://")
        } catch {
            #expect("\(error)".contains("http://HOST[:PORT]/v1/traces"), "\(error)")
        }
    }
}
