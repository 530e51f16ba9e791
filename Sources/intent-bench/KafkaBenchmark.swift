import ArgumentParser
import CKafkaBaseline
import Dispatch
import Foundation
import Kafka
import LocalBroker
import Logging

/// Produces and consumes the same number of small messages through the Swift
/// layer and through plain C on the same librdkafka, broker and settings, in
/// alternating rounds, and reports medians. The last line of output is one
/// JSON object with the four rates.
struct KafkaBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kafka",
        abstract: "Swift Kafka layer versus raw librdkafka (C), produce and consume throughput.",
        discussion: """
            Starts an embedded local broker unless --bootstrap-servers is given. Each round \
            produces --messages messages of --size bytes (keys user-0..999) with C and with \
            Swift, each to its own topic, then consumes each topic in a new consumer group. \
            Production is timed from the first message to the last acknowledgement (one \
            untimed warm-up message first); consumption from the first message received (so \
            the group join is not timed) to the last. The C side is plain C on the same \
            librdkafka (CKafkaBaseline; also runnable alone as kafka-c-baseline).
            """)

    @Option(help: "Messages per run.") var messages = 200_000
    @Option(help: "Value size in bytes.") var size = 200
    @Option(help: "Rounds; medians are reported.") var rounds = 3
    @Option(help: "linger.ms for both producers.") var lingerMs = 5
    @Option(help: "Partitions per topic.") var partitions = 6
    @Option(help: "Use this cluster instead of an embedded broker.") var bootstrapServers: String?

    struct Rates {
        var swiftProduce: [Double] = []
        var cProduce: [Double] = []
        var swiftConsume: [Double] = []
        var cConsume: [Double] = []
    }

    func run() async throws {
        var logger = Logger(label: "intent-bench")
        logger.logLevel = .warning
        var broker: LocalBroker?
        let bootstrap: String
        if let bootstrapServers {
            bootstrap = bootstrapServers
        } else {
            let started = try await LocalBroker.start()
            broker = started
            bootstrap = started.bootstrapServers
        }
        print(
            "broker \(bootstrap); \(messages) messages of \(size) bytes, linger.ms=\(lingerMs), \(partitions) partitions, \(rounds) rounds"
        )

        let client = KafkaConfiguration(bootstrapServers: [bootstrap], clientID: "intent-bench")
        let admin = try KafkaAdminClient(configuration: client, logger: logger)
        var rates = Rates()
        for round in 1...rounds {
            let cTopic = "bench-c-\(UUID().uuidString.prefix(8))"
            let swiftTopic = "bench-swift-\(UUID().uuidString.prefix(8))"
            try await admin.createTopics([
                KafkaTopicSpecification(name: cTopic, partitions: partitions),
                KafkaTopicSpecification(name: swiftTopic, partitions: partitions),
            ])
            // Alternate who goes first: the second run of a pair meets a broker
            // still digesting the first run's records.
            let cFirst = round % 2 == 1
            var cProduce = 0.0
            var swiftProduce = 0.0
            var cConsume = 0.0
            var swiftConsume = 0.0
            if cFirst { cProduce = try await self.cProduce(bootstrap: bootstrap, topic: cTopic) }
            swiftProduce = try await self.swiftProduce(client: client, topic: swiftTopic, logger: logger)
            if !cFirst { cProduce = try await self.cProduce(bootstrap: bootstrap, topic: cTopic) }
            if cFirst { cConsume = try await self.cConsume(bootstrap: bootstrap, topic: cTopic) }
            swiftConsume = try await self.swiftConsume(client: client, topic: swiftTopic, logger: logger)
            if !cFirst { cConsume = try await self.cConsume(bootstrap: bootstrap, topic: cTopic) }
            rates.cProduce.append(cProduce)
            rates.swiftProduce.append(swiftProduce)
            rates.cConsume.append(cConsume)
            rates.swiftConsume.append(swiftConsume)
            print(
                "round \(round) (\(cFirst ? "C" : "Swift") first): produce C \(Int(cProduce))/s Swift \(Int(swiftProduce))/s; consume C \(Int(cConsume))/s Swift \(Int(swiftConsume))/s"
            )
            try await admin.deleteTopics([cTopic, swiftTopic])
        }
        await admin.close()
        let result: [(String, Double)] = [
            ("swift_produce_per_s", median(rates.swiftProduce)), ("c_produce_per_s", median(rates.cProduce)),
            ("swift_consume_per_s", median(rates.swiftConsume)), ("c_consume_per_s", median(rates.cConsume)),
        ]
        print(
            "ratios (Swift/C, medians): produce \(ratio(result[0].1, result[1].1)), consume \(ratio(result[2].1, result[3].1))"
        )
        if let broker { await broker.stop() }
        print("{" + result.map { "\"\($0.0)\": \(Int($0.1))" }.joined(separator: ", ") + "}")
    }

    // MARK: Swift layer

    private func swiftProduce(client: KafkaConfiguration, topic: String, logger: Logger) async throws -> Double {
        let producer = try KafkaProducer(
            configuration: KafkaProducerConfiguration(client: client, linger: .milliseconds(lingerMs)), logger: logger)
        let value = [UInt8](repeating: UInt8(ascii: "x"), count: size)
        let keys = (0..<1000).map { Array("user-\($0)".utf8) }
        try await producer.send(KafkaProducerMessage(topic: topic, key: Array("warm-up".utf8), value: value))
        let batch = (0..<messages).map { KafkaProducerMessage(topic: topic, key: keys[$0 % 1000], value: value) }
        let started = ContinuousClock.now
        let results = await producer.send(batch: batch)
        let elapsed = ContinuousClock.now - started
        guard results.allSucceeded else {
            throw ValidationError("Swift producer: \(results.failureCount) deliveries failed")
        }
        await producer.shutdown()
        return Double(messages) / elapsed.seconds
    }

    private func swiftConsume(client: KafkaConfiguration, topic: String, logger: Logger) async throws -> Double {
        // The topic holds the warm-up message too.
        let expected = messages + 1
        let consumer = try KafkaConsumer(
            configuration: KafkaConsumerConfiguration(
                client: client, groupID: "bench-\(UUID())", sessionTimeout: .seconds(6)),
            logger: logger)
        try consumer.subscribe(topics: [topic])
        var received = 0
        var bytes = 0
        var started: ContinuousClock.Instant?
        var lastMessage = ContinuousClock.now
        while received < expected {
            let batch = try await consumer.poll(maxMessages: 1000, timeout: .milliseconds(100))
            if batch.isEmpty {
                guard ContinuousClock.now - lastMessage < .seconds(30) else {
                    throw ValidationError("Swift consumer: \(received) of \(expected) messages")
                }
                continue
            }
            if started == nil { started = ContinuousClock.now }
            lastMessage = ContinuousClock.now
            received += batch.count
            for message in batch { bytes += message.value?.count ?? 0 }
        }
        let elapsed = ContinuousClock.now - (started ?? ContinuousClock.now)
        await consumer.close()
        precondition(bytes > 0)
        return Double(received) / elapsed.seconds
    }

    // MARK: C baseline (in-process, on a thread outside the cooperative pool)

    private func cProduce(bootstrap: String, topic: String) async throws -> Double {
        let (messages, size, linger) = (Int64(self.messages), Int32(size), Int32(lingerMs))
        let result = try await onBaselineThread { result, error, length in
            kb_produce(bootstrap, topic, messages, size, linger, result, error, length)
        }
        guard result.errors == 0, result.messages == messages else {
            throw ValidationError("C producer: \(result.messages) delivered, \(result.errors) errors")
        }
        return Double(result.messages) / result.seconds
    }

    private func cConsume(bootstrap: String, topic: String) async throws -> Double {
        let expected = Int64(messages + 1)
        let group = "bench-\(UUID())"
        let result = try await onBaselineThread { result, error, length in
            kb_consume(bootstrap, topic, group, expected, 30_000, result, error, length)
        }
        return Double(result.messages) / result.seconds
    }
}

private func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

private func ratio(_ swift: Double, _ c: Double) -> String {
    c > 0 ? String(format: "%.2f", swift / c) : "n/a"
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
