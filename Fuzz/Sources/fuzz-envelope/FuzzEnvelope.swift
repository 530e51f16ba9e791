import IntentEvents

/// Any bytes as an event envelope: strict decoding must refuse or accept,
/// never trap, and what it accepts must encode and decode to the same envelope.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEnvelope(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let envelope = try? EventEnvelope.decode(bytes) else { return 0 }
    let again = try? EventEnvelope.decode(envelope.encoded())
    precondition(again == envelope, "an accepted envelope does not survive its own canonical form")
    return 0
}
