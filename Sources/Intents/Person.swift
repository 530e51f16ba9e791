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
}
