/// A pipeline stage's consume loop as a state machine, with no broker and no wall
/// clock: the host (librdkafka's, or a simulation's) reports events with the time it
/// read from its clock, and executes the actions returned, in order.
///
/// The orders a one-batch-at-a-time worker has still hold while batches are in flight:
/// - one state round at a time: batches decided while a state round is in flight wait
///   and go together as the next round (group commit), so state records reach the state
///   topics in decision order even when a round fails and is sent again;
/// - a batch's notices go only once its state round, and so every earlier one, is
///   acknowledged (with fencing: read back too), so a response never reports a decision
///   that could still be lost;
/// - input offsets are stored batch by batch, in order, after both rounds; they are
///   committed once per commit interval, and whenever nothing is in flight.
///
/// Revoked partitions and, with fencing, any assignment change drain first: nothing new
/// is decided until what is in flight is finished, stored and committable, so the next
/// owner starts from the last batch this member finished.
///
/// Inlinable throughout (its state `@usableFromInline`, not private): both hosts are in other
/// modules, and a generic type called across modules runs unspecialized, looking generic
/// metadata up at run time on every turn (a few percent of a simulated run). Inlinable, it is
/// specialized for each host's instant (the worker's `ContinuousClock`, the simulation's
/// manual clock) where the host is compiled. Nothing outside this module sets that state:
/// `@usableFromInline` makes it visible to the inlined code only.
public struct StageRuntime<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    /// What the host waits for next.
    public enum Next: Hashable, Sendable {
        /// Poll for at most this many records, waiting at most this long.
        case poll(maximum: Int, timeout: Duration)
        /// Wait for this acknowledgement (too much in flight, draining, or shutting down).
        case acknowledgement(StageTicket)
        /// Nothing to wait for but a retry's backoff: report ``timer(now:)`` at this instant.
        case timer(Instant)
        /// Stopped: nothing more to do.
        case stopped
    }

    public let policy: StageRuntimePolicy
    @usableFromInline var random: SplitMix64
    @usableFromInline var nextBatch: UInt64 = 0
    /// Decided; their state goes with the next state round.
    @usableFromInline var waiting: [RuntimeBatch] = []
    /// The state round in flight (or waiting to be sent again).
    @usableFromInline var stateRound: [RuntimeBatch] = []
    /// Sent again from this index of the state round when its backoff is due.
    @usableFromInline var resendFrom: Int?
    @usableFromInline var stateFailures: FailureRun<Instant>?
    /// Batches whose state is acknowledged, oldest first, with their notices in flight.
    @usableFromInline var noticeRounds: [RuntimeBatch] = []
    @usableFromInline var noticeFailures: FailureRun<Instant>?
    /// Notices to send again, by batch, when the backoff is due.
    @usableFromInline var noticesToResend: [BatchID] = []
    /// With fencing: state rounds being read back, oldest first; their notices go, in this
    /// order, once each and every earlier one is read back.
    @usableFromInline var readBacks: [PendingReadBack] = []
    /// Handed out by ``StageAction/decide(_:records:tick:)``, not reported yet.
    @usableFromInline var deciding: RuntimeBatch?
    /// Polled while draining: decided once the assignment is applied.
    @usableFromInline var held: [InputPosition]?

    /// The partitions the stage's state and decisions are for.
    @inlinable public var owned: Set<Int32> { ownedPartitions }
    @usableFromInline var ownedPartitions: Set<Int32> = []
    /// Assigned since the assignment was last applied.
    @usableFromInline var gained: Set<Int32> = []
    @usableFromInline var assignmentChanged = false
    @usableFromInline var revokedSinceApplied = false

    @usableFromInline var uncommitted = false
    @usableFromInline var committing = false
    @usableFromInline var lastCommit: Instant
    @usableFromInline var commitFailures: FailureRun<Instant>?
    @usableFromInline var lastTick: Instant
    @usableFromInline var lastSnapshot: Instant
    /// A snapshot is due: nothing new is decided until what is in flight is finished.
    @usableFromInline var snapshotDue = false
    @usableFromInline var shuttingDown = false
    @inlinable public var stopped: StageStop? { stopReason }
    @usableFromInline var stopReason: StageStop?

    /// `now`: when the loop starts (ticks, commits and snapshots count from it); `seed`:
    /// the jitter of retries.
    @inlinable public init(policy: StageRuntimePolicy, now: Instant, seed: UInt64) {
        self.policy = policy
        random = SplitMix64(seed: seed)
        lastCommit = now
        lastTick = now
        lastSnapshot = now
    }

    /// Batches decided and not finished.
    @inlinable public var batchesInFlight: Int { waiting.count + stateRound.count + noticeRounds.count }
    /// Nothing decided is unfinished.
    @inlinable public var isIdle: Bool { batchesInFlight == 0 && deciding == nil }
    /// Finished work whose offsets are stored and not yet committed.
    @inlinable public var hasUncommitted: Bool { uncommitted }

    /// When the earliest retry's backoff is due, if a retry is pending.
    @inlinable public var nextRetry: Instant? { earliestRetry }

    /// What the host waits for next.
    @inlinable public func next() -> Next {
        if stopReason != nil { return .stopped }
        if committing { return .acknowledgement(.commit) }
        let mustWait =
            shuttingDown || held != nil || batchesInFlight > policy.maximumBatchesInFlight
            || ((draining || snapshotDue) && !isIdle)
        if mustWait {
            if let ticket = oldestInFlight { return .acknowledgement(ticket) }
            if let due = earliestRetry { return .timer(due) }
        }
        return .poll(maximum: policy.maximumBatch, timeout: isIdle ? policy.idlePoll : policy.busyPoll)
    }

    // MARK: Events

    /// Records were polled (possibly none): decides them unless the assignment must be
    /// applied first, and does whatever the cadences make due.
    @inlinable public mutating func polled(_ records: [InputPosition], now: Instant) -> [StageAction] {
        guard stopReason == nil else { return [] }
        var actions: [StageAction] = []
        if !records.isEmpty || held != nil {
            if held == nil { held = records } else { held! += records }
        }
        turn(now, &actions)
        return actions
    }

    /// The host decided ``StageAction/decide(_:records:tick:)``'s batch: whether it has
    /// records for the state round and for the notices round.
    @inlinable public mutating func decided(_ batch: BatchID, state: Bool, notices: Bool, now: Instant) -> [StageAction]
    {
        guard var decided = deciding, decided.id == batch else { return [] }
        deciding = nil
        decided.state = state
        decided.notices = notices
        if !decided.offsets.isEmpty || state || notices { waiting.append(decided) }
        var actions: [StageAction] = []
        turn(now, &actions)
        return actions
    }

    @inlinable public mutating func acknowledged(_ ticket: StageTicket, now: Instant) -> [StageAction] {
        var actions: [StageAction] = []
        switch ticket {
        case .state(let id):
            guard let index = stateRound.firstIndex(where: { $0.id == id }) else { return [] }
            stateRound[index].stateAcknowledged = true
        case .notices(let id):
            guard let index = noticeRounds.firstIndex(where: { $0.id == id }) else { return [] }
            noticeRounds[index].noticesAcknowledged = true
        case .commit:
            guard committing else { return [] }
            committing = false
            commitFailures = nil
        case .readBack(let id):
            guard let index = readBacks.firstIndex(where: { $0.id == id }) else { return [] }
            readBacks[index].done = true
            sendReadBackNotices(&actions)
        }
        turn(now, &actions)
        return actions
    }

    /// The notices of the read-back rounds, oldest first, as far as every earlier one is done.
    @inlinable mutating func sendReadBackNotices(_ actions: inout [StageAction]) {
        while let first = readBacks.first, first.done {
            readBacks.removeFirst()
            var noticed: [BatchID] = []
            for index in noticeRounds.indices where first.batches.contains(noticeRounds[index].id) {
                noticeRounds[index].readingBack = false
                if noticeRounds[index].notices { noticed.append(noticeRounds[index].id) }
            }
            if !noticed.isEmpty { actions.append(.publish(.notices, noticed, resend: false)) }
        }
    }

    /// A transient failure (the host stops itself on a failure retrying cannot heal).
    @inlinable public mutating func failed(_ ticket: StageTicket, now: Instant) -> [StageAction] {
        var actions: [StageAction] = []
        switch ticket {
        case .state(let id):
            guard let index = stateRound.firstIndex(where: { $0.id == id }) else { return [] }
            stateRound[index].stateFailed = true
        case .notices(let id):
            guard noticeRounds.contains(where: { $0.id == id }) else { return [] }
            if let reason = FailureRun.count(&noticeFailures, ticket, at: now, policy.retry, &random) {
                return stop(reason)
            }
            noticesToResend.append(id)
        case .commit:
            guard committing else { return [] }
            committing = false
            uncommitted = true
            if let reason = FailureRun.count(&commitFailures, ticket, at: now, policy.retry, &random) {
                return stop(reason)
            }
        case .readBack:
            // Not retried: a read-back that cannot finish leaves the member unsure of its claims.
            return stop(.gaveUp(ticket, failingFor: .zero))
        }
        turn(now, &actions)
        return actions
    }

    /// Partitions were assigned to this member (incrementally).
    @inlinable public mutating func assigned(_ partitions: Set<Int32>, now: Instant) -> [StageAction] {
        // Assigned while still held: the host saw it revoked and assigned again between two
        // reports (another member may have held it meanwhile), so it is revoked here first.
        var actions: [StageAction] = []
        forgetOffsets(of: partitions.intersection(ownedPartitions), &actions)
        gained.formUnion(partitions)
        ownedPartitions.formUnion(partitions)
        assignmentChanged = true
        turn(now, &actions)
        return actions
    }

    /// Partitions were taken from this member.
    @inlinable public mutating func revoked(_ partitions: Set<Int32>, now: Instant) -> [StageAction] {
        guard !partitions.isDisjoint(with: ownedPartitions) || !partitions.isDisjoint(with: gained) else { return [] }
        var actions: [StageAction] = []
        forgetOffsets(of: partitions, &actions)
        ownedPartitions.subtract(partitions)
        gained.subtract(partitions)
        assignmentChanged = true
        revokedSinceApplied = true
        turn(now, &actions)
        return actions
    }

    /// The batches decided before `partitions` were revoked no longer move those partitions'
    /// offsets on, though they still finish: their state went out under a claim another member
    /// may have overtaken since, and then no reader counts it (with fencing), so whoever holds
    /// the partition next, this member again included, decides those records again. Storing
    /// their offsets once the partition was regained lost a payment's hold this way (a
    /// state-only round is not read back, so nothing noticed the claim it landed behind).
    /// Records polled and held, not decided yet, are dropped for the same reason: a batch
    /// made of them once the partition is gone decides none of them (their partition's state
    /// is not this member's), and if the partition came back before that batch finished, it
    /// stored their offsets, passing over records nobody decided (seed 459 of the simulation:
    /// two payments' proposals never taken).
    @inlinable mutating func forgetOffsets(of partitions: Set<Int32>, _ actions: inout [StageAction]) {
        guard !partitions.isEmpty else { return }
        if let records = held {
            let kept = records.filter { !partitions.contains($0.partition) }
            if kept.count < records.count {
                held = kept.isEmpty ? nil : kept
                actions.append(.dropHeld(partitions))
            }
        }
        for index in waiting.indices { waiting[index].forgetOffsets(of: partitions) }
        for index in stateRound.indices { stateRound[index].forgetOffsets(of: partitions) }
        for index in noticeRounds.indices { noticeRounds[index].forgetOffsets(of: partitions) }
        deciding?.forgetOffsets(of: partitions)
    }

    /// Time passed without another event (a retry's backoff is due).
    @inlinable public mutating func timer(now: Instant) -> [StageAction] {
        var actions: [StageAction] = []
        turn(now, &actions)
        return actions
    }

    /// Finish what is in flight, commit it, leave a snapshot, stop. Polled records not
    /// decided yet are left to the next owner.
    @inlinable public mutating func shutdown(now: Instant) -> [StageAction] {
        shuttingDown = true
        held = nil
        var actions: [StageAction] = []
        turn(now, &actions)
        return actions
    }

    // MARK: The machine

    @inlinable var draining: Bool { assignmentChanged && (policy.fencing || revokedSinceApplied) }

    @inlinable var oldestInFlight: StageTicket? {
        if resendFrom == nil,
            let batch = stateRound.first(where: { $0.state && !$0.stateAcknowledged && !$0.stateFailed })
        {
            return .state(batch.id)
        }
        if let batch = noticeRounds.first(where: {
            $0.notices && !$0.noticesAcknowledged && !$0.readingBack && !noticesToResend.contains($0.id)
        }) {
            return .notices(batch.id)
        }
        if let round = readBacks.first(where: { !$0.done }) { return .readBack(round.id) }
        return nil
    }

    /// Without an array of optional instants: this runs on every turn that waits, and
    /// wherever the runtime runs unspecialized, each such array is a run-time metadata look-up.
    @inlinable var earliestRetry: Instant? {
        var earliest: Instant?
        func consider(_ due: Instant?) {
            if let due, earliest.map({ due < $0 }) ?? true { earliest = due }
        }
        if resendFrom != nil { consider(stateFailures?.due) }
        if !noticesToResend.isEmpty { consider(noticeFailures?.due) }
        if uncommitted && !committing { consider(commitFailures?.due) }
        return earliest
    }

    @inlinable mutating func stop(_ reason: StageStop) -> [StageAction] {
        stopReason = reason
        return [.stop(reason)]
    }

    /// Moves everything on as far as what is known at `now` allows.
    @inlinable mutating func turn(_ now: Instant, _ actions: inout [StageAction]) {
        guard stopReason == nil, deciding == nil else { return }
        var progressed = true
        while progressed && stopReason == nil {
            progressed = false
            if finishStateRound(now, &actions) { progressed = true }
            if startStateRound(&actions) { progressed = true }
            if finishNotices(now, &actions) { progressed = true }
        }
        guard stopReason == nil else { return }
        commitIfDue(now, &actions)
        if shuttingDown {
            if isIdle && !uncommitted && !committing {
                if policy.snapshotInterval != nil && !ownedPartitions.isEmpty {
                    actions.append(.snapshot(owned: ownedPartitions, final: true))
                }
                actions += stop(.finished)
            }
            return
        }
        applyAssignmentIfDue(now, &actions)
        snapshotIfDue(now, &actions)
        decideIfDue(now, &actions)
    }

    /// The state round, once every batch of it is reported: sent again from the first
    /// failure after the backoff, or (read back with fencing) handed over to the notices.
    @inlinable mutating func finishStateRound(_ now: Instant, _ actions: inout [StageAction]) -> Bool {
        guard !stateRound.isEmpty else { return false }
        if let from = resendFrom {
            guard let due = stateFailures?.due, now >= due else { return false }
            resendFrom = nil
            for index in stateRound.indices[from...] { stateRound[index].stateFailed = false }
            actions.append(.publish(.state, stateRound[from...].filter { $0.state }.map { $0.id }, resend: true))
            return true
        }
        guard stateRound.allSatisfy({ !$0.state || $0.stateAcknowledged || $0.stateFailed }) else { return false }
        if let failed = stateRound.firstIndex(where: { $0.stateFailed }) {
            let ticket = StageTicket.state(stateRound[failed].id)
            if let reason = FailureRun.count(&stateFailures, ticket, at: now, policy.retry, &random) {
                actions += stop(reason)
                return false
            }
            resendFrom = failed
            // Later batches of the round go again too, after the failed one: nothing later
            // may land before it on the state topics.
            for index in stateRound.indices[failed...] { stateRound[index].stateAcknowledged = false }
            return true
        }
        let resent = stateFailures != nil
        stateFailures = nil
        var round = stateRound
        stateRound = []
        if policy.fencing, round.contains(where: { $0.state && $0.notices }) {
            // Its notices (and every later round's) go once it is read back; nothing of it is
            // stored before then.
            let ids = round.map { $0.id }
            actions.append(.readBack(ids, resent: resent))
            readBacks.append(PendingReadBack(id: ids[0], batches: ids))
            for index in round.indices { round[index].readingBack = true }
            noticeRounds += round
            return true
        }
        let noticed = round.filter { $0.notices }.map { $0.id }
        if !noticed.isEmpty {
            if readBacks.isEmpty {
                actions.append(.publish(.notices, noticed, resend: false))
            } else {
                // Behind a round still being read back: its notices go after that round's.
                readBacks.append(PendingReadBack(id: round[0].id, batches: round.map { $0.id }, done: true))
                for index in round.indices { round[index].readingBack = true }
            }
        }
        noticeRounds += round
        return true
    }

    /// The next state round: every batch decided meanwhile, in order.
    @inlinable mutating func startStateRound(_ actions: inout [StageAction]) -> Bool {
        guard stateRound.isEmpty, !waiting.isEmpty else { return false }
        stateRound = waiting
        waiting = []
        let sent = stateRound.filter { $0.state }.map { $0.id }
        if !sent.isEmpty { actions.append(.publish(.state, sent, resend: false)) }
        return true
    }

    /// Finished batches, oldest first, store their offsets; failed notices go again.
    @inlinable mutating func finishNotices(_ now: Instant, _ actions: inout [StageAction]) -> Bool {
        var progressed = false
        if !noticesToResend.isEmpty, let due = noticeFailures?.due, now >= due {
            actions.append(.publish(.notices, noticesToResend, resend: true))
            noticesToResend = []
            progressed = true
        }
        while let batch = noticeRounds.first, !batch.readingBack, !batch.notices || batch.noticesAcknowledged {
            noticeRounds.removeFirst()
            if noticesToResend.isEmpty && !noticeRounds.contains(where: { $0.notices && !$0.noticesAcknowledged }) {
                noticeFailures = nil
            }
            // Also for a batch that consumed nothing (a tick's): the host lets go of it.
            actions.append(.storeOffsets(batch.id, batch.offsets))
            if !batch.offsets.isEmpty { uncommitted = true }
            progressed = true
        }
        return progressed
    }

    /// One commit per commit interval while batches keep coming; at once when nothing is in flight.
    @inlinable mutating func commitIfDue(_ now: Instant, _ actions: inout [StageAction]) {
        guard uncommitted, !committing else { return }
        if let due = commitFailures?.due, now < due { return }
        guard isIdle || lastCommit.duration(to: now) >= policy.commitInterval else { return }
        committing = true
        uncommitted = false
        lastCommit = now
        actions.append(.commit)
    }

    /// The assignment is applied before the next decision (at once with partitioned
    /// state), after draining when partitions were revoked or with fencing.
    @inlinable mutating func applyAssignmentIfDue(_ now: Instant, _ actions: inout [StageAction]) {
        guard assignmentChanged,
            held != nil || tickDue(now) || policy.restoresOnAssignment || revokedSinceApplied
        else { return }
        if draining && (!isIdle || uncommitted || committing) { return }
        actions.append(.restore(owned: ownedPartitions, gained: gained))
        if policy.fencing { actions.append(.claim(ownedPartitions)) }
        gained = []
        assignmentChanged = false
        revokedSinceApplied = false
    }

    @inlinable func tickDue(_ now: Instant) -> Bool {
        guard let interval = policy.tickInterval else { return false }
        return lastTick.duration(to: now) >= interval
    }

    @inlinable mutating func decideIfDue(_ now: Instant, _ actions: inout [StageAction]) {
        guard !snapshotDue, !assignmentChanged || !draining, batchesInFlight <= policy.maximumBatchesInFlight else {
            return
        }
        let tick = tickDue(now)
        guard held != nil || tick else { return }
        if tick { lastTick = now }
        let records = held ?? []
        held = nil
        var offsets: [Int32: Int64] = [:]
        for record in records { offsets[record.partition] = max(offsets[record.partition] ?? 0, record.offset + 1) }
        nextBatch += 1
        let batch = RuntimeBatch(id: BatchID(nextBatch), offsets: offsets, state: false, notices: false)
        deciding = batch
        actions.append(.decide(batch.id, records: records, tick: tick))
    }

    /// Snapshots are taken with nothing in flight (the state is then exactly the state
    /// topics): once one is due, nothing new is decided until the pipeline has drained.
    @inlinable mutating func snapshotIfDue(_ now: Instant, _ actions: inout [StageAction]) {
        guard let interval = policy.snapshotInterval, !ownedPartitions.isEmpty, !assignmentChanged else { return }
        if lastSnapshot.duration(to: now) >= interval { snapshotDue = true }
        guard snapshotDue, isIdle else { return }
        snapshotDue = false
        lastSnapshot = now
        actions.append(.snapshot(owned: ownedPartitions, final: false))
    }
}

/// One decided batch, on its way through the two rounds. Outside the generic runtime on
/// purpose: nested, it would be generic over the clock too, and wherever the runtime runs
/// unspecialized, its metadata would be looked up at run time on every count, filter and
/// append of a round. Its fields are read with closures, not key paths, for the same
/// reason: unspecialized, a key path literal is instantiated at run time each time it is
/// evaluated.
@usableFromInline
struct RuntimeBatch: Sendable {
    @usableFromInline let id: BatchID
    /// The next offset to read per partition once this batch is finished; a partition
    /// revoked while the batch is in flight is taken out (``StageRuntime/forgetOffsets(of:_:)``).
    @usableFromInline var offsets: [Int32: Int64]
    @usableFromInline var state: Bool
    @usableFromInline var notices: Bool
    @usableFromInline var stateAcknowledged = false
    @usableFromInline var stateFailed = false
    @usableFromInline var noticesAcknowledged = false
    /// Its state round is being read back (or an earlier one is): nothing of it goes on yet.
    @usableFromInline var readingBack = false

    @inlinable
    init(id: BatchID, offsets: [Int32: Int64], state: Bool, notices: Bool) {
        self.id = id
        self.offsets = offsets
        self.state = state
        self.notices = notices
    }

    @inlinable mutating func forgetOffsets(of partitions: Set<Int32>) {
        offsets = offsets.filter { !partitions.contains($0.key) }
    }
}

/// A state round being read back before its notices go: named by its first batch.
@usableFromInline
struct PendingReadBack: Sendable {
    @usableFromInline let id: BatchID
    @usableFromInline let batches: [BatchID]
    @usableFromInline var done = false

    @inlinable
    init(id: BatchID, batches: [BatchID], done: Bool = false) {
        self.id = id
        self.batches = batches
        self.done = done
    }
}
