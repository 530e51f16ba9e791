import Foundation
import IntentEvents
import Intents
import Kafka
import Telemetry
import Tracing

/// Continues a voice service's trace through one hop: the events one input
/// record produced get this hop's own span id in `traceparent` (in the signed
/// envelope, and as a `traceparent` Kafka header for tools that read headers
/// only), and with a tracer configured the hop's span is exported with the
/// input as its parent. Records without a valid `traceparent` cost nothing.
struct HopTracing: Sendable {
    /// The consumer group: stable across instances and restarts, so a redone
    /// record gets the same span id (``TraceParent/spanID(derivedFrom:)``).
    let group: String
    let operation: String
    let tracer: OTLPTracer?

    /// The hop's span for the events decided for one input record, if they carry a trace.
    func span(for events: [(destination: Destination, event: EventEnvelope)]) -> HopSpan? {
        // By index: a `for` over the pairs copied every envelope (a dozen retains each), for
        // every event of every record, traced or not.
        for index in events.indices {
            if let parent = TraceParent(of: events[index].event) {
                return HopSpan(
                    parent: parent, group: group, input: events[index].event.causationID ?? events[index].event.id)
            }
        }
        return nil
    }

    /// The events with the hop's span as their `traceparent`.
    func continuing(
        _ events: [(destination: Destination, event: EventEnvelope)], in span: HopSpan
    ) -> [(destination: Destination, event: EventEnvelope)] {
        let value = JSONValue.string(span.traceParent.description)
        return events.map { destination, event in
            var event = event
            if event.extensions[TraceParent.name] != nil { try? event.extensions.set(TraceParent.name, value) }
            return (destination, event)
        }
    }

    /// Exports the hop's span (when a tracer is configured): from when the batch
    /// began to be decided until now, a consumer span naming the record it read.
    func record(
        _ span: HopSpan, input message: KafkaConsumerMessage,
        events: [(destination: Destination, event: EventEnvelope)],
        started: DefaultTracerClock.Instant
    ) {
        guard let tracer else { return }
        var attributes: SpanAttributes = [:]
        attributes["messaging.kafka.partition"] = Int64(message.partition)
        attributes["messaging.kafka.offset"] = message.offset
        attributes["intent.published"] = events.map(\.event.type).joined(separator: ",")
        tracer.recordHop(
            span, operation: operation, started: started, topic: message.topic, group: group,
            intentID: events.first?.event.intentID, attributes: attributes)
    }
}
