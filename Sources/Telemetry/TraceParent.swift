public import IntentEvents

/// A W3C Trace Context `traceparent` value (version 00): which trace an event
/// belongs to and which span produced it.
///
/// Every hop keeps the trace id and replaces the parent id with its own span's
/// (W3C: a participant "MUST update parent-id"), so a trace shows voice
/// service → resolve → confirm → payments/handle → app state. The hop's span
/// id is derived from the worker and the input event's id rather than drawn at
/// random: a batch redone after a crash republishes byte-identical events
/// (same ids, same signatures), and its span is the same span.
public struct TraceParent: Sendable, Hashable, CustomStringConvertible {
    /// 32 lowercase hex digits, not all zero.
    public let traceID: String
    /// 16 lowercase hex digits, not all zero: the span that produced the carrier.
    public let spanID: String
    /// 2 hex digits; bit 0 is "sampled".
    public let flags: String

    /// The header as the Kafka header and the CloudEvents extension carry it.
    public static let name = "traceparent"

    /// Parses `00-<trace-id>-<parent-id>-<flags>`; nil for anything else
    /// (another version, upper case, wrong lengths, all-zero ids), which a hop
    /// then leaves as it found it.
    public init?(_ header: String) {
        let parts = header.utf8.split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0].elementsEqual("00".utf8),
            Self.isHex(parts[1], count: 32), Self.isHex(parts[2], count: 16), Self.isHex(parts[3], count: 2),
            !parts[1].allSatisfy({ $0 == UInt8(ascii: "0") }), !parts[2].allSatisfy({ $0 == UInt8(ascii: "0") })
        else { return nil }
        traceID = String(decoding: parts[1], as: UTF8.self)
        spanID = String(decoding: parts[2], as: UTF8.self)
        flags = String(decoding: parts[3], as: UTF8.self)
    }

    /// The event's `traceparent` extension attribute, when it holds a valid one.
    public init?(of event: EventEnvelope) {
        guard case .string(let value)? = event.extensions[Self.name] else { return nil }
        self.init(value)
    }

    private init(traceID: String, spanID: String, flags: String) {
        self.traceID = traceID
        self.spanID = spanID
        self.flags = flags
    }

    public var description: String { "00-\(traceID)-\(spanID)-\(flags)" }

    /// The same trace, produced by the span `spanID`.
    public func child(spanID: String) -> TraceParent {
        TraceParent(traceID: traceID, spanID: spanID, flags: flags)
    }

    /// A span id (16 hex digits, never all zero) that depends only on `seed`:
    /// FNV-1a over its UTF-8, which needs no secret because span ids are
    /// labels, not credentials.
    public static func spanID(derivedFrom seed: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in seed.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        if hash == 0 { hash = 1 }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    private static func isHex(_ bytes: some Collection<UInt8>, count: Int) -> Bool {
        bytes.count == count
            && bytes.allSatisfy {
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
            }
    }
}
