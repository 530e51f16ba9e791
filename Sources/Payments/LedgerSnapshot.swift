import IntentEvents

/// A ledger's whole state as bytes, for the snapshot topic: a restarted (or
/// newly assigned) member reads the latest snapshot of a partition and only
/// the ledger records after it, instead of the partition's whole history.
/// Everything that decides is in it: balances, open and remembered
/// transfers, requests, closed proposals, the remembered event ids with
/// their hours, and the ledger's clock, so the restored ledger decides as
/// the one that wrote it. (``movements`` is a metrics tally, not state.)
///
/// A compact binary form (little-endian integers, length-prefixed UTF-8),
/// written and read field by field straight from and into the ledger's
/// tables: a partition of a million-event ledger is about 10 MB and is read
/// in tens of milliseconds, where JSON took a third of a second and twice
/// the memory while decoding. The bytes reach a reader only under a manifest
/// signed by the payments stage (``SnapshotStore``), and are still read
/// defensively: anything out of bounds or unknown is refused, not trusted.
extension Ledger {
    public static let snapshotVersion: UInt8 = 5
    static let snapshotMagic: [UInt8] = Array("LSNP".utf8)

    public enum SnapshotError: Error, Sendable, Hashable, CustomStringConvertible {
        case unsupportedVersion(Int)
        case malformed(String)

        public var description: String {
            switch self {
            case .unsupportedVersion(let version):
                "snapshot format version \(version) is not \(Ledger.snapshotVersion): rebuilt from the topic instead"
            case .malformed(let what): "malformed snapshot: \(what)"
            }
        }
    }

    /// The snapshot's bytes.
    public func snapshotBytes() -> [UInt8] {
        var writer = SnapshotWriter()
        writer.bytes += Self.snapshotMagic
        writer.byte(Self.snapshotVersion)
        writer.optionalInt(idempotencyHorizon.map { $0.components.seconds })
        writer.optionalInt(watermark.map(\.milliseconds))
        writer.int(prunedThroughHour)
        writer.int(Int64(directory.accounts.count))
        for account in directory.accounts.values {
            writer.string(account.userID)
            writer.int(Int64(account.handles.count))
            for handle in account.handles { writer.string(handle) }
            writer.byte(account.verified ? 1 : 0)
            writer.int(Int64(account.version))
        }
        // Closed accounts' versions: a replayed older opening must stay ignored after a restore.
        let closed = directory.closedVersions
        writer.int(Int64(closed.count))
        for (userID, version) in closed {
            writer.string(userID)
            writer.int(Int64(version))
        }
        writer.int(Int64(balances.count))
        for (key, micros) in balances {
            writer.string(key.account)
            writer.string(key.currency)
            writer.int(micros)
        }
        writer.int(Int64(transfers.count))
        for transfer in transfers.values {
            writer.strings(transfer.id, transfer.intentID, transfer.payer, transfer.payee)
            writer.optionalStrings(transfer.payeeContactID, transfer.payeeAccount)
            writer.money(transfer.money)
            writer.optionalStrings(transfer.note)
            writer.timestamp(transfer.expiresAt)
            writer.byte(Self.code(transfer.status))
            writer.optionalStrings(transfer.paysRequestID, transfer.decidedBy)
            writer.timestamp(transfer.decidedAt)
            writer.optionalStrings(transfer.voidReason, transfer.requestSource)
        }
        writer.int(Int64(requests.count))
        for request in requests.values {
            writer.strings(request.id, request.intentID, request.requester, request.payer)
            writer.optionalStrings(request.payerContactID, request.payerAccount)
            writer.money(request.money)
            writer.optionalStrings(request.note)
            writer.timestamp(request.expiresAt)
            writer.byte(Self.code(request.status))
            writer.optionalStrings(request.decidedBy)
            writer.timestamp(request.decidedAt)
            writer.timestamp(request.endedAt)
            writer.optionalStrings(request.requestSource, request.reservedBy)
        }
        writer.int(Int64(closedProposals.count))
        for (key, closed) in closedProposals {
            writer.strings(key.userID, key.intentID, closed.reason)
            writer.optionalStrings(closed.decidedBy)
            writer.timestamp(closed.decidedAt)
        }
        var byHour: [Int64: [(String, UInt64)]] = [:]
        for (id, seen) in applied { byHour[seen.hour, default: []].append((id, seen.shape)) }
        writer.int(Int64(byHour.count))
        for (hour, ids) in byHour {
            writer.int(hour)
            writer.int(Int64(ids.count))
            for (id, shape) in ids {
                writer.string(id)
                writer.int(Int64(bitPattern: shape))
            }
        }
        writer.int(Int64(versions.count))
        for (userID, version) in versions {
            writer.string(userID)
            writer.int(Int64(version))
        }
        // The partitions' latest claims: a restored member must refuse what a fenced one writes.
        writer.int(Int64(owners.count))
        for owner in owners.values { writer.string(owner.description) }
        return writer.bytes
    }

    /// The ledger ``snapshotBytes()`` describes; refuses another format version or malformed bytes.
    public init(snapshotBytes bytes: [UInt8]) throws(SnapshotError) {
        var reader = SnapshotReader(bytes: bytes)
        guard bytes.count > Self.snapshotMagic.count,
            Array(bytes.prefix(Self.snapshotMagic.count)) == Self.snapshotMagic
        else { throw .malformed("not a ledger snapshot") }
        reader.offset = Self.snapshotMagic.count
        let version = try reader.byte()
        guard version == Self.snapshotVersion else { throw .unsupportedVersion(Int(version)) }
        self.init(idempotencyHorizon: try reader.optionalInt().map { .seconds($0) })
        watermark = try reader.optionalInt().map(Timestamp.init(milliseconds:))
        prunedThroughHour = try reader.int()
        for _ in 0..<(try reader.count()) {
            let userID = try reader.string()
            var handles: [String] = []
            for _ in 0..<(try reader.count()) { handles.append(try reader.string()) }
            let verified = try reader.byte() == 1
            directory.open(userID, handles: handles, verified: verified, version: Int(try reader.int()))
        }
        for _ in 0..<(try reader.count()) {
            let userID = try reader.string()
            directory.close(userID, version: Int(try reader.int()))
        }
        let balanceCount = try reader.count()
        balances.reserveCapacity(min(balanceCount, 1 << 16))
        for _ in 0..<balanceCount {
            let key = BalanceKey(account: try reader.string(), currency: try reader.string())
            balances[key] = try reader.int()
        }
        let transferCount = try reader.count()
        transfers.reserveCapacity(min(transferCount, 1 << 16))
        for _ in 0..<transferCount {
            let transfer = Transfer(
                id: try reader.string(), intentID: try reader.string(), payer: try reader.string(),
                payee: try reader.string(), payeeContactID: try reader.optionalString(),
                payeeAccount: try reader.optionalString(), money: try reader.money(),
                note: try reader.optionalString(), expiresAt: try reader.timestamp(),
                status: try Self.transferStatus(try reader.byte()), paysRequestID: try reader.optionalString(),
                decidedBy: try reader.optionalString(), decidedAt: try reader.timestamp(),
                voidReason: try reader.optionalString(), requestSource: try reader.optionalString())
            transfers[transfer.id] = transfer
        }
        for _ in 0..<(try reader.count()) {
            let request = PaymentRequest(
                id: try reader.string(), intentID: try reader.string(), requester: try reader.string(),
                payer: try reader.string(), payerContactID: try reader.optionalString(),
                payerAccount: try reader.optionalString(), money: try reader.money(),
                note: try reader.optionalString(), expiresAt: try reader.timestamp(),
                status: try Self.requestStatus(try reader.byte()), decidedBy: try reader.optionalString(),
                decidedAt: try reader.timestamp(), endedAt: try reader.timestamp(),
                requestSource: try reader.optionalString(), reservedBy: try reader.optionalString())
            requests[request.id] = request
        }
        for _ in 0..<(try reader.count()) {
            let key = ProposalKey(userID: try reader.string(), intentID: try reader.string())
            closedProposals[key] = ClosedProposal(
                reason: try reader.string(), decidedBy: try reader.optionalString(), decidedAt: try reader.timestamp())
        }
        for _ in 0..<(try reader.count()) {
            let hour = try reader.int()
            let count = try reader.count()
            var ids: [String] = []
            ids.reserveCapacity(min(count, 1 << 16))
            for _ in 0..<count {
                let id = try reader.string()
                ids.append(id)
                applied[id] = Applied(hour: hour, shape: UInt64(bitPattern: try reader.int()))
            }
            if hour != Self.undated { appliedByHour[hour] = ids }
        }
        for _ in 0..<(try reader.count()) {
            let userID = try reader.string()
            versions[userID] = Int(try reader.int())
        }
        for _ in 0..<(try reader.count()) {
            let text = try reader.string()
            guard let owner = LedgerOwner(text) else { throw .malformed("partition owner \(text)") }
            ownership.take(owner)
        }
        guard reader.offset == bytes.count else { throw .malformed("\(bytes.count - reader.offset) bytes left over") }
        markExpiriesUnanswered()
    }

    private static let transferStatuses: [TransferStatus] = [.held, .posted, .voided]
    private static let requestStatuses: [RequestStatus] = [.proposed, .pending, .declined, .paid, .closed]

    private static func code(_ status: TransferStatus) -> UInt8 {
        UInt8(transferStatuses.firstIndex(of: status)!)
    }

    private static func code(_ status: RequestStatus) -> UInt8 {
        UInt8(requestStatuses.firstIndex(of: status)!)
    }

    private static func transferStatus(_ code: UInt8) throws(SnapshotError) -> TransferStatus {
        guard Int(code) < transferStatuses.count else { throw .malformed("transfer status \(code)") }
        return transferStatuses[Int(code)]
    }

    private static func requestStatus(_ code: UInt8) throws(SnapshotError) -> RequestStatus {
        guard Int(code) < requestStatuses.count else { throw .malformed("request status \(code)") }
        return requestStatuses[Int(code)]
    }
}

/// Appends a snapshot's fields.
private struct SnapshotWriter {
    var bytes: [UInt8] = []

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func int(_ value: Int64) {
        withUnsafeBytes(of: value.littleEndian) { bytes += $0 }
    }

    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            int(Int64(utf8.count))
            bytes += utf8
        }
    }

    mutating func strings(_ values: String...) {
        for value in values { string(value) }
    }

    mutating func optionalInt(_ value: Int64?) {
        byte(value == nil ? 0 : 1)
        if let value { int(value) }
    }

    mutating func optionalStrings(_ values: String?...) {
        for value in values {
            byte(value == nil ? 0 : 1)
            if let value { string(value) }
        }
    }

    mutating func timestamp(_ value: Timestamp?) {
        optionalInt(value?.milliseconds)
    }

    mutating func money(_ value: Money) {
        string(value.currency)
        int(value.micros)
    }
}

/// Reads a snapshot's fields, refusing anything past the end.
private struct SnapshotReader {
    let bytes: [UInt8]
    var offset = 0

    mutating func byte() throws(Ledger.SnapshotError) -> UInt8 {
        guard offset < bytes.count else { throw .malformed("ends early") }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func int() throws(Ledger.SnapshotError) -> Int64 {
        guard offset + 8 <= bytes.count else { throw .malformed("ends early") }
        var value: Int64 = 0
        withUnsafeMutableBytes(of: &value) { target in
            bytes.withUnsafeBytes { source in
                target.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[offset..<offset + 8]))
            }
        }
        offset += 8
        return Int64(littleEndian: value)
    }

    /// A count of entries, each at least a byte long: never more than the bytes left.
    mutating func count() throws(Ledger.SnapshotError) -> Int {
        let value = try int()
        guard value >= 0, value <= bytes.count - offset else { throw .malformed("count \(value)") }
        return Int(value)
    }

    mutating func string() throws(Ledger.SnapshotError) -> String {
        let length = try count()
        defer { offset += length }
        return String(decoding: bytes[offset..<offset + length], as: UTF8.self)
    }

    mutating func optionalString() throws(Ledger.SnapshotError) -> String? {
        try byte() == 0 ? nil : try string()
    }

    mutating func optionalInt() throws(Ledger.SnapshotError) -> Int64? {
        try byte() == 0 ? nil : try int()
    }

    mutating func timestamp() throws(Ledger.SnapshotError) -> Timestamp? {
        try optionalInt().map(Timestamp.init(milliseconds:))
    }

    mutating func money() throws(Ledger.SnapshotError) -> Money {
        Money(currency: try string(), micros: try int())
    }
}
