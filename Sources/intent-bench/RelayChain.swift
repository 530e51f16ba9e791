import CKafkaBaseline
import Foundation
import Kafka
import Logging

/// The broker's own latency floor for a path of `hops` stages (issue 30, point 4): a chain of
/// raw C relays (``kb_relay_chain``) with the workers' producer and fetch settings, offered the
/// same rate as the pipeline's latency runs, on the same broker in the same run. A message's
/// round trip is three hops (resolve, confirm, handle); a payment's is four (resolve, confirm,
/// the voice service's answer, payments). What the chain cannot beat, the workers cannot either:
/// their p99 is reported as a ratio to it.
struct RelayChain {
    struct Result {
        var p50: Double
        var p99: Double
        var p999: Double
        var read: Int
        var offered: Int
    }

    static func measure(
        hops: Int, rate: Int, seconds: Double, partitions: Int, client: KafkaConfiguration, logger: Logger
    ) async throws -> Result {
        let prefix = "chain-\(UUID().uuidString.prefix(8))-"
        let admin = try KafkaAdminClient(configuration: client, logger: logger)
        try await admin.createTopics(
            (0...hops).map { KafkaTopicSpecification(name: "\(prefix)\($0)", partitions: partitions) })
        await admin.close()
        let offered = max(1, Int(Double(rate) * seconds))
        let latencies = LatencyBuffer(capacity: offered)
        let bootstrap = client.bootstrapServers.joined(separator: ",")
        let linger = Int32(KafkaProducerConfiguration(client: client).linger / .milliseconds(1))
        let fetchWait = Int32(
            KafkaConsumerConfiguration(client: client, groupID: "chain").maximumFetchWait / .milliseconds(1))
        let drain = Int32(max(30, seconds * 8) * 1000)
        let result = try await onBaselineThread { result, error, length in
            kb_relay_chain(
                bootstrap, prefix, Int32(hops), Int32(partitions), Int32(rate), seconds, linger, fetchWait, drain,
                latencies.pointer, Int64(offered), result, error, length)
        }
        let sorted = latencies.values(count: Int(result.messages)).sorted()
        return Result(
            p50: LatencyProbe.percentile(sorted, 0.5), p99: LatencyProbe.percentile(sorted, 0.99),
            p999: LatencyProbe.percentile(sorted, 0.999), read: sorted.count, offered: offered)
    }
}

/// Memory the C chain writes its latencies into from its reader thread; read once it has returned.
private final class LatencyBuffer: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<Double>
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        pointer = .allocate(capacity: capacity)
        pointer.initialize(repeating: 0, count: capacity)
    }

    func values(count: Int) -> [Double] { Array(UnsafeBufferPointer(start: pointer, count: min(count, capacity))) }

    deinit { pointer.deallocate() }
}
