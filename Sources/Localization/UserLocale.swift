import Foundation
public import IntentEvents

/// The locale a user speaks, as the voice service sends it: the CloudEvents
/// extension attribute `locale` on the request's envelope (a BCP 47 tag such as
/// `zh-Hans-CN`, `ru-RU`, `en-US`), which every stage carries to the events it
/// derives, so each renders its answers in it. Absent or malformed, the resolve stage
/// uses the language the user chose in the app's settings (``UserSettings``), if any,
/// and stamps it on what it derives; else English.
public enum UserLocale {
    /// The envelope attribute's name.
    public static let attribute = "locale"
    public static let fallback = "en"
    /// RFC 5646's practical limit for a tag a client sends.
    public static let maximumLength = 35

    /// The event's locale when it is a well-formed tag, else nil.
    public static func of(_ envelope: EventEnvelope) -> String? {
        guard case .string(let tag)? = envelope.extensions[attribute], isWellFormed(tag) else { return nil }
        return tag
    }

    /// Puts a well-formed tag on an event, where ``of(_:)`` reads it: the one way a stage or
    /// voice service names the language of what it derives or sends.
    public static func stamp(_ tag: String, on envelope: inout EventEnvelope) {
        // A tag of at most 35 letters, digits and hyphens is always a valid attribute value.
        try? envelope.extensions.set(attribute, .string(tag))
    }

    /// A BCP 47 tag's shape: a 2-3 letter language, then subtags of 1-8 letters or
    /// digits, joined by hyphens. Anything else (spaces, underscores, control
    /// characters, an absurd length) is not a locale, whatever ICU would make of it.
    public static func isWellFormed(_ tag: String) -> Bool {
        guard tag.utf8.count <= maximumLength else { return false }
        let subtags = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let language = subtags.first, (2...3).contains(language.utf8.count),
            language.utf8.allSatisfy(isLetter)
        else { return false }
        return subtags.dropFirst().allSatisfy { subtag in
            (1...8).contains(subtag.utf8.count) && subtag.utf8.allSatisfy { isLetter($0) || isDigit($0) }
        }
    }

    /// A locale identifier as Apple's and ICU's APIs write it (`en_US`, `zh_Hans_CN`, what
    /// `Locale.current.identifier` gives on iOS) as the BCP 47 tag the pipeline carries
    /// (`en-US`); nil when it is not one either way. Keywords (`@calendar=…`) are dropped:
    /// they choose formats, not the language.
    public static func tag(fromIdentifier identifier: String) -> String? {
        let base = identifier.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let tag = base.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "_", with: "-")
        return isWellFormed(tag) ? tag : nil
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
}
