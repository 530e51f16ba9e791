public import Foundation

/// What a stage takes from the stage before it: intent events of one type, signed by that
/// stage alone, inside a freshness bound. One description serves every decision and every
/// record a worker only remembers (``ReplayGuard``, rebuilt from the input after a restart
/// or a rebalance), so the two can never check differently: a record the stage would have
/// refused is never remembered, and cannot make a genuine one look like a replay.
public struct StageInput<Payload: DirectlyReadPayload & Sendable>: Sendable {
    public let type: String
    public let producer: String
    public let keys: EventAuthenticator
    /// Nil takes any age (replays of history, tests of other rules).
    public let freshness: FreshnessWindow?

    public init(type: String, producer: String, keys: EventAuthenticator, freshness: FreshnessWindow?) {
        self.type = type
        self.producer = producer
        self.keys = keys
        self.freshness = freshness
    }

    /// The record's event, decoded and checked, with its intent id and data. Inlinable, so a
    /// stage runs it specialized for its payload.
    @inlinable
    public func verified(
        key: String?, value: [UInt8]?, signature: EventSignature?, now: Date
    ) throws(EventDecodingError) -> (envelope: EventEnvelope, intentID: String, payload: Payload) {
        let event = try IncomingEvent.decodeIntent(key: key, value: value, type: type)
        try keys.verify(event.envelope, received: value, signature: signature, producedBy: .only(producer))
        try freshness?.check(event.envelope, now: now)
        return (event.envelope, event.intentID, try event.envelope.decodeData(as: Payload.self))
    }

    /// What ``verified(key:value:signature:now:)`` checks but freshness, the one check that
    /// depends on the time read: the record's event if it passes, nil if not. For a reader
    /// that reads the same immutable record again (the simulation's replay memory, on every
    /// member that gains its partition), which keeps this and checks freshness per read
    /// (``remember(_:value:signature:now:seen:)``).
    @inlinable
    public func verifiedAtAnyAge(key: String?, value: [UInt8]?, signature: EventSignature?) -> EventEnvelope? {
        guard let event = try? IncomingEvent.decodeIntent(key: key, value: value, type: type),
            (try? keys.verify(event.envelope, received: value, signature: signature, producedBy: .only(producer)))
                != nil,
            (try? event.envelope.decodeData(as: Payload.self)) != nil
        else { return nil }
        return event.envelope
    }
}
