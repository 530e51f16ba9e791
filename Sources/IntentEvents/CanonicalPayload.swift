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
///
/// Inlinable: the payloads that use it are in other modules, where a generic member
/// (``array(_:_:into:_:)``) ran unspecialized, looking its metadata up per record (3% of a
/// payments worker, writing each ledger event's entries).
public struct CanonicalObjectWriter {
    @usableFromInline var first = true

    @inlinable
    public init(into output: inout [UInt8]) {
        output.append(UInt8(ascii: "{"))
    }

    @inlinable
    public mutating func key(_ key: StaticString, into output: inout [UInt8]) {
        if !first { output.append(UInt8(ascii: ",")) }
        first = false
        output.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { output.append(contentsOf: $0) }
        output.append(UInt8(ascii: "\""))
        output.append(UInt8(ascii: ":"))
    }

    @inlinable
    public mutating func string(_ key: StaticString, _ value: String?, into output: inout [UInt8]) {
        guard let value else { return }
        self.key(key, into: &output)
        CanonicalJSONWriter.write(value, into: &output)
    }

    /// A string whose contents `write` appends straight into `output`, for text with nothing
    /// to escape (a number's or a time's digits, signs, points), with no string in between.
    @inlinable
    public mutating func unescapedString(
        _ key: StaticString, into output: inout [UInt8], _ write: (inout [UInt8]) -> Void
    ) {
        self.key(key, into: &output)
        output.append(UInt8(ascii: "\""))
        write(&output)
        output.append(UInt8(ascii: "\""))
    }

    /// An optional time, as its ``Timestamp/description`` (digits, `-`, `:`, `T`, `.` and `Z`).
    @inlinable
    public mutating func time(_ key: StaticString, _ value: Timestamp?, into output: inout [UInt8]) {
        guard let value else { return }
        unescapedString(key, into: &output) { value.appendDescription(to: &$0) }
    }

    /// An optional JSON value, written canonically.
    @inlinable
    public mutating func value(_ key: StaticString, _ value: JSONValue?, into output: inout [UInt8]) {
        guard let value else { return }
        self.key(key, into: &output)
        CanonicalJSONWriter.write(value, into: &output)
    }

    @inlinable
    public mutating func bool(_ key: StaticString, _ value: Bool?, into output: inout [UInt8]) {
        guard let value else { return }
        self.key(key, into: &output)
        output.append(contentsOf: value ? "true".utf8 : "false".utf8)
    }

    /// An optional array, each element written by `element` (an empty array is written).
    @inlinable
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
    @inlinable
    public mutating func strings(_ key: StaticString, _ values: [String]?, into output: inout [UInt8]) {
        array(key, values, into: &output) { CanonicalJSONWriter.write($0, into: &$1) }
    }

    /// An integer member, in decimal as the encoder writes `Int`.
    @inlinable
    public mutating func integer(_ key: StaticString, _ value: Int, into output: inout [UInt8]) {
        self.key(key, into: &output)
        output.append(contentsOf: String(value).utf8)
    }

    @inlinable
    public func close(into output: inout [UInt8]) {
        output.append(UInt8(ascii: "}"))
    }

    /// A string value as canonical JSON (escaped as every other string is).
    @inlinable
    public static func write(_ string: String, into output: inout [UInt8]) {
        CanonicalJSONWriter.write(string, into: &output)
    }
}
