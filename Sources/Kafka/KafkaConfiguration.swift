internal import CRdkafka

/// Settings every Kafka client shares: where the brokers are, how to reach them
/// securely, and an escape hatch for any other librdkafka property.
///
/// Defaults favour failing fast and visibly: librdkafka's own defaults retry a
/// dead broker silently for minutes, which looks like a hang to an operator.
public struct KafkaConfiguration: Sendable, Hashable {
    /// `host:port` pairs of brokers to bootstrap from.
    public var bootstrapServers: [String]
    /// Reported to brokers; shows up in their logs and quotas.
    public var clientID: String
    public var security: KafkaSecurity
    /// How long a single TCP + TLS + SASL connection attempt may take.
    public var connectionSetupTimeout: Duration
    /// How long a metadata, admin or lookup call may wait for the cluster
    /// before it fails with a clear error.
    public var requestTimeout: Duration
    /// librdkafka `debug` contexts (e.g. `["broker", "protocol"]`); empty is off.
    public var debugContexts: [String]
    /// Any librdkafka property (see librdkafka's CONFIGURATION.md). Applied last,
    /// so it overrides every typed field above.
    public var properties: [String: String]

    public init(
        bootstrapServers: [String],
        clientID: String = "intent-pipeline",
        security: KafkaSecurity = .plaintext,
        connectionSetupTimeout: Duration = .seconds(10),
        requestTimeout: Duration = .seconds(15),
        debugContexts: [String] = [],
        properties: [String: String] = [:]
    ) {
        self.bootstrapServers = bootstrapServers
        self.clientID = clientID
        self.security = security
        self.connectionSetupTimeout = connectionSetupTimeout
        self.requestTimeout = requestTimeout
        self.debugContexts = debugContexts
        self.properties = properties
    }

    /// The environment variable prefix that maps onto librdkafka properties.
    public static let environmentPrefix = "KAFKA_"

    /// Reads `KAFKA_*` variables: `KAFKA_BOOTSTRAP_SERVERS=a:9092,b:9092` sets the
    /// brokers and every other `KAFKA_FOO_BAR=x` becomes the librdkafka property
    /// `foo.bar=x`, so operators can set anything librdkafka supports (SASL,
    /// TLS, timeouts) without a code change. Returns nil when no brokers are named.
    public static func fromEnvironment(
        _ environment: [String: String], clientID: String = "intent-pipeline"
    ) -> KafkaConfiguration? {
        let properties = librdkafkaProperties(fromEnvironment: environment)
        guard let servers = properties["bootstrap.servers"] else { return nil }
        var configuration = KafkaConfiguration(
            bootstrapServers: servers.split(separator: ",").map(String.init), clientID: clientID)
        configuration.properties = properties.filter { $0.key != "bootstrap.servers" }
        return configuration
    }

    /// `KAFKA_SASL_USERNAME=x` -> `["sasl.username": "x"]`. Variables ending in
    /// `_FILE` name files instead (``propertyFiles(fromEnvironment:)``).
    public static func librdkafkaProperties(fromEnvironment environment: [String: String]) -> [String: String] {
        var result: [String: String] = [:]
        for (name, value) in environment where name.hasPrefix(environmentPrefix) && !name.hasSuffix(fileSuffix) {
            if let property = property(forVariable: name) { result[property] = value }
        }
        return result
    }

    /// `KAFKA_SASL_PASSWORD_FILE=/etc/kafka-credentials/password` -> `["sasl.password": "/etc/…"]`:
    /// properties whose value is read from a file, so a Secret is mounted as a file
    /// rather than exposed in the environment (no librdkafka property name contains "file").
    public static func propertyFiles(fromEnvironment environment: [String: String]) -> [String: String] {
        var result: [String: String] = [:]
        for (name, path) in environment where name.hasPrefix(environmentPrefix) && name.hasSuffix(fileSuffix) {
            if let property = property(forVariable: String(name.dropLast(fileSuffix.count))) { result[property] = path }
        }
        return result
    }

    private static let fileSuffix = "_FILE"

    private static func property(forVariable name: String) -> String? {
        let property = name.dropFirst(environmentPrefix.count).lowercased().replacingOccurrences(of: "_", with: ".")
        return property.isEmpty ? nil : property
    }

    /// Parses `key=value` strings, as given on command lines (`--kafka-property`).
    public static func parseProperties(_ assignments: [String]) throws(KafkaError) -> [String: String] {
        var result: [String: String] = [:]
        for assignment in assignments {
            guard let equals = assignment.firstIndex(of: "="), equals != assignment.startIndex else {
                throw .client(
                    "expected key=value, got \"\(assignment)\"", operation: "parse Kafka property")
            }
            result[String(assignment[..<equals])] = String(assignment[assignment.index(after: equals)...])
        }
        return result
    }

    /// The effective librdkafka properties, e.g. for `intentctl kafka config`.
    public var librdkafkaProperties: [String: String] {
        var result: [String: String] = [
            "bootstrap.servers": bootstrapServers.joined(separator: ","),
            "client.id": clientID,
            "socket.connection.setup.timeout.ms": String(connectionSetupTimeout.milliseconds),
            // Backoff between reconnects to a down broker: short enough that a
            // restarted broker is picked up within about a second.
            "reconnect.backoff.ms": "100",
            "reconnect.backoff.max.ms": "1000",
        ]
        // KIP-714 client metrics (librdkafka >= 2.5): off by default. Few
        // brokers collect them, and destroying a client waits for the final push.
        if rd_kafka_version() >= 0x0205_0000 {
            result["enable.metrics.push"] = "false"
        }
        result.merge(security.properties) { $1 }
        if !debugContexts.isEmpty { result["debug"] = debugContexts.joined(separator: ",") }
        result.merge(properties) { $1 }
        return result
    }

    /// ``librdkafkaProperties`` without the consumer-only ones, for producers and admin
    /// clients: an environment shared by every client (`KAFKA_SESSION_TIMEOUT_MS`,
    /// `KAFKA_FETCH_WAIT_MAX_MS`) would otherwise make librdkafka warn that it ignores them.
    public var nonConsumerProperties: [String: String] {
        librdkafkaProperties.filter { !Self.consumerOnly.contains($0.key) }
    }

    /// librdkafka properties that only consumers read (CONFIGURATION.md, "C" in the C/P column).
    static let consumerOnly: Set<String> = [
        "session.timeout.ms", "heartbeat.interval.ms", "group.protocol.type", "group.protocol",
        "group.instance.id", "group.remote.assignor", "partition.assignment.strategy", "coordinator.query.interval.ms",
        "max.poll.interval.ms", "enable.auto.commit", "auto.commit.interval.ms", "enable.auto.offset.store",
        "queued.min.messages", "queued.max.messages.kbytes", "fetch.wait.max.ms", "fetch.queue.backoff.ms",
        "fetch.message.max.bytes", "max.partition.fetch.bytes", "fetch.max.bytes", "fetch.min.bytes",
        "fetch.error.backoff.ms", "isolation.level", "enable.partition.eof", "check.crcs", "auto.offset.reset",
    ]
}

extension Duration {
    /// Whole milliseconds, rounded down, clamped to `Int32` as librdkafka timeouts are `int`.
    var milliseconds: Int {
        let (seconds, attoseconds) = components
        let total = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return Int(max(0, min(total, Int64(Int32.max))))
    }

    var timeoutMilliseconds: Int32 { Int32(milliseconds) }
}
