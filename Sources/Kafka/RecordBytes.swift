#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Equality of a record's byte fields (keys, values, header values) by `memcmp`. Header
/// lists compare with `==`: ``KafkaHeader``'s equality uses this for the values.
///
/// Why: `Array<UInt8>.==` compares element by element through the generic
/// collection path, and the followers compare every record they read back with
/// the one this process produced (a kilobyte of value and seven header values
/// each): that loop was 2.4% of the payments worker's CPU in a profile of
/// `intent-bench pipeline`. Same answer, one call.
public enum RecordBytes {
    /// Whether `lhs` and `rhs` are both absent, or both present with the same bytes.
    public static func equal(_ lhs: [UInt8]?, _ rhs: [UInt8]?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): return true
        case (let lhs?, let rhs?): return equal(lhs, rhs)
        default: return false
        }
    }

    /// Whether `lhs` and `rhs` hold the same bytes.
    public static func equal(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.withUnsafeBytes { lhs in
            rhs.withUnsafeBytes { rhs in
                lhs.count == 0 || memcmp(lhs.baseAddress!, rhs.baseAddress!, lhs.count) == 0
            }
        }
    }
}
