/// Russian patronymics (Иванович, Сергеевна) and the contracted forms people
/// say them in (Иваныч, Сергевна, Палыч): a Russian is addressed by given
/// name and patronymic ("Роман Павлович", colloquially "Роман Палыч"), and
/// an older acquaintance by the patronymic alone ("Палыч").
///
/// Spoken forms come from four regular contractions of the written ending
/// (-ович → -ыч, -евич → -ич, -овна → -на, -евна → -вна), plus the irregular
/// ones listed in `Resources/patronymics.txt` (Павлович → Палыч).
enum Patronymics {
    /// Whether a word (any case) has the ending of a Russian patronymic,
    /// written in Cyrillic or in Latin transliteration. Many surnames end
    /// alike (Абрамович, Шостакович): callers also use the word's position.
    static func hasPatronymicEnding(_ word: String) -> Bool {
        let lowered = word.lowercased()
        return endings.contains { lowered.hasSuffix($0) }
    }

    private static let endings = [
        "ович", "евич", "ёвич", "овна", "евна", "ична", "ovich", "evich", "ovna", "evna", "ichna",
    ]

    /// The forms a patronymic is said in, the written one included.
    static func spokenForms(of patronymic: String) -> Set<String> {
        let word = patronymic.lowercased()
        var forms: Set<String> = [word]
        for (ending, contracted) in contractions where word.hasSuffix(ending) && word.count > ending.count + 1 {
            forms.insert(String(word.dropLast(ending.count)) + contracted)
            break
        }
        forms.formUnion(irregular[word] ?? [])
        return forms
    }

    /// Longest ending first (-евна before -вна would not matter, -овна before -на does).
    private static let contractions: [(String, String)] = [
        ("ович", "ыч"), ("евич", "ич"), ("ёвич", "ич"), ("овна", "на"), ("евна", "вна"),
    ]

    private static let irregular: [String: Set<String>] = {
        var table: [String: Set<String>] = [:]
        for line in ResourceTables.lines(of: "patronymics") {
            let words = line.split(whereSeparator: \.isWhitespace).map { $0.lowercased() }
            guard words.count >= 2 else {
                preconditionFailure("Resources/patronymics.txt: expected a patronymic and its spoken forms: \(line)")
            }
            table[words[0], default: []].formUnion(words.dropFirst())
        }
        return table
    }()
}
