/// Eight bytes at a time over a JSON string's contents: whether any of them ends the plain
/// run a reader or writer is in (a quote, a backslash or a control character), and whether
/// any is outside ASCII.
///
/// Why: every record read and written has its strings scanned byte by byte twice (the
/// parser looking for the closing quote, the canonical writer for what needs escaping), and
/// those loops were the largest single symbols of a stage's decision path after ARC. The
/// tests are the classic word-at-a-time ones (a byte equal to `c`: `haszero(w ^ c*ones)`; a
/// byte below `n`: `(w - n*ones) & ~w & highs`); each is exact as an "any byte" answer,
/// which is all a scan needs: a word that may end the run is read again byte by byte.
enum StringBytesScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// Whether one of the eight bytes is `"`, `\` or below 0x20.
    @inline(__always)
    static func endsPlainRun(_ word: UInt64) -> Bool {
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let zeroQuote = (quote &- ones) & ~quote
        let zeroBackslash = (backslash &- ones) & ~backslash
        let control = (word &- ones &* 0x20) & ~word
        return (zeroQuote | zeroBackslash | control) & highs != 0
    }

    /// Whether any of the bytes OR-ed into `word` is outside ASCII.
    @inline(__always)
    static func hasNonASCII(_ word: UInt64) -> Bool { word & highs != 0 }

    /// The first index at or after `start` from which the plain run of `bytes` may end:
    /// whole words without a quote, backslash or control byte are skipped; `seen` gathers
    /// every skipped byte (OR-ed), for ``hasNonASCII(_:)``.
    @inline(__always)
    static func skipPlainWords(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, seen: inout UInt64) -> Int {
        guard let base = bytes.baseAddress else { return start }
        let raw = UnsafeRawPointer(base)
        var index = start
        while index + 8 <= bytes.count {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            if endsPlainRun(word) { break }
            seen |= word
            index += 8
        }
        return index
    }
}
