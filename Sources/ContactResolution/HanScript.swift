/// Simplified and traditional characters are two ways of writing one name
/// (張偉 and 张伟, 歐陽 and 欧阳): which one a query arrives in depends on the
/// user's input method or region, not on who they mean. Names are therefore
/// compared in simplified characters, on both sides: the book's names once
/// per book (``NameSpellings``, ``WrittenNames``), a query when it is read.
///
/// From a table (`Resources/han-variants.txt`) generated once, offline, from
/// ICU's `Hant-Hans` transform by `scripts/generate_han_tables.swift`, not from
/// ICU at run time: the first run-time use built its answer over the whole Han
/// block through ICU on a cooperative thread while many tests called ICU at
/// once, and the full suite's process crashed with it. Only that direction:
/// traditional to simplified is many-to-one (鍾 and 鐘 are both 钟), so folding
/// to simplified puts every written form of a name in one place, where the
/// reverse would have to guess which traditional character was meant.
///
/// The readings of characters (``reading(of:)``) come from a table generated
/// the same way, from ICU's `Han-Latin`, for the same reason.
enum HanScript {
    /// `text` with traditional characters written as simplified ones; text
    /// without traditional characters is returned as it is.
    static func simplified(_ text: String) -> String {
        // Most names are already simplified (or not Han at all): no new string for
        // those, and no table lookup for a scalar outside the Han blocks.
        guard text.unicodeScalars.contains(where: { isHan($0) && variants[$0] != nil }) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            scalars.append(variants[scalar] ?? scalar)
        }
        return String(scalars)
    }

    /// The toneless pinyin of one Han character (lowercase ASCII letters), or
    /// nil for a character with no reading in the table.
    static func reading(of scalar: Unicode.Scalar) -> String? {
        readings[scalar]
    }

    /// Each traditional character and the simplified one it is written as:
    /// `traditional simplified` lines.
    private static let variants: [Unicode.Scalar: Unicode.Scalar] = {
        var table: [Unicode.Scalar: Unicode.Scalar] = [:]
        for line in ResourceTables.lines(of: "han-variants") {
            let pair = line.split(separator: " ").compactMap {
                $0.unicodeScalars.count == 1 ? $0.unicodeScalars.first : nil
            }
            precondition(pair.count == 2, "Resources/han-variants.txt: \(line) is not two characters")
            table[pair[0]] = pair[1]
        }
        return table
    }()

    /// Each character and its reading: `reading characters` lines.
    private static let readings: [Unicode.Scalar: String] = {
        var table: [Unicode.Scalar: String] = [:]
        for line in ResourceTables.lines(of: "han-readings") {
            let fields = line.split(separator: " ")
            precondition(fields.count == 2, "Resources/han-readings.txt: \(line) is not a reading and characters")
            let reading = String(fields[0])
            for scalar in fields[1].unicodeScalars {
                table[scalar] = reading
            }
        }
        return table
    }()

    /// CJK Unified Ideographs and Extension A: the characters names are written in.
    static func isHan(_ scalar: Unicode.Scalar) -> Bool {
        (0x4E00...0x9FFF).contains(scalar.value) || (0x3400...0x4DBF).contains(scalar.value)
    }
}
