import Foundation

@testable import IntentEvents

/// The payload decoder as it was before it tracked what it read and built
/// coding paths lazily, kept as the reference its replacement must match
/// (same values, same errors, same messages): `StrictDecodingEquivalenceTests`.
enum LegacyJSONValueDecoder {
    static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try ValueDecoder(value: value, codingPath: []).decodeValue(T.self)
    }

    static func typeMismatch<T>(_ type: T.Type, _ value: JSONValue, _ codingPath: [any CodingKey]) -> DecodingError {
        .typeMismatch(
            type,
            .init(
                codingPath: codingPath,
                debugDescription: "Expected to decode \(type) but found \(value.typeName) instead."))
    }

    static func integer<T: FixedWidthInteger>(_ type: T.Type, _ value: JSONValue, _ codingPath: [any CodingKey]) throws
        -> T
    {
        let result: T?
        switch value {
        case .integer(let integer): result = T(exactly: integer)
        case .number(let number): result = T(exactly: number)
        default: throw typeMismatch(type, value, codingPath)
        }
        guard let result else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath, debugDescription: "Number is not representable in Swift as \(type)."))
        }
        return result
    }

    static func double(_ value: JSONValue, _ codingPath: [any CodingKey]) throws -> Double {
        switch value {
        case .integer(let integer): return Double(integer)
        case .number(let number): return number
        default: throw typeMismatch(Double.self, value, codingPath)
        }
    }

    static func float(_ value: JSONValue, _ codingPath: [any CodingKey]) throws -> Float {
        let double = try double(value, codingPath)
        guard abs(double) <= Double(Float.greatestFiniteMagnitude) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath, debugDescription: "Number does not fit in Float."))
        }
        return Float(double)
    }

    static func bool(_ value: JSONValue, _ codingPath: [any CodingKey]) throws -> Bool {
        guard case .bool(let bool) = value else { throw typeMismatch(Bool.self, value, codingPath) }
        return bool
    }

    static func string(_ value: JSONValue, _ codingPath: [any CodingKey]) throws -> String {
        guard case .string(let string) = value else { throw typeMismatch(String.self, value, codingPath) }
        return string
    }

    fileprivate struct ValueDecoder: Decoder {
        let value: JSONValue
        let codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
            if T.self == Data.self || T.self == URL.self || T.self == Decimal.self {
                // Foundation's own reading of the value, as text.
                let text = CanonicalJSON.encode(JSONValue.array([value]))
                do {
                    return try JSONDecoder().decode([T].self, from: Data(text))[0]
                } catch DecodingError.typeMismatch(let type, let context) {
                    throw DecodingError.typeMismatch(
                        type, .init(codingPath: codingPath, debugDescription: context.debugDescription))
                } catch DecodingError.dataCorrupted(let context) {
                    throw DecodingError.dataCorrupted(
                        .init(codingPath: codingPath, debugDescription: context.debugDescription))
                }
            }
            return try T(from: self)
        }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            guard case .object(let members) = value else {
                throw LegacyJSONValueDecoder.typeMismatch([String: Any].self, value, codingPath)
            }
            return KeyedDecodingContainer(KeyedContainer<Key>(members: members, codingPath: codingPath))
        }

        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            guard case .array(let elements) = value else {
                throw LegacyJSONValueDecoder.typeMismatch([Any].self, value, codingPath)
            }
            return UnkeyedContainer(elements: elements, codingPath: codingPath)
        }

        func singleValueContainer() throws -> any SingleValueDecodingContainer { self }
    }

    private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let members: [String: JSONValue]
        let codingPath: [any CodingKey]

        var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

        private func member(_ key: Key) throws -> JSONValue {
            guard let value = members[key.stringValue] else {
                throw DecodingError.keyNotFound(
                    key,
                    .init(
                        codingPath: codingPath,
                        debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
            }
            return value
        }

        private func decoder(_ key: Key) throws -> ValueDecoder {
            ValueDecoder(value: try member(key), codingPath: codingPath + [key])
        }

        func decodeNil(forKey key: Key) throws -> Bool { try member(key) == .null }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
            try LegacyJSONValueDecoder.bool(member(key), codingPath + [key])
        }
        func decode(_ type: String.Type, forKey key: Key) throws -> String {
            try LegacyJSONValueDecoder.string(member(key), codingPath + [key])
        }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
            try LegacyJSONValueDecoder.double(member(key), codingPath + [key])
        }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
            try LegacyJSONValueDecoder.float(member(key), codingPath + [key])
        }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(key) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(key) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(key) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(key) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(key) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(key) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(key) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(key) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(key) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(key) }
        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try decoder(key).decodeValue(T.self)
        }

        private func integer<T: FixedWidthInteger>(_ key: Key) throws -> T {
            try LegacyJSONValueDecoder.integer(T.self, member(key), codingPath + [key])
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            try decoder(key).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try decoder(key).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder {
            ValueDecoder(value: members["super"] ?? .null, codingPath: codingPath + [AnyKey("super")])
        }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            ValueDecoder(value: members[key.stringValue] ?? .null, codingPath: codingPath + [key])
        }
    }

    private struct UnkeyedContainer: UnkeyedDecodingContainer {
        let elements: [JSONValue]
        let codingPath: [any CodingKey]
        var currentIndex = 0

        init(elements: [JSONValue], codingPath: [any CodingKey]) {
            self.elements = elements
            self.codingPath = codingPath
        }

        var count: Int? { elements.count }
        var isAtEnd: Bool { currentIndex >= elements.count }

        private mutating func next<T>(_ type: T.Type) throws -> (JSONValue, [any CodingKey]) {
            let path = codingPath + [AnyKey(index: currentIndex)]
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(
                    type, .init(codingPath: path, debugDescription: "Unkeyed container is at end."))
            }
            defer { currentIndex += 1 }
            return (elements[currentIndex], path)
        }

        mutating func decodeNil() throws -> Bool {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(
                    Any?.self,
                    .init(
                        codingPath: codingPath + [AnyKey(index: currentIndex)],
                        debugDescription: "Unkeyed container is at end."))
            }
            guard elements[currentIndex] == .null else { return false }
            currentIndex += 1
            return true
        }

        mutating func decode(_ type: Bool.Type) throws -> Bool {
            let (value, path) = try next(type)
            return try LegacyJSONValueDecoder.bool(value, path)
        }
        mutating func decode(_ type: String.Type) throws -> String {
            let (value, path) = try next(type)
            return try LegacyJSONValueDecoder.string(value, path)
        }
        mutating func decode(_ type: Double.Type) throws -> Double {
            let (value, path) = try next(type)
            return try LegacyJSONValueDecoder.double(value, path)
        }
        mutating func decode(_ type: Float.Type) throws -> Float {
            let (value, path) = try next(type)
            return try LegacyJSONValueDecoder.float(value, path)
        }
        mutating func decode(_ type: Int.Type) throws -> Int { try integer() }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer() }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer() }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer() }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer() }
        mutating func decode(_ type: UInt.Type) throws -> UInt { try integer() }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer() }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer() }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer() }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer() }
        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let (value, path) = try next(type)
            return try ValueDecoder(value: value, codingPath: path).decodeValue(T.self)
        }

        private mutating func integer<T: FixedWidthInteger>() throws -> T {
            let (value, path) = try next(T.self)
            return try LegacyJSONValueDecoder.integer(T.self, value, path)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            let (value, path) = try next(type)
            return try ValueDecoder(value: value, codingPath: path).container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            let (value, path) = try next([Any].self)
            return try ValueDecoder(value: value, codingPath: path).unkeyedContainer()
        }

        mutating func superDecoder() throws -> any Decoder {
            let (value, path) = try next(Any.self)
            return ValueDecoder(value: value, codingPath: path)
        }
    }
}

extension LegacyJSONValueDecoder.ValueDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool { value == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try LegacyJSONValueDecoder.bool(value, codingPath) }
    func decode(_ type: String.Type) throws -> String { try LegacyJSONValueDecoder.string(value, codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try LegacyJSONValueDecoder.double(value, codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try LegacyJSONValueDecoder.float(value, codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try LegacyJSONValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try LegacyJSONValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try LegacyJSONValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try LegacyJSONValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try LegacyJSONValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try LegacyJSONValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try LegacyJSONValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try LegacyJSONValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try LegacyJSONValueDecoder.integer(type, value, codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try LegacyJSONValueDecoder.integer(type, value, codingPath) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeValue(T.self) }
}
