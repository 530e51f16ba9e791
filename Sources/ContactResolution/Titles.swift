/// Titles and honorifics said with a name ("Dr. Pemberton", "господин Орлов",
/// 王老师, 老王), from `Resources/titles.txt`. The resolver strips them and
/// reads what remains as a surname first: a title is said with a surname
/// far more often than with a given name, in all three languages.
enum Titles {
    /// A phrase split into its title and the name said with it.
    struct Split: Equatable {
        var name: String
        /// Whether the title may stand before a full name or a given name as
        /// well as before a surname. Chinese 老 and 小 are only said with a
        /// surname (老王): 小明 is a given name, not 明 with a title.
        var surnameOnly: Bool
    }

    private struct Table {
        var latinBefore: Set<String> = []
        var hanBefore: [String] = []
        var hanAfter: [String] = []
    }

    private static let table: Table = {
        var table = Table()
        for line in ResourceTables.lines(of: "titles") {
            let fields = line.split(whereSeparator: \.isWhitespace)
            guard fields.count == 3 else {
                preconditionFailure("Resources/titles.txt: expected `position language title`, got \(line)")
            }
            let title = String(fields[2]).lowercased()
            switch (fields[0], fields[1]) {
            case ("before", "zh"): table.hanBefore.append(title)
            case ("after", "zh"): table.hanAfter.append(title)
            case ("before", _): table.latinBefore.insert(title)
            default: preconditionFailure("Resources/titles.txt: no titles after a Latin or Cyrillic name: \(line)")
            }
        }
        // Longest first: 张总经理 is 张 with 总经理, not 张总 with 经理.
        table.hanAfter.sort { $0.count > $1.count }
        return table
    }()

    /// The name said with a title, if the phrase has one and something besides it.
    /// `phrase` is in ``WrittenNames/form(_:)`` (lowercased, simplified characters).
    /// Whether a phrase (as spoken, trimmed) may hold a title, checked without
    /// allocating: most phrases that reach the title rule are typos and strangers.
    static func mayHaveTitle(_ phrase: String) -> Bool {
        if let last = phrase.unicodeScalars.last, HanScript.isHan(last) { return true }
        guard let space = phrase.firstIndex(where: \.isWhitespace) else { return false }
        var first = phrase[..<space]
        if first.hasSuffix(".") { first = first.dropLast() }
        return first.count <= longestLatin && table.latinBefore.contains(first.lowercased())
    }

    private static let longestLatin = table.latinBefore.map(\.count).max() ?? 0

    static func split(_ phrase: String) -> Split? {
        let words = phrase.split(separator: " ")
        if words.count >= 2 {
            var first = words[0]
            if first.hasSuffix(".") { first = first.dropLast() }
            if table.latinBefore.contains(String(first)) {
                return Split(name: words.dropFirst().joined(separator: " "), surnameOnly: false)
            }
        }
        // Chinese titles go with a name in characters, written without spaces
        // ("明 王42" is no 小 + surname); a title alone (老师 begins with 老) names nobody.
        guard phrase.unicodeScalars.allSatisfy(HanScript.isHan), !table.hanAfter.contains(phrase) else {
            return nil
        }
        for title in table.hanAfter where phrase.count > title.count && phrase.hasSuffix(title) {
            return Split(name: String(phrase.dropLast(title.count)).trimmingWhitespaceAndNewlines, surnameOnly: false)
        }
        for title in table.hanBefore where phrase.count > title.count && phrase.hasPrefix(title) {
            return Split(name: String(phrase.dropFirst(title.count)).trimmingWhitespaceAndNewlines, surnameOnly: true)
        }
        return nil
    }
}
