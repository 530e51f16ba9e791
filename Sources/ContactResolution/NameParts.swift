/// A contact's name as the parts people say, in any order: given name,
/// patronymic, family name, and any other word of the display name (a
/// middle name). "Сидоров Иван Петрович", "Иван Петрович" and "Ivan
/// Sidorov" all name parts of one person, and a query is matched part by
/// part (``ContactResolver``), so the order it comes in does not matter.
///
/// The given and family names are the contact's own fields. Without them, a
/// two-word display name is given + family; a three-word one is given +
/// patronymic + family, or family + given + patronymic (the order of Russian
/// documents and address books), told apart by which word has a patronymic
/// ending (``Patronymics``). A word with that ending beside a given and a
/// family name is the patronymic.
struct NameParts: Equatable {
    var given: String?
    var patronymic: String?
    var family: String?
    /// Other words of the display name.
    var others: [String] = []

    /// One entry per part of the name (the patronymic's spoken forms sharing
    /// its slot), for telling which parts a query's words fill.
    var slots: [[String]] {
        var slots = [given, family].compactMap { $0 }.map { [$0] } + others.map { [$0] }
        if let patronymic { slots.append(Patronymics.spokenForms(of: patronymic).sorted()) }
        return slots
    }

    static func of(_ contact: Contact) -> NameParts {
        var parts = NameParts(given: nonEmpty(contact.givenName), family: nonEmpty(contact.familyName))
        // A given-name field holding the patronymic too ("Иван Петрович").
        if let given = parts.given {
            let words = given.split(whereSeparator: \.isWhitespace).map(String.init)
            if words.count == 2, Patronymics.hasPatronymicEnding(words[1]) {
                (parts.given, parts.patronymic) = (words[0], words[1])
            }
        }
        // Han names are written without spaces: their parts are the fields alone.
        guard !contact.displayName.unicodeScalars.contains(where: HanScript.isHan) else { return parts }
        let words = contact.displayName.split(whereSeparator: \.isWhitespace).map(String.init)
        if parts.given == nil, parts.family == nil {
            if words.count == 2 {
                (parts.given, parts.family) = (words[0], words[1])
                return parts
            }
            if words.count == 3, Patronymics.hasPatronymicEnding(words[1]) {
                (parts.given, parts.patronymic, parts.family) = (words[0], words[1], words[2])
                return parts
            }
            if words.count == 3, Patronymics.hasPatronymicEnding(words[2]) {
                (parts.family, parts.given, parts.patronymic) = (words[0], words[1], words[2])
                return parts
            }
        }
        guard words.count > 1 else { return parts }
        let known = Set([parts.given, parts.patronymic, parts.family].compactMap { $0?.lowercased() })
        for word in words where !known.contains(word.lowercased()) {
            if parts.patronymic == nil, parts.given != nil, parts.family != nil, Patronymics.hasPatronymicEnding(word) {
                parts.patronymic = word
            } else {
                parts.others.append(word)
            }
        }
        return parts
    }

    private static func nonEmpty(_ text: String?) -> String? {
        guard let trimmed = text?.trimmingWhitespaceAndNewlines, !trimmed.isEmpty else { return nil }
        return trimmed
    }
}
