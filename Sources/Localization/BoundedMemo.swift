import Synchronization

/// A table of values worth making once per key (a locale's renderer, an amount's template),
/// shared by every thread of a worker.
///
/// Its keys come from requests (locale tags, currencies), so a sender naming ever new ones
/// must not grow it without end: past `capacity` it starts again, and the keys in use come
/// back within a few records. One uncontended lock per look-up; what is made is made outside
/// the lock, so two threads missing the same key at once both make it (the values are equal).
final class BoundedMemo<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let entries = Mutex<[Key: Value]>([:])
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    var count: Int { entries.withLock { $0.count } }

    func value(for key: Key) -> Value? {
        entries.withLock { $0[key] }
    }

    func value(for key: Key, orMake make: (Key) -> Value) -> Value {
        if let known = value(for: key) { return known }
        let made = make(key)
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = made
        }
        return made
    }
}
