import Synchronization

/// Bounds the long polls one user holds open at once. Each waiting poll
/// holds a connection and a task: without a bound, one user's token could
/// keep thousands of them and starve everyone else of the connection cap.
public final class LongPollLimiter: Sendable {
    /// Enough for a phone, a watch and a few browser tabs.
    public static let defaultPerUser = 4

    public let perUser: Int
    private let open = Mutex<[String: Int]>([:])

    public init(perUser: Int = defaultPerUser) {
        self.perUser = perUser
    }

    /// Whether the user has a free slot now (a stream answers 429 before it starts when not;
    /// it takes its slot with ``withSlot(for:_:)`` once started).
    public func hasSlot(for user: String) -> Bool {
        open.withLock { $0[user, default: 0] < perUser }
    }

    /// Runs `body` if the user has a free slot; nil when the user already holds `perUser` polls.
    public func withSlot<T: Sendable>(for user: String, _ body: () async throws -> T) async rethrows -> T? {
        let admitted = open.withLock { counts in
            guard counts[user, default: 0] < perUser else { return false }
            counts[user, default: 0] += 1
            return true
        }
        guard admitted else { return nil }
        defer {
            open.withLock { counts in
                counts[user, default: 1] -= 1
                if counts[user] == 0 { counts[user] = nil }
            }
        }
        return try await body()
    }
}
