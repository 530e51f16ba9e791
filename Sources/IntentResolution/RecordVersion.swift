public import Foundation
public import IntentEvents

/// The version of a directory record (a contact, a user's settings), which only
/// grows per key and is covered by the record's signature: the data's `version`
/// field for a record, the ``header`` (inside the signed deletion message) for a
/// tombstone. Compaction keeps the record appended last, not the newest version,
/// so readers must not trust the order of the log: a validly signed older record
/// re-appended to the topic would otherwise win again.
public enum RecordVersion {
    /// What a record without a version (an older writer's) counts as: any versioned
    /// record beats it.
    public static let unversioned: Int64 = 0

    /// The header carrying a tombstone's version (decimal); a record's is in its data.
    public static let header = "intent-version"

    /// Whether a record of `version` replaces what a reader holds for its key, `seen`
    /// being the highest version the reader applied for that key (nil: none yet).
    /// Only a higher version does; among unversioned records (older writers, before
    /// versions existed) the last one still wins, as it always did, until a versioned
    /// record was seen for the key.
    public static func supersedes(_ version: Int64, seen: Int64?) -> Bool {
        guard let seen else { return true }
        if version == unversioned, seen == unversioned { return true }
        return version > seen
    }

    /// A publisher's default version: the time in milliseconds since 1970. It grows
    /// as long as one writer publishes a key at most once per millisecond and its
    /// clock does not step back; several writers of one key must pass versions.
    public static func fromClock(_ now: Date = Date()) -> Int64 {
        Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// Reads a tombstone's ``header``: absent is ``unversioned``; otherwise a decimal
    /// from 1 to `Int64.max`, else the record is malformed.
    public static func parseHeader(_ text: String?) throws(EventDecodingError) -> Int64 {
        guard let text else { return unversioned }
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let version = Int64(text),
            version >= 1
        else {
            throw EventDecodingError(.schemaInvalid, field: header, "expected a version from 1 up, got \(text)")
        }
        return version
    }

    /// Checks a record's `version` field: absent is ``unversioned``; present must be 1 or more.
    static func check(_ version: Int64?, field: String = "$.data.version") throws(EventDecodingError) -> Int64 {
        guard let version else { return unversioned }
        guard version >= 1 else { throw EventDecodingError(.schemaInvalid, field: field, "a version is 1 or more") }
        return version
    }
}

/// What a reader did with a directory record.
public enum DirectoryChange: Sendable, Hashable {
    /// Applied: it is now what the reader holds for its key.
    case applied
    /// Ignored: the reader had applied version `seen` for its key, and `version` does
    /// not supersede it (``RecordVersion/supersedes(_:seen:)``): a replay or a late writer.
    case stale(version: Int64, seen: Int64)
}

/// A directory record's data: the payload's fields and, beside them, `version`
/// (absent for an unversioned record), so the envelope's signature covers it.
struct Versioned<Payload: Codable & Sendable & Hashable>: Codable, Sendable, Hashable {
    var payload: Payload
    var version: Int64?

    private enum Key: String, CodingKey { case version }

    init(_ payload: Payload, version: Int64?) {
        self.payload = payload
        self.version = version
    }

    init(from decoder: any Decoder) throws {
        payload = try Payload(from: decoder)
        version = try decoder.container(keyedBy: Key.self).decodeIfPresent(Int64.self, forKey: .version)
    }

    func encode(to encoder: any Encoder) throws {
        try payload.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encodeIfPresent(version, forKey: .version)
    }
}
