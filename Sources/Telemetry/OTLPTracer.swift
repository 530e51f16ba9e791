public import Foundation
public import Instrumentation
public import ServiceLifecycle
public import Tracing

/// The pipeline's tracer (swift-distributed-tracing): each hop's span, with
/// the ids the hop wrote into its events' `traceparent`, exported to an
/// OpenTelemetry collector over OTLP/HTTP with JSON bodies.
///
/// It is the pipeline's own because the span ids are not random: a hop's span
/// id is derived from the worker and the input event (``TraceParent``), so the
/// id in the published headers and the exported span agree even when a batch
/// is redone. Started with ``HopSpan`` in the context; a span started without
/// one begins a new trace. Spans leave through ``OTLPExporter`` on its own
/// thread; the tracer runs as a `Service` so SIGTERM flushes what is queued.
public final class OTLPTracer: Tracer, Service {
    public typealias Span = OTLPSpan

    let exporter: OTLPExporter

    /// `endpoint`: the collector's traces URL, e.g. `http://otel-collector:4318/v1/traces`.
    public init(endpoint: URL, serviceName: String) throws {
        exporter = try OTLPExporter(endpoint: endpoint, serviceName: serviceName)
    }

    public func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> InstrumentationContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> OTLPSpan {
        let context = context()
        let ids: (trace: String, span: String, parent: String?)
        if let hop = context.hopSpan {
            ids = (hop.parent.traceID, hop.spanID, hop.parent.spanID)
        } else {
            ids = (Self.randomHex(bytes: 16), Self.randomHex(bytes: 8), nil)
        }
        return OTLPSpan(
            operationName: operationName, context: context, kind: kind, traceID: ids.trace, spanID: ids.span,
            parentSpanID: ids.parent, start: instant().nanosecondsSinceEpoch, exporter: exporter)
    }

    public func activeSpan(identifiedBy context: InstrumentationContext) -> OTLPSpan? { nil }

    public func forceFlush() { exporter.flush() }

    /// Reads `traceparent` from a carrier into the context (the hop's parent).
    public func extract<Carrier, Extract>(
        _ carrier: Carrier, into context: inout InstrumentationContext, using extractor: Extract
    ) where Extract: Extractor, Extract.Carrier == Carrier {
        if let value = extractor.extract(key: TraceParent.name, from: carrier), let parent = TraceParent(value) {
            context.traceParent = parent
        }
    }

    /// Writes the hop's own `traceparent` into a carrier.
    public func inject<Carrier, Inject>(
        _ context: InstrumentationContext, into carrier: inout Carrier, using injector: Inject
    ) where Inject: Injector, Inject.Carrier == Carrier {
        if let hop = context.hopSpan {
            injector.inject(hop.traceParent.description, forKey: TraceParent.name, into: &carrier)
        } else if let parent = context.traceParent {
            injector.inject(parent.description, forKey: TraceParent.name, into: &carrier)
        }
    }

    /// Exports every `interval` until shutdown, then what is left.
    public func run() async throws {
        try? await gracefulShutdown()
        shutdown()
    }

    /// Sends what is queued and stops the exporter's thread; spans ended later are dropped.
    public func shutdown() { exporter.close() }

    static func randomHex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in
            let byte = UInt8.random(in: 1...255, using: &generator)
            return (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }.joined()
    }
}

/// The span a hop is about to record: the trace it continues and its own id.
public struct HopSpan: Sendable, Hashable {
    public var parent: TraceParent
    public var spanID: String

    public init(parent: TraceParent, spanID: String) {
        self.parent = parent
        self.spanID = spanID
    }

    /// The span of `group` (a consumer group) handling the event `input`: its id is
    /// derived from both (``TraceParent/spanID(derivedFrom:)``), so redone work is the same span.
    public init(parent: TraceParent, group: String, input: String) {
        self.init(parent: parent, spanID: TraceParent.spanID(derivedFrom: "\(group)/\(input)"))
    }

    /// What the hop writes into the events it publishes.
    public var traceParent: TraceParent { parent.child(spanID: spanID) }
}

private enum HopSpanKey: InstrumentationContextKey {
    typealias Value = HopSpan
    static var nameOverride: String? { "intent-hop-span" }
}

private enum TraceParentKey: InstrumentationContextKey {
    typealias Value = TraceParent
    static var nameOverride: String? { TraceParent.name }
}

extension InstrumentationContext {
    /// The span a hop records (``OTLPTracer`` uses its ids).
    public var hopSpan: HopSpan? {
        get { self[HopSpanKey.self] }
        set { self[HopSpanKey.self] = newValue }
    }

    /// The `traceparent` a carrier brought in.
    public var traceParent: TraceParent? {
        get { self[TraceParentKey.self] }
        set { self[TraceParentKey.self] = newValue }
    }
}

extension OTLPTracer {
    /// Exports one hop's span (a consumer span from `started` until now) with
    /// the ids the hop wrote into what it published, for the workers and the app
    /// state: the record it read (`topic`, and `group`'s name) and the intent, plus `attributes`.
    public func recordHop(
        _ span: HopSpan, operation: String, started: DefaultTracerClock.Instant, topic: String, group: String,
        intentID: String?, attributes: SpanAttributes = [:]
    ) {
        var context = InstrumentationContext.topLevel
        context.hopSpan = span
        let exported = startSpan(operation, context: context, ofKind: .consumer, at: started)
        var all = attributes
        all["messaging.system"] = "kafka"
        all["messaging.destination.name"] = topic
        all["messaging.consumer.group.name"] = group
        if let intentID { all["intent.id"] = intentID }
        exported.attributes = all
        exported.end()
    }
}
