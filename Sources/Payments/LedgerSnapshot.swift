import Foundation
import IntentEvents

/// A ledger's whole state as bytes, for the snapshot topic: a restarted (or
/// newly assigned) member reads the latest snapshot of a partition and only
/// the ledger records after it, instead of the partition's whole history.
/// Everything that decides is in it: balances, open and remembered
/// transfers, requests, closed proposals, the remembered event ids with
/// their hours, and the ledger's clock, so the restored ledger decides as
/// the one that wrote it. (``movements`` is a metrics tally, not state.)
extension Ledger {
    public struct Snapshot: Codable, Sendable {
        public static let version = 1
        var version: Int
        var accounts: [AccountRecord]
        var balances: [BalanceRecord]
        var transfers: [Transfer]
        var requests: [PaymentRequest]
        var closedProposals: [ClosedRecord]
        /// Event ids by hour (``undated`` for those applied without a time).
        var applied: [AppliedHour]
        var watermark: Timestamp?
        var prunedThroughHour: Int64
        var idempotencyHorizonSeconds: Int64?

        struct AccountRecord: Codable {
            var userID: String
            var handles: [String]
            var verified: Bool
        }

        struct BalanceRecord: Codable {
            var account: String
            var currency: String
            var micros: Int64
        }

        struct ClosedRecord: Codable {
            var userID: String
            var intentID: String
            var closed: ClosedProposal
        }

        struct AppliedHour: Codable {
            var hour: Int64
            var ids: [String]
        }
    }

    public var snapshot: Snapshot {
        var byHour: [Int64: [String]] = [:]
        for (id, hour) in applied { byHour[hour, default: []].append(id) }
        return Snapshot(
            version: Snapshot.version,
            accounts: directory.accounts.values.sorted { $0.userID < $1.userID }.map {
                Snapshot.AccountRecord(userID: $0.userID, handles: $0.handles, verified: $0.verified)
            },
            balances: balances.map {
                Snapshot.BalanceRecord(account: $0.key.account, currency: $0.key.currency, micros: $0.value)
            },
            transfers: Array(transfers.values), requests: Array(requests.values),
            closedProposals: closedProposals.map {
                Snapshot.ClosedRecord(userID: $0.key.userID, intentID: $0.key.intentID, closed: $0.value)
            },
            applied: byHour.map { Snapshot.AppliedHour(hour: $0.key, ids: $0.value) },
            watermark: watermark, prunedThroughHour: prunedThroughHour,
            idempotencyHorizonSeconds: idempotencyHorizon?.components.seconds)
    }

    /// The ledger a snapshot describes; refuses one of another format version.
    public init(snapshot: Snapshot) throws(SnapshotError) {
        guard snapshot.version == Snapshot.version else { throw .unsupportedVersion(snapshot.version) }
        self.init(idempotencyHorizon: snapshot.idempotencyHorizonSeconds.map { .seconds($0) })
        for account in snapshot.accounts {
            directory.open(account.userID, handles: account.handles, verified: account.verified)
        }
        balances.reserveCapacity(snapshot.balances.count)
        for balance in snapshot.balances {
            balances[BalanceKey(account: balance.account, currency: balance.currency)] = balance.micros
        }
        transfers.reserveCapacity(snapshot.transfers.count)
        for transfer in snapshot.transfers { transfers[transfer.id] = transfer }
        for request in snapshot.requests { requests[request.id] = request }
        for closed in snapshot.closedProposals {
            closedProposals[ProposalKey(userID: closed.userID, intentID: closed.intentID)] = closed.closed
        }
        applied.reserveCapacity(snapshot.applied.reduce(0) { $0 + $1.ids.count })
        for hour in snapshot.applied {
            for id in hour.ids { applied[id] = hour.hour }
            if hour.hour != Self.undated { appliedByHour[hour.hour] = hour.ids }
        }
        watermark = snapshot.watermark
        prunedThroughHour = snapshot.prunedThroughHour
    }

    public enum SnapshotError: Error, Sendable, Hashable, CustomStringConvertible {
        case unsupportedVersion(Int)

        public var description: String {
            switch self {
            case .unsupportedVersion(let version):
                "snapshot format version \(version) is not \(Snapshot.version): rebuilt from the topic instead"
            }
        }
    }

    /// The snapshot as JSON bytes.
    public func snapshotBytes() throws -> [UInt8] {
        Array(try JSONEncoder().encode(snapshot))
    }

    /// A ledger from ``snapshotBytes()``.
    public init(snapshotBytes bytes: [UInt8]) throws {
        try self.init(snapshot: JSONDecoder().decode(Snapshot.self, from: Data(bytes)))
    }
}
