import Foundation
import Synchronization

/// Turns a name in any script into the Latin spellings people use for it, so
/// that 孙波, "Sun Bo", "sunbo" and "Bo Sun" meet, as do Юлия Щукина, "Yulia
/// Shchukina" and "Iuliia Shchukina".
///
/// Spellings are lowercase ASCII words separated by single spaces. For Han
/// names: toneless pinyin with surname readings, surname-first and
/// given-name-first, spaced and joined, read from the simplified form
/// (``HanScript``: 張偉 is spelled as 张伟). For Cyrillic: several
/// transliteration schemes, because people write Russian names in whichever
/// one their documents used.
enum NameSpellings {
    static func of(_ name: String) -> Set<String> {
        let trimmed = name.trimmingWhitespaceAndNewlines
        guard !trimmed.isEmpty else { return [] }
        var spellings: Set<String> = []
        if trimmed.unicodeScalars.contains(where: HanScript.isHan) {
            // In simplified characters, which surname readings are written in (單 is 单, Shan).
            spellings.formUnion(hanSpellings(HanScript.simplified(trimmed)))
        }
        if trimmed.unicodeScalars.contains(where: isCyrillic) {
            spellings.formUnion(cyrillicSpellings(trimmed))
        }
        if trimmed.unicodeScalars.allSatisfy({ HanScript.isHan($0) || $0.properties.isWhitespace }) {
            // What ICU's Any-Latin gives a name all in characters, each
            // character's reading as written (乾 is qian, its simplified 干 gan),
            // read from the table instead of ICU.
            spellings.insert(trimmed.filter { !$0.isWhitespace }.map { pinyin(String($0)) }.joined(separator: " "))
        } else if !trimmed.unicodeScalars.contains(where: isCyrillic)
            || trimmed.contains(where: { $0.isASCII && $0.isLetter })
        {
            // ICU's generic Cyrillic romanization (ISO 9: Щукина → ŝukina → "sukina")
            // loses letters the schemes above keep, so it is only for other scripts.
            spellings.insert(normalizedLatin(trimmed))
        }
        return Set(spellings.filter { !$0.isEmpty })
    }

    /// Lowercase ASCII words: diacritics removed, punctuation dropped, spaces collapsed.
    static func normalizedLatin(_ text: String) -> String {
        var text = withoutApostrophes(text)
        // Scientific and ISO 9 transliterations mark Russian sounds with
        // diacritics that plain folding would drop (š is sh, not s).
        if text.contains(where: { latinDigraphs[$0] != nil }) {
            text = String(text.flatMap { latinDigraphs[$0] ?? String($0) })
        }
        // Plain ASCII needs no ICU round trip, which dominates the cost of a query.
        let ascii =
            text.utf8.allSatisfy { $0 < 0x80 }
            ? text.lowercased()
            : text.applyingTransform(StringTransform("Any-Latin; Latin-ASCII; Lower"), reverse: false)
                ?? text.lowercased()
        return words(ascii).joined(separator: " ")
    }

    private static let latinDigraphs: [Character: String] = [
        "š": "sh", "Š": "sh", "č": "ch", "Č": "ch", "ž": "zh", "Ž": "zh", "ŝ": "shch", "Ŝ": "shch", "ë": "yo",
        "Ë": "yo", "û": "yu", "Û": "yu", "â": "ya", "Â": "ya",
    ]

    /// Apostrophes and the soft/hard-sign marks some transliterations use.
    private static let apostrophes: Set<Character> = ["'", "’", "ʹ", "ʺ", "`", "ʼ", "\""]

    /// Apostrophes join, not split: "O'Brien" is "obrien", BGN's "Sof'ya" is "sofya".
    static func withoutApostrophes(_ text: String) -> String {
        text.contains(where: apostrophes.contains) ? text.filter { !apostrophes.contains($0) } : text
    }

    static func words(_ text: String) -> [String] {
        text.split { !$0.isLetter && !$0.isNumber }.map { String($0) }
    }

    // MARK: Han

    private static func hanSpellings(_ name: String) -> Set<String> {
        let characters = Array(name.filter { !$0.isWhitespace })
        let syllables = characters.map { pinyin(String($0)) }
        guard !syllables.isEmpty else { return [] }
        // The surname reading, and how many characters the surname has.
        var surname = syllables[0]
        var surnameLength = 1
        if characters.count >= 3, let reading = SurnameReadings.compound[String(characters[0...1])] {
            surname = reading
            surnameLength = 2
        } else if let reading = SurnameReadings.single[characters[0]] {
            surname = reading
        }
        let given = syllables.dropFirst(surnameLength)
        var spellings: Set<String> = [
            ([surname] + given).joined(separator: " "),
            ([surname] + given).joined(),
            // ICU's own reading too: it may be what the user typed.
            syllables.joined(separator: " "),
        ]
        if !given.isEmpty {
            spellings.insert("\(surname) \(given.joined())")
            spellings.insert("\(given.joined()) \(surname)")
        }
        return spellings
    }

    private static func pinyin(_ text: String) -> String {
        guard text.unicodeScalars.count == 1, let scalar = text.unicodeScalars.first else {
            return transliteratedPinyin(text)
        }
        // Digits and Latin letters beside the characters ("孙42"): what ICU gives, without it.
        if scalar.isASCII { return scalar.properties.isAlphabetic ? text.lowercased() : "" }
        // Han characters from the generated table, with no ICU call: a character
        // ICU has no reading for stays as it is, as ICU left it.
        if HanScript.isHan(scalar) { return HanScript.reading(of: scalar) ?? text }
        // Other scripts' letters beside Han ones (rare): through ICU, read once
        // per process, as ICU builds its transliterator anew on every call.
        if let known = readings.withLock({ $0[scalar] }) { return known }
        let reading = transliteratedPinyin(text)
        readings.withLock { table in
            // A stream of odd scalars starts the table over.
            if table.count >= 50_000 { table.removeAll(keepingCapacity: true) }
            table[scalar] = reading
        }
        return reading
    }

    private static let readings = Mutex<[Unicode.Scalar: String]>([:])

    private static func transliteratedPinyin(_ text: String) -> String {
        (text.applyingTransform(StringTransform("Han-Latin; Latin-ASCII; Lower"), reverse: false) ?? text)
            .filter { $0.isLetter }
    }

    // MARK: Cyrillic

    /// Schemes in common use: BGN/PCGN (Yuliya Shchukina), ICU's ISO 9-like
    /// Any-Latin, and the passport style (Iuliia), plus the forms people type
    /// (Yulia).
    private static func cyrillicSpellings(_ name: String) -> Set<String> {
        var spellings: Set<String> = []
        if let bgn = name.applyingTransform(StringTransform("Russian-Latin/BGN; Latin-ASCII; Lower"), reverse: false) {
            let bgnWords = words(withoutApostrophes(bgn)).joined(separator: " ")
            spellings.insert(bgnWords)
            // Common simplifications of BGN: -iya/-iy endings and "yu"/"ya" written as "iu"/"ia".
            spellings.insert(
                bgnWords.replacingOccurrences(of: "iya", with: "ia").replacingOccurrences(of: "iy", with: "y"))
            spellings.insert(
                bgnWords.replacingOccurrences(of: "iya", with: "ya").replacingOccurrences(of: "iy", with: "i"))
            spellings.insert(
                bgnWords.replacingOccurrences(of: "yu", with: "iu").replacingOccurrences(of: "ya", with: "ia"))
        }
        spellings.insert(passportStyle(name))
        return spellings
    }

    /// Russian passports (ICAO 9303): ю iu, я ia, й i, х kh, ц ts, щ shch, ы y, ъ ie, ё e.
    private static func passportStyle(_ name: String) -> String {
        let table: [Character: String] = [
            "а": "a", "б": "b", "в": "v", "г": "g", "д": "d", "е": "e", "ё": "e", "ж": "zh", "з": "z", "и": "i",
            "й": "i", "к": "k", "л": "l", "м": "m", "н": "n", "о": "o", "п": "p", "р": "r", "с": "s", "т": "t",
            "у": "u", "ф": "f", "х": "kh", "ц": "ts", "ч": "ch", "ш": "sh", "щ": "shch", "ъ": "ie", "ы": "y",
            "ь": "", "э": "e", "ю": "iu", "я": "ia",
        ]
        let latin = name.lowercased().map { table[$0] ?? String($0) }.joined()
        return normalizedLatin(latin)
    }

    private static func isCyrillic(_ scalar: Unicode.Scalar) -> Bool {
        (0x0400...0x04FF).contains(scalar.value)
    }
}
