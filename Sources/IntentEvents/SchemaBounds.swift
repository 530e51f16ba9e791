/// A schema's `maxLength` and `maxItems`, checked on a decoded value.
///
/// JSON puts no bound on a string or a list and the decoders read any (within the record's
/// size), so whatever a schema bounds is held to it here, by every reader of that record,
/// before any stage works on it. Lengths count Unicode scalars, as JSON Schema's `maxLength`
/// counts code points. Paths are autoclosures: made only for a refusal, so a value within
/// its bounds (nearly every one) allocates nothing here (the allocation gate counts).
public enum SchemaBounds {
    /// Refuses (`schema_invalid`, naming the field) a list of more than `limit` items.
    public static func check(count: Int, _ limit: Int, at path: @autoclosure () -> String)
        throws(EventDecodingError)
    {
        guard count > limit else { return }
        throw EventDecodingError(.schemaInvalid, field: path(), "\(count) items; the schema allows \(limit)")
    }

    /// Refuses (`schema_invalid`, naming the field) a text of more than `limit` characters.
    public static func check(_ text: String?, _ limit: Int, at path: @autoclosure () -> String)
        throws(EventDecodingError)
    {
        // UTF-8 is never shorter than its scalars: most strings are decided without counting them.
        guard let text, text.utf8.count > limit else { return }
        let length = text.unicodeScalars.count
        guard length > limit else { return }
        throw EventDecodingError(.schemaInvalid, field: path(), "\(length) characters; the schema allows \(limit)")
    }

    /// Refuses a list of more than `count` items or any item of more than `length` characters
    /// (`path[index]`).
    public static func check(
        _ items: [String]?, count: Int, length: Int, at path: @autoclosure () -> String
    ) throws(EventDecodingError) {
        guard let items else { return }
        try check(count: items.count, count, at: path())
        for (index, item) in items.enumerated() { try check(item, length, at: "\(path())[\(index)]") }
    }
}
