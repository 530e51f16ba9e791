import Foundation
import Testing

@testable import ContactResolution

/// Resolver v3 (issue 32): the same name in traditional or simplified
/// characters, titles and honorifics, Russian given name + patronymic +
/// surname in any order, and an exact name beside a one-letter variant.
/// Every expected answer below is written out by hand.
@Suite("Resolver v3: scripts, titles, name parts")
struct ResolverV3Tests {
    /// A spoken phrase and the answer expected for it.
    typealias Case = ResolverV2Tests.Case

    /// Runs each case against the book; the interaction counts fix the order of ambiguous answers.
    static func check(_ book: [Contact], _ case: Case) {
        let resolution = ContactResolver(contacts: book, now: now).resolve(`case`.spoken)
        #expect(resolution.outcome == `case`.outcome)
        #expect(resolution.candidates == `case`.candidates)
    }

    // MARK: Traditional and simplified characters

    /// Each name next to a homophone (same pinyin, other characters), some saved
    /// in simplified characters and some in traditional ones.
    static let scripts: [Contact] = [
        Contact(id: "zhang-zhiwei", displayName: "张志伟", givenName: "志伟", familyName: "张", interactionCount: 1),
        Contact(id: "zhang-zhiwei-2", displayName: "章志伟", givenName: "志伟", familyName: "章", interactionCount: 9),
        Contact(id: "xiao-guoqiang", displayName: "萧国强", givenName: "国强", familyName: "萧", interactionCount: 1),
        Contact(id: "xiao-guoqiang-2", displayName: "肖国强", givenName: "国强", familyName: "肖", interactionCount: 9),
        Contact(id: "huang-jiale", displayName: "黃家樂", givenName: "家樂", familyName: "黃", interactionCount: 1),
        Contact(id: "huang-jiale-2", displayName: "黃佳樂", givenName: "佳樂", familyName: "黃", interactionCount: 9),
        // Surnames whose reading is not the character's common one, saved in traditional characters.
        Contact(id: "shan-guohua", displayName: "單國華", givenName: "國華", familyName: "單"),
        Contact(id: "ouyang-wenjie", displayName: "歐陽文傑"),
    ]

    static let scriptCases: [Case] = [
        // Said in traditional characters, saved in simplified: that person, not the homophone.
        Case(spoken: "張志偉", outcome: .success, candidates: ["zhang-zhiwei"]),
        Case(spoken: "蕭國強", outcome: .success, candidates: ["xiao-guoqiang"]),
        // Half and half, as some input methods give.
        Case(spoken: "张志偉", outcome: .success, candidates: ["zhang-zhiwei"]),
        // Said in simplified characters, saved in traditional.
        Case(spoken: "黄家乐", outcome: .success, candidates: ["huang-jiale"]),
        Case(spoken: "黄佳乐", outcome: .success, candidates: ["huang-jiale-2"]),
        Case(spoken: "单国华", outcome: .success, candidates: ["shan-guohua"]),
        Case(spoken: "欧阳文杰", outcome: .success, candidates: ["ouyang-wenjie"]),
        // Pinyin is still both homophones, whatever script they are saved in.
        Case(spoken: "Huang Jiale", outcome: .disambiguation, candidates: ["huang-jiale-2", "huang-jiale"]),
        Case(spoken: "Zhang Zhiwei", outcome: .disambiguation, candidates: ["zhang-zhiwei-2", "zhang-zhiwei"]),
        // The surname's reading and the compound surname come from the simplified form.
        Case(spoken: "Shan Guohua", outcome: .success, candidates: ["shan-guohua"]),
        Case(spoken: "Ouyang Wenjie", outcome: .success, candidates: ["ouyang-wenjie"]),
    ]

    @Test("a name in the other script is an exact match and beats a homophone", arguments: scriptCases)
    func script(_ case: Case) { Self.check(Self.scripts, `case`) }

    // MARK: Titles and honorifics

    static let titled: [Contact] = [
        Contact(id: "gong-liping", displayName: "龚丽萍", givenName: "丽萍", familyName: "龚"),
        Contact(id: "jiang-wenhua", displayName: "蒋文华", givenName: "文华", familyName: "蒋", interactionCount: 9),
        Contact(id: "jiang-haiyan", displayName: "蒋海燕", givenName: "海燕", familyName: "蒋", interactionCount: 1),
        Contact(id: "jiang-minghui", displayName: "姜明辉", givenName: "明辉", familyName: "姜"),
        Contact(id: "xiaoming", displayName: "小明"),
        // Zhou: the phonetic key folds zh and z, but 邹老师 names 邹 (Zou), not 周.
        Contact(id: "zhou-xia", displayName: "周霞", givenName: "霞", familyName: "周"),
        Contact(id: "orlov", displayName: "Олег Орлов", givenName: "Олег", familyName: "Орлов"),
        Contact(id: "belov", displayName: "Борис Белов", givenName: "Борис", familyName: "Белов"),
        Contact(id: "belova", displayName: "Марина Белова", givenName: "Марина", familyName: "Белова"),
        Contact(id: "pemberton", displayName: "Philippa Pemberton"),
        Contact(id: "ashworth-r", displayName: "Rupert Ashworth", interactionCount: 9),
        Contact(id: "ashworth-c", displayName: "Cordelia Ashworth", interactionCount: 1),
    ]

    static let titleCases: [Case] = [
        // Title + surname: the one contact with it.
        Case(spoken: "龚老师", outcome: .success, candidates: ["gong-liping"]),
        Case(spoken: "龔老師", outcome: .success, candidates: ["gong-liping"]),
        Case(spoken: "龚总", outcome: .success, candidates: ["gong-liping"]),
        Case(spoken: "господин Орлов", outcome: .success, candidates: ["orlov"]),
        Case(spoken: "Доктор Орлов", outcome: .success, candidates: ["orlov"]),
        Case(spoken: "Mrs. Pemberton", outcome: .success, candidates: ["pemberton"]),
        Case(spoken: "dr pemberton", outcome: .success, candidates: ["pemberton"]),
        Case(spoken: "Mr. Orlov", outcome: .success, candidates: ["orlov"]),
        // The surname as written, not its homophone or its other-gender form.
        Case(spoken: "姜先生", outcome: .success, candidates: ["jiang-minghui"]),
        Case(spoken: "госпожа Белова", outcome: .success, candidates: ["belova"]),
        Case(spoken: "господин Белов", outcome: .success, candidates: ["belov"]),
        // Several share the surname: asked, the user's frequent contacts first.
        Case(spoken: "蒋经理", outcome: .disambiguation, candidates: ["jiang-wenhua", "jiang-haiyan"]),
        Case(spoken: "老蒋", outcome: .disambiguation, candidates: ["jiang-wenhua", "jiang-haiyan"]),
        Case(spoken: "Mr. Ashworth", outcome: .disambiguation, candidates: ["ashworth-r", "ashworth-c"]),
        // Spelled, the surname is both homophones: asked.
        Case(
            spoken: "Mr. Jiang", outcome: .disambiguation,
            candidates: ["jiang-wenhua", "jiang-haiyan", "jiang-minghui"]),
        // Title + full name.
        Case(spoken: "龚丽萍女士", outcome: .success, candidates: ["gong-liping"]),
        Case(spoken: "господин Олег Орлов", outcome: .success, candidates: ["orlov"]),
        Case(spoken: "Ms. Philippa Pemberton", outcome: .success, candidates: ["pemberton"]),
        // A title with a given name alone: titles go with surnames, so confirmed.
        Case(spoken: "Dr. Rupert", outcome: .confirmationRequired, candidates: ["ashworth-r"]),
        // A contact's own name that begins like a title is that name.
        Case(spoken: "小明", outcome: .success, candidates: ["xiaoming"]),
        Case(spoken: "小姜", outcome: .success, candidates: ["jiang-minghui"]),
        // Nobody by that surname.
        Case(spoken: "邹老师", outcome: .unsupported, candidates: []),
        Case(spoken: "Professor Whitlock", outcome: .unsupported, candidates: []),
        // 老 and 小 go with a surname only: 老明 is not 明 with a title. Said as it
        // is, it only resembles 小明 ("ming lao" / "ming xiao"): a weak match, confirmed.
        Case(spoken: "老明", outcome: .confirmationRequired, candidates: ["xiaoming"]),
        // A title alone is nobody.
        Case(spoken: "老师", outcome: .unsupported, candidates: []),
    ]

    @Test("title + surname is the one contact with it, or a question among those who share it", arguments: titleCases)
    func title(_ case: Case) { Self.check(Self.titled, `case`) }

    // MARK: Russian name parts

    static let russian: [Contact] = [
        Contact(
            id: "gavrilov", displayName: "Роман Павлович Гаврилов", givenName: "Роман", familyName: "Гаврилов"),
        // Family, given, patronymic: the order of Russian documents; no name fields.
        Contact(id: "lapina", displayName: "Лапина Тамара Михайловна"),
        Contact(id: "fomin", displayName: "Фомин Геннадий Николаевич", givenName: "Геннадий", familyName: "Фомин"),
        // The patronymic in the given-name field.
        Contact(id: "blinova", displayName: "Вера Блинова", givenName: "Вера Сергеевна", familyName: "Блинова"),
        Contact(id: "markov", displayName: "Лев Антонович Марков", interactionCount: 9),
        Contact(id: "zuev", displayName: "Лев Антонович Зуев", interactionCount: 1),
        Contact(id: "dmitriy", displayName: "Дмитрий Соколов", givenName: "Дмитрий", familyName: "Соколов"),
    ]

    static let russianCases: [Case] = [
        // Given name + patronymic: how Russians address people.
        Case(spoken: "Роман Павлович", outcome: .success, candidates: ["gavrilov"]),
        Case(spoken: "Тамара Михайловна", outcome: .success, candidates: ["lapina"]),
        Case(spoken: "Вера Сергеевна", outcome: .success, candidates: ["blinova"]),
        // Contracted spoken forms: irregular (from the table) and regular.
        Case(spoken: "Роман Палыч", outcome: .success, candidates: ["gavrilov"]),
        Case(spoken: "Тамара Михална", outcome: .success, candidates: ["lapina"]),
        Case(spoken: "Геннадий Николаич", outcome: .success, candidates: ["fomin"]),
        Case(spoken: "Вера Сергевна Блинова", outcome: .success, candidates: ["blinova"]),
        Case(spoken: "Лев Антоныч Марков", outcome: .success, candidates: ["markov"]),
        // Any order, with or without the surname.
        Case(spoken: "Гаврилов Роман Павлович", outcome: .success, candidates: ["gavrilov"]),
        Case(spoken: "Тамара Михайловна Лапина", outcome: .success, candidates: ["lapina"]),
        Case(spoken: "Павлович Гаврилов", outcome: .success, candidates: ["gavrilov"]),
        // The patronymic alone, as an older colleague is called.
        Case(spoken: "Палыч", outcome: .success, candidates: ["gavrilov"]),
        // In Latin transliteration.
        Case(spoken: "Roman Pavlovich", outcome: .success, candidates: ["gavrilov"]),
        Case(spoken: "Gennadiy Nikolaevich Fomin", outcome: .success, candidates: ["fomin"]),
        // Two people share given name and patronymic: asked; the surname tells them apart.
        Case(spoken: "Лев Антонович", outcome: .disambiguation, candidates: ["markov", "zuev"]),
        Case(spoken: "Зуев Лев Антонович", outcome: .success, candidates: ["zuev"]),
        // Diminutives keep working.
        Case(spoken: "Дима Соколов", outcome: .success, candidates: ["dmitriy"]),
        Case(spoken: "Соколов Дима", outcome: .success, candidates: ["dmitriy"]),
        // Another patronymic is another person: no match, though the given name is Роман's.
        Case(spoken: "Роман Петрович", outcome: .unsupported, candidates: []),
    ]

    @Test("given name, patronymic and surname match part by part, in any order", arguments: russianCases)
    func russianParts(_ case: Case) { Self.check(Self.russian, `case`) }

    // MARK: Exact name beside a variant

    static let variants: [Contact] = [
        // Display names only: the parts come from the two words.
        Contact(id: "eugene", displayName: "Eugene Marchetti", interactionCount: 1),
        Contact(id: "eugenia", displayName: "Eugenia Marchetti", interactionCount: 9),
        Contact(id: "alexander", displayName: "Александр Петров", givenName: "Александр", familyName: "Петров"),
        Contact(id: "alexandra", displayName: "Александра Петрова", givenName: "Александра", familyName: "Петрова"),
        Contact(id: "ivana", displayName: "Ivana Horvat"),
    ]

    static let variantCases: [Case] = [
        Case(spoken: "Eugene Marchetti", outcome: .success, candidates: ["eugene"]),
        Case(spoken: "Marchetti Eugene", outcome: .success, candidates: ["eugene"]),
        Case(spoken: "Marchetti Eugenia", outcome: .success, candidates: ["eugenia"]),
        Case(spoken: "Eugene", outcome: .success, candidates: ["eugene"]),
        Case(spoken: "Aleksandr Petrov", outcome: .success, candidates: ["alexander"]),
        Case(spoken: "Petrova Aleksandra", outcome: .success, candidates: ["alexandra"]),
        // Near both, exact in one part of one of them: that one, confirmed.
        Case(spoken: "Alexander Petrov", outcome: .confirmationRequired, candidates: ["alexander"]),
        // A near variant alone is still asked.
        Case(spoken: "Ivan Horvat", outcome: .confirmationRequired, candidates: ["ivana"]),
    ]

    @Test("an exact match of every part wins over a one-letter variant", arguments: variantCases)
    func exactOverVariant(_ case: Case) { Self.check(Self.variants, `case`) }
}
