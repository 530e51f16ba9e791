import Foundation
import Testing

@testable import ContactResolution

/// Resolver v2: an exact match on the written name wins over the same name's
/// other spellings, and English spelling variants of a given name match.
/// Every expected answer below is written out by hand.
@Suite("Resolver v2: written names and spelling variants")
struct ResolverV2Tests {
    struct Case: Sendable, CustomTestStringConvertible {
        let spoken: String
        let outcome: ResolutionOutcome
        let candidates: [String]
        var testDescription: String { "\"\(spoken)\" → \(outcome.rawValue) \(candidates)" }
    }

    // MARK: The written name wins

    /// 张伟 and 章伟 are both "Zhang Wei"; 李明 is written so by two people, 黎明
    /// (also "Li Ming") by a third. Interaction counts fix the order of the ambiguous answers.
    static let homophones: [Contact] = [
        Contact(id: "zhang-wei", displayName: "张伟", givenName: "伟", familyName: "张", interactionCount: 9),
        Contact(id: "zhang-wei-2", displayName: "章伟", givenName: "伟", familyName: "章", interactionCount: 4),
        Contact(id: "li-ming-a", displayName: "李明", givenName: "明", familyName: "李", interactionCount: 7),
        Contact(id: "li-ming-b", displayName: "李明", givenName: "明", familyName: "李", interactionCount: 5),
        Contact(id: "li-ming-c", displayName: "黎明", givenName: "明", familyName: "黎", interactionCount: 1),
        // No display name in characters: the family and given names, written together, are the written name.
        Contact(id: "wang-fang", displayName: "Fang", givenName: "芳", familyName: "王"),
        Contact(id: "wang-fang-2", displayName: "汪芳", givenName: "芳", familyName: "汪"),
        Contact(id: "yulia-latin", displayName: "Yulia Shchukina", interactionCount: 1),
        Contact(id: "yulia-cyrillic", displayName: "Юлия Щукина", givenName: "Юлия", familyName: "Щукина"),
        Contact(id: "mom", displayName: "Margaret Chen", relation: "mother", interactionCount: 20),
        Contact(id: "named-mom", displayName: "Mom", interactionCount: 1),
    ]

    static let writtenCases: [Case] = [
        // The characters said are one person's name.
        Case(spoken: "张伟", outcome: .success, candidates: ["zhang-wei"]),
        Case(spoken: "章伟", outcome: .success, candidates: ["zhang-wei-2"]),
        Case(spoken: " 章伟 ", outcome: .success, candidates: ["zhang-wei-2"]),
        Case(spoken: "黎明", outcome: .success, candidates: ["li-ming-c"]),
        Case(spoken: "王芳", outcome: .success, candidates: ["wang-fang"]),
        Case(spoken: "汪芳", outcome: .success, candidates: ["wang-fang-2"]),
        // Two people written 李明: those two, not 黎明.
        Case(spoken: "李明", outcome: .disambiguation, candidates: ["li-ming-a", "li-ming-b"]),
        // Pinyin is nobody's written name: every homophone stays a candidate.
        Case(spoken: "Zhang Wei", outcome: .disambiguation, candidates: ["zhang-wei", "zhang-wei-2"]),
        Case(spoken: "zhangwei", outcome: .disambiguation, candidates: ["zhang-wei", "zhang-wei-2"]),
        Case(spoken: "Wei Zhang", outcome: .disambiguation, candidates: ["zhang-wei", "zhang-wei-2"]),
        Case(spoken: "Li Ming", outcome: .disambiguation, candidates: ["li-ming-a", "li-ming-b", "li-ming-c"]),
        // A given name alone keeps today's behaviour: all who have it.
        Case(spoken: "伟", outcome: .disambiguation, candidates: ["zhang-wei", "zhang-wei-2"]),
        // Latin and Cyrillic: written forms compare with case and spacing folded.
        Case(spoken: "Yulia Shchukina", outcome: .success, candidates: ["yulia-latin"]),
        Case(spoken: "yulia  SHCHUKINA", outcome: .success, candidates: ["yulia-latin"]),
        Case(spoken: "Юлия Щукина", outcome: .success, candidates: ["yulia-cyrillic"]),
        Case(spoken: "юлия щукина", outcome: .success, candidates: ["yulia-cyrillic"]),
        // The passport spelling of Юлия Щукина is a spelling of the Cyrillic name, and only
        // sounds like the Latin one: ranked as before, not by the written-name rule.
        Case(spoken: "Iuliia Shchukina", outcome: .success, candidates: ["yulia-cyrillic"]),
        // A relation word is not a spelling: the tagged mother stays a candidate.
        Case(spoken: "mom", outcome: .disambiguation, candidates: ["mom", "named-mom"]),
    ]

    @Test("an exact match on the written name wins, unless two people share it", arguments: writtenCases)
    func writtenName(_ case: Case) {
        let resolution = ContactResolver(contacts: Self.homophones, now: now).resolve(`case`.spoken)
        #expect(resolution.outcome == `case`.outcome)
        #expect(resolution.candidates == `case`.candidates)
    }

    // MARK: English spelling variants

    static let variants: [Contact] = [
        Contact(id: "katherine", displayName: "Katherine Smith", givenName: "Katherine", familyName: "Smith"),
        // Given and family name taken from a two-word display name.
        Contact(id: "carl", displayName: "Carl Meyer"),
        Contact(id: "christopher", displayName: "Christopher Jones", givenName: "Christopher", familyName: "Jones"),
        Contact(id: "erik", displayName: "Erik Lund", givenName: "Erik", familyName: "Lund"),
        // Two people written alike.
        Contact(id: "karl-berg-1", displayName: "Karl Berg", interactionCount: 8),
        Contact(id: "karl-berg-2", displayName: "Karl Berg", interactionCount: 2),
        // Both spellings in the book, for different people.
        // (Not Carla and Karla: the nickname list makes each a nickname of the other.)
        Contact(id: "caleb", displayName: "Caleb Diaz", givenName: "Caleb", familyName: "Diaz"),
        Contact(id: "kaleb", displayName: "Kaleb Ruiz", givenName: "Kaleb", familyName: "Ruiz"),
        // A soft C, which is no K.
        Contact(id: "cecilia", displayName: "Cecilia Park", givenName: "Cecilia", familyName: "Park"),
        // Pinyin: c is "ts", not k.
        Contact(id: "cao-bo", displayName: "曹波", givenName: "波", familyName: "曹"),
    ]

    static let variantCases: [Case] = [
        // C for K (and back) with the surname as written: that person.
        Case(spoken: "Catherine Smith", outcome: .success, candidates: ["katherine"]),
        Case(spoken: "Smith Catherine", outcome: .success, candidates: ["katherine"]),
        Case(spoken: "Karl Meyer", outcome: .success, candidates: ["carl"]),
        Case(spoken: "Kristopher Jones", outcome: .success, candidates: ["christopher"]),
        Case(spoken: "Eric Lund", outcome: .success, candidates: ["erik"]),
        Case(spoken: "Erick Lund", outcome: .success, candidates: ["erik"]),
        // A variant given name alone: confirmed.
        Case(spoken: "Catherine", outcome: .confirmationRequired, candidates: ["katherine"]),
        Case(spoken: "Kristopher", outcome: .confirmationRequired, candidates: ["christopher"]),
        // Unless someone has it as written: two Karls, and Carl's variant does not join them.
        Case(spoken: "Karl", outcome: .disambiguation, candidates: ["karl-berg-1", "karl-berg-2"]),
        // Two people match the variant: never success.
        Case(spoken: "Carl Berg", outcome: .disambiguation, candidates: ["karl-berg-1", "karl-berg-2"]),
        // Both spellings in the book: the exact one wins; the surname decides for a variant.
        Case(spoken: "Caleb", outcome: .success, candidates: ["caleb"]),
        Case(spoken: "Kaleb", outcome: .success, candidates: ["kaleb"]),
        Case(spoken: "Kaleb Diaz", outcome: .success, candidates: ["caleb"]),
        Case(spoken: "Caleb Ruiz", outcome: .success, candidates: ["kaleb"]),
        // Different names that share letters do not match.
        Case(spoken: "Kecilia Park", outcome: .unsupported, candidates: []),
        Case(spoken: "Kathleen Jones", outcome: .unsupported, candidates: []),
        // Not for pinyin: Kao Bo is not 曹波 (Cao Bo).
        Case(spoken: "Kao Bo", outcome: .unsupported, candidates: []),
        Case(spoken: "Cao Bo", outcome: .success, candidates: ["cao-bo"]),
    ]

    @Test("spelling variants of a given name match: success with the surname, else confirmed", arguments: variantCases)
    func spellingVariant(_ case: Case) {
        let resolution = ContactResolver(contacts: Self.variants, now: now).resolve(`case`.spoken)
        #expect(resolution.outcome == `case`.outcome)
        #expect(resolution.candidates == `case`.candidates)
    }

    @Test("a different given name with the same surname is no variant")
    func differentNameIsNoSuccess() {
        let resolver = ContactResolver(contacts: Self.variants, now: now)
        // Kathleen is not Katherine, Charles is not Carl: at most a typo to confirm.
        #expect(resolver.resolve("Kathleen Smith").outcome != .success)
        #expect(resolver.resolve("Charles Meyer").outcome != .success)
        #expect(resolver.resolve("Carlos Meyer").outcome != .success)
    }

    @Test(
        "hard C is written as K; soft C and the ch of Charles are not",
        arguments: [
            ("catherine", "katherine"), ("carl", "karl"), ("christopher", "kristopher"), ("chloe", "kloe"),
            ("eric", "erik"), ("erick", "erik"), ("jacob", "jakob"), ("nicole", "nikole"), ("marc", "mark"),
            ("cecilia", "cecilia"), ("charles", "charles"), ("rachel", "rachel"), ("lucy", "lucy"),
            ("catherine smith", "katherine smith"),
        ])
    func hardC(_ spelling: String, _ expected: String) {
        #expect(SpellingVariants.hardCAsK(spelling) == expected)
    }

    @Test("spellings of one name share a variant key; other names do not")
    func variantKeys() {
        #expect(SpellingVariants.key("catherine") == SpellingVariants.key("katherine"))
        #expect(SpellingVariants.key("caitlin") == SpellingVariants.key("kaitlyn"))
        #expect(SpellingVariants.key("christopher") == SpellingVariants.key("kristofer"))
        #expect(SpellingVariants.key("cecilia") != SpellingVariants.key("kekilia"))
        #expect(SpellingVariants.key("kathleen") != SpellingVariants.key("katherine"))
        // A doubled letter is not folded: it is as often a typo, which is confirmed.
        #expect(SpellingVariants.key("phillip") != SpellingVariants.key("philip"))
    }

    @Test("written names are compared with whitespace and case folded, in their own script")
    func writtenForms() {
        #expect(WrittenNames.form("  Katherine   Smith ") == "katherine smith")
        #expect(WrittenNames.form("ЮЛИЯ Щукина") == "юлия щукина")
        #expect(WrittenNames.form("张伟") == "张伟")
        let contact = Contact(id: "x", displayName: "Zhang Wei", givenName: "伟", familyName: "张")
        #expect(WrittenNames.of(contact) == ["zhang wei", "伟 张", "张 伟", "张伟"])
    }
}
