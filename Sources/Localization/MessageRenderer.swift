public import Foundation
public import Intents

/// Says a ``LocalizedMessage`` in a locale: the language's sentence (English when its
/// catalog lacks it), with amounts, numbers and lists formatted by CLDR's rules through
/// Foundation's ICU formatters ("100,00 ₽" in `ru-RU`, "¥100.00" in `zh-Hans-CN`,
/// "$20.00" in `en-US`; "A, B и C"). Pure, so every stage renders the same way and a
/// redo after a crash says the same words.
public struct MessageRenderer: Sendable {
    public let locale: Locale
    private let catalog: MessageCatalog

    /// `identifier`: a BCP 47 tag (``UserLocale``); nil is English.
    public init(locale identifier: String?) {
        let locale = Locale(identifier: identifier ?? UserLocale.fallback)
        self.init(locale: locale, catalog: MessageCatalog.of(language: locale.language.languageCode?.identifier))
    }

    /// With a given catalog (a test's, lacking sentences).
    init(locale identifier: String?, catalog: MessageCatalog) {
        self.init(locale: Locale(identifier: identifier ?? UserLocale.fallback), catalog: catalog)
    }

    private init(locale: Locale, catalog: MessageCatalog) {
        self.locale = locale
        self.catalog = catalog
    }

    public func render(_ message: LocalizedMessage) -> String {
        let sentence =
            catalog.sentences[message.key] ?? MessageCatalog.english.sentences[message.key] ?? message.key.rawValue
        var rendered = ""
        var rest = sentence[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            rendered += rest[..<open]
            let name = String(rest[rest.index(after: open)..<close])
            rendered += message.arguments[name].map(format) ?? "{\(name)}"
            rest = rest[rest.index(after: close)...]
        }
        return rendered + rest
    }

    /// One argument as the locale writes it.
    public func format(_ argument: MessageArgument) -> String {
        switch argument {
        case .text(let text): text
        case .number(let number): number.formatted(.number.locale(locale))
        case .names(let names): names.formatted(.list(type: .and).locale(locale))
        case .choices(let choices): choices.formatted(.list(type: .or).locale(locale))
        case .amount(let amount): format(amount)
        }
    }

    /// An amount in its currency, with the currency's symbol and the locale's separators:
    /// a whole amount with the currency's usual fraction digits ("¥100.00", "¥100" in yen),
    /// any other with every digit it has (at least two), never rounded away. Foundation's
    /// text, from a template per shape of amount (``CurrencyFormat``).
    public func format(_ amount: CurrencyAmount) -> String {
        CurrencyFormat.format(amount, locale: locale)
    }
}
