import Foundation
import IntentEvents
import PipelineAudit
import Testing

/// `intentctl trace`'s timeline, without a broker: ordering, hop times, the
/// trace id, and other intents left out.
@Suite("Intent timeline")
struct IntentTimelineTests {
    static func event(_ id: String, type: String, intent: String, source: String) -> EventEnvelope {
        EventEnvelope(
            id: id, source: source, type: type, time: Date(timeIntervalSince1970: 1_795_000_000), userID: "u",
            conversationID: "c", intentID: intent, data: .object([:]))
    }

    @Test("steps in publication order with the time since the start and since the previous step")
    func ordering() throws {
        let start = Date(timeIntervalSince1970: 1_795_000_000)
        var request = Self.event("e1", type: "intent.requested.v1", intent: "i", source: "/voice/x")
        try request.extensions.set("traceparent", .string("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"))
        let records: [IntentTimeline.Record] = [
            .init(
                topic: "responses", partition: 1, offset: 9, published: start.addingTimeInterval(0.012),
                event: Self.event("e3", type: "intent.response.v1", intent: "i", source: "/workers/handle")),
            .init(topic: "requested", partition: 1, offset: 4, published: start, event: request),
            .init(
                topic: "requested", partition: 0, offset: 5, published: start.addingTimeInterval(0.001),
                event: Self.event("other", type: "intent.requested.v1", intent: "j", source: "/voice/x")),
            .init(
                topic: "resolved", partition: 1, offset: 2, published: start.addingTimeInterval(0.005),
                event: Self.event("e2", type: "intent.resolved.v1", intent: "i", source: "/workers/resolve")),
            .init(
                topic: "dead-letters", partition: 0, offset: 0, published: nil,
                event: Self.event("e4", type: "intent.requested.v1", intent: "i", source: "/voice/x"),
                deadLetterReason: "stale"),
        ]
        let timeline = IntentTimeline(intentID: "i", records: records)
        #expect(timeline.steps.map(\.record.event.id) == ["e1", "e2", "e3", "e4"])
        let sinceStart = timeline.steps.map { $0.sinceStart.map { ($0 * 10).rounded() / 10 } }
        #expect(sinceStart == [0, 5, 12, nil])
        let hops = timeline.steps.map { $0.sincePrevious.map { ($0 * 10).rounded() / 10 } }
        #expect(hops == [nil, 5, 7, nil])
        #expect(timeline.traceID == "0af7651916cd43dd8448eb211c80319c")
        #expect(timeline.lines.count == 4)
        #expect(timeline.lines[1].contains("resolved[1]@2") && timeline.lines[1].contains("/workers/resolve"))
        #expect(timeline.lines[3].contains("dead-lettered: stale"))
        let json = try JSONSerialization.jsonObject(with: Data(timeline.jsonLines[2].utf8)) as? [String: Any]
        #expect(json?["type"] as? String == "intent.response.v1")
        #expect(json?["causation_id"] == nil)
    }

    @Test("an intent with no events has no steps and no trace id")
    func empty() {
        let timeline = IntentTimeline(intentID: "missing", records: [])
        #expect(timeline.steps.isEmpty)
        #expect(timeline.traceID == nil)
    }
}
