import GRDB

/// Where the app state has read a partition to: the offset of the next record.
public struct ConsumerPosition: Sendable, Hashable {
    public var topic: String
    public var partition: Int32
    /// The offset of the next record to read (the last one applied, plus one).
    public var next: Int64

    public init(topic: String, partition: Int32, next: Int64) {
        self.topic = topic
        self.partition = partition
        self.next = next
    }
}

/// The consumer's positions live in the state's own database, written in the same
/// transaction as what the records changed, and the consumer starts from them, not
/// from its group's committed offsets: so a database that is lost, emptied or
/// restored from an old backup is rebuilt from the topics (from the beginning, where
/// it has no position) instead of resuming after history it does not hold. The group
/// still commits, for lag monitoring (`intentctl`, KEDA), but nothing reads from there.
extension AppStateStore {
    static let positionsMigration = "v5: consumer positions"

    static func createPositions(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE consumer_positions (
                    topic TEXT NOT NULL, partition INTEGER NOT NULL, next_offset INTEGER NOT NULL,
                    PRIMARY KEY (topic, partition))
                """)
    }

    /// Records positions inside a transaction that applies the records before them.
    static func advance(_ db: Database, to positions: some Sequence<ConsumerPosition>) throws {
        for position in positions {
            try db.execute(
                sql: """
                    INSERT INTO consumer_positions (topic, partition, next_offset) VALUES (?, ?, ?)
                    ON CONFLICT (topic, partition) DO UPDATE SET next_offset = excluded.next_offset
                    """, arguments: [position.topic, position.partition, position.next])
        }
    }

    /// Records positions past records that changed nothing (refused, irrelevant, duplicates).
    public func advance(to positions: [ConsumerPosition]) async throws {
        guard !positions.isEmpty else { return }
        try await database.write { db in try Self.advance(db, to: positions) }
    }

    /// The stored positions of these partitions (a partition never read is absent).
    /// Synchronous: the consumer asks from inside a rebalance, on a thread that may block.
    public func positions(of partitions: [(topic: String, partition: Int32)]) throws -> [ConsumerPosition] {
        try database.read { db in
            try partitions.compactMap { wanted in
                try Int64.fetchOne(
                    db, sql: "SELECT next_offset FROM consumer_positions WHERE topic = ? AND partition = ?",
                    arguments: [wanted.topic, wanted.partition]
                ).map { ConsumerPosition(topic: wanted.topic, partition: wanted.partition, next: $0) }
            }
        }
    }
}
