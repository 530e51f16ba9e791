import ContactResolution
import Testing

@Suite("Spellings shared across contact books")
struct NameSpellingCacheTests {
    static let book = [
        Contact(id: "1", displayName: "孙波", givenName: "波", familyName: "孙"),
        Contact(id: "2", displayName: "Юлия Щукина", givenName: "Юлия", familyName: "Щукина"),
        Contact(id: "3", displayName: "Katherine Smith", givenName: "Katherine", familyName: "Smith"),
        Contact(id: "4", displayName: "Brandon Lee", nickname: "Bran"),
    ]
    static let phrases = [
        "孙波", "Sun Bo", "sunbo", "Yulia Shchukina", "Юлия", "Catherine Smith", "Catherine", "Bran", "Brandn Lee",
        "nobody",
    ]

    @Test("a book built with a shared cache resolves every phrase as one built without it, on first use and reuse")
    func sameAnswers() {
        let plain = ContactResolver(contacts: Self.book)
        let cache = NameSpellingCache()
        let first = ContactResolver(contacts: Self.book, spellingCache: cache)
        #expect(cache.count > 0)
        let filled = cache.count
        // A second book from the same names takes every spelling from the cache.
        let second = ContactResolver(contacts: Self.book, spellingCache: cache)
        #expect(cache.count == filled)
        for phrase in Self.phrases {
            #expect(first.resolve(phrase) == plain.resolve(phrase), "\(phrase)")
            #expect(second.resolve(phrase) == plain.resolve(phrase), "\(phrase)")
        }
    }

    @Test("past its capacity a table starts over instead of growing")
    func bounded() {
        let cache = NameSpellingCache(capacity: 3)
        for index in 0..<20 {
            _ = ContactResolver(
                contacts: [Contact(id: "\(index)", displayName: "Name\(index) Family\(index)")], spellingCache: cache)
            // Two tables (names, spellings), each at most the capacity.
            #expect(cache.count <= 6)
        }
        let resolver = ContactResolver(
            contacts: [Contact(id: "x", displayName: "Anna Novak")], spellingCache: cache)
        #expect(resolver.resolve("Anna Novak").outcome == .success)
    }
}
