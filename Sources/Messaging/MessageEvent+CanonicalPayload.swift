public import IntentEvents
import Intents

/// The handle worker writes a message event for every message it queues or
/// delivers: directly, in canonical key order (`MessageEventCanonicalTests`
/// checks the bytes against the encoder).
extension MessageEvent: CanonicalPayload {
    public func writeCanonicalJSON(into output: inout [UInt8]) {
        var object = CanonicalObjectWriter(into: &output)
        object.time("at", at, into: &output)
        object.string("attribute", attribute?.rawValue, into: &output)
        object.string("content", content, into: &output)
        object.string("conversation", conversation, into: &output)
        object.time("dueAt", dueAt, into: &output)
        object.string("id", id, into: &output)
        object.string("intentID", intentID, into: &output)
        object.string("kind", kind.rawValue, into: &output)
        object.string("locale", locale, into: &output)
        object.strings("messageIDs", messageIDs, into: &output)
        object.people("recipients", recipients, into: &output)
        object.string("serviceName", serviceName, into: &output)
        object.string("userID", userID, into: &output)
        object.close(into: &output)
    }
}
