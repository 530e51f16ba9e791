/// A payload type that also reads itself straight from JSON (``JSONReading``), without
/// `Codable`'s containers: the stages decode one of these per record, and the `Codable`
/// path (a box, a coding-key lookup and a link object per field, generic metadata looked
/// up at run time) was a third of a stage's decision path in `intent-bench stages`.
///
/// The contract: `read(from:)` returns exactly what strict `Codable` decoding
/// (``EventEnvelope/decodeData(as:)``) returns, or refuses; it may refuse more (a refusal
/// takes the `Codable` path, whose error is the one reported), never accept more.
/// `DirectReadingEquivalenceTests` holds every conforming type to it, intact and damaged.
public protocol DirectlyReadPayload: Codable {
    static func read<Reader: JSONReading>(from reader: inout Reader) throws(JSONRefusal) -> Self

    /// ``read(from:)`` over bytes. Conforming types take the default implementation, which
    /// is compiled where the type is known: the reader is specialized for bytes there,
    /// rather than run generically (a witness-table call and run-time metadata per value read).
    static func readBytes(_ reader: inout JSONBytesReader) throws(JSONRefusal) -> Self
}

extension DirectlyReadPayload {
    @inlinable
    public static func readBytes(_ reader: inout JSONBytesReader) throws(JSONRefusal) -> Self {
        try read(from: &reader)
    }
}

extension EventEnvelope {
    /// `data` read by `Payload`'s direct reader; nil when it refuses.
    func readDirectly<Payload: DirectlyReadPayload>(_ type: Payload.Type) -> Payload? {
        readData(
            { (reader: inout JSONBytesReader) throws(JSONRefusal) in try Payload.readBytes(&reader) },
            { (reader: inout JSONValueReader) throws(JSONRefusal) in try Payload.read(from: &reader) })
    }
}

extension Timestamp {
    /// An RFC 3339 time, as `Timestamp`'s `Codable` conformance reads it.
    public static func read(from reader: inout some JSONReading) throws(JSONRefusal) -> Timestamp {
        guard let time = EventTime.parse(try reader.readString()) else { throw JSONRefusal() }
        return Timestamp(time)
    }
}

/// Reads an optional `String` member once: strict decoding refuses `null` for one (its
/// re-encoding drops it), and ``JSONReading/readString()`` refuses it too.
public func readOnce(_ target: inout String?, _ reader: inout some JSONReading) throws(JSONRefusal) {
    try setOnce(&target, reader.readString())
}

/// Reads an array of strings.
public func readStrings(_ reader: inout some JSONReading) throws(JSONRefusal) -> [String] {
    var strings: [String] = []
    try reader.readArray { (item) throws(JSONRefusal) in strings.append(try item.readString()) }
    return strings
}

/// Reads an `Int` as `Codable` reads one from parsed JSON's integers.
public func readInt(_ reader: inout some JSONReading) throws(JSONRefusal) -> Int {
    guard let value = Int(exactly: try reader.readInteger()) else { throw JSONRefusal() }
    return value
}

/// Reads an enum from its raw string.
public func readRaw<T: RawRepresentable>(_ type: T.Type, _ reader: inout some JSONReading) throws(JSONRefusal) -> T
where T.RawValue == String {
    guard let value = T(rawValue: try reader.readString()) else { throw JSONRefusal() }
    return value
}
