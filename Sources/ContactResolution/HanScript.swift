import Foundation

/// Simplified and traditional characters are two ways of writing one name
/// (張偉 and 张伟, 歐陽 and 欧阳): which one a query arrives in depends on the
/// user's input method or region, not on who they mean. Names are therefore
/// compared in simplified characters, on both sides: the book's names once
/// per book (``NameSpellings``, ``WrittenNames``), a query when it is read.
///
/// Through ICU's `Hant-Hans` transform (Foundation's `applyingTransform`),
/// which works on Linux with Swift 6.3.1 (checked: 張偉 → 张伟, 蕭 → 萧,
/// 鍾 → 钟, 歐陽 → 欧阳, 單 → 单). Only that direction: traditional to
/// simplified is many-to-one (鍾 and 鐘 are both 钟), so folding to simplified
/// puts every written form of a name in one place, where `Hans-Hant` would
/// have to guess which traditional character was meant.
enum HanScript {
    /// `text` with traditional characters written as simplified ones; text
    /// without Han characters is returned as it is, without calling ICU.
    static func simplified(_ text: String) -> String {
        // Most names are already simplified (or not Han at all): those skip ICU,
        // whose transliterator is built anew on every call.
        guard text.unicodeScalars.contains(where: traditional.contains) else { return text }
        return text.applyingTransform(StringTransform("Hant-Hans"), reverse: false) ?? text
    }

    /// The Han characters `Hant-Hans` changes, found once by passing every
    /// character of the Han blocks through it (one ICU call, at first use).
    private static let traditional: Set<Unicode.Scalar> = {
        let blocks = Array(0x3400...0x4DBF) + Array(0x4E00...0x9FFF)
        let scalars = blocks.compactMap { Unicode.Scalar(UInt32($0)) }
        // Separated by newlines, so each character is transformed on its own.
        let text = scalars.map { String($0) }.joined(separator: "\n")
        guard let converted = text.applyingTransform(StringTransform("Hant-Hans"), reverse: false) else { return [] }
        let lines = converted.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count == scalars.count else {
            // Not one line per character: every Han character is sent to ICU.
            return Set(scalars)
        }
        return Set(zip(scalars, lines).filter { String($0.0) != $0.1 }.map(\.0))
    }()

    /// CJK Unified Ideographs and Extension A: the characters names are written in.
    static func isHan(_ scalar: Unicode.Scalar) -> Bool {
        (0x4E00...0x9FFF).contains(scalar.value) || (0x3400...0x4DBF).contains(scalar.value)
    }
}
