import Foundation
public import Instrumentation
public import Tracing

/// One hop's span as ``OTLPTracer`` records it; on `end` it is handed to the
/// exporter as a finished OTLP span (JSON), and later calls change nothing.
public final class OTLPSpan: Tracing.Span, @unchecked Sendable {
    public let context: InstrumentationContext
    public let traceID: String
    public let spanID: String
    public let parentSpanID: String?
    private let kind: SpanKind
    private let start: UInt64
    private let exporter: OTLPExporter
    /// Everything mutable, under `lock` (a span may be ended from another task).
    private let lock = NSLock()
    private var name: String
    private var status: SpanStatus?
    private var recordedAttributes: SpanAttributes = [:]
    private var events: [SpanEvent] = []
    private var ended = false

    init(
        operationName: String, context: InstrumentationContext, kind: SpanKind, traceID: String, spanID: String,
        parentSpanID: String?, start: UInt64, exporter: OTLPExporter
    ) {
        self.name = operationName
        self.context = context
        self.kind = kind
        self.traceID = traceID
        self.spanID = spanID
        self.parentSpanID = parentSpanID
        self.start = start
        self.exporter = exporter
    }

    public var operationName: String {
        get { lock.withLock { name } }
        set { lock.withLock { name = newValue } }
    }

    public var attributes: SpanAttributes {
        get { lock.withLock { recordedAttributes } }
        set { lock.withLock { recordedAttributes = newValue } }
    }

    public var isRecording: Bool { lock.withLock { !ended } }

    public func setStatus(_ status: SpanStatus) { lock.withLock { self.status = status } }

    public func addEvent(_ event: SpanEvent) { lock.withLock { events.append(event) } }

    public func addLink(_ link: SpanLink) {}

    public func recordError<Instant: TracerInstant>(
        _ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant
    ) {
        let event = SpanEvent(name: "exception", at: instant(), attributes: attributes)
        lock.withLock {
            events.append(event)
            recordedAttributes["exception.message"] = "\(error)"
        }
    }

    public func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        let end = instant().nanosecondsSinceEpoch
        let finished: [UInt8]? = lock.withLock {
            guard !ended else { return nil }
            ended = true
            return otlpJSON(end: end)
        }
        if let finished { exporter.export(finished) }
    }

    /// The span as one OTLP/JSON `Span` object (ids in hex, times as decimal strings).
    private func otlpJSON(end: UInt64) -> [UInt8] {
        var json = #"{"traceId":"\#(traceID)","spanId":"\#(spanID)","#
        if let parentSpanID { json += #""parentSpanId":"\#(parentSpanID)","# }
        json += #""name":\#(Self.quoted(name)),"kind":\#(Self.otlpKind(kind)),"#
        json += #""startTimeUnixNano":"\#(start)","endTimeUnixNano":"\#(end)","#
        json += #""attributes":\#(Self.attributesJSON(recordedAttributes))"#
        if !events.isEmpty {
            json +=
                #","events":["#
                + events.map {
                    #"{"timeUnixNano":"\#($0.nanosecondsSinceEpoch)","name":\#(Self.quoted($0.name)),"attributes":\#(Self.attributesJSON($0.attributes))}"#
                }.joined(separator: ",") + "]"
        }
        if let status {
            let code = status.code == .ok ? 1 : 2
            json +=
                #","status":{"code":\#(code)"# + (status.message.map { #","message":\#(Self.quoted($0))"# } ?? "") + "}"
        }
        json += "}"
        return Array(json.utf8)
    }

    static func attributesJSON(_ attributes: SpanAttributes) -> String {
        var members: [String] = []
        // SpanAttributes is not a Sequence: forEach is its only way to list them.
        // swift-format-ignore: ReplaceForEachWithForLoop
        attributes.forEach { key, attribute in
            members.append(#"{"key":\#(quoted(key)),"value":\#(valueJSON(attribute))}"#)
        }
        return "[" + members.sorted().joined(separator: ",") + "]"
    }

    private static func valueJSON(_ attribute: SpanAttribute) -> String {
        switch attribute {
        case .int32(let value): return #"{"intValue":"\#(value)"}"#
        case .int64(let value): return #"{"intValue":"\#(value)"}"#
        case .double(let value): return value.isFinite ? #"{"doubleValue":\#(value)}"# : #"{"stringValue":"\#(value)"}"#
        case .bool(let value): return #"{"boolValue":\#(value)}"#
        case .string(let value): return #"{"stringValue":\#(quoted(value))}"#
        default: return #"{"stringValue":\#(quoted("\(attribute)"))}"#
        }
    }

    /// OTLP's SpanKind numbers.
    private static func otlpKind(_ kind: SpanKind) -> Int {
        switch kind {
        case .internal: 1
        case .server: 2
        case .client: 3
        case .producer: 4
        case .consumer: 5
        }
    }

    /// A JSON string literal.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
