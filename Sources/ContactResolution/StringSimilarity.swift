/// Jaro-Winkler similarity (0…1), which rewards a shared beginning: suited to
/// names, where typos and phonetic variants keep the start ("Jonh", "Shchukina"
/// / "Schukina").
enum StringSimilarity {
    static func jaroWinkler(_ lhs: String, _ rhs: String) -> Double {
        let a = Array(lhs.utf8)
        let b = Array(rhs.utf8)
        if a == b { return 1 }
        if a.isEmpty || b.isEmpty { return 0 }
        let window = max(0, max(a.count, b.count) / 2 - 1)
        var aMatched = [Bool](repeating: false, count: a.count)
        var bMatched = [Bool](repeating: false, count: b.count)
        var matches = 0
        for i in a.indices {
            let start = max(0, i - window)
            let end = min(b.count - 1, i + window)
            guard start <= end else { continue }
            for j in start...end where !bMatched[j] && a[i] == b[j] {
                aMatched[i] = true
                bMatched[j] = true
                matches += 1
                break
            }
        }
        guard matches > 0 else { return 0 }
        var transpositions = 0
        var j = 0
        for i in a.indices where aMatched[i] {
            while !bMatched[j] { j += 1 }
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
