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
    ///
    /// Stages make a renderer per record; making its `Locale` and finding its language
    /// asks ICU each time (about a twentieth of the confirm stage's decision), so each
    /// tag's renderer is made once and kept (``renderers``).
    public init(locale identifier: String?) {
        self = Self.renderers.value(for: identifier ?? UserLocale.fallback) { tag in
            let locale = Locale(identifier: tag)
            return MessageRenderer(
                locale: locale, catalog: MessageCatalog.of(language: locale.language.languageCode?.identifier))
        }
    }

    /// Renderers by locale tag, as requests name them (bounded: tags come from outside).
    static let renderers = BoundedMemo<String, MessageRenderer>(capacity: 1024)

    /// With a given catalog (a test's, lacking sentences).
    init(locale identifier: String?, catalog: MessageCatalog) {
        self.init(locale: Locale(identifier: identifier ?? UserLocale.fallback), catalog: catalog)
    }

    private init(locale: Locale, catalog: MessageCatalog) {
        self.locale = locale
        self.catalog = catalog
        self.isLeftToRight = locale.language.characterDirection == .leftToRight
    }

    /// Whether the locale writes left to right: only there is a list of one plain item that
    /// item itself (``listOfOne(_:)``).
    private let isLeftToRight: Bool

    /// The sentence with each `{name}` replaced by its argument, found by bytes: the braces
    /// are ASCII and the catalog's sentences put no combining mark after one, so the byte
    /// positions are the character positions a search by `Character` finds, without breaking
    /// the sentence into graphemes (which was about half of rendering a confirmation's prompt).
    public func render(_ message: LocalizedMessage) -> String {
        let sentence =
            catalog.sentences[message.key] ?? MessageCatalog.english.sentences[message.key] ?? message.key.rawValue
        let bytes = sentence.utf8
        var rendered = ""
        var rest = bytes.startIndex
        while let open = bytes[rest...].firstIndex(of: UInt8(ascii: "{")),
            let close = bytes[open...].firstIndex(of: UInt8(ascii: "}"))
        {
            // Room for the sentence and its arguments, made once, and only for a sentence
            // with arguments (one without is the sentence itself, with nothing allocated).
            if rest == bytes.startIndex { rendered.reserveCapacity(bytes.count + 32) }
            rendered += sentence[rest..<open]
            let name = String(sentence[bytes.index(after: open)..<close])
            rendered += message.arguments[name].map(format) ?? "{\(name)}"
            rest = bytes.index(after: close)
        }
        guard rest != bytes.startIndex else { return sentence }
        rendered += sentence[rest...]
        return rendered
    }

    /// One argument as the locale writes it.
    public func format(_ argument: MessageArgument) -> String {
        switch argument {
        case .text(let text): text
        case .number(let number): number.formatted(.number.locale(locale))
        case .names(let names): list(names, .and)
        case .choices(let choices): list(choices, .or)
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

    /// `items` joined by the locale's list pattern; a list of one that Foundation would write
    /// as the item itself (``listOfOne(_:)``) without asking it.
    private func list(_ items: [String], _ type: ListFormatStyle<StringStyle, [String]>.ListType) -> String {
        if items.count == 1, listOfOne(items[0]) { return items[0] }
        return items.formatted(.list(type: type).locale(locale))
    }

    /// Whether Foundation's list formatter writes a list of just `item` as `item` unchanged,
    /// so it need not be asked: ICU's list formatter, made per call, cost more than the rest
    /// of a confirmation's sentence, and one recipient is the common case. It isolates an
    /// item (U+2068 ... U+2069) whose direction differs from the locale's: so only in a
    /// left-to-right locale, and only for an item with no right-to-left letter (Hebrew,
    /// Arabic, Syriac, Thaana, N'Ko and the like, their presentation forms, the historic
    /// scripts of U+10800-U+10FFF and U+1E800-U+1EFFF) and no explicit direction mark.
    /// `MessageRendererTests/listOfOne` compares the two across scripts and locales.
    private func listOfOne(_ item: String) -> Bool {
        guard isLeftToRight else { return false }
        return !item.unicodeScalars.contains { scalar in
            switch scalar.value {
            case 0x0590...0x08FF, 0xFB1D...0xFDFF, 0xFE70...0xFEFF, 0x10800...0x10FFF, 0x1E800...0x1EFFF: true
            case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
            default: false
            }
        }
    }
}
