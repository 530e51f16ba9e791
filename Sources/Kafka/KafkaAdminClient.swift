internal import CRdkafka
public import Logging

/// A topic as the cluster describes it.
public struct KafkaTopicDescription: Sendable, Hashable {
    public var name: String
    public var partitions: [KafkaPartitionDescription]
}

public struct KafkaPartitionDescription: Sendable, Hashable {
    public var id: Int32
    /// Broker id of the leader; -1 when there is none.
    public var leader: Int32
    public var replicas: [Int32]
    public var inSyncReplicas: [Int32]
}

/// What to create: a topic's partitions and configuration.
public struct KafkaTopicSpecification: Sendable, Hashable {
    public var name: String
    public var partitions: Int
    /// -1 uses the broker's default.
    public var replicationFactor: Int
    /// Topic configuration, e.g. `["cleanup.policy": "compact"]`.
    public var config: [String: String]

    public init(name: String, partitions: Int = 1, replicationFactor: Int = -1, config: [String: String] = [:]) {
        self.name = name
        self.partitions = partitions
        self.replicationFactor = replicationFactor
        self.config = config
    }

    /// A compacted topic keeps the newest record per key: for materialized state
    /// such as contacts, where a tombstone (null value) deletes a key.
    public static func compacted(name: String, partitions: Int = 1, replicationFactor: Int = -1) -> Self {
        Self(
            name: name, partitions: partitions, replicationFactor: replicationFactor,
            config: ["cleanup.policy": "compact"])
    }
}

/// Creates, describes and deletes topics.
public final class KafkaAdminClient: Sendable {
    private let handle: RDKafkaHandle
    private let pollThread: PollThread
    private let executor: BlockingExecutor
    public let configuration: KafkaConfiguration

    public init(configuration: KafkaConfiguration, logger: Logger) throws(KafkaError) {
        self.configuration = configuration
        var properties = configuration.nonConsumerProperties
        // Describing a topic must not create it: topics are created only on purpose (createTopics).
        properties["allow.auto.create.topics"] = "false"
        handle = try RDKafkaHandle(kind: .producer, properties: properties, callbacks: ClientCallbacks(logger: logger))
        pollThread = PollThread(handle: handle, name: "\(handle.name)-admin-poll")
        executor = BlockingExecutor(label: "\(handle.name)-admin")
    }

    deinit {
        pollThread.stopAndWait()
        handle.callbacks.finish()
    }

    public var errors: AsyncStream<KafkaError> { handle.callbacks.errors }

    /// Runs `body` with a new admin client and closes it afterwards, whether `body` returns or throws.
    public static func with<Result>(
        configuration: KafkaConfiguration, logger: Logger, _ body: (KafkaAdminClient) async throws -> Result
    ) async throws -> Result {
        let admin = try KafkaAdminClient(configuration: configuration, logger: logger)
        do {
            let result = try await body(admin)
            await admin.close()
            return result
        } catch {
            await admin.close()
            throw error
        }
    }

    /// Stops the client and destroys its librdkafka instance. Safe to call twice.
    public func close() async {
        let (handle, pollThread) = (self.handle, self.pollThread)
        await executor.run {
            pollThread.stopAndWait()
            handle.close()
        }
    }

    /// Creates topics. With `ifNotExists`, an existing topic is not an error
    /// (its partitions and configuration are left as they are).
    public func createTopics(_ topics: [KafkaTopicSpecification], ifNotExists: Bool = true) async throws(KafkaError) {
        let handle = self.handle
        let timeout = configuration.requestTimeout
        return try await executor.perform(on: handle, "admin request") { (_) throws(KafkaError) -> Void in
            try Self.createTopicsBlocking(handle, topics, ifNotExists: ifNotExists, timeout: timeout)
        }
    }

    public func createTopic(_ topic: KafkaTopicSpecification, ifNotExists: Bool = true) async throws(KafkaError) {
        try await createTopics([topic], ifNotExists: ifNotExists)
    }

    private static func createTopicsBlocking(
        _ handle: RDKafkaHandle, _ topics: [KafkaTopicSpecification], ifNotExists: Bool, timeout: Duration
    ) throws(KafkaError) {
        let operation = "create topics \(topics.map(\.name))"
        var newTopics: [OpaquePointer?] = []
        defer { for newTopic in newTopics { rd_kafka_NewTopic_destroy(newTopic) } }
        var errorText = [CChar](repeating: 0, count: 512)
        for topic in topics {
            guard
                let newTopic = rd_kafka_NewTopic_new(
                    topic.name, Int32(topic.partitions), Int32(topic.replicationFactor), &errorText, errorText.count)
            else {
                throw .client(String(cBuffer: errorText), operation: "create topic \(topic.name)")
            }
            newTopics.append(newTopic)
            for (key, value) in topic.config.sorted(by: { $0.key < $1.key }) {
                try KafkaError.check(
                    rd_kafka_NewTopic_set_config(newTopic, key, value), "set \(key) on topic \(topic.name)")
            }
        }
        let event = try AdminRequest(handle, RD_KAFKA_ADMIN_OP_CREATETOPICS, timeout: timeout, operation: operation)
            .run { pointer, options, queue in
                rd_kafka_CreateTopics(pointer, &newTopics, newTopics.count, options, queue)
            }
        defer { rd_kafka_event_destroy(event) }
        var count = 0
        let results = rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(event), &count)
        try checkTopicResults(results, count: count, operation: "create topic") {
            ifNotExists && $0 == RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS
        }
    }

    /// Deletes topics. With `ifExists`, a missing topic is not an error.
    public func deleteTopics(_ names: [String], ifExists: Bool = true) async throws(KafkaError) {
        let handle = self.handle
        let timeout = configuration.requestTimeout
        return try await executor.perform(on: handle, "admin request") { (_) throws(KafkaError) -> Void in
            var deletes: [OpaquePointer?] = names.map { rd_kafka_DeleteTopic_new($0) }
            defer { for delete in deletes { rd_kafka_DeleteTopic_destroy(delete) } }
            let event = try AdminRequest(
                handle, RD_KAFKA_ADMIN_OP_DELETETOPICS, timeout: timeout, operation: "delete topics \(names)"
            ).run { pointer, options, queue in
                rd_kafka_DeleteTopics(pointer, &deletes, deletes.count, options, queue)
            }
            defer { rd_kafka_event_destroy(event) }
            var count = 0
            let results = rd_kafka_DeleteTopics_result_topics(rd_kafka_event_DeleteTopics_result(event), &count)
            try checkTopicResults(results, count: count, operation: "delete topic") {
                ifExists && $0 == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART
            }
        }
    }

    /// Partitions and leaders of one topic; throws `unknownTopicOrPartition` when it does not exist.
    public func describeTopic(_ name: String) async throws(KafkaError) -> KafkaTopicDescription {
        let handle = self.handle
        let timeout = configuration.requestTimeout
        return try await executor.perform(on: handle, "admin request") {
            (_) throws(KafkaError) -> KafkaTopicDescription in
            let metadata = try handle.metadata(topic: name, timeout: timeout)
            guard let topic = metadata.topics.first(where: { $0.name == name }) else {
                throw .client(
                    "topic \(name) not in metadata", operation: "describe topic", code: .unknownTopicOrPartition)
            }
            if let error = topic.error { throw error }
            return KafkaTopicDescription(name: topic.name, partitions: topic.partitions)
        }
    }

    /// A topic's configuration as the broker reports it (e.g. `cleanup.policy`).
    public func topicConfiguration(_ name: String) async throws(KafkaError) -> [String: String] {
        let handle = self.handle
        let timeout = configuration.requestTimeout
        return try await executor.perform(on: handle, "admin request") { (_) throws(KafkaError) -> [String: String] in
            let operation = "describe configuration of topic \(name)"
            var resources: [OpaquePointer?] = [rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, name)]
            defer { for resource in resources { rd_kafka_ConfigResource_destroy(resource) } }
            let event = try AdminRequest(
                handle, RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS, timeout: timeout, operation: operation
            )
            .run { pointer, options, queue in
                rd_kafka_DescribeConfigs(pointer, &resources, resources.count, options, queue)
            }
            defer { rd_kafka_event_destroy(event) }
            var count = 0
            guard
                let described = rd_kafka_DescribeConfigs_result_resources(
                    rd_kafka_event_DescribeConfigs_result(event), &count), count > 0, let resource = described[0]
            else {
                throw .client("no configuration returned", operation: operation, code: .unknownTopicOrPartition)
            }
            let code = rd_kafka_ConfigResource_error(resource)
            if code != RD_KAFKA_RESP_ERR_NO_ERROR {
                throw KafkaError(
                    rawCode: code, operation: operation,
                    message: rd_kafka_ConfigResource_error_string(resource).map { String(cString: $0) })
            }
            var entryCount = 0
            var configuration: [String: String] = [:]
            if let entries = rd_kafka_ConfigResource_configs(resource, &entryCount) {
                for index in 0..<entryCount {
                    guard let entry = entries[index], let entryName = rd_kafka_ConfigEntry_name(entry) else {
                        continue
                    }
                    configuration[String(cString: entryName)] = rd_kafka_ConfigEntry_value(entry).map {
                        String(cString: $0)
                    }
                }
            }
            return configuration
        }
    }

    /// Names of all topics in the cluster.
    public func listTopics() async throws(KafkaError) -> [String] {
        let handle = self.handle
        let timeout = configuration.requestTimeout
        return try await executor.perform(on: handle, "admin request") { (_) throws(KafkaError) -> [String] in
            return try handle.metadata(topic: nil, timeout: timeout).topics.map(\.name).sorted()
        }
    }

    /// The consumer groups the cluster knows, with their state as the coordinator reports it
    /// (`Stable`, `Empty`, ...; `Unknown` from brokers that do not say), sorted by id.
    public func listConsumerGroups() async throws(KafkaError) -> [KafkaConsumerGroupListing] {
        let handle = self.handle
        let timeout = configuration.requestTimeout
        return try await executor.perform(on: handle, "admin request") {
            (_) throws(KafkaError) -> [KafkaConsumerGroupListing] in
            let event = try AdminRequest(
                handle, RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPS, timeout: timeout, operation: "list consumer groups"
            )
            .run { pointer, options, queue in rd_kafka_ListConsumerGroups(pointer, options, queue) }
            defer { rd_kafka_event_destroy(event) }
            let result = rd_kafka_event_ListConsumerGroups_result(event)
            var count = 0
            guard let listings = rd_kafka_ListConsumerGroups_result_valid(result, &count) else { return [] }
            return (0..<count).compactMap { index -> KafkaConsumerGroupListing? in
                guard let listing = listings[index], let id = rd_kafka_ConsumerGroupListing_group_id(listing) else {
                    return nil
                }
                let state = rd_kafka_consumer_group_state_name(rd_kafka_ConsumerGroupListing_state(listing))
                return KafkaConsumerGroupListing(
                    id: String(cString: id), state: state.map { String(cString: $0) } ?? "Unknown",
                    isSimple: rd_kafka_ConsumerGroupListing_is_simple_consumer_group(listing) != 0)
            }.sorted { $0.id < $1.id }
        }
    }

    /// Fails within the request timeout with a clear error when no broker answers.
    public func checkConnectivity() async throws(KafkaError) {
        _ = try await listTopics()
    }
}

/// One admin API round trip: options, a private result queue, and a bounded wait.
private struct AdminRequest {
    let handle: RDKafkaHandle
    let operationType: rd_kafka_admin_op_t
    let timeout: Duration
    let operation: String

    init(_ handle: RDKafkaHandle, _ type: rd_kafka_admin_op_t, timeout: Duration, operation: String) {
        self.handle = handle
        self.operationType = type
        self.timeout = timeout
        self.operation = operation
    }

    /// Starts the request and returns its result event, which the caller
    /// destroys. Holds a lease on the client until the answer is in.
    func run(_ start: (OpaquePointer, OpaquePointer?, OpaquePointer?) -> Void) throws(KafkaError) -> OpaquePointer {
        try handle.withPointer(operation) { (pointer) throws(KafkaError) -> OpaquePointer in
            try run(on: pointer, start)
        }
    }

    private func run(
        on pointer: OpaquePointer, _ start: (OpaquePointer, OpaquePointer?, OpaquePointer?) -> Void
    ) throws(KafkaError) -> OpaquePointer {
        let options = rd_kafka_AdminOptions_new(pointer, operationType)
        defer { rd_kafka_AdminOptions_destroy(options) }
        var errorText = [CChar](repeating: 0, count: 512)
        try KafkaError.check(
            rd_kafka_AdminOptions_set_request_timeout(
                options, timeout.timeoutMilliseconds, &errorText, errorText.count),
            operation)
        let queue = rd_kafka_queue_new(pointer)
        defer { rd_kafka_queue_destroy(queue) }
        start(pointer, options, queue)
        // librdkafka fails the request itself after the request timeout; the
        // extra margin only guards against a lost event.
        guard let event = rd_kafka_queue_poll(queue, timeout.timeoutMilliseconds + 5000) else {
            throw .client("no answer within \(timeout)", operation: operation, code: .timedOut)
        }
        let code = rd_kafka_event_error(event)
        if code != RD_KAFKA_RESP_ERR_NO_ERROR {
            let message = rd_kafka_event_error_string(event).map { String(cString: $0) }
            rd_kafka_event_destroy(event)
            throw KafkaError(rawCode: code, operation: operation, message: message)
        }
        return event
    }
}

private func checkTopicResults(
    _ results: UnsafeMutablePointer<OpaquePointer?>?, count: Int, operation: String,
    ignoring ignored: (rd_kafka_resp_err_t) -> Bool
) throws(KafkaError) {
    guard let results else { return }
    for index in 0..<count {
        let result = results[index]
        let code = rd_kafka_topic_result_error(result)
        if code == RD_KAFKA_RESP_ERR_NO_ERROR || ignored(code) { continue }
        let name = String(cString: rd_kafka_topic_result_name(result))
        let message = rd_kafka_topic_result_error_string(result).map { String(cString: $0) }
        throw KafkaError(rawCode: code, operation: "\(operation) \(name)", message: message)
    }
}

/// One consumer group as `kafka-consumer-groups --list --state` shows it.
public struct KafkaConsumerGroupListing: Sendable, Hashable {
    public var id: String
    /// The coordinator's state name (`Stable`, `Empty`, `PreparingRebalance`, ...).
    public var state: String
    /// A group that only commits offsets (no members joining it), such as a tool's.
    public var isSimple: Bool

    public init(id: String, state: String, isSimple: Bool) {
        self.id = id
        self.state = state
        self.isSimple = isSimple
    }
}
