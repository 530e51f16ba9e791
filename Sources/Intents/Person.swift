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
        let lowered = handle.lowercased()
        if lowered.contains("@") { return lowered.filter { !$0.isWhitespace } }
        return lowered.filter { !$0.isWhitespace && !"-().".contains($0) }
    }
}
