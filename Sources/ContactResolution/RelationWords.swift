import Foundation

/// What people say for family and close relations, in English, Chinese and
/// Russian, mapped to the relation a contact is tagged with. "my", "mein",
/// "мой/моя", "我的" are stripped before lookup.
enum RelationWords {
    static let canonical: [String: String] = {
        var table: [String: String] = [:]
        for (relation, words) in groups {
            for word in words { table[word] = relation }
        }
        return table
    }()

    private static let groups: [(String, [String])] = [
        (
            "mother",
            ["mother", "mom", "mum", "mommy", "mummy", "ma", "mama", "妈妈", "妈", "母亲", "мама", "мать", "мамочка"]
        ),
        ("father", ["father", "dad", "daddy", "papa", "pa", "爸爸", "爸", "父亲", "папа", "отец"]),
        ("sister", ["sister", "sis", "姐姐", "妹妹", "姐", "妹", "сестра", "сестрёнка"]),
        ("brother", ["brother", "bro", "哥哥", "弟弟", "哥", "弟", "брат", "братишка"]),
        ("wife", ["wife", "wifey", "老婆", "妻子", "жена"]),
        ("husband", ["husband", "hubby", "老公", "丈夫", "муж"]),
        ("partner", ["partner", "girlfriend", "boyfriend", "女朋友", "男朋友", "девушка", "парень"]),
        ("son", ["son", "儿子", "сын"]),
        ("daughter", ["daughter", "女儿", "дочь", "дочка"]),
        ("grandmother", ["grandmother", "grandma", "granny", "nana", "奶奶", "外婆", "姥姥", "бабушка"]),
        ("grandfather", ["grandfather", "grandpa", "爷爷", "外公", "姥爷", "дедушка"]),
        ("boss", ["boss", "manager", "老板", "领导", "начальник", "шеф"]),
    ]

    private static let possessives = ["my ", "我的", "мой ", "моя ", "моей ", "моему "]

    /// The relation a spoken phrase names, if it names one ("my sister" → "sister").
    static func relation(in spoken: String) -> String? {
        var phrase = spoken.trimmingWhitespaceAndNewlines.lowercased()
        for possessive in possessives where phrase.hasPrefix(possessive) {
            phrase = String(phrase.dropFirst(possessive.count)).trimmingCharacters(in: .whitespaces)
        }
        return canonical[phrase]
    }

    /// A contact's relation tag in canonical form ("Mom" → "mother").
    static func canonicalRelation(_ tag: String) -> String {
        let lowered = tag.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        return canonical[lowered] ?? lowered
    }
}
