import Synchronization

/// ``NameSpellings`` already computed, shared by every contact book one process
/// builds. Transliterating a name (ICU) is most of what building a book costs,
/// and names repeat across users and across versions of one user's book: a
/// replay rebuilds every version, a worker rebuilds a book on each change.
/// Bounded: past ``capacity`` names it starts over, so a stream of distinct
/// names costs memory in proportion to the bound, not to the history.
public final class NameSpellingCache: Sendable {
    private let spellings = Mutex<[String: Set<String>]>([:])
    public let capacity: Int

    public init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    /// The spellings of `name` (trimmed), transliterated once per name.
    func spellings(of name: String) -> Set<String> {
        if let known = spellings.withLock({ $0[name] }) { return known }
        // Computed outside the lock: two threads racing on one name both get the same answer.
        let computed = NameSpellings.of(name)
        spellings.withLock { table in
            if table.count >= capacity { table.removeAll(keepingCapacity: true) }
            table[name] = computed
        }
        return computed
    }

    /// Names held now.
    public var count: Int { spellings.withLock { $0.count } }
}
