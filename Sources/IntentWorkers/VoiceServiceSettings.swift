public import IntentEvents
public import IntentResolution

/// Which voice services speak for which user, as the payments worker checks a decline of a
/// payment request (the one input a voice service sends it past the resolve stage): the
/// users' settings, from records signed with `keys` (the settings services'), under
/// `binding`, as the resolve worker applies it to requests (attack 34).
public struct VoiceServiceSettings: Sendable {
    public var binding: VoiceServiceBinding
    public var keys: EventAuthenticator

    public init(binding: VoiceServiceBinding, keys: EventAuthenticator) {
        self.binding = binding
        self.keys = keys
    }

    /// Whether `source` speaks for a user whose settings are `settings` (nil: none recorded):
    /// for a bound user, the settings' own rule (``UserSettings/admits(voiceService:)``, the
    /// one the resolve stage applies); for a user bound to none, any service only when the
    /// binding is optional.
    public func admits(_ source: String, settings: UserSettings?) -> Bool {
        guard let settings, settings.voiceServices != nil else { return binding == .optional }
        return settings.admits(voiceService: source)
    }
}
