public import IntentEvents

/// Reading a record of the ledger topic as everyone who trusts it must: a
/// strict envelope, a signature by a source allowed to write the ledger, and
/// a kind that source may write. The payments worker writes anything;
/// operators' tools (`intentctl ledger`) only open accounts and deposit. A
/// record written onto the topic by anyone else moves no balance anywhere.
public enum LedgerRecord {
    public static let writers = Producers.only(PipelineSource.payments, PipelineSource.ledgerOperator)

    public static func decode(
        key: String?, value: [UInt8]?, signature: EventSignature?, keys: EventAuthenticator
    ) throws(EventDecodingError) -> LedgerEvent {
        try read(key: key, value: value, signature: signature, keys: keys).event
    }

    /// ``decode(key:value:signature:keys:)`` with the record's envelope time, which dates
    /// the event for the ledger's idempotency horizon.
    public static func read(
        key: String?, value: [UInt8]?, signature: EventSignature?, keys: EventAuthenticator
    ) throws(EventDecodingError) -> (event: LedgerEvent, time: Timestamp) {
        let read = try readWithEnvelope(key: key, value: value, signature: signature, keys: keys)
        return (read.event, Timestamp(read.envelope.time))
    }

    /// ``read(key:value:signature:keys:)`` with the envelope the event came in. Public for the
    /// simulation (`StageSimulation`), which reads each ledger record once as it is appended and
    /// hands its end-of-run audit the envelope instead of decoding the same bytes again.
    public static func readWithEnvelope(
        key: String?, value: [UInt8]?, signature: EventSignature?, keys: EventAuthenticator
    ) throws(EventDecodingError) -> (envelope: EventEnvelope, event: LedgerEvent) {
        // Data kept as bytes: the event is read straight from them (``LedgerEvent/decode(from:)``).
        let envelope = try IncomingEvent.decode(key: key, value: value, type: LedgerEvent.type)
        try keys.verify(envelope, received: value, signature: signature, producedBy: writers)
        let event = try LedgerEvent.decode(from: envelope)
        // Each user's state is on that user's partition: a record keyed by anyone else is
        // another member's to write, and would be applied where nobody decides for its user.
        guard event.userID == envelope.userID else {
            throw EventDecodingError(
                .wrongUser, field: "$.data.userID", "a ledger event is keyed by its own user, not \(envelope.userID)")
        }
        try checkWriter(envelope.source, of: event)
        // A kind without the fields it needs is malformed, not a ledger decision:
        // dead-lettered with what it lacks, never applied.
        do throws(Ledger.ApplyError) {
            _ = try event.payload()
        } catch {
            throw EventDecodingError(
                .schemaInvalid, field: "$.data", "a \(event.kind.rawValue) ledger event needs \(error.missingFields)")
        }
        return (envelope, event)
    }

    /// What an operator may write: account openings, closings and deposits, never holds,
    /// posts or requests.
    public static func checkWriter(_ source: String, of event: LedgerEvent) throws(EventDecodingError) {
        guard source != PipelineSource.payments else { return }
        guard event.kind == .accountOpened || event.kind == .accountClosed || event.kind == .deposit else {
            throw EventDecodingError(
                .wrongProducer, field: "$.data.kind",
                "\(source) may open and close accounts and deposit, not write a \(event.kind.rawValue)")
        }
    }
}
