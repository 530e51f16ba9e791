public import Foundation
import IntentEvents
public import Logging

/// Log lines as one JSON object each (`LOG_FORMAT=json`), for log pipelines
/// that index fields rather than parse text: `time` (RFC 3339, UTC,
/// milliseconds), `level`, `worker` (the logger's label), `message`, and, when
/// a line is about one intent or trace, `intent_id` and `trace_id` (from an
/// `intent` or `traceparent` metadata value); all other metadata under
/// `metadata`. Strings are escaped as canonical JSON escapes them, so a
/// hostile value (a newline, a quote in an event field) cannot forge a line.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let write: @Sendable ([UInt8]) -> Void

    public init(label: String, write: @escaping @Sendable ([UInt8]) -> Void = JSONLogHandler.standardError) {
        self.label = label
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        write(Self.line(time: Date(), level: event.level, worker: label, message: "\(event.message)", metadata: merged))
    }

    /// One log line's bytes, newline included.
    public static func line(
        time: Date, level: Logger.Level, worker: String, message: String, metadata: Logger.Metadata
    ) -> [UInt8] {
        var object: [String: JSONValue] = [
            "time": .string(EventTime.format(time)), "level": .string(level.rawValue), "worker": .string(worker),
            "message": .string(message),
        ]
        var rest = metadata
        if let intent = rest.removeValue(forKey: "intent") { object["intent_id"] = .string("\(intent)") }
        if let trace = rest.removeValue(forKey: "traceparent") {
            // W3C trace context: version-traceid-parentid-flags; the trace id is what joins lines.
            let parts = "\(trace)".split(separator: "-")
            object["trace_id"] = .string(parts.count == 4 ? String(parts[1]) : "\(trace)")
        }
        if !rest.isEmpty { object["metadata"] = json(.dictionary(rest)) }
        return CanonicalJSON.encode(JSONValue.object(object)) + [UInt8(ascii: "\n")]
    }

    private static func json(_ value: Logger.Metadata.Value) -> JSONValue {
        switch value {
        case .string(let text): .string(text)
        case .stringConvertible(let convertible): .string(convertible.description)
        case .array(let values): .array(values.map(json))
        case .dictionary(let members): .object(members.mapValues(json))
        }
    }

    /// Writes a whole line in one call, so lines from concurrent tasks do not interleave.
    public static let standardError: @Sendable ([UInt8]) -> Void = { bytes in
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(2, buffer.baseAddress! + offset, buffer.count - offset)
                if written <= 0 { return }
                offset += written
            }
        }
    }
}

/// How log lines are written: `LOG_FORMAT` is `text` (the default) or `json`.
public enum LogFormat: String, Sendable, CaseIterable {
    case text, json

    public static func from(environment: [String: String]) throws -> LogFormat {
        guard let value = environment["LOG_FORMAT"], !value.isEmpty else { return .text }
        guard let format = LogFormat(rawValue: value.lowercased()) else {
            throw LogFormatError(value: value)
        }
        return format
    }
}

public struct LogFormatError: Error, CustomStringConvertible {
    public var value: String
    public var description: String { "LOG_FORMAT must be text or json, not \(value)" }
}
