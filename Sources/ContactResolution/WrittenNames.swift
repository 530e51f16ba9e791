/// A contact's full name as written, in its own script: the display name, and
/// the given and family names put together ("Katherine Smith", "Smith
/// Katherine", "张伟"). Not a transliteration: "Zhang Wei" is how 张伟 and 章伟
/// are both spelled, but it is the written name of neither.
///
/// Compared after the normalization every query gets: surrounding whitespace
/// trimmed, runs of whitespace inside made one space, and letters lowercased
/// (case only exists in scripts such as Latin and Cyrillic; Han is unchanged).
/// Diacritics count: "José" is written otherwise than "Jose". Han characters
/// are compared in simplified form (``HanScript``): 張偉 is written as 张伟 is,
/// so it is that contact's written name, and not 章伟's.
enum WrittenNames {
    /// The forms under which a contact's whole name is written.
    static func of(_ contact: Contact) -> Set<String> {
        var names = [contact.displayName]
        if let given = contact.givenName, let family = contact.familyName {
            names += ["\(given) \(family)", "\(family) \(given)", "\(family)\(given)"]
        }
        return Set(names.map(form).filter { !$0.isEmpty })
    }

    /// A written name (or a spoken phrase) in the form names are compared in.
    static func form(_ text: String) -> String {
        HanScript.simplified(text.split(whereSeparator: \.isWhitespace).joined(separator: " ").lowercased())
    }
}
