import Foundation
import IntentEvents
import Intents
import Kafka
import Logging
import PipelineTopics

/// Where a round trip's time goes: for the intents of one latency run, the
/// producer timestamps (set when each record was handed to librdkafka) of the
/// request and of each stage's output, read back from the topics. A hop's time
/// is from the record it consumed being produced to its own output being
/// produced: the broker's append, the fetch (and its wait), the worker's
/// queueing and its decision.
enum HopTimes {
    /// p50 and p99 in milliseconds per hop, keyed `hop_<name>_p50_ms` and `_p99_ms`.
    static func measure(
        intents: Set<String>, topics: PipelineTopics, client: KafkaConfiguration, logger: Logger
    ) async throws -> [(String, Double)] {
        let hops: [(name: String, topic: String, type: String?)] = [
            ("requested", topics.requested, nil), ("resolved", topics.resolved, nil),
            ("confirmed", topics.confirmed, nil), ("response", topics.responses, IntentResponse.type),
        ]
        var times: [String: [String: Double]] = [:]
        for hop in hops {
            times[hop.name] = try await firstTimes(
                of: hop.topic, type: hop.type, intents: intents, client: client, logger: logger)
        }
        var report: [(String, Double)] = []
        for (from, to) in zip(hops, hops.dropFirst()) {
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

    /// The earliest producer timestamp per intent on a topic (of one event type, if given).
    private static func firstTimes(
        of topic: String, type: String?, intents: Set<String>, client: KafkaConfiguration, logger: Logger
    ) async throws -> [String: Double] {
        var times: [String: Double] = [:]
        try await TopicReader.forEachRecord(of: topic, configuration: client, logger: logger) { message in
            guard let time = message.timestamp?.timeIntervalSince1970,
                let event = try? EventEnvelope.decode(message.value ?? []), let intent = event.intentID,
                intents.contains(intent), type == nil || event.type == type
            else { return }
            times[intent] = min(times[intent] ?? time, time)
        }
        return times
    }
}
