public import Intents

/// The sentences of one language, by key: a translator's file. A sentence names its
/// arguments in braces (`{amount}`), each once; the renderer formats them for the locale.
/// A key a catalog lacks is said in English (`MessageCatalogTests` lists any).
public struct MessageCatalog: Sendable {
    /// The BCP 47 language subtag the catalog is for (`en`, `zh`, `ru`).
    public let language: String
    public let sentences: [MessageKey: String]

    public init(language: String, sentences: [MessageKey: String]) {
        self.language = language
        self.sentences = sentences
    }

    /// Every catalog; English first, the fallback.
    public static let all: [MessageCatalog] = [english, chinese, russian]

    /// The catalog for a language subtag; English for any other.
    public static func of(language: String?) -> MessageCatalog {
        all.first { $0.language == language } ?? english
    }
}
