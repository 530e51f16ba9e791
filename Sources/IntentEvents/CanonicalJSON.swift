import Foundation

/// One JSON form for everything this pipeline writes: keys sorted, slashes
/// unescaped. Deterministic bytes make event signatures and ids reproducible.
public enum CanonicalJSON {
    /// Foundation's bytes (``foundationEncode(_:)``), written by
    /// ``CanonicalEncoder`` without Foundation's generic encoder: a binding's
    /// digest is computed over this for every payment proposed and checked.
    public static func encode(_ value: some Encodable) -> [UInt8] {
        if let json = value as? JSONValue { return CanonicalJSONWriter.encode(json) }
        // What Foundation cannot encode (a non-finite number) fails as it did.
        guard let bytes = try? CanonicalEncoder.encode(value, style: .foundation) else {
            return foundationEncode(value)
        }
        return bytes
    }

    /// The reference encoding, through Foundation's `JSONEncoder`: what
    /// ``CanonicalJSONWriter`` must reproduce byte for byte.
    static func foundationEncode(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding JSONValue and the pipeline's payload types cannot fail:
        // they hold only strings, numbers, booleans, arrays and objects.
        guard let data = try? encoder.encode(value) else {
            preconditionFailure("canonical JSON encoding of \(type(of: value)) failed")
        }
        return Array(data)
    }
}
