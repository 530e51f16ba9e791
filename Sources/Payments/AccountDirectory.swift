import Intents

/// Who has a payment account, and by which handles payers know it: the one
/// table every payments and confirm instance holds whole (a global table,
/// O(users), from the accounts topic), because a payer's proposal must find
/// the payee's account whichever member owns the payee. Balances, transfers
/// and requests are partitioned by user; this is not.
///
/// Two rules decide what an opening or a closing changes, the same for every
/// reader (confirm, payments, the app state, the audit, `intentctl`), so a
/// record written straight onto the topic with the operator's key cannot do what
/// the CLI refuses (``refusal(userID:version:claiming:currentVersion:owner:)``):
/// - **versions only grow**: each user's openings and closings carry a signed
///   ``LedgerEvent/accountVersion``; one at a version the user has already reached
///   is ignored, so replaying a captured record (an old opening after a newer one
///   or after a close) changes nothing;
/// - **one owner per handle**: a normalized handle (``Person/normalizedHandle(_:)``)
///   belongs to one open account; an opening that claims a handle another open
///   account holds is ignored whole, until that account releases it (a new
///   version without it, or a close).
///
/// Both depend on the order records are read in, which is why all account records
/// go to one partition of a topic that is never compacted (``PipelineTopics/accounts``):
/// every reader reads the same sequence and decides the same.
public struct AccountDirectory: Sendable {
    public struct Account: Sendable, Hashable {
        public var userID: String
        public var handles: [String]
        public var verified: Bool
        /// The account version of the opening that made it what it is.
        public var version: Int

        public init(userID: String, handles: [String], verified: Bool, version: Int) {
            self.userID = userID
            self.handles = handles
            self.verified = verified
            self.version = version
        }
    }

    /// Why an opening or closing changed nothing: typed, with a machine-readable
    /// ``reason`` for logs and metrics and a ``description`` for people.
    public enum Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        /// The user's account is already at this version or a later one (a replay, or a stale writer).
        case staleVersion(userID: String, version: Int, current: Int)
        /// The handle (normalized) belongs to another user's open account.
        case handleTaken(handle: String, owner: String)

        public var reason: String {
            switch self {
            case .staleVersion: "accountVersionStale"
            case .handleTaken: "accountHandleTaken"
            }
        }

        public var description: String {
            switch self {
            case .staleVersion(let userID, let version, let current):
                "the account of \(userID) is at version \(current); version \(version) is not newer"
            case .handleTaken(let handle, let owner):
                "the handle \(handle) is taken: it belongs to the account of \(owner)"
            }
        }
    }

    /// The open accounts, by user.
    public private(set) var accounts: [String: Account] = [:]
    /// Each user's latest account version applied (open or closed): what the next must exceed.
    public private(set) var versions: [String: Int] = [:]
    private var accountByHandle: [String: String] = [:]
    /// Every user that has held each normalized handle since this directory was built (the
    /// audit's check that a payment reached someone who held the handle it was confirmed to).
    private var holders: [String: Set<String>] = [:]

    public init() {}

    /// The rule every reader applies, over whatever holds its accounts: why a change by
    /// `userID` at `version` claiming `handles` (none for a closing) must be ignored, or
    /// nil when it applies. `currentVersion` is the user's latest applied version;
    /// `owner` answers which user's open account holds a normalized handle.
    public static func refusal(
        userID: String, version: Int, claiming handles: [String], currentVersion: Int?,
        owner: (String) throws -> String?
    ) rethrows -> Refusal? {
        let current = currentVersion ?? 0
        guard version > current else { return .staleVersion(userID: userID, version: version, current: current) }
        for handle in handles.map(Person.normalizedHandle) {
            if let holder = try owner(handle), holder != userID { return .handleTaken(handle: handle, owner: holder) }
        }
        return nil
    }

    /// Why `event` (an opening or closing) would change nothing here, or nil.
    public func refusal(of event: LedgerEvent) -> Refusal? {
        guard event.kind == .accountOpened || event.kind == .accountClosed else { return nil }
        return Self.refusal(
            userID: event.userID, version: event.accountVersion ?? 0,
            claiming: event.kind == .accountOpened ? event.handles ?? [] : [], currentVersion: versions[event.userID],
            owner: { accountByHandle[$0] })
    }

    /// Applies an opening or a closing under the rules; returns why it was ignored, or nil
    /// when applied. Other kinds are not the directory's (nil, nothing changes).
    @discardableResult
    public mutating func apply(_ event: LedgerEvent) -> Refusal? {
        guard event.kind == .accountOpened || event.kind == .accountClosed else { return nil }
        // Without a version, the event is at 0, which no account is below: refused as stale.
        if let refusal = refusal(of: event) { return refusal }
        let version = event.accountVersion ?? 0
        if event.kind == .accountOpened {
            open(event.userID, handles: event.handles ?? [], verified: event.verified ?? true, version: version)
        } else {
            close(event.userID, version: version)
        }
        return nil
    }

    /// Records an opening as is (the rules were applied when it was first read: a snapshot's restore).
    mutating func open(_ userID: String, handles: [String], verified: Bool, version: Int) {
        release(userID)
        accounts[userID] = Account(userID: userID, handles: handles, verified: verified, version: version)
        versions[userID] = version
        for handle in handles.map(Person.normalizedHandle) {
            accountByHandle[handle] = userID
            holders[handle, default: []].insert(userID)
        }
    }

    /// Records a closing as is: the account and its handles are gone, its version stays.
    mutating func close(_ userID: String, version: Int) {
        release(userID)
        accounts[userID] = nil
        versions[userID] = version
    }

    private mutating func release(_ userID: String) {
        guard let previous = accounts[userID] else { return }
        for handle in previous.handles.map(Person.normalizedHandle) where accountByHandle[handle] == userID {
            accountByHandle[handle] = nil
        }
    }

    public func account(handle: String) -> Account? {
        accountByHandle[Person.normalizedHandle(handle)].flatMap { accounts[$0] }
    }

    /// Whether `userID` has held `handle` at any time this directory saw.
    public func hasHeld(_ handle: String, _ userID: String) -> Bool {
        holders[Person.normalizedHandle(handle)]?.contains(userID) ?? false
    }

    /// The users whose latest record is a closing, with its version (for snapshots).
    var closedVersions: [(userID: String, version: Int)] {
        versions.filter { accounts[$0.key] == nil }.map { ($0.key, $0.value) }.sorted { $0.userID < $1.userID }
    }

    public var count: Int { accounts.count }
}
