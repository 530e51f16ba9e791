import Testing

@testable import ContactResolution

@Suite("Phonetic keys for transliteration variants")
struct PhoneticKeyTests {
    @Test(
        "every scheme's spelling of one Russian name gets one key",
        arguments: [
            ["yuliya shchukina", "iuliia shchukina", "julija shchukina", "yulia schukina", "julija shhukina"],
            ["khrushchev", "hrushchev", "khrushhev"],
            ["tsvetkov", "cvetkov", "tcvetkov"],
            ["fyodorov", "fedorov", "fjodorov"],
            ["aleksandr", "alexandr"],
        ])
    func sameKey(_ spellings: [String]) {
        let keys = Set(spellings.map(PhoneticKey.of))
        #expect(keys.count == 1, "\(spellings) → \(keys)")
    }

    @Test(
        "names that differ stay apart",
        arguments: [("shukina", "shchukina"), ("fit", "fitt"), ("ivan", "ivanov"), ("sun bo", "sun po")])
    func differentKeys(_ pair: (String, String)) {
        #expect(PhoneticKey.of(pair.0) != PhoneticKey.of(pair.1))
    }

    @Test("apostrophes join a word instead of splitting it")
    func apostrophes() {
        #expect(NameSpellings.normalizedLatin("Ol'ga O’Brien") == "olga obrien")
        #expect(NameSpellings.normalizedLatin("Ščukina") == "shchukina")
    }
}
