public import IntentEvents
public import Intents

extension LedgerEvent {
    /// A ledger event as its kind reads it: one case per kind, carrying the
    /// fields that kind needs, none of them optional. The wire form
    /// (``LedgerEvent``, one object with optional fields, `ledger.event.v1`)
    /// stays as it is; this is what the ledger acts on, so a hold without a
    /// payee or a post without a transfer is refused by name
    /// (``Ledger/ApplyError/missingField(event:fields:)``) before it touches
    /// a balance, and dead-lettered when read from the topic (``LedgerRecord``).
    public enum Payload: Sendable, Hashable {
        case accountOpened(AccountChange)
        case accountClosed(AccountChange)
        case deposit(amount: CurrencyAmount)
        case hold(Hold)
        case void(TransferDecision)
        case post(TransferDecision)
        case credit(Credit)
        case requestProposed(RequestProposal)
        case requestCreated(RequestDecision)
        case requestReceived(RequestReceipt)
        case requestDeclined(RequestDecision)
        case requestPaid(RequestDecision)
        case proposalClosed(ProposalClosing)
        case ownerClaimed(LedgerOwner)
    }

    /// An account opened or closed, at the user's account version (closings carry no handles).
    public struct AccountChange: Sendable, Hashable {
        public var handles: [String]
        public var verified: Bool
        public var version: Int
    }

    /// A payment's amount reserved: the payer's available money to their hold.
    public struct Hold: Sendable, Hashable {
        public var transferID: String
        public var intentID: String
        public var payee: String
        public var payeeContactID: String?
        /// The account the payer's confirmation is bound to.
        public var payeeAccount: String?
        public var amount: CurrencyAmount
        public var note: String?
        public var expiresAt: Timestamp?
        /// The pending payment request this payment pays.
        public var paysRequestID: String?
        /// The voice service that asked; only its answer decides.
        public var requestSource: String?
    }

    /// A held transfer posted or voided.
    public struct TransferDecision: Sendable, Hashable {
        public var transferID: String
        public var decidedBy: String?
        public var decidedAt: Timestamp?
        /// Why a void released the money.
        public var reason: String?
    }

    /// A posted payment arriving at its payee.
    public struct Credit: Sendable, Hashable {
        public var transferID: String
        public var payer: String
        public var amount: CurrencyAmount
    }

    /// A created payment request, as its payer's partition records it.
    public struct RequestReceipt: Sendable, Hashable {
        public var requestID: String
        public var intentID: String
        public var requester: String
        public var amount: CurrencyAmount
        public var note: String?
        public var decidedBy: String?
        public var decidedAt: Timestamp?
    }

    /// A payment request waiting for the requester's confirmation.
    public struct RequestProposal: Sendable, Hashable {
        public var requestID: String
        public var intentID: String
        public var payer: String
        public var payerContactID: String?
        public var payerAccount: String?
        public var amount: CurrencyAmount
        public var note: String?
        public var expiresAt: Timestamp?
        /// The voice service that asked; only its answer decides.
        public var requestSource: String?
    }

    /// A payment request created, declined or paid.
    public struct RequestDecision: Sendable, Hashable {
        public var requestID: String
        public var decidedBy: String?
        public var decidedAt: Timestamp?
    }

    /// A proposal that ended without moving money.
    public struct ProposalClosing: Sendable, Hashable {
        public var intentID: String?
        public var requestID: String?
        public var reason: String?
        public var decidedBy: String?
        public var decidedAt: Timestamp?
    }

    /// The event as its kind reads it, or the fields it lacks.
    public func payload() throws(Ledger.ApplyError) -> Payload {
        func require<Value>(_ value: Value?, _ name: String, _ missing: inout [String]) -> Value? {
            if value == nil { missing.append(name) }
            return value
        }
        var missing: [String] = []
        switch kind {
        case .accountOpened, .accountClosed:
            // Unversioned, an opening could not be told from its replay: required.
            guard let version = require(accountVersion, "accountVersion", &missing) else { break }
            let change = AccountChange(handles: handles ?? [], verified: verified ?? true, version: version)
            return kind == .accountOpened ? .accountOpened(change) : .accountClosed(change)
        case .deposit:
            guard let amount = require(amount, "amount", &missing) else { break }
            return .deposit(amount: amount)
        case .hold:
            let transferID = require(transferID, "transferID", &missing)
            let intentID = require(intentID, "intentID", &missing)
            let payee = require(counterpartyUserID, "counterpartyUserID", &missing)
            let amount = require(amount, "amount", &missing)
            guard let transferID, let intentID, let payee, let amount else { break }
            return .hold(
                Hold(
                    transferID: transferID, intentID: intentID, payee: payee, payeeContactID: counterpartyContactID,
                    payeeAccount: counterpartyAccount, amount: amount, note: note, expiresAt: expiresAt,
                    paysRequestID: requestID, requestSource: requestSource))
        case .void, .post:
            guard let transferID = require(transferID, "transferID", &missing) else { break }
            let decision = TransferDecision(
                transferID: transferID, decidedBy: decidedBy, decidedAt: decidedAt, reason: reason)
            return kind == .post ? .post(decision) : .void(decision)
        case .credit:
            let transferID = require(transferID, "transferID", &missing)
            let payer = require(counterpartyUserID, "counterpartyUserID", &missing)
            let amount = require(amount, "amount", &missing)
            guard let transferID, let payer, let amount else { break }
            return .credit(Credit(transferID: transferID, payer: payer, amount: amount))
        case .requestReceived:
            let requestID = require(requestID, "requestID", &missing)
            let intentID = require(intentID, "intentID", &missing)
            let requester = require(counterpartyUserID, "counterpartyUserID", &missing)
            let amount = require(amount, "amount", &missing)
            guard let requestID, let intentID, let requester, let amount else { break }
            return .requestReceived(
                RequestReceipt(
                    requestID: requestID, intentID: intentID, requester: requester, amount: amount, note: note,
                    decidedBy: decidedBy, decidedAt: decidedAt))
        case .requestProposed:
            let requestID = require(requestID, "requestID", &missing)
            let intentID = require(intentID, "intentID", &missing)
            let payer = require(counterpartyUserID, "counterpartyUserID", &missing)
            let amount = require(amount, "amount", &missing)
            guard let requestID, let intentID, let payer, let amount else { break }
            return .requestProposed(
                RequestProposal(
                    requestID: requestID, intentID: intentID, payer: payer, payerContactID: counterpartyContactID,
                    payerAccount: counterpartyAccount, amount: amount, note: note, expiresAt: expiresAt,
                    requestSource: requestSource))
        case .requestCreated, .requestDeclined, .requestPaid:
            guard let requestID = require(requestID, "requestID", &missing) else { break }
            let decision = RequestDecision(requestID: requestID, decidedBy: decidedBy, decidedAt: decidedAt)
            return switch kind {
            case .requestCreated: .requestCreated(decision)
            case .requestDeclined: .requestDeclined(decision)
            default: .requestPaid(decision)
            }
        case .proposalClosed:
            return .proposalClosed(
                ProposalClosing(
                    intentID: intentID, requestID: requestID, reason: reason, decidedBy: decidedBy,
                    decidedAt: decidedAt))
        case .ownerClaimed:
            // A claim that does not parse is as good as none: refused by name.
            guard let claim = require(owner.flatMap(LedgerOwner.init), "owner", &missing) else { break }
            return .ownerClaimed(claim)
        }
        throw .missingField(event: id, fields: missing.joined(separator: ", "))
    }
}
