/// English spelling variants of a given name: the same name written with C
/// or K (Catherine and Katherine, Carl and Karl, Christopher and
/// Kristopher, Eric and Erik, Jacob and Jakob), on top of what
/// ``PhoneticKey`` already folds (ph and f: Stephanie and Stefanie; y and i:
/// Caitlyn and Kaitlin).
///
/// The key is ``PhoneticKey`` of the spelling after a hard C is written as K:
/// before a, o, u, l or r, at the end of a word, in "ck", and "ch" before r or
/// l (the Greek ch of Christopher and Chloe). A soft C (before e, i, y: Cecilia)
/// and the ch of Charles and Rachel keep their letters, so Celia does not meet
/// Kelia. Doubled consonants are not folded: FEBRL's typo'd duplicates (Kirrah
/// for Kirah) show a doubled or single letter is as often a typo as a
/// spelling, and typos are confirmed through the fuzzy match, which already
/// catches them (same first letter).
///
/// Only for names written in the Latin script: in pinyin, c is a ts sound
/// (Cao is not Kao), and Cyrillic names have their own transliteration
/// spellings in ``NameSpellings``.
enum SpellingVariants {
    /// The variant key of a normalized spelling (lowercase ASCII words).
    static func key(_ spelling: String) -> String {
        PhoneticKey.of(hardCAsK(spelling))
    }

    /// Whether a name is written in the Latin script (letters with or without
    /// diacritics), for which English spelling variants make sense.
    static func isLatin(_ name: String) -> Bool {
        name.unicodeScalars.allSatisfy { $0.value < 0x0250 }
    }

    /// Whether a key holds a K: a spelling's key can only meet another
    /// spelling's key that differs from its ``PhoneticKey`` through a K, so
    /// keys without one add nothing to the phonetic match.
    static func hasK(_ key: String) -> Bool {
        key.utf8.contains(k)
    }

    private static let (a, c, h, k, l, o, r, u, space) = (
        UInt8(ascii: "a"), UInt8(ascii: "c"), UInt8(ascii: "h"), UInt8(ascii: "k"), UInt8(ascii: "l"),
        UInt8(ascii: "o"), UInt8(ascii: "r"), UInt8(ascii: "u"), UInt8(ascii: " ")
    )

    /// "catherine" → "katherine", "christopher" → "kristopher", "erick" → "erik",
    /// "eric" → "erik"; "cecilia" and "charles" unchanged.
    static func hardCAsK(_ spelling: String) -> String {
        let input = Array(spelling.utf8)
        guard input.contains(c) else { return spelling }
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            let letter = input[index]
            guard letter == c else {
                output.append(letter)
                index += 1
                continue
            }
            let second = index + 1 < input.count ? input[index + 1] : space
            let third = index + 2 < input.count ? input[index + 2] : space
            switch second {
            case k:  // ck
                output.append(k)
                index += 2
            case h where third == r || third == l:  // chr, chl
                output.append(k)
                index += 2
            case a, o, u, l, r, space:  // hard c, or c ending a word
                output.append(k)
                index += 1
            default:
                output.append(c)
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
