import Foundation

/// Encodes a payload type straight into a ``JSONValue``: the value that
/// Foundation's `JSONEncoder` followed by ``JSONParser`` gives, without the
/// text in between. `JSONValue(encoding:)` and the strict decoding check
/// when a payload was not read entirely go through here; published payloads
/// go straight to bytes through ``CanonicalEncoder``, which must write what
/// this followed by ``CanonicalJSONWriter`` writes.
///
/// Numbers come out as the text round trip would have them: a `Double` that
/// is an integer in `Int64` range is ``JSONValue/integer(_:)``; `Float` goes
/// through its shortest text as Foundation writes it; an unsigned value
/// above `Int64.max` is a ``JSONValue/number(_:)``. `Data`, `URL` and
/// `Decimal`, which Foundation's encoder writes in its own way, are handed
/// to it. `PayloadCodingEquivalenceTests` compares the results.
enum JSONValueEncoder {
    static func encode(_ value: some Encodable) throws -> JSONValue {
        let box = Box()
        try box.store(value, codingPath: [])
        return box.value
    }

    /// A node under construction; objects and arrays are filled in through
    /// references while the containers that write them are alive. Members
    /// and elements that are finished when written (all but nested
    /// containers) are stored as values, without a box of their own.
    final class Box {
        enum Node {
            case value(JSONValue)
            case box(Box)

            var value: JSONValue {
                switch self {
                case .value(let value): value
                case .box(let box): box.value
                }
            }
        }

        enum Content {
            case empty
            case value(JSONValue)
            case object([String: Node])
            case array([Node])
        }

        var content: Content = .empty

        var value: JSONValue {
            switch content {
            case .empty: return .object([:])
            case .value(let value): return value
            case .object(let members): return .object(members.mapValues(\.value))
            case .array(let elements): return .array(elements.map(\.value))
            }
        }

        /// The value of `value` encoded on its own (a member or element being written).
        static func encoded<T: Encodable>(_ value: T, codingPath: [any CodingKey]) throws -> JSONValue {
            let box = Box()
            try box.store(value, codingPath: codingPath)
            return box.value
        }

        func store<T: Encodable>(_ value: T, codingPath: [any CodingKey]) throws {
            if let special = try Self.foundationSpecial(value) {
                content = .value(special)
                return
            }
            try value.encode(to: ValueEncoder(box: self, codingPath: codingPath))
        }

        /// Types Foundation's `JSONEncoder` does not encode through their own
        /// `encode(to:)`: its own result, read back.
        static func foundationSpecial<T: Encodable>(_ value: T) throws -> JSONValue? {
            guard T.self == Data.self || T.self == URL.self || T.self == Decimal.self else { return nil }
            guard case .array(let elements) = try JSONParser.parse(CanonicalJSON.foundationEncode([value])),
                let element = elements.first
            else { throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "unencodable")) }
            return element
        }

        func becomeObject() {
            if case .object = content { return }
            content = .object([:])
        }

        /// Sets an object's member; the content is emptied while the
        /// dictionary is changed so that it is not copied.
        func set(_ key: String, _ node: Node) {
            guard case .object(var members) = content else { preconditionFailure("not an object") }
            content = .empty
            members[key] = node
            content = .object(members)
        }

        func add(_ node: Node) {
            guard case .array(var elements) = content else { preconditionFailure("not an array") }
            content = .empty
            elements.append(node)
            content = .array(elements)
        }

        /// A new box for a nested container, as the member `key`.
        func member(_ key: String) -> Box {
            let child = Box()
            set(key, .box(child))
            return child
        }

        /// A new box for a nested container, as the next element.
        func append() -> Box {
            let child = Box()
            add(.box(child))
            return child
        }

        var count: Int {
            if case .array(let elements) = content { return elements.count }
            if case .object(let members) = content { return members.count }
            return 0
        }
    }

    static func number(_ value: Double, codingPath: [any CodingKey]) throws -> JSONValue {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: codingPath, debugDescription: "Unable to encode \(value) directly in JSON."))
        }
        return Int64(exactly: value).map(JSONValue.integer) ?? .number(value)
    }

    static func integer<T: BinaryInteger>(_ value: T) -> JSONValue {
        Int64(exactly: value).map(JSONValue.integer) ?? .number(Double(value))
    }

    private struct ValueEncoder: Encoder {
        let box: Box
        let codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            box.becomeObject()
            return KeyedEncodingContainer(KeyedContainer<Key>(box: box, codingPath: codingPath))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            if case .array = box.content {} else { box.content = .array([]) }
            return UnkeyedContainer(box: box, codingPath: codingPath)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer {
            SingleValueContainer(box: box, codingPath: codingPath)
        }
    }

    private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let box: Box
        let codingPath: [any CodingKey]

        private func set(_ value: JSONValue, _ key: Key) { box.set(key.stringValue, .value(value)) }

        mutating func encodeNil(forKey key: Key) throws { set(.null, key) }
        mutating func encode(_ value: Bool, forKey key: Key) throws { set(.bool(value), key) }
        mutating func encode(_ value: String, forKey key: Key) throws { set(.string(value), key) }
        mutating func encode(_ value: Double, forKey key: Key) throws {
            set(try JSONValueEncoder.number(value, codingPath: codingPath + [key]), key)
        }
        mutating func encode(_ value: Float, forKey key: Key) throws {
            set(try JSONValueEncoder.number(Double("\(value)") ?? .nan, codingPath: codingPath + [key]), key)
        }
        mutating func encode(_ value: Int, forKey key: Key) throws { set(.integer(Int64(value)), key) }
        mutating func encode(_ value: Int8, forKey key: Key) throws { set(.integer(Int64(value)), key) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { set(.integer(Int64(value)), key) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { set(.integer(Int64(value)), key) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { set(.integer(value), key) }
        mutating func encode(_ value: UInt, forKey key: Key) throws { set(JSONValueEncoder.integer(value), key) }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { set(.integer(Int64(value)), key) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { set(.integer(Int64(value)), key) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { set(.integer(Int64(value)), key) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { set(JSONValueEncoder.integer(value), key) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            box.set(key.stringValue, .value(try Box.encoded(value, codingPath: codingPath + [key])))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
            -> KeyedEncodingContainer<NestedKey>
        {
            let child = box.member(key.stringValue)
            child.becomeObject()
            return KeyedEncodingContainer(KeyedContainer<NestedKey>(box: child, codingPath: codingPath + [key]))
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let child = box.member(key.stringValue)
            child.content = .array([])
            return UnkeyedContainer(box: child, codingPath: codingPath + [key])
        }

        mutating func superEncoder() -> any Encoder {
            ValueEncoder(box: box.member("super"), codingPath: codingPath + [AnyKey("super")])
        }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            ValueEncoder(box: box.member(key.stringValue), codingPath: codingPath + [key])
        }
    }

    private struct UnkeyedContainer: UnkeyedEncodingContainer {
        let box: Box
        let codingPath: [any CodingKey]
        var count: Int { box.count }

        private var nextKey: any CodingKey { AnyKey(index: count) }
        private func add(_ value: JSONValue) { box.add(.value(value)) }

        mutating func encodeNil() throws { add(.null) }
        mutating func encode(_ value: Bool) throws { add(.bool(value)) }
        mutating func encode(_ value: String) throws { add(.string(value)) }
        mutating func encode(_ value: Double) throws {
            add(try JSONValueEncoder.number(value, codingPath: codingPath + [nextKey]))
        }
        mutating func encode(_ value: Float) throws {
            add(try JSONValueEncoder.number(Double("\(value)") ?? .nan, codingPath: codingPath + [nextKey]))
        }
        mutating func encode(_ value: Int) throws { add(.integer(Int64(value))) }
        mutating func encode(_ value: Int8) throws { add(.integer(Int64(value))) }
        mutating func encode(_ value: Int16) throws { add(.integer(Int64(value))) }
        mutating func encode(_ value: Int32) throws { add(.integer(Int64(value))) }
        mutating func encode(_ value: Int64) throws { add(.integer(value)) }
        mutating func encode(_ value: UInt) throws { add(JSONValueEncoder.integer(value)) }
        mutating func encode(_ value: UInt8) throws { add(.integer(Int64(value))) }
        mutating func encode(_ value: UInt16) throws { add(.integer(Int64(value))) }
        mutating func encode(_ value: UInt32) throws { add(.integer(Int64(value))) }
        mutating func encode(_ value: UInt64) throws { add(JSONValueEncoder.integer(value)) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            box.add(.value(try Box.encoded(value, codingPath: codingPath + [nextKey])))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
            -> KeyedEncodingContainer<NestedKey>
        {
            let path = codingPath + [nextKey]
            let child = box.append()
            child.becomeObject()
            return KeyedEncodingContainer(KeyedContainer<NestedKey>(box: child, codingPath: path))
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let path = codingPath + [nextKey]
            let child = box.append()
            child.content = .array([])
            return UnkeyedContainer(box: child, codingPath: path)
        }

        mutating func superEncoder() -> any Encoder {
            let path = codingPath + [nextKey]
            return ValueEncoder(box: box.append(), codingPath: path)
        }
    }

    private struct SingleValueContainer: SingleValueEncodingContainer {
        let box: Box
        let codingPath: [any CodingKey]

        mutating func encodeNil() throws { box.content = .value(.null) }
        mutating func encode(_ value: Bool) throws { box.content = .value(.bool(value)) }
        mutating func encode(_ value: String) throws { box.content = .value(.string(value)) }
        mutating func encode(_ value: Double) throws {
            box.content = .value(try JSONValueEncoder.number(value, codingPath: codingPath))
        }
        mutating func encode(_ value: Float) throws {
            box.content = .value(try JSONValueEncoder.number(Double("\(value)") ?? .nan, codingPath: codingPath))
        }
        mutating func encode(_ value: Int) throws { box.content = .value(.integer(Int64(value))) }
        mutating func encode(_ value: Int8) throws { box.content = .value(.integer(Int64(value))) }
        mutating func encode(_ value: Int16) throws { box.content = .value(.integer(Int64(value))) }
        mutating func encode(_ value: Int32) throws { box.content = .value(.integer(Int64(value))) }
        mutating func encode(_ value: Int64) throws { box.content = .value(.integer(value)) }
        mutating func encode(_ value: UInt) throws { box.content = .value(JSONValueEncoder.integer(value)) }
        mutating func encode(_ value: UInt8) throws { box.content = .value(.integer(Int64(value))) }
        mutating func encode(_ value: UInt16) throws { box.content = .value(.integer(Int64(value))) }
        mutating func encode(_ value: UInt32) throws { box.content = .value(.integer(Int64(value))) }
        mutating func encode(_ value: UInt64) throws { box.content = .value(JSONValueEncoder.integer(value)) }
        mutating func encode<T: Encodable>(_ value: T) throws { try box.store(value, codingPath: codingPath) }
    }
}

/// A coding key for array positions and `super`, in coding paths.
struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(_ string: String) {
        stringValue = string
        intValue = nil
    }

    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }

    init?(stringValue: String) { self.init(stringValue) }
    init?(intValue: Int) { self.init(index: intValue) }
}
