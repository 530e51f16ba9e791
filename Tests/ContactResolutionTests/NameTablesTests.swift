import Testing

@testable import ContactResolution

/// The name tables loaded from the target's resources, and the rules read
/// with them: nicknames, titles, patronymics, script folding, name parts.
@Suite("Name tables and name parts")
struct NameTablesTests {
    @Test("the nickname list is loaded from its resource file")
    func nicknames() {
        // Lines of Resources/nicknames.txt (the public list) and of Resources/diminutives.txt.
        #expect(Nicknames.formalNames["bob"]?.contains("robert") == true)
        #expect(Nicknames.formalNames["zeke"]?.contains("zachariah") == true)
        #expect(Nicknames.formalNames["dima"]?.contains("dmitriy") == true)
        // The header's comment lines are not names.
        #expect(Nicknames.formalNames.keys.allSatisfy { !$0.hasPrefix("#") })
    }

    @Test(
        "titles are split off before and after a name",
        arguments: [
            ("dr. pemberton", Titles.Split(name: "pemberton", surnameOnly: false)),
            ("mrs pemberton", Titles.Split(name: "pemberton", surnameOnly: false)),
            ("господин олег орлов", Titles.Split(name: "олег орлов", surnameOnly: false)),
            ("王老师", Titles.Split(name: "王", surnameOnly: false)),
            ("张总经理", Titles.Split(name: "张", surnameOnly: false)),
            ("老王", Titles.Split(name: "王", surnameOnly: true)),
        ])
    func titleSplit(_ phrase: String, _ expected: Titles.Split) {
        #expect(Titles.split(phrase) == expected)
    }

    @Test(
        "a title alone, or a word that only starts like one, is no title", arguments: ["dr.", "老师", "drake smith", "王"])
    func noTitle(_ phrase: String) {
        #expect(Titles.split(phrase) == nil)
    }

    /// Each patronymic with every form expected for it, written out by hand.
    static let patronymics: [(String, Set<String>)] = [
        ("Иванович", ["иванович", "иваныч"]), ("Николаевич", ["николаевич", "николаич"]),
        ("Сергеевна", ["сергеевна", "сергевна"]), ("Ивановна", ["ивановна", "иванна"]),
        ("Павлович", ["павлович", "павлыч", "палыч"]), ("Михайловна", ["михайловна", "михайлна", "михална"]),
    ]

    @Test("patronymics are said in their contracted forms", arguments: patronymics)
    func patronymicForms(_ patronymic: String, _ expected: Set<String>) {
        #expect(Patronymics.spokenForms(of: patronymic) == expected)
    }

    @Test("traditional characters fold to simplified; other scripts are untouched")
    func simplified() {
        #expect(HanScript.simplified("張偉") == "张伟")
        #expect(HanScript.simplified("歐陽文傑") == "欧阳文杰")
        #expect(HanScript.simplified("张伟") == "张伟")
        #expect(HanScript.simplified("Юлия") == "Юлия")
    }

    @Test("name parts come from the fields, or from the display name's words and their endings")
    func parts() {
        #expect(
            NameParts.of(Contact(id: "a", displayName: "Лапина Тамара Михайловна"))
                == NameParts(given: "Тамара", patronymic: "Михайловна", family: "Лапина"))
        #expect(
            NameParts.of(Contact(id: "b", displayName: "Роман Павлович Гаврилов"))
                == NameParts(given: "Роман", patronymic: "Павлович", family: "Гаврилов"))
        #expect(
            NameParts.of(
                Contact(
                    id: "c", displayName: "Фомин Геннадий Николаевич", givenName: "Геннадий", familyName: "Фомин"))
                == NameParts(given: "Геннадий", patronymic: "Николаевич", family: "Фомин"))
        #expect(
            NameParts.of(
                Contact(id: "d", displayName: "John Fitzgerald Kennedy", givenName: "John", familyName: "Kennedy"))
                == NameParts(given: "John", family: "Kennedy", others: ["Fitzgerald"]))
        #expect(
            NameParts.of(Contact(id: "e", displayName: "张伟", givenName: "伟", familyName: "张"))
                == NameParts(given: "伟", family: "张"))
    }
}
