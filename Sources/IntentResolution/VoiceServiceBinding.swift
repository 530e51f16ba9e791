/// Whether a payment needs its user bound to the voice service that asks.
///
/// A voice service vouches for who speaks; with a valid key, any of them could
/// otherwise start a payment for any user and then confirm it itself (an answer
/// counts only from the service that asked, ``RequestSource``, so it would be that
/// same service). A user's settings bind them to the voice services they speak
/// through (`user.settings.v1` `voiceServices`; `intentctl settings set
/// --voice-service`); requests from any other service are refused for every intent.
/// This policy says what happens to a user bound to none.
public enum VoiceServiceBinding: String, Sendable, Hashable, CaseIterable {
    /// A financial intent (``Intents/Intent/isFinancial``) of a user bound to no voice
    /// service is refused (`wrong_producer`): money moves only for users enrolled with the
    /// service that asks. Messaging is served as before. The default.
    case required
    /// Users bound to no voice service may be spoken for by any: for a deployment whose
    /// only voice service is trusted for every user, or while users are being enrolled.
    case optional
}
