/// A person as an intent names them. The voice side fills in what it heard
/// (`spoken`, perhaps a `handle`); resolution fills in `contactID` and
/// `displayName`. The voice side also sets `contactID` when re-sending an
/// intent with the candidate the user picked.
public struct Person: Codable, Sendable, Hashable {
    /// The name as spoken, in any script: "小明", "Sun Bo", "Юля", "my sister".
    public var spoken: String?
    /// A phone number, e-mail address or account name, when the user said one.
    public var handle: String?
    /// The contact this person resolved to.
    public var contactID: String?
    /// The contact's display name, for prompts and transcripts.
    public var displayName: String?

    public init(spoken: String? = nil, handle: String? = nil, contactID: String? = nil, displayName: String? = nil) {
        self.spoken = spoken
        self.handle = handle
        self.contactID = contactID
        self.displayName = displayName
    }

    /// A handle as matching compares it: "+86 138-0000-0000" and "+8613800000000"
    /// are the same phone number; e-mail addresses match in any letter case.
    /// Contacts (resolution) and payment accounts (the ledger) use the same rule,
    /// so a payee resolved by handle is the account found by that handle.
    public static func normalizedHandle(_ handle: String) -> String {
        asciiNormalizedHandle(handle) ?? unicodeNormalizedHandle(handle)
    }

    /// The rule for any text, by characters.
    static func unicodeNormalizedHandle(_ handle: String) -> String {
        let lowered = handle.lowercased()
        if lowered.contains("@") { return lowered.filter { !$0.isWhitespace } }
        return lowered.filter { !$0.isWhitespace && !"-().".contains($0) }
    }

    /// The same rule by bytes, for ASCII text (phone numbers and e-mail addresses nearly
    /// always are): lowercasing is A-Z only, whitespace is tab, line feed, vertical tab,
    /// form feed, carriage return and space (a CR LF pair is one character, removed as a
    /// whole either way). Nil for anything else. The ledger looks handles up for every
    /// proposal and answer, and grapheme-by-grapheme filtering dominated that.
    ///
    /// A handle that is normalized already (most are: the ledger keeps them so) is returned
    /// as it is; another is written on the stack, so only its string is allocated.
    static func asciiNormalizedHandle(_ handle: String) -> String? {
        var text = handle
        return text.withUTF8 { bytes -> String? in
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
            let isEmail = bytes.contains(UInt8(ascii: "@"))
            func kept(_ byte: UInt8) -> UInt8? {
                switch byte {
                case 0x09...0x0D, 0x20: nil
                case UInt8(ascii: "-"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "."): isEmail ? byte : nil
                case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte + 0x20
                default: byte
                }
            }
            if bytes.allSatisfy({ kept($0) == $0 }) { return handle }
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count) { output in
                var count = 0
                for byte in bytes {
                    guard let byte = kept(byte) else { continue }
                    output[count] = byte
                    count += 1
                }
                return String(decoding: UnsafeBufferPointer(rebasing: output[..<count]), as: UTF8.self)
            }
        }
    }
}
