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

        var count: Int { entries.count - head }

        /// Drops the entries below `offset`; returns how many.
        mutating func drop(below offset: Int64) -> Int {
            let start = head
            while head < entries.count, entries[head].offset < offset { head += 1 }
            let dropped = head - start
            if head == entries.count {
                entries.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64 && head * 2 >= entries.count {
                entries.removeFirst(head)
                head = 0
            }
            return dropped
        }

        /// The entry at `offset`, removed with every entry below it (`count` is lowered by all of them).
        mutating func take(at offset: Int64, _ count: inout Int) -> Entry? {
            count -= drop(below: offset)
            guard head < entries.count, entries[head].offset == offset else { return nil }
            let entry = entries[head]
            count -= drop(below: offset + 1)
            return entry
        }

        /// Inserts in order; returns whether it was new.
        mutating func insert(_ entry: Entry) -> Bool {
            guard let last = entries.last, last.offset >= entry.offset else {
                entries.append(entry)
                return true
            }
            // Out of order (two batches' reports interleaved): keep the queue sorted.
            guard let index = entries[head...].firstIndex(where: { $0.offset >= entry.offset }),
                entries[index].offset != entry.offset
            else { return false }
            entries.insert(entry, at: index)
            return true
        }
    }

    /// By partition number: one follower follows one topic.
    private var queues: [Int32: Queue] = [:]
    /// How many registrations are waiting for the follower (for tests and leak checks).
    private(set) var count = 0

    init() {}

    var isEmpty: Bool { count == 0 }

    /// Registers a record this process produced, stored at `offset` of `partition`;
    /// `position` is the follower's next offset there. A record the follower has
    /// already read is not registered: it was applied the ordinary way.
    mutating func register(_ entry: Entry, in partition: Int32, position: Int64) {
        guard entry.offset >= position else { return }
        if queues[partition, default: Queue()].insert(entry) { count += 1 }
    }

    /// Whether `message` is a record this process produced, exactly as produced at its
    /// position. Consumes the registration (and any below it, which the follower passed).
    mutating func take(_ message: KafkaConsumerMessage) -> Bool {
        guard count > 0 else { return false }
        let offset = message.offset
        guard let entry = queues[message.partition]?.take(at: offset, &count) else { return false }
        return entry.key == message.key && entry.value == message.value && entry.headers == message.headers
    }

    /// Drops the registrations below the follower's new `position` in `partition`.
    mutating func drop(below position: Int64, in partition: Int32) {
        guard count > 0, let dropped = queues[partition]?.drop(below: position) else { return }
        count -= dropped
    }
}
