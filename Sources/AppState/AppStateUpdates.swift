import Foundation
public import IntentEvents
import Intents
import Messaging
public import Payments

/// What one pipeline event changes in which users' app state: the pure part
/// of the state service. Items are JSON objects merged field by field, so
/// each event only says what it knows (a post says "posted", a hold said
/// the amount and payee). Public for the pipeline simulation, which projects its
/// topics through it to check the app state shows the ledger's balances.
public enum AppStateUpdates {
    public enum Kind: String, CaseIterable, Sendable {
        case message, payment, paymentRequest, intent, balance, contact, setting

        var plural: String {
            switch self {
            case .contact: "contacts"
            case .setting: "settings"
            case .message: "messages"
            case .payment: "payments"
            case .paymentRequest: "paymentRequests"
            case .intent: "intents"
            case .balance: "balances"
            }
        }
    }

    /// The other user of a payment or request item: never served (an account id of
    /// another user), only named on the server from the viewer's own contacts
    /// (``AppStateStore``'s counterparty names). `handle` is the account handle the
    /// viewer used themselves, if they started it: the name when no contact matches.
    public struct Counterparty: Hashable, Sendable {
        var userID: String
        var handle: String?
    }

    public enum Update: Sendable {
        case item(user: String, kind: Kind, id: String, body: [String: JSONValue], counterparty: Counterparty? = nil)
        /// Micro-unit deltas.
        case balance(user: String, currency: String, available: Int64, held: Int64)
    }

    public static func of(_ envelope: EventEnvelope) throws -> [Update] {
        switch envelope.type {
        case IntentResponse.type: return try response(envelope)
        case LedgerEvent.type: return of(ledger: try LedgerEvent.decode(from: envelope), in: envelope)
        case MessageEvent.type: return try message(envelope.decodeData(as: MessageEvent.self))
        default: return []
        }
    }

    /// A ledger event's updates, for a reader that decoded it already (the store and the
    /// simulation's checks, to fence it).
    public static func of(ledger event: LedgerEvent, in envelope: EventEnvelope) -> [Update] {
        ledger(event, at: .string(EventTime.format(envelope.time)))
    }

    private static func response(_ envelope: EventEnvelope) throws -> [Update] {
        let response = try envelope.decodeData(as: IntentResponse.self)
        guard let intentID = envelope.intentID else { return [] }
        var body: [String: JSONValue] = [
            "id": .string(intentID), "kind": .string(response.kind.rawValue), "code": .string(response.code.rawValue),
            "message": .string(response.message), "updatedAt": .string(EventTime.format(envelope.time)),
            "status": .string(response.code == .inProgress ? "inProgress" : "done"),
        ]
        body["reason"] = response.reason.map(JSONValue.string)
        // The sentence by key and arguments, so a client can say it in its own language.
        body["messageKey"] = response.messageKey.map { .string($0.rawValue) }
        body["messageArguments"] = response.messageArguments.map(MessageArgument.json)
        return [.item(user: envelope.userID, kind: .intent, id: intentID, body: body)]
    }

    /// - Parameter at: When the ledger recorded it: a payment's or request's time in the conversation.
    private static func ledger(_ event: LedgerEvent, at: JSONValue) -> [Update] {
        var updates: [Update] = []
        // Balances: the users' entries, as deltas.
        for entry in event.entries {
            let parts = entry.account.split(separator: "/")
            guard parts.count == 3, parts[0] == "users" else { continue }
            let micros = Money(entry.amount).micros * (entry.side == .credit ? 1 : -1)
            let held = parts[2] == "held"
            updates.append(
                .balance(
                    user: String(parts[1]), currency: entry.amount.currency, available: held ? 0 : micros,
                    held: held ? micros : 0))
        }
        let amount = event.amount.map { JSONValue.string($0.description) }
        switch event.kind {
        case .hold:
            guard let id = event.transferID else { break }
            var body: [String: JSONValue] = [
                "id": .string(id), "direction": .string("sent"), "status": .string("awaiting confirmation"),
                "intentID": .string(event.intentID ?? ""), "at": at,
            ]
            body["amount"] = amount
            body["note"] = event.note.map(JSONValue.string)
            updates.append(
                .item(
                    user: event.userID, kind: .payment, id: id, body: body,
                    counterparty: event.counterpartyUserID.map {
                        Counterparty(userID: $0, handle: event.counterpartyAccount)
                    }))
        case .post:
            guard let id = event.transferID else { break }
            updates.append(.item(user: event.userID, kind: .payment, id: id, body: ["status": .string("sent")]))
            if let payee = event.counterpartyUserID {
                var body: [String: JSONValue] = [
                    "id": .string(id), "direction": .string("received"), "status": .string("received"), "at": at,
                ]
                body["amount"] = amount
                updates.append(
                    .item(
                        user: payee, kind: .payment, id: id, body: body,
                        counterparty: Counterparty(userID: event.userID)))
            }
        case .void:
            guard let id = event.transferID else { break }
            var body: [String: JSONValue] = ["status": .string("cancelled")]
            body["reason"] = event.reason.map(JSONValue.string)
            updates.append(.item(user: event.userID, kind: .payment, id: id, body: body))
        case .requestCreated:
            guard let id = event.requestID, let payer = event.counterpartyUserID else { break }
            var mine: [String: JSONValue] = [
                "id": .string(id), "role": .string("requester"), "status": .string("pending"), "at": at,
            ]
            mine["amount"] = amount
            mine["note"] = event.note.map(JSONValue.string)
            var theirs = mine
            theirs["role"] = .string("payer")
            updates.append(
                .item(
                    user: event.userID, kind: .paymentRequest, id: id, body: mine,
                    counterparty: Counterparty(userID: payer, handle: event.counterpartyAccount)))
            updates.append(
                .item(
                    user: payer, kind: .paymentRequest, id: id, body: theirs,
                    counterparty: Counterparty(userID: event.userID)))
        case .requestPaid, .requestDeclined:
            guard let id = event.requestID else { break }
            let status: JSONValue = .string(event.kind == .requestPaid ? "paid" : "declined")
            updates.append(.item(user: event.userID, kind: .paymentRequest, id: id, body: ["status": status]))
            if let requester = event.counterpartyUserID {
                updates.append(.item(user: requester, kind: .paymentRequest, id: id, body: ["status": status]))
            }
        case .deposit, .requestProposed, .proposalClosed, .credit, .requestReceived, .ownerClaimed:
            // A credit's balance is in its entries; the payee's "received" item comes with the post.
            break
        case .accountOpened, .accountClosed:
            // Taken from the accounts topic only (``AppStateStore/apply(account:at:)``), in the
            // one order every reader of accounts shares; the ledger's copies come partition by
            // partition, in an order that could decide a handle's owner otherwise.
            break
        }
        return updates
    }

    private static func message(_ event: MessageEvent) -> [Update] {
        event.messageIDs.map { id in
            var body: [String: JSONValue] = ["id": .string(id), "intentID": .string(event.intentID)]
            switch event.kind {
            case .queued, .delivered:
                body["status"] = .string(event.kind == .queued ? "sending" : "delivered")
                body["conversation"] = event.conversation.map(JSONValue.string)
                body["to"] = .array(
                    (event.recipients ?? []).map { .string($0.displayName ?? $0.spoken ?? $0.handle ?? "?") })
                // Which of the user's contacts: the page's conversation with them.
                body["toContacts"] = .array((event.recipients ?? []).compactMap { $0.contactID.map(JSONValue.string) })
                body["content"] = event.content.map(JSONValue.string)
                body["service"] = event.serviceName.map(JSONValue.string)
                body["at"] = .string(event.at.description)
            case .attributeSet:
                if let attribute = event.attribute { body["attribute.\(attribute.rawValue)"] = .bool(true) }
            }
            return .item(user: event.userID, kind: .message, id: id, body: body)
        }
    }
}
