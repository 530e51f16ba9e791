public import IntentEvents
public import Intents

/// The payments state, materialized from ledger events: balances per account
/// and currency, transfers, proposals and payment requests. Applying an
/// event twice changes nothing (events carry unique ids), so replaying the
/// ledger topic after a crash rebuilds exactly the state before it.
public struct Ledger: Sendable {
    public typealias Account = AccountDirectory.Account

    public enum TransferStatus: String, Sendable, Hashable { case held, posted, voided }

    public struct Transfer: Sendable, Hashable {
        public var id: String
        public var intentID: String
        public var payer: String
        public var payee: String
        public var payeeContactID: String?
        /// The account (handle) the payer confirmed; the post must credit its owner.
        public var payeeAccount: String?
        public var money: Money
        public var note: String?
        public var expiresAt: Timestamp?
        public var status: TransferStatus
        public var paysRequestID: String?
        /// The event that posted or voided it, and why a void happened.
        public var decidedBy: String?
        public var decidedAt: Timestamp?
        public var voidReason: String?
        /// The voice service that asked for it (``RequestSource``): only its answer decides.
        public var requestSource: String? = nil

        /// What the payer's confirmation is bound to.
        public var bindingTerms: BindingTerms? {
            expiresAt.map {
                BindingTerms(
                    kind: .sendPayment, intentID: intentID, userID: payer, counterpartyContactID: payeeContactID,
                    counterpartyAccount: payeeAccount, money: money, note: note, expiresAt: $0,
                    counterpartyUserID: payee, requestSource: requestSource)
            }
        }
    }

    public enum RequestStatus: String, Sendable, Hashable { case proposed, pending, declined, paid, closed }

    public struct PaymentRequest: Sendable, Hashable {
        public var id: String
        public var intentID: String
        public var requester: String
        public var payer: String
        public var payerContactID: String?
        /// The account (handle) asked to pay, as the requester confirmed it.
        public var payerAccount: String?
        public var money: Money
        public var note: String?
        public var expiresAt: Timestamp?
        public var status: RequestStatus
        /// The event that created or closed it, and its time.
        public var decidedBy: String?
        public var decidedAt: Timestamp?
        /// When it was paid or declined (the idempotency horizon counts from then).
        public var endedAt: Timestamp?
        /// The voice service that asked for it (``RequestSource``): only its answer decides.
        public var requestSource: String? = nil
        /// On the payer's side: the transfer whose hold reserved it. A request is paid at most
        /// once: while one payment holds it, another payment of it is refused; a void
        /// releases it, a post pays it.
        public var reservedBy: String? = nil

        /// What the requester's confirmation is bound to.
        public var bindingTerms: BindingTerms? {
            expiresAt.map {
                BindingTerms(
                    kind: .requestPayment, intentID: intentID, userID: requester, counterpartyContactID: payerContactID,
                    counterpartyAccount: payerAccount, money: money, note: note, expiresAt: $0,
                    counterpartyUserID: payer, requestSource: requestSource)
            }
        }
    }

    /// A proposal that ended without money moving: why, and which event decided it.
    public struct ClosedProposal: Sendable, Hashable {
        public var reason: String
        public var decidedBy: String?
        public var decidedAt: Timestamp?
    }

    /// The accounts opened in this ledger's events. A partition's ledger has
    /// only its own users'; deciding workers look counterparts up in the
    /// global ``AccountDirectory`` instead.
    public internal(set) var directory = AccountDirectory()
    public var accounts: [String: Account] { directory.accounts }
    public internal(set) var transfers: [String: Transfer] = [:]
    public internal(set) var requests: [String: PaymentRequest] = [:]
    /// Posts and voids this worker decided (not those replayed), for its metrics.
    public var movements = MoneyMovements()
    /// Proposals closed without money moving, by user and intent id.
    var closedProposals: [ProposalKey: ClosedProposal] = [:]
    /// Each partition's latest claim (``LedgerOwner``): an event stamped with any other
    /// claim is refused as ``ApplyError/fenced(event:writer:owner:)``.
    var ownership = LedgerOwnership()
    public var owners: [Int32: LedgerOwner] { ownership.owners }
    /// The claim this member writes under, set by the payments worker once its claim is
    /// the partition's latest (``PaymentsStage`` stamps every event it records with it).
    /// Not state: never in a snapshot; nil for every reader that does not decide.
    public var writer: LedgerOwner?
    /// Proposals that expired (a hold voided or a request proposal closed by the sweep),
    /// by when it was decided, whose final response is not known to have been sent from here
    /// (``answeredExpiry(userID:intentID:)``): a member that restores them from the topic or
    /// a snapshot cannot know whether the member that decided them answered before it stopped.
    /// Not state: never in a snapshot (a restored snapshot marks every expiry it holds).
    private var unansweredExpiries: [ProposalKey: Timestamp] = [:]

    /// Whether another member has claimed this member's partition since: it must
    /// decide nothing more here (what it would write is refused by every reader).
    public var isFenced: Bool { writer.map { owners[$0.partition] != $0 } ?? false }

    /// A user's intent, as a key: two strings, so "a" + "b/c" and "a/b" + "c" never collide.
    struct ProposalKey: Hashable {
        var userID: String
        var intentID: String
    }
    var balances: [BalanceKey: Int64] = [:]
    /// The ids of the events applied, each with the hour it was dated (``undated`` when
    /// applied without a time), for idempotency within ``idempotencyHorizon``, and the
    /// shape of the event (``Applied/shape``).
    var applied: [String: Applied] = [:]

    /// What the ledger remembers of an applied event id.
    struct Applied: Sendable, Hashable {
        var hour: Int64
        /// A stable hash of what the event is about (kind, user, transfer, request): the same
        /// id arriving again about something else is refused (``ApplyError/idReused(event:kind:)``),
        /// so an event written ahead of time under an id a later decision will derive (a
        /// deposit under a coming post's id, with the ledger operator's key) cannot make that
        /// decision a silent no-op while its effects go out.
        var shape: UInt64
    }
    /// The same ids by hour, so the oldest hours are forgotten without a scan.
    var appliedByHour: [Int64: [String]] = [:]
    /// The latest event time applied: the ledger's own clock, so forgetting is the same
    /// live and on replay (never the wall clock).
    public internal(set) var watermark: Timestamp?
    var prunedThroughHour: Int64 = .min
    /// How many events of each user were applied: the user's ledger version. Every
    /// member following the partition counts the same (one order per partition), so
    /// a decision can record the version it saw and be re-derived on it later
    /// (`intentctl replay confirm`). One number per user, never forgotten.
    public internal(set) var versions: [String: Int] = [:]
    static let undated = Int64.max

    struct BalanceKey: Hashable {
        var account: String
        var currency: String
    }

    /// How long decided transfers, ended requests, closed proposals and applied event
    /// ids are remembered after they are decided (by the ledger's own clock): the bound
    /// on idempotency memory. Nil remembers everything (audits, tests). A worker
    /// refuses inputs older than half of it (``PaymentsStage``), so nothing it has
    /// forgotten can come back to be decided again.
    public var idempotencyHorizon: Duration?

    public init(idempotencyHorizon: Duration? = nil) {
        self.idempotencyHorizon = idempotencyHorizon
    }

    public static func available(_ userID: String) -> String { "users/\(userID)/available" }
    public static func held(_ userID: String) -> String { "users/\(userID)/held" }
    public static let funding = "external/funding"
    /// Where a posted payment waits between the payer's partition and the
    /// payee's: the post moves the payer's hold here, the payee's credit takes
    /// it out. Zero once every post is credited (the audit checks).
    public static let clearing = "clearing/payments"

    // MARK: Reading

    /// Credits minus debits: what the bank owes the account holder.
    public func balance(_ account: String, _ currency: String) -> Money {
        Money(currency: currency, micros: balances[BalanceKey(account: account, currency: currency)] ?? 0)
    }

    /// The user's ledger version (``versions``): 0 before their first event.
    public func version(of userID: String) -> Int { versions[userID] ?? 0 }

    public func availableBalance(of userID: String, _ currency: String) -> Money {
        balance(Self.available(userID), currency)
    }

    /// Every (account, currency) with a balance, for audits.
    public var allBalances: [(account: String, money: Money)] {
        balances.map { ($0.key.account, Money(currency: $0.key.currency, micros: $0.value)) }
            .sorted { ($0.account, $0.money.currency) < ($1.account, $1.money.currency) }
    }

    public func account(handle: String) -> Account? { directory.account(handle: handle) }

    public func contains(eventID: String) -> Bool { applied[eventID] != nil }

    public func transfer(forIntent intentID: String, of userID: String) -> Transfer? {
        transfers[Self.transferID(userID: userID, intentID: intentID)]
    }

    /// The proposal of this user's intent, if it was closed without money moving.
    public func closedProposal(forIntent intentID: String, of userID: String) -> ClosedProposal? {
        closedProposals[ProposalKey(userID: userID, intentID: intentID)]
    }

    public func request(forIntent intentID: String, of userID: String) -> PaymentRequest? {
        requests[Self.requestID(userID: userID, intentID: intentID)]
    }

    /// Why the sweep ends a proposal whose time ran out.
    public static let expiryReason = "confirmationExpired"

    /// The id of the expiry that decides an intent the sweep ends: derived, so a sweep repeated
    /// after a crash decides with the same event, and the ledger tells the sweep's decisions
    /// from an answer's that came too late (which the answer's redelivery answers again).
    public static func expiryID(userID: String, intentID: String) -> String {
        EventID.derived("expiry", userID, intentID)
    }

    /// The sweep answered this expiry itself.
    public mutating func answeredExpiry(userID: String, intentID: String) {
        unansweredExpiries[ProposalKey(userID: userID, intentID: intentID)] = nil
    }

    /// Takes the expiries of the users this worker owns that no final response is recorded
    /// for: those decided at `since` or later, to answer again (the answer is derived from the
    /// expiry, so a copy of one that did go out changes nothing); older ones are forgotten.
    public mutating func takeUnansweredExpiries(decidedSince since: Timestamp, owns: (String) -> Bool) -> [(
        userID: String, intentID: String
    )] {
        let taken = unansweredExpiries.filter { owns($0.key.userID) }
        for key in taken.keys { unansweredExpiries[key] = nil }
        return taken.filter { $0.value >= since }.keys.map { ($0.userID, $0.intentID) }.sorted {
            ($0.0, $0.1) < ($1.0, $1.1)
        }
    }

    /// Marks every expiry this ledger holds as unanswered: a snapshot says what was decided,
    /// not whether its answer went out.
    mutating func markExpiriesUnanswered() {
        for transfer in transfers.values where transfer.status == .voided {
            markIfExpiry(
                ProposalKey(userID: transfer.payer, intentID: transfer.intentID), reason: transfer.voidReason,
                decidedBy: transfer.decidedBy, decidedAt: transfer.decidedAt)
        }
        for (key, closed) in closedProposals {
            markIfExpiry(key, reason: closed.reason, decidedBy: closed.decidedBy, decidedAt: closed.decidedAt)
        }
    }

    /// Marks the intent's end as an unanswered expiry when the sweep decided it (its reason,
    /// then the derived expiry event: the id is derived only for the sweep's own reason).
    private mutating func markIfExpiry(
        _ key: ProposalKey, reason: String?, decidedBy: String?, decidedAt: Timestamp?
    ) {
        guard reason == Self.expiryReason, let decidedAt,
            decidedBy == Self.expiryID(userID: key.userID, intentID: key.intentID)
        else { return }
        unansweredExpiries[key] = decidedAt
    }

    /// Holds that are still open after their expiry, for the sweep.
    public func expiredHolds(of isMine: (String) -> Bool, at now: Timestamp) -> [Transfer] {
        transfers.values.filter { $0.status == .held && isMine($0.payer) && ($0.expiresAt.map { $0 < now } ?? false) }
            .sorted { $0.id < $1.id }
    }

    /// The most payment requests one user may have open (proposed, or pending with the payer)
    /// to one payer at once, and to everyone. A pending request never expires, and only its
    /// payer can end it, one decline at a time: without a bound, one user could fill a payer's
    /// ledger (and every snapshot of it) with requests (SECURITY.md, attack 54). Per payer, so a
    /// payer who never answers holds up only requests to that payer.
    public static let maximumOpenRequestsToOnePayer = 20
    public static let maximumOpenRequests = 1000

    /// How many requests `userID` asked for that are still open (proposed or pending): in all,
    /// and to `payer`.
    public func openRequests(of userID: String, to payer: String) -> (all: Int, toPayer: Int) {
        var all = 0
        var toPayer = 0
        for request in requests.values
        where request.requester == userID && (request.status == .proposed || request.status == .pending) {
            all += 1
            if request.payer == payer { toPayer += 1 }
        }
        return (all, toPayer)
    }

    public func expiredRequestProposals(of isMine: (String) -> Bool, at now: Timestamp) -> [PaymentRequest] {
        requests.values.filter {
            $0.status == .proposed && isMine($0.requester) && ($0.expiresAt.map { $0 < now } ?? false)
        }
        .sorted { $0.id < $1.id }
    }

    // MARK: Ids

    /// One transfer per intent, ever: the id is derived from it.
    public static func transferID(userID: String, intentID: String) -> String {
        EventID.derived(prefix: "tr-", "transfer", userID, intentID)
    }

    public static func requestID(userID: String, intentID: String) -> String {
        EventID.derived(prefix: "pr-", "payment-request", userID, intentID)
    }

    // MARK: Applying

    /// Why the ledger refuses an event, typed: ``reason`` is the machine-readable
    /// name that reaches the user's response and the logs, ``description`` the
    /// sentence for people.
    public enum ApplyError: Error, Sendable, Hashable, CustomStringConvertible {
        /// Debits and credits of the event differ (in some currency).
        case unbalanced(String)
        /// The account would go below zero.
        case negativeBalance(String)
        /// A post or void of a transfer that is not held (unknown, or already decided).
        case unknownTransfer(String)
        /// A post or void that does not move exactly the held amount, in its
        /// currency, from the payer's hold to the payee (post) or back (void).
        case transferMismatch(event: String, transfer: String)
        /// A deposit, hold or record-only event that moves money its kind may not.
        case movementNotAllowed(event: String, kind: String)
        /// The event lacks what its kind needs (transfer, intent, counterparty, amount).
        case missingField(event: String, fields: String)
        /// An entry of zero or a negative amount.
        case nonPositiveAmount(String)
        /// A balance would exceed what the ledger can hold.
        case balanceOverflow(String)
        /// A decision about a payment request the ledger does not know.
        case unknownRequest(String)
        /// A payment of a request that is not open for this payer: paid, declined, reserved
        /// by another payment, another payer's, or for another amount or payee.
        case requestNotPayable(request: String, why: String)
        /// A deposit in an unknown currency, or finer than its currency's minor units
        /// (``CurrencyMinorUnits``): money enters only in amounts that can be paid out.
        case amountNotExpressible(event: String, CurrencyMinorUnits.Violation)
        /// An id already applied, for an event about something else (another kind, user,
        /// transfer or request): written ahead of time to make a decision a no-op.
        case idReused(event: String, kind: String)
        /// Written under a claim that is not the partition's latest (``LedgerOwner``): by a
        /// member that lost the partition without noticing. Nothing it wrote there counts.
        case fenced(event: String, writer: String, owner: String?)
        /// A claim whose epoch is not above the partition's latest: a replay, or the
        /// second of two members that claimed at once.
        case staleClaim(event: String, claim: String, current: String)
        /// Dated before the oldest hour whose event ids the ledger still remembers: a copy
        /// of an event it has forgotten could not be told from a new one, so none is applied
        /// (a record re-appended to the ledger topic days later, or an effect sent again).
        case beyondMemory(event: String, hour: Int64, oldestRemembered: Int64)

        /// For ``missingField(event:fields:)``, the fields; otherwise empty.
        public var missingFields: String {
            if case .missingField(_, let fields) = self { return fields }
            return ""
        }

        /// The machine-readable name of the refusal.
        public var reason: String {
            switch self {
            case .unbalanced: "unbalanced"
            case .negativeBalance: "negativeBalance"
            case .unknownTransfer: "unknownTransfer"
            case .transferMismatch: "transferMismatch"
            case .movementNotAllowed: "movementNotAllowed"
            case .missingField: "missingField"
            case .nonPositiveAmount: "nonPositiveAmount"
            case .balanceOverflow: "balanceOverflow"
            case .unknownRequest: "unknownRequest"
            case .requestNotPayable: "requestNotPayable"
            case .amountNotExpressible(_, let violation): violation.reason
            case .idReused: "idReused"
            case .fenced: "fenced"
            case .staleClaim: "staleClaim"
            case .beyondMemory: "beyondMemory"
            }
        }

        public var description: String {
            switch self {
            case .unbalanced(let id): "event \(id): debits and credits differ"
            case .negativeBalance(let account): "\(account) would go negative"
            case .unknownTransfer(let id): "unknown transfer \(id)"
            case .transferMismatch(let event, let transfer):
                "\(event) does not move exactly the amount held for \(transfer) from the payer's hold to its receiver"
            case .movementNotAllowed(let event, let kind): "\(kind) \(event) moves money a \(kind) may not move"
            case .missingField(let event, let fields): "event \(event) lacks \(fields)"
            case .nonPositiveAmount(let id): "event \(id): entry amounts must be positive"
            case .balanceOverflow(let id): "event \(id): a balance would exceed what the ledger can hold"
            case .unknownRequest(let id): "unknown payment request \(id)"
            case .requestNotPayable(let id, let why): "payment request \(id) cannot be paid: \(why)"
            case .amountNotExpressible(let id, let violation): "event \(id): \(violation)"
            case .idReused(let id, let kind):
                "event id \(id) was already applied for something other than this \(kind)"
            case .fenced(let id, let writer, let owner):
                "event \(id) was written under claim \(writer), but the partition's owner is \(owner ?? "unclaimed")"
            case .staleClaim(let id, let claim, let current):
                "claim \(id) (\(claim)) is not newer than the partition's owner \(current)"
            case .beyondMemory(let id, let hour, let oldest):
                "event \(id) is dated in hour \(hour), before hour \(oldest), the oldest whose events the ledger still remembers: it cannot tell a copy from a new event"
            }
        }
    }

    /// Applies an event; returns false for one already applied. Refuses
    /// (and leaves the state unchanged) what would break an invariant.
    ///
    /// `checkingBalances: false` is for replaying the ledger topic: its
    /// partitions are read side by side, so a payee's spending can be read
    /// before the payment that funded it (from another partition). Each
    /// writer checked balances when it decided; on replay only the order is
    /// different, and the final state is the same.
    ///
    /// `time` is the event's envelope time: it dates the event for the
    /// idempotency horizon and moves the ledger's ``watermark``.
    @discardableResult
    public mutating func apply(_ event: LedgerEvent, at time: Timestamp? = nil, checkingBalances: Bool = true)
        throws(ApplyError) -> Bool
    {
        let shape = Self.shape(of: event)
        if let seen = applied[event.id] {
            guard seen.shape == shape else { throw .idReused(event: event.id, kind: event.kind.rawValue) }
            return false
        }
        try checkRemembered(event, at: time)
        try Self.checkBalanced(event)
        let payload = try event.payload()
        // Written under a claim that is not its partition's latest (``LedgerOwnership``): nothing counts.
        if let refusal = ownership.refusal(of: event) { throw refusal }
        try Self.checkShape(event, payload)
        let updated = try updatedBalances(event, checkingBalances: checkingBalances)
        if checkingBalances, case .hold(let hold) = payload, let requestID = hold.paysRequestID {
            try checkPayable(requestID, by: hold, of: event.userID)
        }
        try record(payload, of: event)
        for (key, balance) in updated { balances[key] = balance }
        remember(event.id, shape: shape, at: time)
        versions[event.userID, default: 0] += 1
        return true
    }

    /// The new balances of the accounts `event` touches, computed aside so a
    /// refusal leaves the ledger unchanged. Only the touched keys are copied
    /// (an event has a handful of entries): copying the whole balance table
    /// per event made every decision O(accounts).
    private func updatedBalances(_ event: LedgerEvent, checkingBalances: Bool) throws(ApplyError) -> [(
        BalanceKey, Int64
    )] {
        var updated: [(BalanceKey, Int64)] = []
        updated.reserveCapacity(event.entries.count)
        for entry in event.entries {
            let key = BalanceKey(account: entry.account, currency: entry.amount.currency)
            let micros = Money(entry.amount).micros
            let index = updated.firstIndex { $0.0 == key }
            let current = index.map { updated[$0].1 } ?? balances[key] ?? 0
            let balance = try Self.add(current, entry.side == .credit ? micros : -micros, event.id)
            if checkingBalances, entry.account.hasPrefix("users/"), balance < 0 {
                throw .negativeBalance(entry.account)
            }
            if let index { updated[index].1 = balance } else { updated.append((key, balance)) }
        }
        return updated
    }

    /// A hold that pays a request reserves it: the request must be pending on this payer's
    /// side, for this payee and amount, and not reserved by another payment. Checked only
    /// when deciding (`checkingBalances`): a replay reads partitions side by side, and may
    /// read the requester's side of a payment before the payer's hold.
    private func checkPayable(_ requestID: String, by hold: LedgerEvent.Hold, of payer: String) throws(ApplyError) {
        if let why = whyNotPayable(
            requestID, payer: payer, payee: hold.payee, money: Money(hold.amount), transferID: hold.transferID)
        {
            throw .requestNotPayable(request: requestID, why: why)
        }
    }

    /// Why `payer` may not pay request `requestID` to `payee` with `money` by transfer
    /// `transferID`, or nil when it may: the rule a hold is applied under, for the stages
    /// that decide before holding (the confirm stage's verdict, the payments stage's checks
    /// before the balance), so that all three say the same of a request no longer open.
    public func whyNotPayable(
        _ requestID: String, payer: String, payee: String, money: Money, transferID: String
    ) -> String? {
        guard let request = requests[requestID] else { return "no such request for this payer" }
        return if request.payer != payer || request.requester != payee {
            "it is between other users"
        } else if request.money != money {
            "it asks for \(request.money.currencyAmount), not \(money.currencyAmount)"
        } else if request.status != .pending {
            "it is \(request.status.rawValue)"
        } else if let other = request.reservedBy, other != transferID {
            "another payment (\(other)) is paying it"
        } else { nil }
    }

    /// The rules of ``apply(_:at:checkingBalances:)`` that need no ledger state: the event's
    /// entries balance, are positive and move only what its kind may move, and it has the
    /// fields its kind needs. For a reader that shows the ledger without keeping one (the app
    /// state): an event every ledger refuses this way must not show as money either. Posts
    /// and voids pass here; only their hold, which a ledger keeps, can check them.
    public static func checkMovement(_ event: LedgerEvent) throws(ApplyError) {
        try checkBalanced(event)
        try checkShape(event, try event.payload())
    }

    /// Money enters only by a deposit from outside to the depositor, and a hold only
    /// parks the payer's own money; events that record rather than move carry no
    /// entries. (Posts and voids are checked against their hold when recorded.) So
    /// a writer allowed to deposit, such as the ledger operator, cannot move one
    /// user's money to another by calling it a deposit.
    private static func checkShape(_ event: LedgerEvent, _ payload: LedgerEvent.Payload) throws(ApplyError) {
        let allowed: Bool
        switch payload {
        case .deposit(let amount):
            if let violation = CurrencyMinorUnits.violation(of: amount) {
                throw .amountNotExpressible(event: event.id, violation)
            }
            allowed = Self.isMove(
                event.entries, amount, from: .fixed(Self.funding), to: .available(of: event.userID))
        case .hold(let hold):
            allowed = Self.isMove(
                event.entries, hold.amount, from: .available(of: event.userID), to: .held(of: event.userID))
        case .credit(let credit):
            allowed = Self.isMove(
                event.entries, credit.amount, from: .fixed(Self.clearing), to: .available(of: event.userID))
        case .post, .void:
            allowed = true
        case .accountOpened, .accountClosed, .requestProposed, .requestCreated, .requestReceived, .requestDeclined,
            .requestPaid,
            .proposalClosed, .ownerClaimed:
            allowed = event.entries.isEmpty
        }
        if !allowed { throw .movementNotAllowed(event: event.id, kind: event.kind.rawValue) }
    }

    /// An account as ``checkShape(_:_:)`` expects it: a fixed one, or a user's (``available(_:)``,
    /// ``held(_:)``), compared with an entry's account without making the name. Every money
    /// event applied (a worker's, a follower's, a restore's, the audit's) is checked, and
    /// naming two accounts and a list of two entries per event was three allocations.
    private enum ExpectedAccount {
        case fixed(String)
        case available(of: String)
        case held(of: String)

        /// Whether `account` is this one, as `==` with the made name compares: byte for byte
        /// against the form ``Ledger/available(_:)`` and ``Ledger/held(_:)`` write first, then,
        /// when the bytes differ, against the made name as a string (canonically equivalent
        /// names are equal strings), which only a malformed entry reaches. (Were those names'
        /// form to change and not this one, every check would make the name again: the
        /// allocation gate would fail, not the check.)
        func matches(_ account: String) -> Bool {
            switch self {
            case .fixed(let name): account == name
            case .available(let userID):
                Self.isUsers(account, userID, "available") || account == Ledger.available(userID)
            case .held(let userID): Self.isUsers(account, userID, "held") || account == Ledger.held(userID)
            }
        }

        /// Whether `account`'s bytes are `users/<userID>/<kind>`.
        private static func isUsers(_ account: String, _ userID: String, _ kind: String) -> Bool {
            var index = account.utf8.startIndex
            return take("users/", from: account, at: &index) && take(userID, from: account, at: &index)
                && take("/", from: account, at: &index) && take(kind, from: account, at: &index)
                && index == account.utf8.endIndex
        }

        /// Reads `part`'s bytes from `account` at `index`, moving past them; false where they differ.
        private static func take(_ part: String, from account: String, at index: inout String.Index) -> Bool {
            let bytes = account.utf8
            for byte in part.utf8 {
                guard index < bytes.endIndex, bytes[index] == byte else { return false }
                bytes.formIndex(after: &index)
            }
            return true
        }
    }

    /// Whether `entries` are ``LedgerEntry/move(_:from:to:)`` of `amount`, in either order: what
    /// ``LedgerEntry/same(_:as:)`` finds for those two entries (distinct, as their sides differ).
    private static func isMove(
        _ entries: [LedgerEntry], _ amount: CurrencyAmount, from source: ExpectedAccount,
        to destination: ExpectedAccount
    ) -> Bool {
        guard entries.count == 2 else { return false }
        func matches(_ entry: LedgerEntry, _ side: LedgerEntry.Side, _ account: ExpectedAccount) -> Bool {
            entry.side == side && entry.amount == amount && account.matches(entry.account)
        }
        return (matches(entries[0], .debit, source) && matches(entries[1], .credit, destination))
            || (matches(entries[0], .credit, destination) && matches(entries[1], .debit, source))
    }

    private static func checkBalanced(_ event: LedgerEvent) throws(ApplyError) {
        // Two entries (every money event's), with no list: the same checks in the same order.
        if event.entries.count == 2 {
            let first = event.entries[0]
            let second = event.entries[1]
            let firstMicros = Money(first.amount).micros
            guard firstMicros > 0 else { throw .nonPositiveAmount(event.id) }
            let secondMicros = Money(second.amount).micros
            guard secondMicros > 0 else { throw .nonPositiveAmount(event.id) }
            guard first.amount.currency == second.amount.currency else { throw .unbalanced(event.id) }
            let net = try Self.add(
                first.side == .credit ? firstMicros : -firstMicros,
                second.side == .credit ? secondMicros : -secondMicros, event.id)
            guard net == 0 else { throw .unbalanced(event.id) }
            return
        }
        // By currency, in a list: an event has two entries or none, and hashing a table per
        // event was a tenth of applying it.
        var net: [(currency: String, micros: Int64)] = []
        for entry in event.entries {
            let micros = Money(entry.amount).micros
            guard micros > 0 else { throw .nonPositiveAmount(event.id) }
            let delta = entry.side == .credit ? micros : -micros
            if let index = net.firstIndex(where: { $0.currency == entry.amount.currency }) {
                net[index].micros = try Self.add(net[index].micros, delta, event.id)
            } else {
                net.append((entry.amount.currency, delta))
            }
        }
        guard net.allSatisfy({ $0.micros == 0 }) else { throw .unbalanced(event.id) }
    }

    /// Balances are Int64 micro-units: up to 9.2 trillion of a currency. An
    /// event that would go past that is refused, not allowed to trap the
    /// worker that reads it (again after every restart).
    private static func add(_ balance: Int64, _ delta: Int64, _ eventID: String) throws(ApplyError) -> Int64 {
        let (sum, overflow) = balance.addingReportingOverflow(delta)
        guard !overflow else { throw .balanceOverflow(eventID) }
        return sum
    }

    private mutating func record(_ payload: LedgerEvent.Payload, of event: LedgerEvent) throws(ApplyError) {
        switch payload {
        case .accountOpened, .accountClosed:
            // Under the directory's rules (a stale or colliding one changes no account). A
            // partition's ledger sees only its own users: the workers decide with the whole
            // directory of the accounts topic, which applies the same rules in one order.
            directory.apply(event)
        case .deposit, .credit:
            break
        case .hold(let hold):
            transfers[hold.transferID] = Transfer(
                id: hold.transferID, intentID: hold.intentID, payer: event.userID, payee: hold.payee,
                payeeContactID: hold.payeeContactID, payeeAccount: hold.payeeAccount, money: Money(hold.amount),
                note: hold.note, expiresAt: hold.expiresAt, status: .held, paysRequestID: hold.paysRequestID,
                requestSource: hold.requestSource)
            if let requestID = hold.paysRequestID, requests[requestID]?.status == .pending {
                requests[requestID]?.reservedBy = hold.transferID
            }
        case .void(let decision), .post(let decision):
            let id = decision.transferID
            guard let transfer = transfers[id], transfer.status == .held else { throw .unknownTransfer(id) }
            let posting = event.kind == .post
            // Exactly the held amount leaves the payer's held account: to clearing, whence the
            // payee's credit takes it (post), or back to the payer (void). A writer cannot pay
            // someone else or another amount.
            let receiver = posting ? Self.clearing : Self.available(transfer.payer)
            let expected = LedgerEntry.move(
                transfer.money.currencyAmount, from: Self.held(transfer.payer), to: receiver)
            guard LedgerEntry.same(event.entries, as: expected) else {
                throw .transferMismatch(event: event.id, transfer: id)
            }
            if !posting {
                markIfExpiry(
                    ProposalKey(userID: transfer.payer, intentID: transfer.intentID), reason: decision.reason,
                    decidedBy: decision.decidedBy, decidedAt: decision.decidedAt)
            }
            var decided = transfer
            decided.status = posting ? .posted : .voided
            decided.decidedBy = decision.decidedBy
            decided.decidedAt = decision.decidedAt
            if !posting { decided.voidReason = decision.reason }
            transfers[id] = decided
            // The payer's side of the request it pays (the requester's is told by an effect).
            if posting, let requestID = transfer.paysRequestID, requests[requestID]?.status == .pending {
                requests[requestID]?.status = .paid
                requests[requestID]?.endedAt = decision.decidedAt
            }
            // A void gives the request back to be paid (by this payment's reservation only).
            if !posting, let requestID = transfer.paysRequestID, requests[requestID]?.reservedBy == id {
                requests[requestID]?.reservedBy = nil
            }
        case .requestProposed(let proposal):
            requests[proposal.requestID] = PaymentRequest(
                id: proposal.requestID, intentID: proposal.intentID, requester: event.userID, payer: proposal.payer,
                payerContactID: proposal.payerContactID, payerAccount: proposal.payerAccount,
                money: Money(proposal.amount), note: proposal.note, expiresAt: proposal.expiresAt, status: .proposed,
                requestSource: proposal.requestSource)
        case .requestReceived(let received):
            // The payer's side of a request created on the requester's partition (on the same
            // partition, the requester's entry is already there, and stays as it is).
            if requests[received.requestID] == nil {
                requests[received.requestID] = PaymentRequest(
                    id: received.requestID, intentID: received.intentID, requester: received.requester,
                    payer: event.userID, payerContactID: nil, payerAccount: nil, money: Money(received.amount),
                    note: received.note, expiresAt: nil, status: .pending, decidedBy: received.decidedBy,
                    decidedAt: received.decidedAt)
            }
        case .requestCreated(let decision):
            guard requests[decision.requestID] != nil else { throw .unknownRequest(decision.requestID) }
            requests[decision.requestID]?.decidedBy = decision.decidedBy
            requests[decision.requestID]?.decidedAt = decision.decidedAt
            requests[decision.requestID]?.status = .pending
        case .requestDeclined(let decision), .requestPaid(let decision):
            guard requests[decision.requestID] != nil else { throw .unknownRequest(decision.requestID) }
            requests[decision.requestID]?.status = event.kind == .requestDeclined ? .declined : .paid
            requests[decision.requestID]?.endedAt = decision.decidedAt
        case .ownerClaimed(let claim):
            ownership.take(claim)
        case .proposalClosed(let closing):
            if let intentID = closing.intentID {
                let key = ProposalKey(userID: event.userID, intentID: intentID)
                markIfExpiry(key, reason: closing.reason, decidedBy: closing.decidedBy, decidedAt: closing.decidedAt)
                closedProposals[key] = ClosedProposal(
                    reason: closing.reason ?? "closed", decidedBy: closing.decidedBy, decidedAt: closing.decidedAt)
            }
            if let id = closing.requestID, requests[id]?.status == .proposed {
                requests[id]?.status = .closed
                requests[id]?.decidedBy = closing.decidedBy
                requests[id]?.decidedAt = closing.decidedAt
            }
        }
    }
}
