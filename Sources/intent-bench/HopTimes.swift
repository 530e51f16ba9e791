import Foundation
import IntentEvents
import Intents
import Kafka
import Logging
import Payments
import PipelineTopics

/// Where a round trip's time goes: for the intents of one latency run, the
/// producer timestamps (set when each record was handed to librdkafka) of the
/// request and of each stage's output, read back from the topics. A hop's time
/// is from the record it consumed being produced to its own output being
/// produced: the broker's append, the fetch (and its wait), the worker's
/// queueing and its decision.
enum HopTimes {
    /// One point on an intent's path: the first record of the intent on `topic` that
    /// `matches`, or the last when `last` (a payment's final response follows its in-progress
    /// one); timed from the point named `after` (the one before it when nil).
    struct Hop: Sendable {
        var name: String
        var topic: String
        var after: String? = nil
        var last = false
        var matches: @Sendable (EventEnvelope) -> Bool = { _ in true }

        static func of(_ type: String) -> @Sendable (EventEnvelope) -> Bool { { $0.type == type } }
        static func ledger(_ kind: LedgerEvent.Kind) -> @Sendable (EventEnvelope) -> Bool {
            { (try? LedgerEvent.decode(from: $0))?.kind == kind }
        }
    }

    /// A message's path: request, resolve, confirm, handle.
    static func message(_ topics: PipelineTopics) -> [Hop] {
        [
            Hop(name: "requested", topic: topics.requested), Hop(name: "resolved", topic: topics.resolved),
            Hop(name: "confirmed", topic: topics.confirmed),
            Hop(name: "response", topic: topics.responses, matches: Hop.of(IntentResponse.type)),
        ]
    }

    /// A payment's path: request, resolve, the confirm stage's proposal (to the payments
    /// stage) and its confirmation request (to the user), the user's answer (the probe's), the
    /// post on the ledger and the final response (payments, after reading its post back);
    /// beside them, the hold the payments stage writes on the proposal, timed from it.
    static func payment(_ topics: PipelineTopics) -> [Hop] {
        [
            Hop(name: "requested", topic: topics.requested), Hop(name: "resolved", topic: topics.resolved),
            Hop(name: "proposed", topic: topics.confirmations, matches: Hop.of(IntentConfirmation.type)),
            Hop(name: "asked", topic: topics.prompts, matches: Hop.of(ConfirmationRequest.type)),
            Hop(name: "answered", topic: topics.confirmations, matches: Hop.of(ConfirmationAnswer.type)),
            Hop(name: "posted", topic: topics.ledger, matches: Hop.ledger(.post)),
            Hop(name: "response", topic: topics.responses, last: true, matches: Hop.of(IntentResponse.type)),
            Hop(name: "held", topic: topics.ledger, after: "proposed", matches: Hop.ledger(.hold)),
        ]
    }

    /// p50 and p99 in milliseconds per hop, keyed `hop_<name>_p50_ms` and `_p99_ms`.
    static func measure(
        _ hops: [Hop], intents: Set<String>, client: KafkaConfiguration, logger: Logger
    ) async throws -> [(String, Double)] {
        // Each topic read once (a payment's path has two points on the ledger and two on
        // the confirmations topic), each record decoded once for all its points.
        var times: [String: [String: Double]] = [:]
        var read: Set<String> = []
        for hop in hops where read.insert(hop.topic).inserted {
            let points = hops.filter { $0.topic == hop.topic }
            try await Self.record(points, intents: intents, into: &times, client: client, logger: logger)
        }
        var report: [(String, Double)] = []
        for (previous, to) in zip(hops, hops.dropFirst()) {
            let from = to.after.flatMap { name in hops.first { $0.name == name } } ?? previous
            var deltas = intents.compactMap { intent -> Double? in
                guard let start = times[from.name]?[intent], let end = times[to.name]?[intent] else { return nil }
                return (end - start) * 1000
            }
            deltas.sort()
            guard !deltas.isEmpty else { continue }
            report.append(("hop_\(to.name)_p50_ms", LatencyProbe.percentile(deltas, 0.5)))
            report.append(("hop_\(to.name)_p99_ms", LatencyProbe.percentile(deltas, 0.99)))
        }
        return report
    }

    /// The earliest (or latest) producer timestamp per intent of each of `points`, all on one
    /// topic, by point name.
    private static func record(
        _ points: [Hop], intents: Set<String>, into times: inout [String: [String: Double]],
        client: KafkaConfiguration, logger: Logger
    ) async throws {
        guard let topic = points.first?.topic else { return }
        var found: [String: [String: Double]] = [:]
        try await TopicReader.forEachRecord(of: topic, configuration: client, logger: logger) { message in
            guard let time = message.timestamp?.timeIntervalSince1970,
                let event = try? EventEnvelope.decode(message.value ?? []), let intent = event.intentID,
                intents.contains(intent)
            else { return }
            for point in points where point.matches(event) {
                let earlier = found[point.name]?[intent]
                found[point.name, default: [:]][intent] =
                    point.last ? max(earlier ?? time, time) : min(earlier ?? time, time)
            }
        }
        times.merge(found) { _, new in new }
    }
}
