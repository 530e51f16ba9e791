import Payments

/// The audit's rules for payment requests, over the ledger topic: a request is paid by at
/// most one posted transfer, a declined request is not paid, and the requester's
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

    /// The findings, keyed by request, given which transfers were posted and who paid them
    /// (`payer(transferID)`: the posted transfer's payer, nil when it was not posted).
    func findings(payer: (String) -> String?) -> [(key: String, finding: String)] {
        var found: [(key: String, finding: String)] = []
        var posted: [String: [String]] = [:]
        for (requestID, transfers) in paying {
            posted[requestID] = transfers.filter { payer($0) != nil }
        }
        for (requestID, transfers) in posted {
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
                        posted[requestID, default: []].contains(transfer) && payer(transfer) == event.payer
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
