public import IntentEvents

/// What a voice service sends (a request, a user's answer to a confirmation), written
/// directly: the simulation, the stage benchmarks and `intentctl voice` build one per
/// intent, and the generic encoder's frames and witness calls were most of building it.
/// `VoicePayloadCanonicalTests` checks the bytes against the encoder.
extension IntentRequested: CanonicalPayload {
    public func writeCanonicalJSON(into output: inout [UInt8]) {
        var object = CanonicalObjectWriter(into: &output)
        object.key("intent", into: &output)
        intent.writeCanonicalJSON(into: &output)
        object.integer("turn", turn, into: &output)
        object.close(into: &output)
    }
}

extension ConfirmationAnswer: CanonicalPayload {
    public func writeCanonicalJSON(into output: inout [UInt8]) {
        var object = CanonicalObjectWriter(into: &output)
        object.binding("binding", binding, into: &output)
        object.string("decision", decision.rawValue, into: &output)
        object.close(into: &output)
    }
}
