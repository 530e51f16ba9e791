import Foundation
import Intents
import Testing

@testable import Localization

/// The catalogs: every key said in every language, with the same arguments as English.
@Suite("Message catalogs")
struct MessageCatalogTests {
    /// The argument names a sentence uses, `{name}`.
    static func arguments(of sentence: String) -> [String] {
        var names: [String] = []
        var rest = sentence[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            names.append(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return names.sorted()
    }

    @Test("every key has a sentence in every catalog (a missing translation is listed here)")
    func complete() {
        for catalog in MessageCatalog.all {
            let missing = MessageKey.allCases.filter { catalog.sentences[$0] == nil }.map(\.rawValue)
            #expect(missing.isEmpty, "\(catalog.language) has no sentence for \(missing)")
        }
    }

    @Test("each translation names exactly the arguments its English sentence names")
    func sameArguments() throws {
        for key in MessageKey.allCases {
            let english = try #require(MessageCatalog.english.sentences[key])
            for catalog in MessageCatalog.all {
                guard let sentence = catalog.sentences[key] else { continue }
                #expect(Self.arguments(of: sentence) == Self.arguments(of: english), "\(catalog.language) \(key)")
            }
        }
    }

    @Test("a language without a catalog, and a key a catalog lacks, are said in English")
    func fallback() {
        let message = LocalizedMessage(.messageDone)
        #expect(MessageRenderer(locale: "fr-FR").render(message) == "Done.")
        #expect(MessageRenderer(locale: nil).render(message) == "Done.")
        let partial = MessageCatalog(language: "ru", sentences: [.messageSending: "Отправляю…"])
        let renderer = MessageRenderer(locale: "ru-RU", catalog: partial)
        #expect(renderer.render(LocalizedMessage(.messageSending)) == "Отправляю…")
        #expect(renderer.render(message) == "Done.")
    }
}

/// The schema voice-service teams read names every key the workers may send.
@Suite("Message keys in the schema")
struct MessageKeySchemaTests {
    @Test("schemas/intent/common.v1.json lists exactly the message keys, in order")
    func schemaListsKeys() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let data = try Data(contentsOf: root.appendingPathComponent("schemas/intent/common.v1.json"))
        let schema = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let definitions = try #require(schema["$defs"] as? [String: Any])
        let messageKey = try #require(definitions["messageKey"] as? [String: Any])
        #expect(messageKey["enum"] as? [String] == MessageKey.allCases.map(\.rawValue))
    }
}
