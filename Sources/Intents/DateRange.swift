public import Foundation
import IntentEvents

/// A time range for searches ("messages from last week"); either end may be open.
public struct DateRange: Codable, Sendable, Hashable {
    public var start: Date?
    public var end: Date?

    public init(start: Date? = nil, end: Date? = nil) {
        self.start = start
        self.end = end
    }

    enum CodingKeys: String, CodingKey { case start, end }

    /// RFC 3339 strings on the wire, like every time in an event.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func time(_ key: CodingKeys) throws -> Date? {
            guard let text = try container.decodeIfPresent(String.self, forKey: key) else { return nil }
            guard let date = EventTime.parse(text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: container, debugDescription: "not an RFC 3339 time: \(text)")
            }
            return date
        }
        start = try time(.start)
        end = try time(.end)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(start.map(EventTime.format), forKey: .start)
        try container.encodeIfPresent(end.map(EventTime.format), forKey: .end)
    }
}
