/// Finds fields a payload type does not know. Swift's synthesized decoding
/// ignores unknown keys, but the schemas (`additionalProperties: false`)
/// reject them, and a typo such as `"contactId"` must not silently drop the
/// user's answer. Re-encoding the decoded value and comparing keys finds every
/// unknown field, for every payload type, without per-type code.
///
/// `EventEnvelope.decodeData(as:)` runs this only when the decoding did not
/// read every member of the payload exactly once (``JSONValueDecoder``'s
/// read tracking); otherwise no field can be unknown.
enum StrictDecoding {
    /// The JSON path of the first field in `original` that `reencoded` lacks.
    static func firstUnknownField(original: JSONValue, reencoded: JSONValue, path: String = "$") -> String? {
        switch (original, reencoded) {
        case (.object(let given), .object(let known)):
            for key in given.keys.sorted() {
                guard let knownValue = known[key] else { return "\(path).\(key)" }
                if let unknown = firstUnknownField(original: given[key]!, reencoded: knownValue, path: "\(path).\(key)")
                {
                    return unknown
                }
            }
            return nil
        case (.array(let given), .array(let known)):
            for (index, (element, knownElement)) in zip(given, known).enumerated() {
                if let unknown = firstUnknownField(
                    original: element, reencoded: knownElement, path: "\(path)[\(index)]")
                {
                    return unknown
                }
            }
            return nil
        default:
            return nil
        }
    }
}
