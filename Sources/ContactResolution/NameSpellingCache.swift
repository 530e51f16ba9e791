import Synchronization

/// ``NameSpellings`` (and ``PhoneticKey``s) already computed, shared by every
/// contact book one process builds. Transliterating a name (ICU) is most of what
/// building a book costs, and names repeat across users and across versions of
/// one user's book: a replay rebuilds every version, a worker rebuilds a book on
/// each change. Bounded: past ``capacity`` entries a table starts over, so a
/// stream of distinct names costs memory in proportion to the bound, not to the
/// history.
public final class NameSpellingCache: Sendable {
    private let spellings = Mutex<[String: Set<String>]>([:])
    /// ``PhoneticKey`` of each spelling: computed per spelling per book, as costly as a
    /// transliteration once those are cached.
    private let phoneticKeys = Mutex<[String: String]>([:])
    public let capacity: Int

    public init(capacity: Int = 100_000) {
        self.capacity = capacity
    }

    /// The spellings of `name` (trimmed), transliterated once per name.
    func spellings(of name: String) -> Set<String> {
        memoized(name, in: spellings, NameSpellings.of)
    }

    /// ``PhoneticKey/of(_:)``, computed once per spelling.
    func phoneticKey(of spelling: String) -> String {
        memoized(spelling, in: phoneticKeys, PhoneticKey.of)
    }

    /// Names and spellings held now.
    public var count: Int { spellings.withLock { $0.count } + phoneticKeys.withLock { $0.count } }

    private func memoized<Value: Sendable>(
        _ key: String, in table: borrowing Mutex<[String: Value]>, _ compute: (String) -> Value
    ) -> Value {
        if let known = table.withLock({ $0[key] }) { return known }
        // Computed outside the lock: two threads racing on one key both get the same answer.
        let computed = compute(key)
        table.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = computed
        }
        return computed
    }
}
