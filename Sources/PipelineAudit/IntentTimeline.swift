public import Foundation
public import IntentEvents

/// One intent's path through the pipeline, as the topics hold it: every
/// event about it on every topic, in the order they were published, with the
/// time each step took. What `intentctl trace INTENT-ID` prints, so an
/// operator can see where an intent is, which worker decided what, and which
/// hop was slow, from the topics alone.
public struct IntentTimeline: Sendable {
    /// A record read from a topic, with the producer's timestamp.
    public struct Record: Sendable {
        public var topic: String
        public var partition: Int32
        public var offset: Int64
        public var published: Date?
        public var event: EventEnvelope
        /// Why it was dead-lettered (`dlq-reason`), for a record on the dead-letter topic.
        public var deadLetterReason: String?

        public init(
            topic: String, partition: Int32, offset: Int64, published: Date?, event: EventEnvelope,
            deadLetterReason: String? = nil
        ) {
            self.topic = topic
            self.partition = partition
            self.offset = offset
            self.published = published
            self.event = event
            self.deadLetterReason = deadLetterReason
        }
    }

    public struct Step: Sendable {
        public var record: Record
        /// Milliseconds from the first step's publication (nil without timestamps).
        public var sinceStart: Double?
        /// Milliseconds from the previous step's publication: the hop that produced this one.
        public var sincePrevious: Double?
    }

    public let intentID: String
    public let steps: [Step]

    /// The records about `intentID`, ordered by publication time (records
    /// without a timestamp last, by topic and offset).
    public init(intentID: String, records: [Record]) {
        self.intentID = intentID
        let ordered = records.filter { $0.event.intentID == intentID }.sorted { left, right in
            switch (left.published, right.published) {
            case (let l?, let r?) where l != r: return l < r
            case (.some, .none): return true
            case (.none, .some): return false
            default: return (left.topic, left.partition, left.offset) < (right.topic, right.partition, right.offset)
            }
        }
        let start = ordered.first?.published
        var previous: Date?
        steps = ordered.map { record in
            defer { previous = record.published ?? previous }
            func milliseconds(since date: Date?) -> Double? {
                guard let date, let published = record.published else { return nil }
                return published.timeIntervalSince(date) * 1000
            }
            return Step(
                record: record, sinceStart: milliseconds(since: start), sincePrevious: milliseconds(since: previous))
        }
    }

    /// The W3C trace id the intent carries (its `traceparent` extension attribute), if any.
    public var traceID: String? {
        for step in steps {
            if case .string(let traceparent)? = step.record.event.extensions["traceparent"] {
                let parts = traceparent.split(separator: "-")
                return parts.count == 4 ? String(parts[1]) : traceparent
            }
        }
        return nil
    }

    /// One line per step: `+12.3 ms (hop 4.1 ms) topic type source [dead-lettered: reason]`.
    public var lines: [String] {
        steps.map { step in
            let start = step.sinceStart.map { String(format: "+%.1f ms", $0) } ?? "?"
            let hop = step.sincePrevious.map { String(format: "hop %.1f ms", $0) } ?? "hop ?"
            let letter = step.record.deadLetterReason.map { "  dead-lettered: \($0)" } ?? ""
            return
                "\(start) (\(hop))  \(step.record.topic)[\(step.record.partition)]@\(step.record.offset)  \(step.record.event.type)  from \(step.record.event.source)\(letter)"
        }
    }

    /// One JSON object per step (for scripts), in order.
    public var jsonLines: [String] {
        steps.map { step in
            var object: [String: JSONValue] = [
                "topic": .string(step.record.topic), "partition": .integer(Int64(step.record.partition)),
                "offset": .integer(step.record.offset), "type": .string(step.record.event.type),
                "source": .string(step.record.event.source), "id": .string(step.record.event.id),
            ]
            object["published"] = step.record.published.map { .string(EventTime.format($0)) }
            object["since_start_ms"] = step.sinceStart.map(JSONValue.number)
            object["hop_ms"] = step.sincePrevious.map(JSONValue.number)
            object["dead_letter_reason"] = step.record.deadLetterReason.map(JSONValue.string)
            object["causation_id"] = step.record.event.causationID.map(JSONValue.string)
            return String(decoding: CanonicalJSON.encode(JSONValue.object(object)), as: UTF8.self)
        }
    }
}
