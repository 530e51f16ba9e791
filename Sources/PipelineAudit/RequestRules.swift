import Payments

/// The audit's rules for payment requests, over the ledger topic: a request is paid by at
/// most one posted transfer, which pays what it asks from its payer to its requester, a
/// declined request is not paid, and the requester's
/// `requestPaid` stands on a posted transfer that pays that request, from that payer.
///
/// Why: the ledger keeps each partition's side of a request apart (the requester's
/// `requestCreated`, `requestPaid`, `requestDeclined`; the payer's `requestReceived`, its
/// hold that reserves the request, its decline), and a member applies only its own side.
/// A payment of a declined request, a request paid twice, or a `requestPaid` written
/// without a payment (the requester shown paid while no money moved) each pass every
/// ledger reader, so only a reader of every partition, the audit, can see them.
struct RequestRules: Sendable {
    /// Per request, the transfers whose hold pays it (in ledger order, a transfer once).
    private var paying: [String: [String]] = [:]
    /// Requests with a decline on either side.
    private var declined: Set<String> = []
    /// Per request, its `requestPaid` events: their id, the transfer and the payer they name.
    private var settled: [String: [(id: String, transferID: String?, payer: String?)]] = [:]

    /// Reads one ledger event the audit applies (after its checks of who wrote it and of
    /// a second write of its id).
    mutating func read(_ event: LedgerEvent) {
        switch event.kind {
        case .hold:
            if let requestID = event.requestID, let transferID = event.transferID,
                !paying[requestID, default: []].contains(transferID)
            {
                paying[requestID, default: []].append(transferID)
            }
        case .requestDeclined:
            if let requestID = event.requestID { declined.insert(requestID) }
        case .requestPaid:
            if let requestID = event.requestID {
                settled[requestID, default: []].append((event.id, event.transferID, event.counterpartyUserID))
            }
        default:
            break
        }
    }

    /// The findings, keyed by request, given each posted transfer's hold (`posted`: nil when
    /// the transfer was not posted) and each request's terms as the ledger recorded them.
    func findings(
        posted hold: (String) -> TransferLeg?, request: (String) -> Ledger.PaymentRequest?
    ) -> [(key: String, finding: String)] {
        var found: [(key: String, finding: String)] = []
        var posted: [String: [String]] = [:]
        for (requestID, transfers) in paying {
            posted[requestID] = transfers.filter { hold($0) != nil }
        }
        for (requestID, transfers) in posted {
            // A payment of a request pays what the request asks, from its payer to its requester:
            // a hold's request id is the payments stage's word alone (the user's binding does not
            // cover it), so a 0.01 payment could otherwise be written as paying a 500 request.
            let asked = request(requestID)
            for transfer in transfers {
                guard let leg = hold(transfer) else { continue }
                guard let asked else {
                    found.append(
                        (
                            requestID,
                            "payment request \(requestID) was paid by transfer \(transfer), but no one asked for it"
                        ))
                    continue
                }
                if leg.userID != asked.payer || leg.counterpartyUserID != asked.requester
                    || leg.amount.map(Money.init) != asked.money
                {
                    found.append(
                        (
                            requestID,
                            "payment request \(requestID) was paid by transfer \(transfer) with \(leg.amount.map(\.description) ?? "nothing") from \(leg.userID) to \(leg.counterpartyUserID ?? "nobody"), but it asks \(asked.money.currencyAmount) from \(asked.payer) to \(asked.requester)"
                        ))
                }
            }
            if transfers.count > 1 {
                found.append(
                    (requestID, "payment request \(requestID) was paid \(transfers.count) times: \(transfers)"))
            }
            if let first = transfers.first, declined.contains(requestID) {
                found.append((requestID, "payment request \(requestID) was declined, and paid by transfer \(first)"))
            }
        }
        for (requestID, events) in settled {
            for event in events {
                let backed =
                    event.transferID.map { transfer in
                        posted[requestID, default: []].contains(transfer) && hold(transfer)?.userID == event.payer
                    } ?? false
                if !backed {
                    found.append(
                        (
                            requestID,
                            "payment request \(requestID): \(event.id) says it was paid by \(event.payer ?? "nobody") with transfer \(event.transferID ?? "none"), which is no posted payment of it"
                        ))
                }
            }
        }
        return found
    }
}
