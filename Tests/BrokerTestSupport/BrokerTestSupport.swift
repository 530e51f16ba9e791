import Foundation
public import Kafka
public import LocalBroker
public import Logging
import Testing

/// Logs only warnings and worse, so test output stays readable but broker
/// trouble still shows up next to a failing test.
public let testLogger: Logger = {
    var logger = Logger(label: "tests") { StreamLogHandler.standardError(label: $0) }
    logger.logLevel =
        ProcessInfo.processInfo.environment["INTENT_TEST_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .error
    return logger
}()

/// A topic name no other test (or earlier run against the same broker) uses.
public func uniqueName(_ prefix: String) -> String {
    "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())"
}

/// Starts a real local broker on a free port for the duration of `body`, in a
/// slot of ``HeavyTestGate/shared``: the broker and whatever the test starts
/// against it (workers, `intentctl`, Python) count as one heavy test.
public func withBroker<Result>(
    _ options: LocalBroker.Options = LocalBroker.Options(),
    _ body: (LocalBroker) async throws -> Result
) async throws -> Result {
    // The broker's log beside the run's other files (kept when the run fails), unless the test chose a place.
    var options = options
    if options.logDirectory == LocalBroker.Options().logDirectory {
        options.logDirectory = testFileURL(options.logDirectory.lastPathComponent)
    }
    return try await withHeavySlot {
        let broker = try await LocalBroker.start(options)
        do {
            let result = try await body(broker)
            await broker.stop()
            return result
        } catch {
            await broker.stop()
            throw error
        }
    }
}

/// Client settings for tests: fail fast, rejoin groups fast, and fetch at the tests'
/// pace (``GroupSession/fetchWait``) as a client property, so the in-process stage workers'
/// consumers take it too (topic followers and offset look-ups set their own). A client
/// property wins over `KafkaConsumerConfiguration.maximumFetchWait`: a test that needs
/// another wait sets `client.properties["fetch.wait.max.ms"]`.
public func clientConfiguration(_ broker: LocalBroker, security: KafkaSecurity = .plaintext) -> KafkaConfiguration {
    KafkaConfiguration(
        bootstrapServers: [broker.bootstrapServers], clientID: "kafka-tests", security: security,
        connectionSetupTimeout: .seconds(3), requestTimeout: .seconds(10),
        debugContexts: ProcessInfo.processInfo.environment["INTENT_TEST_KAFKA_DEBUG"]?.split(separator: ",").map(
            String.init) ?? [],
        properties: ["fetch.wait.max.ms": GroupSession.milliseconds(GroupSession.fetchWait)])
}

public func producerConfiguration(_ broker: LocalBroker, deliveryTimeout: Duration = .seconds(20))
    -> KafkaProducerConfiguration
{
    KafkaProducerConfiguration(
        client: clientConfiguration(broker), linger: .milliseconds(1), deliveryTimeout: deliveryTimeout)
}

/// A group member with a short session timeout (``GroupSession/current``): joins take about
/// 3 s on the local broker, 2 s in the serial process-level lane.
public func consumerConfiguration(_ broker: LocalBroker, group: String) -> KafkaConsumerConfiguration {
    let session = GroupSession.current
    return KafkaConsumerConfiguration(
        client: clientConfiguration(broker), groupID: group, sessionTimeout: session.timeout,
        heartbeatInterval: session.heartbeat)
}

public func createTopic(_ broker: LocalBroker, _ name: String, partitions: Int = 1) async throws {
    try await KafkaAdminClient.with(configuration: clientConfiguration(broker), logger: testLogger) {
        try await $0.createTopic(KafkaTopicSpecification(name: name, partitions: partitions))
    }
}

/// Polls until `count` messages arrived, or fails after `timeout`. Each poll
/// blocks in librdkafka until a message arrives, so this waits on events.
public func consume(
    _ consumer: KafkaConsumer, count: Int, timeout: Duration = .seconds(60), commit: Bool = true
) async throws -> [KafkaConsumerMessage] {
    var messages: [KafkaConsumerMessage] = []
    let deadline = ContinuousClock.now + timeout
    while messages.count < count {
        guard ContinuousClock.now < deadline else {
            Issue.record("received \(messages.count) of \(count) messages within \(timeout)")
            return messages
        }
        let batch = try await consumer.poll(maxMessages: count - messages.count, timeout: .milliseconds(500))
        messages += batch
        if commit, !batch.isEmpty {
            try consumer.markProcessed(batch)
            try await consumer.commit()
        }
    }
    return messages
}

/// Waits for the first element of a stream that matches, or nil after `timeout`.
public func first<Element: Sendable>(
    _ stream: AsyncStream<Element>, within timeout: Duration, where predicate: @escaping @Sendable (Element) -> Bool
) async -> Element? {
    await result(within: timeout, otherwise: nil) {
        for await element in stream where predicate(element) { return element }
        return nil
    }
}

/// What `body` returns, or `fallback` once `timeout` has passed (then `body` is
/// cancelled), so a test that waits on the code under test fails instead of hanging.
public func result<Value: Sendable>(
    within timeout: Duration, otherwise fallback: Value, _ body: @escaping @Sendable () async -> Value
) async -> Value {
    await withTaskGroup(of: Value.self) { group in
        group.addTask { await body() }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return fallback
        }
        let first = await group.next() ?? fallback
        group.cancelAll()
        return first
    }
}

/// Polls `condition` until it holds, failing after `timeout`: for state the
/// code under test changes from its own tasks, where there is no event to await.
public func waitUntil(
    _ what: String, timeout: Duration = .seconds(60), _ condition: () throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while try !condition() {
        guard ContinuousClock.now < deadline else { throw TimedOut(description: "timed out waiting until \(what)") }
        try await Task.sleep(for: .milliseconds(20))
    }
}

/// A wait of ``waitUntil(_:timeout:_:)`` that ran out.
public struct TimedOut: Error, CustomStringConvertible {
    public var description: String
}

public func bytes(_ string: String) -> [UInt8] { Array(string.utf8) }
