public import ArgumentParser
import Foundation
public import IntentResolution

/// Whether a user bound to no voice service may be spoken for by any (the resolve worker's
/// requests, the payments worker's declines of payment requests): one option, one rule.
public struct VoiceBindingOptions: ParsableArguments {
    public init() {}

    @Option(
        help: ArgumentHelp(
            "required: a user bound to no voice service (user.settings.v1 voiceServices, `intentctl settings set --voice-service`) makes no payment and declines no payment request, so no voice service acts for a user it does not serve; optional: any voice service may speak for an unbound user. A bound user is spoken for only by the services bound. Default: $INTENT_VOICE_BINDING, else required.",
            valueName: "required|optional"))
    var voiceBinding: String?

    /// ``voiceBinding``, else `INTENT_VOICE_BINDING`, else required.
    public func binding() throws -> VoiceServiceBinding {
        guard let text = voiceBinding ?? ProcessInfo.processInfo.environment["INTENT_VOICE_BINDING"] else {
            return .required
        }
        guard let binding = VoiceServiceBinding(rawValue: text) else {
            throw ValidationError(
                "--voice-binding (INTENT_VOICE_BINDING): expected required or optional, got \"\(text)\"")
        }
        return binding
    }
}
