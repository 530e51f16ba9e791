public import Foundation

/// A point in time inside a payload, as an RFC 3339 string with milliseconds
/// (like the envelope's `time`). Held as whole milliseconds, so a value
/// compares and hashes the same before and after a round trip, which matters
/// when it is part of a digest (a confirmation's expiry).
public struct Timestamp: Codable, Sendable, Hashable, Comparable, CustomStringConvertible {
    public let milliseconds: Int64

    public init(_ date: Date) {
        milliseconds = EventTime.milliseconds(date)
    }

    public init(milliseconds: Int64) {
        self.milliseconds = milliseconds
    }

    public var date: Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let date = EventTime.parse(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an RFC 3339 time: \(text)")
        }
        self.init(date)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    public var description: String { EventTime.format(milliseconds: milliseconds) }

    /// Appends ``description``'s bytes to `output`, with no string in between: payloads
    /// written on the hot path carry one or two times each, and each description was an
    /// array and a heap string.
    public func appendDescription(to output: inout [UInt8]) {
        EventTime.write(milliseconds: milliseconds, into: &output)
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.milliseconds < rhs.milliseconds }
}
