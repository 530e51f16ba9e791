import Kafka

/// The records this process itself published to a followed topic, by where
/// the broker stored them, so the topic's follower can pass over them
/// without decoding, verifying and applying them again.
///
/// Why skipping is sound: a stage applies every state event to its
/// in-memory state before it publishes it (the same lock, the same event),
/// and applying is idempotent by event id, so the follower's own copy would
/// change nothing. Why it cannot be abused: a position is registered only
/// from this producer's own delivery reports, never from anything in a
/// record; and a record is passed over only if the record read at that
/// position is byte for byte the one produced there (key, value, headers),
/// so a log that lost and reused offsets (a topic recreated, an unclean
/// leader election) is applied as always.
///
/// Losing the race is harmless: a registration for a position the follower
/// has already read is dropped, and the record was applied (a no-op) as
/// before. Entries the follower has passed are dropped as it advances, so
/// nothing accumulates. Pure bookkeeping; ``TopicFollower`` holds it under
/// its lock.
struct OwnRecords: Sendable {
    /// One produced record and where it was stored.
    struct Entry: Sendable {
        var offset: Int64
        var key: [UInt8]?
        var value: [UInt8]?
        var headers: [KafkaHeader]
    }

    /// Per partition, ascending by offset; `head` entries at the front are already consumed.
    private struct Queue: Sendable {
        var entries: [Entry] = []
        var head = 0

        var isEmpty: Bool { head == entries.count }
        var first: Entry? { isEmpty ? nil : entries[head] }

        mutating func popFirst() {
            head += 1
            if head == entries.count {
                entries.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64 && head * 2 >= entries.count {
                entries.removeFirst(head)
                head = 0
            }
        }

        mutating func insert(_ entry: Entry) {
            if let last = entries.last, last.offset >= entry.offset {
                // Out of order (two batches' reports interleaved): keep the queue sorted.
                guard let index = entries[head...].firstIndex(where: { $0.offset >= entry.offset }) else { return }
                if entries[index].offset != entry.offset { entries.insert(entry, at: index) }
            } else {
                entries.append(entry)
            }
        }
    }

    private var queues: [KafkaTopicPartition: Queue] = [:]

    init() {}

    var isEmpty: Bool { queues.isEmpty }

    /// How many registrations are waiting for the follower (for tests and leak checks).
    var count: Int { queues.values.reduce(0) { $0 + $1.entries.count - $1.head } }

    /// Registers a record this process produced, stored at `offset` of `partition`;
    /// `position` is the follower's next offset there. A record the follower has
    /// already read is not registered: it was applied the ordinary way.
    mutating func register(_ entry: Entry, in partition: KafkaTopicPartition, position: Int64) {
        guard entry.offset >= position else { return }
        queues[partition, default: Queue()].insert(entry)
    }

    /// Whether `message` is a record this process produced, exactly as produced at its
    /// position. Consumes the registration (and any below it, which the follower passed).
    mutating func take(_ message: KafkaConsumerMessage) -> Bool {
        let partition = message.topicPartition
        guard var queue = queues[partition] else { return false }
        queues[partition] = nil  // Unique while mutated: no copy of the entries.
        defer { if !queue.isEmpty { queues[partition] = queue } }
        while let first = queue.first, first.offset < message.offset { queue.popFirst() }
        guard let first = queue.first, first.offset == message.offset else { return false }
        queue.popFirst()
        return first.key == message.key && first.value == message.value && first.headers == message.headers
    }

    /// Drops the registrations below the follower's new `position` in `partition`.
    mutating func drop(below position: Int64, in partition: KafkaTopicPartition) {
        guard var queue = queues[partition] else { return }
        queues[partition] = nil
        while let first = queue.first, first.offset < position { queue.popFirst() }
        if !queue.isEmpty { queues[partition] = queue }
    }
}
