import Foundation

/// Names found by their UTF-8 bytes as read from a record, without making a string to look
/// them up: an envelope's attribute names and its well-known values are matched here on
/// every record decoded. Names are grouped by length, so a look-up compares the bytes (one
/// `memcmp`) with the one or two names of that length. Not generic, and indexed rather than
/// iterated: in a debug build (the one `make test` gates) a generic or iterated look-up
/// allocated on every call.
struct BytesLookup: Sendable {
    /// By length: each name's bytes and its position in the names given.
    private let byLength: [[(bytes: [UInt8], position: Int)]]

    init(_ names: [String]) {
        var table = [[(bytes: [UInt8], position: Int)]](repeating: [], count: (names.map(\.utf8.count).max() ?? 0) + 1)
        for (position, name) in names.enumerated() { table[name.utf8.count].append((Array(name.utf8), position)) }
        byLength = table
    }

    /// The position (in the names given) of the name whose UTF-8 is `bytes`, if any.
    func position(of bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard bytes.count > 0, bytes.count < byLength.count, let start = bytes.baseAddress else { return nil }
        let candidates = byLength[bytes.count]
        var index = 0
        while index < candidates.count {
            let candidate = candidates[index]
            if candidate.bytes.withUnsafeBufferPointer({ memcmp($0.baseAddress!, start, bytes.count) == 0 }) {
                return candidate.position
            }
            index += 1
        }
        return nil
    }
}
