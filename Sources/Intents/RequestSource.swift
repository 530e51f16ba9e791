public import IntentEvents

/// The voice service that asked: the `source` of the request a stage event
/// derives from, carried as the CloudEvents extension attribute
/// `requestsource` on every event derived from it (resolved intent,
/// proposal, confirmation request), so the payments stage can bind a hold to
/// it and count only that service's answer. Any voice service holds a valid
/// key, and the confirmation request is on a topic every voice service reads:
/// without this binding a second service could answer another's user.
///
/// Only the resolve stage writes it, from the request's verified `source`
/// (whatever a voice service put there is overwritten); later stages read it
/// from events signed by the stage before them, so it is as trustworthy as
/// that signature.
public enum RequestSource {
    /// The envelope attribute's name.
    public static let attribute = "requestsource"

    /// The requesting source an event carries, or nil (an event from a writer that predates it).
    public static func of(_ envelope: EventEnvelope) -> String? {
        guard case .string(let source)? = envelope.extensions[attribute], !source.isEmpty else { return nil }
        return source
    }

    /// Stamps `source` as the requesting one, replacing anything the event carried.
    public static func stamp(_ source: String, on envelope: inout EventEnvelope) throws(EventDecodingError) {
        try envelope.extensions.set(attribute, .string(source))
    }
}
