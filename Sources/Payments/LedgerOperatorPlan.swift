public import Intents

/// What the ledger operator's commands (`intentctl ledger open-account`,
/// `close-account`, `deposit`) do, decided from what the topics hold now: pure,
/// so every answer is tested without a broker. Each command either writes one
/// event, finds it already done (and says so), or is refused with what is in the
/// way named: a second `open-account` or `deposit` never silently does nothing
/// and never writes an id twice with other contents (which the audit reports).
/// The readers' rules (``AccountDirectory``) still hold for anything written past
/// these checks: this is the operator's convenience, not the defence.
public enum LedgerOperatorPlan {
    /// What a command does.
    public enum Step: Sendable, Hashable {
        /// Write this event (an opening or closing at the next version, or a deposit).
        case write(LedgerEvent)
        /// Nothing to write: the same thing is already there (the sentence says what).
        case alreadyDone(String)
    }

    /// Why a command is refused: the sentence the CLI prints before exiting non-zero.
    public struct Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    /// Opening `userID`'s account with `handles`: at the next version when there is no
    /// open account; nothing when the open one has the same contents; refused, with the
    /// difference named, when it has others, unless `replacing` (a new version of it);
    /// refused when a handle belongs to another user's open account.
    public static func opening(
        userID: String, handles: [String], verified: Bool, replacing: Bool, directory: AccountDirectory
    ) -> Result<Step, Refusal> {
        for handle in handles {
            if let owner = directory.account(handle: handle)?.userID, owner != userID {
                return .failure(
                    Refusal(
                        "the handle \(handle) is taken: it belongs to the account of \(owner) (normalized: \(Person.normalizedHandle(handle))); it is free again once that account releases it (close-account, or a new version without it)"
                    ))
            }
        }
        let version = (directory.versions[userID] ?? 0) + 1
        let event = LedgerEvent.opening(userID: userID, handles: handles, verified: verified, version: version)[0]
        guard let open = directory.accounts[userID] else { return .success(.write(event)) }
        let differences = differences(open, handles: handles, verified: verified)
        if differences.isEmpty {
            return .success(.alreadyDone("the account of \(userID) is already open as asked (version \(open.version))"))
        }
        guard replacing else {
            return .failure(
                Refusal(
                    "the account of \(userID) is open (version \(open.version)) with other contents: \(differences.joined(separator: "; ")); to replace it, run again with --replace (version \(version))"
                ))
        }
        return .success(.write(event))
    }

    /// Closing `userID`'s account at the next version, releasing its handles: only an open
    /// account with every balance zero (`balances`: its available and held money by
    /// currency). Money is never stranded in a closed account: move it out first.
    public static func closing(
        userID: String, directory: AccountDirectory, balances: [Money]
    ) -> Result<Step, Refusal> {
        guard directory.accounts[userID] != nil else {
            if let version = directory.versions[userID] {
                return .success(.alreadyDone("the account of \(userID) is already closed (version \(version))"))
            }
            return .failure(Refusal("\(userID) has no account to close"))
        }
        let left = balances.filter { $0.micros != 0 }
        guard left.isEmpty else {
            return .failure(
                Refusal(
                    "the account of \(userID) still holds \(left.map(\.description).joined(separator: ", ")): an account is closed only when its balances are zero"
                ))
        }
        let version = (directory.versions[userID] ?? 0) + 1
        return .success(.write(LedgerEvent.closing(userID: userID, version: version)))
    }

    /// Depositing `amount` to `userID` under `idempotencyID`: refused for an amount its
    /// currency cannot hold (``CurrencyMinorUnits``) or a user with no open account;
    /// nothing when `existing` (the ledger's event with the deposit's id) is this very
    /// deposit; refused, with the difference named, when it is another.
    public static func deposit(
        idempotencyID: String, userID: String, amount: CurrencyAmount, directory: AccountDirectory,
        existing: LedgerEvent?
    ) -> Result<Step, Refusal> {
        if let violation = CurrencyMinorUnits.violation(of: amount) {
            return .failure(Refusal("the deposit is refused: \(violation)"))
        }
        guard amount.amount > DecimalAmount(units: 0, scale: 0) else {
            return .failure(Refusal("the deposit is refused: \(amount) is not a positive amount"))
        }
        let event = LedgerEvent.deposit(idempotencyID: idempotencyID, userID: userID, amount: amount)
        if let existing {
            var differences: [String] = []
            if existing.kind != .deposit { differences.append("it is a \(existing.kind.rawValue), not a deposit") }
            if existing.userID != userID { differences.append("user \(existing.userID), not \(userID)") }
            if existing.amount.map(Money.init) != Money(amount) {
                differences.append("amount \(existing.amount.map(\.description) ?? "none"), not \(amount)")
            }
            guard differences.isEmpty else {
                return .failure(
                    Refusal(
                        "the deposit id \(idempotencyID) was already used for another deposit: \(differences.joined(separator: "; ")); use a new id for a new deposit"
                    ))
            }
            return .success(.alreadyDone("deposit \(idempotencyID) of \(amount) to \(userID) is already in the ledger"))
        }
        guard directory.accounts[userID] != nil else {
            return .failure(Refusal("\(userID) has no open account: open it first (intentctl ledger open-account)"))
        }
        return .success(.write(event))
    }

    /// How an open account differs from an opening with `handles` and `verified`: handles
    /// compared as payers match them (normalized, in any order).
    private static func differences(_ account: AccountDirectory.Account, handles: [String], verified: Bool) -> [String]
    {
        var differences: [String] = []
        if Set(account.handles.map(Person.normalizedHandle)) != Set(handles.map(Person.normalizedHandle)) {
            differences.append(
                "handles [\(account.handles.joined(separator: ", "))], not [\(handles.joined(separator: ", "))]")
        }
        if account.verified != verified {
            differences.append(account.verified ? "verified, not unverified" : "unverified, not verified")
        }
        return differences
    }
}
