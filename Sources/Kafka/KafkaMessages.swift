public import Foundation

/// A record header. Kafka allows repeated keys and null values.
public struct KafkaHeader: Sendable, Hashable {
    public var key: String
    public var value: [UInt8]?

    public init(key: String, value: [UInt8]?) {
        self.key = key
        self.value = value
    }

    public init(key: String, string: String) {
        self.init(key: key, value: Array(string.utf8))
    }

    /// The value as UTF-8 text, or nil when absent or not UTF-8.
    public var stringValue: String? {
        value.flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// Equal when the names and values are the same bytes: the value compared in one
    /// `memcmp` (``RecordBytes``), the name by its UTF-8, not by Swift's canonical
    /// equivalence (under which a name with U+212A KELVIN SIGN equals one with a `K`). A
    /// follower passes over a record only if it is byte for byte one it produced. Hashing
    /// stays synthesized: equal bytes hash alike.
    @inlinable
    public static func == (lhs: KafkaHeader, rhs: KafkaHeader) -> Bool {
        RecordBytes.equal(lhs.value, rhs.value) && lhs.key.utf8.elementsEqual(rhs.key.utf8)
    }
}

/// A topic and partition.
public struct KafkaTopicPartition: Sendable, Hashable, CustomStringConvertible {
    public var topic: String
    public var partition: Int32

    public init(topic: String, partition: Int32) {
        self.topic = topic
        self.partition = partition
    }

    public var description: String { "\(topic)[\(partition)]" }
}

/// A position in a partition: the offset of the next record to read.
public struct KafkaPartitionOffset: Sendable, Hashable, CustomStringConvertible {
    public var topicPartition: KafkaTopicPartition
    public var offset: Int64

    public init(topic: String, partition: Int32, offset: Int64) {
        self.topicPartition = KafkaTopicPartition(topic: topic, partition: partition)
        self.offset = offset
    }

    public var description: String { "\(topicPartition)@\(offset)" }
}

/// A record to produce.
public struct KafkaProducerMessage: Sendable, Hashable {
    public var topic: String
    /// Nil lets the partitioner choose by key (murmur2, like the Java client).
    public var partition: Int32?
    public var key: [UInt8]?
    /// Nil produces a tombstone, which deletes the key from a compacted topic.
    public var value: [UInt8]?
    public var headers: [KafkaHeader]
    /// Nil stamps the record with the time it is produced.
    public var timestamp: Date?

    public init(
        topic: String, partition: Int32? = nil, key: [UInt8]? = nil, value: [UInt8]?,
        headers: [KafkaHeader] = [], timestamp: Date? = nil
    ) {
        self.topic = topic
        self.partition = partition
        self.key = key
        self.value = value
        self.headers = headers
        self.timestamp = timestamp
    }

    public init(
        topic: String, key: String, value: [UInt8]?, headers: [KafkaHeader] = [], timestamp: Date? = nil
    ) {
        self.init(topic: topic, key: Array(key.utf8), value: value, headers: headers, timestamp: timestamp)
    }
}

/// A consumed record. Its bytes are copies, valid for as long as the value lives.
public struct KafkaConsumerMessage: Sendable, Hashable {
    public var topic: String
    public var partition: Int32
    public var offset: Int64
    public var key: [UInt8]?
    public var value: [UInt8]?
    public var headers: [KafkaHeader]
    /// Create or log-append time, when the broker supplied one.
    public var timestamp: Date?

    public init(
        topic: String, partition: Int32, offset: Int64, key: [UInt8]?, value: [UInt8]?,
        headers: [KafkaHeader], timestamp: Date?
    ) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
        self.key = key
        self.value = value
        self.headers = headers
        self.timestamp = timestamp
    }

    public var topicPartition: KafkaTopicPartition { KafkaTopicPartition(topic: topic, partition: partition) }

    /// The key as UTF-8 text.
    public var keyString: String? { key.flatMap { String(validating: $0, as: UTF8.self) } }

    /// The first header with this key.
    public func header(_ key: String) -> KafkaHeader? { headers.first { $0.key == key } }

    /// The position to commit once this message is done: the next offset.
    public var nextOffset: KafkaPartitionOffset {
        KafkaPartitionOffset(topic: topic, partition: partition, offset: offset + 1)
    }
}

/// Where a produced record was stored.
public struct KafkaDeliveryReport: Sendable, Hashable {
    public var topic: String
    public var partition: Int32
    public var offset: Int64

    public init(topic: String, partition: Int32, offset: Int64) {
        self.topic = topic
        self.partition = partition
        self.offset = offset
    }
}

/// A partition's consumer lag: how far the group's committed offset trails the end of the log.
public struct KafkaPartitionLag: Sendable, Hashable {
    public var topicPartition: KafkaTopicPartition
    /// Nil when the group has committed nothing for the partition yet.
    public var committedOffset: Int64?
    public var lowWatermark: Int64
    public var highWatermark: Int64

    /// Records not yet committed; counts from the low watermark when nothing is committed.
    public var lag: Int64 { max(0, highWatermark - (committedOffset ?? lowWatermark)) }
}

/// A change of the partitions assigned to this consumer.
public enum KafkaRebalanceEvent: Sendable, Hashable {
    case assigned([KafkaTopicPartition])
    /// Revoked after offsets of finished work were committed.
    case revoked([KafkaTopicPartition])
    /// Lost without a chance to commit (session timed out); another member may redo uncommitted work.
    case lost([KafkaTopicPartition])
}
