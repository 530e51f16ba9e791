/// Jaro-Winkler similarity (0…1), which rewards a shared beginning: suited to
/// names, where typos and phonetic variants keep the start ("Jonh", "Shchukina"
/// / "Schukina").
enum StringSimilarity {
    /// The highest Jaro-Winkler similarity two strings of these lengths can
    /// reach: lets callers skip pairs that cannot reach a threshold.
    static func upperBound(_ lhsCount: Int, _ rhsCount: Int) -> Double {
        guard lhsCount > 0, rhsCount > 0 else { return 0 }
        let ratio = Double(min(lhsCount, rhsCount)) / Double(max(lhsCount, rhsCount))
        let jaro = (2 + ratio) / 3
        return jaro + 0.4 * (1 - jaro)
    }

    /// Character counts of a spelling, for ``upperBound(_:_:_:_:)``: letters
    /// a–z in slots 0–25, anything else folded into the rest.
    static func histogram(_ bytes: [UInt8]) -> SIMD32<UInt8> {
        var counts = SIMD32<UInt8>(repeating: 0)
        for byte in bytes {
            let slot = byte >= 97 && byte <= 122 ? Int(byte - 97) : 26 + Int(byte % 6)
            counts[slot] &+= 1
        }
        return counts
    }

    /// A tighter bound from shared characters: Jaro-Winkler can count at most
    /// as many matches as the two strings have characters in common.
    static func upperBound(
        _ lhsCount: Int, _ lhsHistogram: SIMD32<UInt8>, _ rhsCount: Int, _ rhsHistogram: SIMD32<UInt8>
    ) -> Double {
        guard lhsCount > 0, rhsCount > 0 else { return 0 }
        let common = Double(pointwiseMin(lhsHistogram, rhsHistogram).wrappedSum())
        let jaro = (common / Double(lhsCount) + common / Double(rhsCount) + 1) / 3
        return jaro + 0.4 * (1 - jaro)
    }

    /// On UTF-8 bytes (spellings are ASCII), without allocating per call
    /// beyond two small flag buffers on the stack.
    static func jaroWinkler(_ a: [UInt8], _ b: [UInt8]) -> Double {
        if a == b { return 1 }
        if a.isEmpty || b.isEmpty { return 0 }
        return withUnsafeTemporaryAllocation(of: Bool.self, capacity: a.count + b.count) { flags in
            flags.initialize(repeating: false)
            let window = max(0, max(a.count, b.count) / 2 - 1)
            var matches = 0
            for i in a.indices {
                let start = max(0, i - window)
                let end = min(b.count - 1, i + window)
                guard start <= end else { continue }
                for j in start...end where !flags[a.count + j] && a[i] == b[j] {
                    flags[i] = true
                    flags[a.count + j] = true
                    matches += 1
                    break
                }
            }
            guard matches > 0 else { return 0 }
            var transpositions = 0
            var j = 0
            for i in a.indices where flags[i] {
                while !flags[a.count + j] { j += 1 }
                if a[i] != b[j] { transpositions += 1 }
                j += 1
            }
            let m = Double(matches)
            let jaro = (m / Double(a.count) + m / Double(b.count) + (m - Double(transpositions) / 2) / m) / 3
            var prefix = 0
            while prefix < min(4, a.count, b.count), a[prefix] == b[prefix] { prefix += 1 }
            return jaro + Double(prefix) * 0.1 * (1 - jaro)
        }
    }
}
