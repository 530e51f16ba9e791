/// A JSON value read in the order written into the types a decoder needs, from parsed
/// JSON (``JSONValueReader``) or straight from bytes (``JSONBytesReader``, which builds
/// no tree). A decoder written once against this reads both the same way, so the fast
/// path cannot drift from the one every other reader takes.
///
/// A decoder refuses (throws ``JSONRefusal``) anything it does not expect, and its
/// caller then takes a slower path that says why: a refusal carries no reason.
public protocol JSONReading {
    /// Reads an object: `member` is given each key, in the order written (from bytes, a
    /// repeated key again), and reads that key's value, once, from the reader it is given.
    mutating func readObject(_ member: (String, inout Self) throws(JSONRefusal) -> Void) throws(JSONRefusal)
    /// Reads an array: `element` reads each element, once, from the reader it is given.
    mutating func readArray(_ element: (inout Self) throws(JSONRefusal) -> Void) throws(JSONRefusal)
    mutating func readString() throws(JSONRefusal) -> String
    mutating func readBool() throws(JSONRefusal) -> Bool
    /// An integer as parsed JSON holds it (``JSONValue/integer(_:)``): digits, or a number
    /// that is exactly one; anything else is refused.
    mutating func readInteger() throws(JSONRefusal) -> Int64
}

/// What a ``JSONReading`` decoder throws for anything it does not expect.
public struct JSONRefusal: Error, Sendable {
    public init() {}
}

/// Sets `target` to `value`, refusing a second one: bytes may repeat a key, which parsed
/// JSON reads as its first value; a decoder refusing leaves that to the slower path.
public func setOnce<T>(_ target: inout T?, _ value: T) throws(JSONRefusal) {
    guard target == nil else { throw JSONRefusal() }
    target = value
}

/// Reads parsed JSON as ``JSONReading`` (its objects' members in the dictionary's order).
public struct JSONValueReader: JSONReading {
    private let value: JSONValue

    public init(_ value: JSONValue) { self.value = value }

    /// `body`'s reading of `value`; nil when it refuses.
    public static func read<T>(_ value: JSONValue, _ body: (inout JSONValueReader) throws(JSONRefusal) -> T) -> T? {
        var reader = JSONValueReader(value)
        do throws(JSONRefusal) { return try body(&reader) } catch { return nil }
    }

    public mutating func readObject(_ member: (String, inout JSONValueReader) throws(JSONRefusal) -> Void)
        throws(JSONRefusal)
    {
        guard case .object(let members) = value else { throw JSONRefusal() }
        for (key, child) in members {
            var reader = JSONValueReader(child)
            try member(key, &reader)
        }
    }

    public mutating func readArray(_ element: (inout JSONValueReader) throws(JSONRefusal) -> Void)
        throws(JSONRefusal)
    {
        guard case .array(let elements) = value else { throw JSONRefusal() }
        for child in elements {
            var reader = JSONValueReader(child)
            try element(&reader)
        }
    }

    public mutating func readString() throws(JSONRefusal) -> String {
        guard case .string(let text) = value else { throw JSONRefusal() }
        return text
    }

    public mutating func readBool() throws(JSONRefusal) -> Bool {
        guard case .bool(let flag) = value else { throw JSONRefusal() }
        return flag
    }

    public mutating func readInteger() throws(JSONRefusal) -> Int64 {
        guard case .integer(let number) = value else { throw JSONRefusal() }
        return number
    }
}
