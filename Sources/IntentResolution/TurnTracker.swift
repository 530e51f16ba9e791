/// Remembers the latest turn of each intent, so a redelivered or out-of-date
/// turn is not resolved again, and an intent already sent on to the confirm
/// stage is not sent twice. Bounded: the oldest intents are forgotten first
/// (a forgotten intent's redelivery yields the same derived event ids, which
/// downstream consumers drop).
public struct TurnTracker: Sendable {
    public enum Decision: Sendable, Hashable {
        case resolve
        /// Why the turn is skipped, for the log.
        case ignore(String)
        /// The turn comes from another voice service than the one that started the
        /// intent: refused (only the service that asked may continue it).
        case foreignSource(startedBy: String)
    }

    private struct Key: Hashable {
        var userID: String
        var intentID: String
    }

    private struct State {
        var latestTurn: Int
        var resolvedAtTurn: Int?
        /// The voice service whose turn started the intent.
        var source: String
        /// The intent's first request was refused, and the intent ended with that refusal.
        var refused = false
    }

    private var states: [Key: State] = [:]
    private var order: [Key] = []
    private var orderStart = 0
    public let capacity: Int

    public init(capacity: Int = 100_000) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    public var count: Int { states.count }

    /// Whether to resolve this turn from `source`; records it when the answer is yes.
    public mutating func admit(userID: String, intentID: String, turn: Int, source: String = "") -> Decision {
        let key = Key(userID: userID, intentID: intentID)
        if let state = states[key] {
            if state.source != source { return .foreignSource(startedBy: state.source) }
            if state.refused { return .ignore("intent \(intentID) was refused and has its final response") }
            if let resolved = state.resolvedAtTurn {
                return .ignore("intent already resolved at turn \(resolved); turn \(turn) is not resolved again")
            }
            if turn <= state.latestTurn {
                return .ignore(
                    turn == state.latestTurn
                        ? "turn \(turn) was already resolved (a repeat)"
                        : "turn \(turn) is older than turn \(state.latestTurn), already resolved")
            }
            states[key]?.latestTurn = turn
        } else {
            insert(key, State(latestTurn: turn, source: source))
        }
        return .resolve
    }

    /// Records that the intent went on to the confirm stage at this turn.
    public mutating func markResolved(userID: String, intentID: String, turn: Int) {
        states[Key(userID: userID, intentID: intentID)]?.resolvedAtTurn = turn
    }

    /// Records that a request which would have started this intent was refused, and
    /// says whether the refusal ends the intent: only when nothing of it was admitted
    /// before (an intent under way goes on; its bad turn is only dead-lettered). Later
    /// turns of a refused intent are then ignored: its final response is the refusal.
    public mutating func refuse(userID: String, intentID: String, source: String) -> Bool {
        let key = Key(userID: userID, intentID: intentID)
        if let state = states[key] { return state.refused && state.source == source }
        insert(key, State(latestTurn: 0, source: source, refused: true))
        return true
    }

    private mutating func insert(_ key: Key, _ state: State) {
        states[key] = state
        order.append(key)
        while states.count > capacity {
            states[order[orderStart]] = nil
            orderStart += 1
        }
        // Compact the eviction queue now and then, not on every insert.
        if orderStart > capacity {
            order.removeFirst(orderStart)
            orderStart = 0
        }
    }
}
