/// Each input record as the replay memory's checks found it, all but the checks that depend
/// on the time read or on state (``StageInput/verifiedAtAnyAge(key:value:signature:)``, and the
/// payments and resolve stages' `verifiedAtAnyAge`), by where it is in its topic. Every member
/// that gains a partition reads its last records back (the workers' `ReplayMemory`), and with
/// scaling and crashes the same records are read back by many members: decoding and verifying
/// them each time was a tenth of a run. A record's bytes never change once appended, so
/// neither does what those checks find; freshness depends on the time read and is checked on
/// every read. `Checked` is what one stage's checks keep (nil inside: the record failed them).
struct VerifiedInputs<Checked> {
    private struct Address: Hashable {
        var topic: String
        var partition: Int32
        var offset: Int64
    }

    private var found: [Address: Checked] = [:]

    /// What `verify` finds of the record at `offset` of `topic`'s `partition`, found the
    /// first time it is asked for.
    mutating func checked(
        topic: String, partition: Int32, offset: Int64, _ verify: () -> Checked
    ) -> Checked {
        let address = Address(topic: topic, partition: partition, offset: offset)
        if let known = found[address] { return known }
        let checks = verify()
        found[address] = checks
        return checks
    }
}
