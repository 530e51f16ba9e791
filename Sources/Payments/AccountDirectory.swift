import Intents

/// Who has a payment account, and by which handles payers know it: the one
/// table every payments and confirm instance holds whole (a global table,
/// O(users), from the compacted accounts topic), because a payer's proposal
/// must find the payee's account whichever member owns the payee. Balances,
/// transfers and requests are partitioned by user; this is not, and it does
/// not grow with history (one record per account).
public struct AccountDirectory: Sendable {
    public struct Account: Sendable, Hashable {
        public var userID: String
        public var handles: [String]
        public var verified: Bool
    }

    public private(set) var accounts: [String: Account] = [:]
    private var accountByHandle: [String: String] = [:]

    public init() {}

    /// Records an opening (again: the latest opening of a user wins, and handles it no longer lists are released).
    public mutating func open(_ userID: String, handles: [String], verified: Bool) {
        if let previous = accounts[userID] {
            for handle in previous.handles where accountByHandle[Person.normalizedHandle(handle)] == userID {
                accountByHandle[Person.normalizedHandle(handle)] = nil
            }
        }
        let account = Account(userID: userID, handles: handles, verified: verified)
        accounts[userID] = account
        for handle in handles { accountByHandle[Person.normalizedHandle(handle)] = userID }
    }

    /// Applies an account opening; other kinds are not the directory's.
    public mutating func apply(_ event: LedgerEvent) {
        guard event.kind == .accountOpened else { return }
        open(event.userID, handles: event.handles ?? [], verified: event.verified ?? true)
    }

    public func account(handle: String) -> Account? {
        accountByHandle[Person.normalizedHandle(handle)].flatMap { accounts[$0] }
    }

    public var count: Int { accounts.count }
}
