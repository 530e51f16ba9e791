/// A payload that writes its own canonical JSON: keys in sorted order, strings
/// through ``CanonicalJSONWriter``, absent optionals left out, exactly the
/// bytes ``CanonicalEncoder`` gives for its `Encodable` form (each conformance
/// has an equivalence test). For the payloads written once per record on a
/// hot path, where the generic encoder's frames, sorting and witness calls are
/// most of the cost of publishing.
public protocol CanonicalPayload: Encodable {
    func writeCanonicalJSON(into output: inout [UInt8])
}

/// Writes one object member by member, in the order given, which the caller
/// keeps sorted: `{"a":…,"b":…}`.
public struct CanonicalObjectWriter {
    private var first = true

    public init(into output: inout [UInt8]) {
        output.append(UInt8(ascii: "{"))
    }

    public mutating func key(_ key: StaticString, into output: inout [UInt8]) {
        if !first { output.append(UInt8(ascii: ",")) }
        first = false
        output.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { output.append(contentsOf: $0) }
        output.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    }

    public mutating func string(_ key: StaticString, _ value: String?, into output: inout [UInt8]) {
        guard let value else { return }
        self.key(key, into: &output)
        CanonicalJSONWriter.write(value, into: &output)
    }

    /// An optional JSON value, written canonically.
    public mutating func value(_ key: StaticString, _ value: JSONValue?, into output: inout [UInt8]) {
        guard let value else { return }
        self.key(key, into: &output)
        CanonicalJSONWriter.write(value, into: &output)
    }

    public mutating func bool(_ key: StaticString, _ value: Bool?, into output: inout [UInt8]) {
        guard let value else { return }
        self.key(key, into: &output)
        output.append(contentsOf: value ? Array("true".utf8) : Array("false".utf8))
    }

    /// An optional array, each element written by `element` (an empty array is written).
    public mutating func array<Element>(
        _ key: StaticString, _ values: [Element]?, into output: inout [UInt8],
        _ element: (Element, inout [UInt8]) -> Void
    ) {
        guard let values else { return }
        self.key(key, into: &output)
        output.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { output.append(UInt8(ascii: ",")) }
            element(value, &output)
        }
        output.append(UInt8(ascii: "]"))
    }

    /// An optional array of strings, `["a","b"]`.
    public mutating func strings(_ key: StaticString, _ values: [String]?, into output: inout [UInt8]) {
        array(key, values, into: &output) { CanonicalJSONWriter.write($0, into: &$1) }
    }

    /// An integer member, in decimal as the encoder writes `Int`.
    public mutating func integer(_ key: StaticString, _ value: Int, into output: inout [UInt8]) {
        self.key(key, into: &output)
        output.append(contentsOf: String(value).utf8)
    }

    public func close(into output: inout [UInt8]) {
        output.append(UInt8(ascii: "}"))
    }

    /// A string value as canonical JSON (escaped as every other string is).
    public static func write(_ string: String, into output: inout [UInt8]) {
        CanonicalJSONWriter.write(string, into: &output)
    }
}
