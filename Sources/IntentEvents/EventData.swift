/// An event's `data` as the envelope holds it: a JSON value (decoded from the
/// wire, or given), or the canonical bytes of a payload encoded straight to
/// them (``CanonicalEncoder``). Every event a worker publishes is built from a
/// payload and only encoded, so its bytes are spliced into
/// ``EventEnvelope/encoded()`` as they are; the JSON value is read from them
/// only when someone asks for it (``value``).
enum EventData: Sendable, Hashable {
    case value(JSONValue)
    /// Canonical JSON of a value; always parses.
    case canonical([UInt8])
    /// A received value's bytes as written, checked by the parser but not built
    /// (``EventEnvelope/decode(_:maximumBytes:deferringData:)``); always parses. A slice
    /// of the record's bytes: keeping it copies nothing.
    case received(ArraySlice<UInt8>)

    var value: JSONValue {
        switch self {
        case .value(let value): return value
        case .canonical(let bytes): return Self.parse(bytes[...])
        case .received(let bytes): return Self.parse(bytes)
        }
    }

    /// Bytes the parser checked (or canonical JSON) as a value.
    private static func parse(_ bytes: ArraySlice<UInt8>) -> JSONValue {
        do {
            return try JSONParser.parse(bytes)
        } catch {
            preconditionFailure("checked payload bytes do not parse: \(error)")
        }
    }

    /// About how many bytes ``write(into:)`` appends: exact for bytes held, a guess for a value.
    var byteCount: Int {
        switch self {
        case .value: 512
        case .canonical(let bytes): bytes.count
        case .received(let bytes): bytes.count
        }
    }

    func write(into output: inout [UInt8]) {
        switch self {
        case .value, .received: CanonicalJSONWriter.write(value, into: &output)
        case .canonical(let bytes): output.append(contentsOf: bytes)
        }
    }

    /// Equal when the JSON values are: canonical bytes are a function of the
    /// value and read back as it, so two byte forms compare as bytes.
    static func == (lhs: EventData, rhs: EventData) -> Bool {
        if case .canonical(let left) = lhs, case .canonical(let right) = rhs { return left == right }
        return lhs.value == rhs.value
    }

    func hash(into hasher: inout Hasher) { hasher.combine(value) }
}
