import IntentEvents
import Intents

/// Any bytes as a record of the requests topic, read the way the resolve
/// stage reads it (envelope, type, key, payload): refuse or accept, never trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIntent(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard
        let envelope = try? IncomingEvent.decodeIntent(key: "u1", value: bytes, type: IntentRequested.type).envelope,
        let request = try? envelope.decodeData(as: IntentRequested.self)
    else { return 0 }
    // What was accepted reads back the same from its own encoding.
    let again = try? EventEnvelope(
        id: envelope.id, source: envelope.source, type: envelope.type, time: envelope.time,
        userID: envelope.userID, conversationID: envelope.conversationID, intentID: envelope.intentID,
        payload: request
    ).decodeData(as: IntentRequested.self)
    precondition(again == request, "an accepted intent does not survive its own encoding")
    return 0
}
