import IntentEvents

/// Each input record's event as the replay memory's checks found it, all but freshness
/// (``StageInput/verifiedAtAnyAge(key:value:signature:)``), by where it is in its topic.
/// Every member that gains a partition reads its last records back (the workers'
/// `ReplayMemory`), and with scaling and crashes the same records are read back by many
/// members: decoding and verifying them each time was a tenth of a run. A record's bytes
/// never change once appended, so neither does what those checks find; freshness depends
/// on the time read and is checked on every read.
struct VerifiedInputs {
    private struct Address: Hashable {
        var topic: String
        var partition: Int32
        var offset: Int64
    }

    /// Nil inside: the record failed the checks (it is never remembered).
    private var checked: [Address: EventEnvelope?] = [:]

    /// The event of the record at `offset` of `topic`'s `partition`, checked by `verify` the
    /// first time it is asked for.
    mutating func envelope(
        topic: String, partition: Int32, offset: Int64, _ verify: () -> EventEnvelope?
    ) -> EventEnvelope? {
        let address = Address(topic: topic, partition: partition, offset: offset)
        if let known = checked[address] { return known }
        let envelope = verify()
        checked[address] = .some(envelope)
        return envelope
    }
}
