internal import CRdkafka

/// An error reported by librdkafka or by this wrapper.
///
/// It keeps librdkafka's numeric code and symbolic name so that operators can
/// look the error up in librdkafka's documentation, and adds what the client was
/// doing when it happened, because librdkafka's own text rarely says that.
public struct KafkaError: Error, Sendable, Hashable, CustomStringConvertible {
    /// librdkafka's `rd_kafka_resp_err_t` value (negative: client-local, positive: broker).
    public let code: Code
    /// librdkafka's symbolic name without the `RD_KAFKA_RESP_ERR_` prefix, e.g. `_TRANSPORT`.
    public let name: String
    /// librdkafka's human-readable text, or a more specific reason when one is known.
    public let message: String
    /// What the client was doing, e.g. `"create topic intents"`.
    public let operation: String
    /// librdkafka considers the failed operation safe to retry.
    public let isRetriable: Bool
    /// The client instance is unusable and must be recreated (e.g. idempotence violated).
    public let isFatal: Bool

    public var description: String {
        "Kafka error \(name) (\(code.rawValue)) during \(operation): \(message)"
    }

    /// A librdkafka error code. Only the codes this project branches on have names here.
    public struct Code: RawRepresentable, Sendable, Hashable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let noError = Code(rawValue: 0)
        public static let destroyed = Code(rawValue: -197)
        public static let transport = Code(rawValue: -195)
        public static let resolve = Code(rawValue: -193)
        public static let messageTimedOut = Code(rawValue: -192)
        public static let partitionEOF = Code(rawValue: -191)
        public static let unknownPartition = Code(rawValue: -190)
        public static let unknownTopic = Code(rawValue: -188)
        public static let allBrokersDown = Code(rawValue: -187)
        public static let invalidArgument = Code(rawValue: -186)
        public static let timedOut = Code(rawValue: -185)
        public static let queueFull = Code(rawValue: -184)
        public static let ssl = Code(rawValue: -181)
        public static let state = Code(rawValue: -172)
        public static let authentication = Code(rawValue: -169)
        public static let noOffset = Code(rawValue: -168)
        public static let fatal = Code(rawValue: -150)
        public static let waitCoordinator = Code(rawValue: -180)
        public static let purgeQueue = Code(rawValue: -152)
        public static let purgeInFlight = Code(rawValue: -151)
        public static let maxPollExceeded = Code(rawValue: -147)
        public static let assignmentLost = Code(rawValue: -142)
        public static let leaderNotAvailable = Code(rawValue: 5)
        public static let notLeaderForPartition = Code(rawValue: 6)
        public static let requestTimedOut = Code(rawValue: 7)
        public static let networkException = Code(rawValue: 13)
        public static let coordinatorLoadInProgress = Code(rawValue: 14)
        public static let coordinatorNotAvailable = Code(rawValue: 15)
        public static let notCoordinator = Code(rawValue: 16)
        public static let notEnoughReplicas = Code(rawValue: 19)
        public static let notEnoughReplicasAfterAppend = Code(rawValue: 20)
        public static let storageError = Code(rawValue: 56)
        public static let saslAuthenticationFailed = Code(rawValue: 58)
        public static let fencedLeaderEpoch = Code(rawValue: 74)
        public static let unknownLeaderEpoch = Code(rawValue: 75)
        public static let unknownTopicOrPartition = Code(rawValue: 3)
        public static let messageSizeTooLarge = Code(rawValue: 10)
        public static let recordListTooLarge = Code(rawValue: 18)
        public static let invalidRecord = Code(rawValue: 87)
        public static let illegalGeneration = Code(rawValue: 22)
        public static let outOfOrderSequence = Code(rawValue: 45)
        public static let invalidProducerEpoch = Code(rawValue: 47)
        public static let unknownProducerID = Code(rawValue: 59)
        public static let producerFenced = Code(rawValue: 90)
        public static let unknownMemberID = Code(rawValue: 25)
        public static let rebalanceInProgress = Code(rawValue: 27)
        public static let topicAlreadyExists = Code(rawValue: 36)

        /// The group is rebalancing, this member's generation moved on, or it
        /// lost its assignment (session timed out during an outage): a commit
        /// failing with these is retried by the next commit, made before the
        /// partitions move, or (assignment lost) the uncommitted work is redone
        /// by the partitions' next owner, so it is not a processing failure.
        public var isRebalance: Bool {
            [.illegalGeneration, .unknownMemberID, .rebalanceInProgress, .assignmentLost].contains(self)
        }

        /// The cluster is briefly unreachable or reorganizing (a broker
        /// restarting, a coordinator or leader moving, a member dropped from
        /// its group): the same call is expected to succeed later, so callers
        /// retry it with backoff instead of failing.
        public var isTransient: Bool {
            [
                .transport, .resolve, .messageTimedOut, .unknownPartition, .unknownTopic, .allBrokersDown,
                .timedOut, .queueFull, .waitCoordinator, .maxPollExceeded, .unknownTopicOrPartition,
                .leaderNotAvailable, .notLeaderForPartition, .requestTimedOut, .networkException,
                .coordinatorLoadInProgress, .coordinatorNotAvailable, .notCoordinator, .notEnoughReplicas,
                .notEnoughReplicasAfterAppend, .storageError, .fencedLeaderEpoch, .unknownLeaderEpoch,
                .purgeQueue, .purgeInFlight,
            ].contains(self) || isRebalance
        }

        /// Authentication or TLS failed: retrying with the same credentials
        /// cannot succeed, so a worker stops at once.
        public var isAuthentication: Bool {
            [.authentication, .saslAuthenticationFailed, .ssl].contains(self)
        }

        /// The broker no longer accepts this producer's identity (id, epoch,
        /// sequence). Some brokers (the local one) answer this to librdkafka's
        /// epoch bump after a timed-out record; only a new instance recovers.
        public var isProducerIdentityRejected: Bool {
            [.outOfOrderSequence, .invalidProducerEpoch, .unknownProducerID, .producerFenced].contains(self)
        }

        /// The record itself was refused, by librdkafka before sending (too
        /// large for `message.max.bytes`, too many headers) or by the broker
        /// (too large for the topic, malformed): sending it again cannot work,
        /// unlike a connectivity failure.
        public var isRecordRefused: Bool {
            [.messageSizeTooLarge, .recordListTooLarge, .invalidRecord, .invalidArgument].contains(self)
        }

        /// The client could not reach any broker (refused, unreachable, timed out, TLS/SASL failed).
        public var isConnectivity: Bool {
            [.transport, .resolve, .allBrokersDown, .timedOut, .messageTimedOut, .ssl, .authentication]
                .contains(self)
        }
    }

    public init(
        code: Code, name: String, message: String, operation: String,
        isRetriable: Bool = false, isFatal: Bool = false
    ) {
        self.code = code
        self.name = name
        self.message = message
        self.operation = operation
        self.isRetriable = isRetriable
        self.isFatal = isFatal
    }

    /// An error made from a bare `rd_kafka_resp_err_t`.
    init(rawCode: rd_kafka_resp_err_t, operation: String, message: String? = nil) {
        self.init(
            code: Code(rawValue: rawCode.rawValue),
            name: String(cString: rd_kafka_err2name(rawCode)),
            message: message ?? String(cString: rd_kafka_err2str(rawCode)),
            operation: operation
        )
    }

    /// An error made from a returned `rd_kafka_error_t`, which this initializer destroys.
    init(consuming error: OpaquePointer, operation: String) {
        defer { rd_kafka_error_destroy(error) }
        self.init(
            code: Code(rawValue: rd_kafka_error_code(error).rawValue),
            name: String(cString: rd_kafka_error_name(error)),
            message: String(cString: rd_kafka_error_string(error)),
            operation: operation,
            isRetriable: rd_kafka_error_is_retriable(error) != 0,
            isFatal: rd_kafka_error_is_fatal(error) != 0
        )
    }

    /// Throws when `code` is not `RD_KAFKA_RESP_ERR_NO_ERROR`.
    static func check(_ code: rd_kafka_resp_err_t, _ operation: @autoclosure () -> String) throws(KafkaError) {
        if code != RD_KAFKA_RESP_ERR_NO_ERROR {
            throw KafkaError(rawCode: code, operation: operation())
        }
    }

    /// Throws when `error` is non-nil, destroying it.
    static func check(_ error: OpaquePointer?, _ operation: @autoclosure () -> String) throws(KafkaError) {
        if let error {
            throw KafkaError(consuming: error, operation: operation())
        }
    }

    /// An error raised by this wrapper rather than by librdkafka.
    public static func client(_ message: String, operation: String, code: Code = .invalidArgument) -> KafkaError {
        KafkaError(
            code: code,
            name: String(cString: rd_kafka_err2name(rd_kafka_resp_err_t(rawValue: code.rawValue))),
            message: message,
            operation: operation
        )
    }
}

extension String {
    /// Text from a NUL-terminated C buffer librdkafka wrote an error into.
    init(cBuffer: [CChar]) {
        let bytes = cBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        self.init(decoding: bytes, as: UTF8.self)
    }
}
