/// A sound-alike key for a Latin spelling, so that transliterations of one
/// name meet: "Yuliya", "Iuliia", "Julija" and "Yulia" all become "ula";
/// "Shchukina", "Ščukina" (folded to "scukina") and "Schukina" become
/// "Sukina" (Щ keeps a letter of its own); "Khrushchev" and "Hruščëv" become "hruSev"; "Tsvetkov" and
/// "Cvetkov" become "cvetkov". It is deliberately lossy: it collapses the
/// letters that transliteration schemes disagree on (i/y/j, the
/// sibilant digraphs, vowel glides), and keeps the rest: a doubled consonant
/// is a typo to confirm, not a transliteration.
/// A match on this key is scored just below an exact spelling.
enum PhoneticKey {
    /// One pass over the bytes of a normalized spelling (lowercase ASCII
    /// words): digraphs first, then i/y/j, then glides. Byte-level because it
    /// runs for every spelling of every query.
    static func of(_ spelling: String) -> String {
        let input = Array(spelling.utf8)
        var letters: [UInt8] = []
        letters.reserveCapacity(input.count + 2)
        var index = 0
        func next(_ offset: Int) -> UInt8 { index + offset < input.count ? input[index + offset] : 0 }
        while index < input.count {
            let (output, consumed) = rewrite(input[index], next(1), next(2), next(3))
            letters.append(contentsOf: output)
            index += consumed
        }
        // Glides: a soft vowel written with a leading i becomes the vowel; a
        // doubled i (from "iy", "ij", "yi") is one sound.
        var key: [UInt8] = []
        key.reserveCapacity(letters.count)
        index = 0
        while index < letters.count {
            let letter = letters[index]
            let following = index + 1 < letters.count ? letters[index + 1] : 0
            if letter == i, following == i {
                index += 1
                continue
            }
            if letter == i, let vowel = glide(following) {
                key.append(vowel)
                index += 2
                continue
            }
            key.append(letter)
            index += 1
        }
        return String(decoding: key, as: UTF8.self)
    }

    private static let (a, c, e, f, h, i, k, o, p, s, t, u, v, w, x, y, j, z) = (
        UInt8(ascii: "a"), UInt8(ascii: "c"), UInt8(ascii: "e"), UInt8(ascii: "f"), UInt8(ascii: "h"),
        UInt8(ascii: "i"), UInt8(ascii: "k"), UInt8(ascii: "o"), UInt8(ascii: "p"), UInt8(ascii: "s"),
        UInt8(ascii: "t"), UInt8(ascii: "u"), UInt8(ascii: "v"), UInt8(ascii: "w"), UInt8(ascii: "x"),
        UInt8(ascii: "y"), UInt8(ascii: "j"), UInt8(ascii: "z")
    )
    /// Щ's own letter: "Shukina" stays another name than "Shchukina".
    private static let shch = UInt8(ascii: "S")

    /// The key letters for the letter at hand, and how many input letters they replace.
    private static func rewrite(_ letter: UInt8, _ second: UInt8, _ third: UInt8, _ fourth: UInt8) -> ([UInt8], Int) {
        switch letter {
        case s:
            if second == h, third == c, fourth == h { return ([shch], 4) }  // shch
            if second == c, third == h { return ([shch], 3) }  // sch
            if second == h, third == h { return ([shch], 3) }  // shh
            if second == c { return ([shch], 2) }  // sc (šč folded)
            if second == h { return ([s], 2) }  // sh
            return ([s], 1)
        case z: return second == h ? ([z], 2) : ([z], 1)  // zh
        case c: return second == h || second == z ? ([c], 2) : ([c], 1)  // ch, cz
        case k: return second == h ? ([h], 2) : ([k], 1)  // kh
        case t:
            if second == c, third == h { return ([c], 3) }  // tch
            if second == s || second == z || second == c { return ([c], 2) }  // ts, tz, tc
            return ([t], 1)
        case p: return second == h ? ([f], 2) : ([p], 1)  // ph
        case x: return ([k, s], 1)
        case w: return ([v], 1)
        case y, j: return ([i], 1)
        default: return ([letter], 1)
        }
    }

    private static func glide(_ vowel: UInt8) -> UInt8? {
        switch vowel {
        case u: u
        case a: a
        case o, e: e
        default: nil
        }
    }
}
