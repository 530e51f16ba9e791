import ContactResolution
import Foundation
import Testing

let now = Date(timeIntervalSince1970: 1_795_000_000)

func daysAgo(_ days: Double) -> Date { now.addingTimeInterval(-days * 86_400) }

/// An address book with the cases the issue names, and traps for each.
let addressBook: [Contact] = [
    Contact(id: "xiaoming", displayName: "小明", interactionCount: 12, lastInteraction: daysAgo(1)),
    Contact(id: "sunbo", displayName: "孙波", givenName: "波", familyName: "孙", interactionCount: 3),
    Contact(id: "sunli", displayName: "孙丽", givenName: "丽", familyName: "孙", interactionCount: 1),
    Contact(id: "shantianfang", displayName: "单田芳"),
    Contact(id: "yulia", displayName: "Юлия Щукина", givenName: "Юлия", familyName: "Щукина", interactionCount: 5),
    Contact(id: "dmitry", displayName: "Дмитрий Соколов", givenName: "Дмитрий", familyName: "Соколов"),
    Contact(id: "brandon-lee", displayName: "Brandon Lee", interactionCount: 2, lastInteraction: daysAgo(90)),
    Contact(id: "brandon-smith", displayName: "Brandon Smith", interactionCount: 40, lastInteraction: daysAgo(2)),
    Contact(id: "robert", displayName: "Robert Johnson", givenName: "Robert", familyName: "Johnson"),
    Contact(id: "mom", displayName: "Margaret Chen", relation: "Mom"),
    Contact(id: "jose", displayName: "José Álvarez"),
]

let resolver = ContactResolver(contacts: addressBook, now: now)

@Suite("Contact resolution")
struct ContactResolverTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let spoken: String
        let outcome: ResolutionOutcome
        let candidates: [String]
        var testDescription: String { "\"\(spoken)\" → \(outcome.rawValue) \(candidates)" }
    }

    static let cases: [Case] = [
        // Han characters and toneless pinyin, surname-first and given-name-first.
        Case(spoken: "小明", outcome: .success, candidates: ["xiaoming"]),
        Case(spoken: "Xiao Ming", outcome: .success, candidates: ["xiaoming"]),
        Case(spoken: "xiaoming", outcome: .success, candidates: ["xiaoming"]),
        Case(spoken: "孙波", outcome: .success, candidates: ["sunbo"]),
        Case(spoken: "Sun Bo", outcome: .success, candidates: ["sunbo"]),
        Case(spoken: "Bo Sun", outcome: .success, candidates: ["sunbo"]),
        // Surname readings ICU gets wrong: 单 is Shan as a surname, not Dan.
        Case(spoken: "Shan Tianfang", outcome: .success, candidates: ["shantianfang"]),
        // Cyrillic and Latin, several transliteration schemes.
        Case(spoken: "Юлия Щукина", outcome: .success, candidates: ["yulia"]),
        Case(spoken: "Yulia Shchukina", outcome: .success, candidates: ["yulia"]),
        Case(spoken: "Yuliya Shchukina", outcome: .success, candidates: ["yulia"]),
        Case(spoken: "Iuliia Shchukina", outcome: .success, candidates: ["yulia"]),
        // Other schemes meet through the phonetic key: scientific, German-style, ISO 9 letters.
        Case(spoken: "Julija Ščukina", outcome: .success, candidates: ["yulia"]),
        Case(spoken: "Julia Schukina", outcome: .success, candidates: ["yulia"]),
        Case(spoken: "Dmitrij Sokolov", outcome: .success, candidates: ["dmitry"]),
        Case(spoken: "Юля Щукина", outcome: .success, candidates: ["yulia"]),
        // A doubled consonant is a typo, not a transliteration.
        Case(spoken: "Robertt Johnsonn", outcome: .confirmationRequired, candidates: ["robert"]),
        // Diminutives and nicknames.
        Case(spoken: "Dima", outcome: .success, candidates: ["dmitry"]),
        Case(spoken: "Dima Sokolov", outcome: .success, candidates: ["dmitry"]),
        Case(spoken: "Bob", outcome: .success, candidates: ["robert"]),
        Case(spoken: "Bob Johnson", outcome: .success, candidates: ["robert"]),
        // Diacritics.
        Case(spoken: "Jose Alvarez", outcome: .success, candidates: ["jose"]),
        // Relation words in three languages.
        Case(spoken: "mom", outcome: .success, candidates: ["mom"]),
        Case(spoken: "my mother", outcome: .success, candidates: ["mom"]),
        Case(spoken: "妈妈", outcome: .success, candidates: ["mom"]),
        Case(spoken: "мама", outcome: .success, candidates: ["mom"]),
        // Two Brandons: ask, the one the user talks to more often and more recently first.
        Case(spoken: "Brandon", outcome: .disambiguation, candidates: ["brandon-smith", "brandon-lee"]),
        Case(spoken: "Brandon Lee", outcome: .success, candidates: ["brandon-lee"]),
        // Two people surnamed 孙: the surname alone is ambiguous.
        Case(spoken: "孙", outcome: .disambiguation, candidates: ["sunbo", "sunli"]),
        // A typo: only a weak match, to be confirmed.
        Case(spoken: "Robret Johnson", outcome: .confirmationRequired, candidates: ["robert"]),
        Case(spoken: "Yulia Shukina", outcome: .confirmationRequired, candidates: ["yulia"]),
        // Nobody, and nothing.
        Case(spoken: "Zebulon Quartermaine", outcome: .unsupported, candidates: []),
        Case(spoken: "   ", outcome: .needsValue, candidates: []),
    ]

    @Test("resolves names across scripts, nicknames, relations and typos", arguments: cases)
    func resolves(_ case: Case) {
        let resolution = resolver.resolve(`case`.spoken)
        #expect(resolution.outcome == `case`.outcome)
        #expect(resolution.candidates == `case`.candidates)
    }

    @Test("disambiguation offers at most three candidates")
    func atMostThree() {
        let many = (1...6).map { (number: Int) in
            Contact(id: "alex-\(number)", displayName: "Alex Number\(number)", interactionCount: number)
        }
        let resolution = ContactResolver(contacts: many, now: now).resolve("Alex")
        #expect(resolution.outcome == .disambiguation)
        #expect(resolution.candidates == ["alex-6", "alex-5", "alex-4"])
    }

    @Test("an empty address book supports no one")
    func emptyBook() {
        #expect(ContactResolver(contacts: []).resolve("Anyone") == Resolution(outcome: .unsupported, candidates: []))
    }
}

@Suite("Batch interface formats")
struct BatchResolutionTests {
    @Test("reads the contacts file format, ISO-8601 times included")
    func contactsFile() throws {
        let file = """
            [{"id": "c1", "displayName": "小明", "interactionCount": 3, "lastInteraction": "2026-11-20T10:00:00Z"},
             {"id": "c2", "displayName": "Brandon Lee", "aliases": ["BL"], "relation": "boss",
              "lastInteraction": "2026-11-20T10:00:00.250Z"}]
            """
        let contacts = try BatchResolution.contacts(from: Data(file.utf8))
        #expect(contacts.map(\.id) == ["c1", "c2"])
        #expect(contacts[0].lastInteraction == Date(timeIntervalSince1970: 1_795_168_800))
        #expect(contacts[1].aliases == ["BL"])
        #expect(throws: BatchResolution.Failure.self) { try BatchResolution.contacts(from: Data("{}".utf8)) }
    }

    @Test("answers one line per query with the exact keys, and explains unreadable lines")
    func answers() throws {
        let answer = BatchResolution.answer(line: #"{"id": "q1", "spoken": "Xiao Ming"}"#, resolver: resolver)
        let line = BatchResolution.encode(answer)
        #expect(line == #"{"candidates":["xiaoming"],"id":"q1","outcome":"success"}"#)
        let broken = BatchResolution.answer(line: #"{"id": "q2"}"#, resolver: resolver)
        #expect(broken.id == "q2")
        #expect(broken.outcome == .unsupported)
        #expect(broken.error != nil)
    }
}
