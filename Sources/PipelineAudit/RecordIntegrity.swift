public import IntentEvents

/// Whether the audited topics still hold what the pipeline wrote: every
/// record's signature, and every stage's chain on every partition
/// (``RecordChain``). Pure: the caller reads the records, in partition order.
///
/// What each finding means:
/// - `forged`: a record its claimed source never signed (no signature, an
///   unknown key, a wrong signature on something that was never chained, or a
///   chain link that does not verify);
/// - `modified`: a record that was signed and chained, then changed: its link
///   still names its place, its signatures no longer match its contents;
/// - `deleted`: a record names a predecessor no record on the partition has (a gap);
/// - `reordered`: a record's predecessor comes after it on the partition;
/// - `replayed`: an exact copy of a record already on the partition (each write
///   the pipeline makes has its own link, so only a copy repeats one);
/// - `unchained`: a stage's record with no link (a stage writes none of those).
///
/// What it cannot see: records deleted from the very end of a chain (nothing
/// names them yet; the lifecycle audit misses their effects instead), and
/// anything an attacker holding the stage's key does.
public enum RecordIntegrity {
    /// One record as read from its topic.
    public struct Record: Sendable {
        public var topic: String
        /// The topic's name without the deployment's prefix: what chain links sign.
        public var role: String
        public var partition: Int32
        public var offset: Int64
        public var value: [UInt8]
        public var signature: EventSignature?
        /// The ``RecordChain/header`` and ``RecordChain/signatureHeader`` values.
        public var chainLink: String?
        public var chainSignature: String?
        /// The value decoded, when the caller has it already (else it is decoded here).
        public var event: EventEnvelope?

        public init(
            topic: String, role: String, partition: Int32, offset: Int64, value: [UInt8], signature: EventSignature?,
            chainLink: String?, chainSignature: String?, event: EventEnvelope? = nil
        ) {
            self.event = event
            self.topic = topic
            self.role = role
            self.partition = partition
            self.offset = offset
            self.value = value
            self.signature = signature
            self.chainLink = chainLink
            self.chainSignature = chainSignature
        }
    }

    public enum Kind: String, Codable, Sendable, Hashable, CaseIterable {
        case forged, modified, deleted, reordered, replayed, unchained
    }

    public struct Finding: Codable, Sendable, Hashable, CustomStringConvertible {
        public var kind: Kind
        public var topic: String
        public var partition: Int32
        public var offset: Int64
        public var eventID: String?
        public var detail: String

        public var description: String {
            "\(kind.rawValue): \(topic)[\(partition)]@\(offset)\(eventID.map { " (event \($0))" } ?? ""): \(detail)"
        }
    }

    public struct Report: Codable, Sendable, Hashable {
        /// Records whose signature was checked.
        public var verified = 0
        /// Records from sources the keyring has no key for (voice services, when the
        /// auditor holds only the stages' keys): not checked.
        public var unverifiable = 0
        /// Chains seen (a stage on a partition of a topic).
        public var chains = 0
        /// Records that name a predecessor another record already names: two writers
        /// (a rebalance, or several payments members crediting one payee's partition).
        public var forks = 0
        public var findings: [Finding] = []
    }

    /// Checks `records` (every topic's partitions each in offset order); see ``Checker``.
    public static func check(
        _ records: [Record], keys: EventAuthenticator, readFromWindow: Set<String> = [], internalOnly: Set<String> = []
    ) -> Report {
        var checker = Checker(keys: keys, readFromWindow: readFromWindow, internalOnly: internalOnly)
        for record in records { checker.check(record) }
        return checker.report()
    }

    /// The check fed one record at a time, as the topics are read (every topic's
    /// partitions each in offset order): it keeps each chain's hashes, not the records.
    /// Records of internal sources (``PipelineSource/isInternal(_:)``) must verify; a
    /// stage's must be chained. The topics in `readFromWindow` were read from a time on,
    /// not from their start: the first record of each chain there names one before the
    /// window, unseen.
    public struct Checker {
        private let keys: EventAuthenticator
        private let readFromWindow: Set<String>
        private let internalOnly: Set<String>
        private var chains: [ChainID: Chain] = [:]
        /// Counts and per-record findings so far.
        private var tally = Report()

        /// - Parameter internalOnly: Topics only the pipeline's own sources write (the ledger,
        ///   the responses): a record there from any other source is forged, not unverifiable.
        public init(keys: EventAuthenticator, readFromWindow: Set<String> = [], internalOnly: Set<String> = []) {
            self.keys = keys
            self.readFromWindow = readFromWindow
            self.internalOnly = internalOnly
        }

        /// Checks one record; false when the workers refuse it too (an outside source on a topic
        /// only the pipeline writes, or a signature that does not verify), which the audit's
        /// money rules must then not count either. Its other findings (a chain link that does
        /// not verify or names another source, a source the auditor holds no key for, a record
        /// out of place) are the audit's own: the workers, which check no chain, took the
        /// record, so the money rules count it as they did.
        @discardableResult
        public mutating func check(_ record: Record) -> Bool {
            var refused = false
            inspect(record, refused: &refused)
            return !refused
        }

        private mutating func inspect(_ record: Record, refused: inout Bool) {
            // An unreadable record is the lifecycle audit's finding.
            guard let event = record.event ?? (try? EventEnvelope.decode(record.value)) else { return }
            func finding(_ kind: Kind, _ detail: String) {
                tally.findings.append(
                    Finding(
                        kind: kind, topic: record.topic, partition: record.partition, offset: record.offset,
                        eventID: event.id, detail: detail))
            }
            let internalSource = PipelineSource.isInternal(event.source)
            // A voice service's answer on the confirmations topic is beyond the stages' keys; on
            // the ledger or the responses, an outside source is never right (no reader takes it).
            guard internalSource || !internalOnly.contains(record.topic) else {
                finding(.forged, "\(event.source) is not the pipeline's, and only the pipeline writes \(record.role)")
                refused = true
                return
            }
            guard keys.hasKey(for: event.source) else {
                if internalSource {
                    finding(.forged, "no key of \(event.source) signed it")
                } else {
                    tally.unverifiable += 1
                }
                return
            }
            tally.verified += 1
            let link = record.chainLink.flatMap(RecordChain.Link.init(headerValue:))
            let chainSignature = record.chainSignature.flatMap(RecordChain.signature(headerValue:))
            var signed = true
            do throws(EventDecodingError) {
                try keys.verify(event, received: record.value, signature: record.signature)
            } catch {
                signed = false
                refused = true
                // Changed after it was signed and chained, or made up.
                if let link, link.source == event.source, chainSignature != nil, record.signature != nil {
                    finding(.modified, "its contents do not match its signatures (\(error.message))")
                } else {
                    finding(.forged, "\(error.message)")
                    return  // a made-up link places nothing in a chain
                }
            }
            guard let link, let chainSignature else {
                if signed && event.source.hasPrefix("/workers/") {
                    finding(.unchained, "\(event.source) wrote it without a chain link")
                }
                return
            }
            guard link.source == event.source else {
                if signed { finding(.forged, "chained as \(link.source) but the event is from \(event.source)") }
                return
            }
            if signed {
                do throws(EventDecodingError) {
                    try RecordChain.verify(
                        chainSignature, topic: record.role, partition: record.partition, link: link,
                        value: record.value, keys: keys)
                } catch {
                    finding(.forged, "its chain link does not verify (\(error.message))")
                    return
                }
            }
            // Placed in its chain, modified or not: its successor names its link signature.
            let id = ChainID(topic: record.topic, partition: record.partition, source: link.source)
            let chain: Chain
            if let known = chains[id] {
                chain = known
            } else {
                chain = Chain()
                chains[id] = chain
            }
            let hash = ChainHash(chainSignature.hex)
            if let first = chain.offsets[hash] {
                finding(.replayed, "an exact copy of the record at offset \(first)")
                return
            }
            chain.offsets[hash] = record.offset
            // A verified resend accounts for its earlier attempt's hash (never landed, or landed).
            if signed, let earlier = link.supersedes { chain.superseded.insert(ChainHash(earlier)) }
            let firstInWindow = chain.offsets.count == 1 && readFromWindow.contains(record.topic)
            if link.previous != RecordChain.genesis && !firstInWindow {
                let previous = ChainHash(link.previous)
                if chain.offsets[previous] == nil {
                    chain.missing.append((previous, record.offset, event.id))
                }
                if !chain.named.insert(previous).inserted { tally.forks += 1 }
            }
        }

        /// What every record checked so far shows.
        public func report() -> Report {
            var report = tally
            report.chains = chains.count
            for (id, chain) in chains.sorted(by: {
                ($0.key.topic, $0.key.partition, $0.key.source) < ($1.key.topic, $1.key.partition, $1.key.source)
            }) {
                for (previous, offset, eventID) in chain.missing where !chain.superseded.contains(previous) {
                    let later = chain.offsets[previous]
                    report.findings.append(
                        Finding(
                            kind: later == nil ? .deleted : .reordered, topic: id.topic, partition: id.partition,
                            offset: offset, eventID: eventID,
                            detail: later.map {
                                "the record before it in \(id.source)'s chain comes after it, at offset \($0)"
                            }
                                ?? "the record before it in \(id.source)'s chain is missing"))
                }
            }
            report.findings.sort { ($0.topic, $0.partition, $0.offset) < ($1.topic, $1.partition, $1.offset) }
            return report
        }
    }

    private struct ChainID: Hashable {
        var topic: String
        var partition: Int32
        var source: String
    }

    /// A class, so recording a record mutates the chain in place rather than copying its tables.
    private final class Chain {
        /// Each record's hash, and where it is.
        var offsets: [ChainHash: Int64] = [:]
        /// Hashes named as a predecessor.
        var named: Set<ChainHash> = []
        /// Hashes of attempts a verified resend replaced.
        var superseded: Set<ChainHash> = []
        /// Records whose predecessor was not (yet) seen.
        var missing: [(previous: ChainHash, offset: Int64, eventID: String)] = []
    }

    /// A record's hash in its chain (its link signature's hex), as the 32 bytes it spells
    /// when it is a SHA-256's hex (every genuine one), else as written: hashing and
    /// comparing 64-character strings was a third of the check.
    private enum ChainHash: Hashable {
        case digest(SIMD4<UInt64>)
        case text(String)

        init(_ hex: String) {
            var text = hex
            let words = text.withUTF8 { bytes -> SIMD4<UInt64>? in
                guard bytes.count == 64 else { return nil }
                var words = SIMD4<UInt64>()
                for word in 0..<4 {
                    var value: UInt64 = 0
                    for byte in bytes[(word * 16)..<(word * 16 + 16)] {
                        let nibble = Self.nibbles[Int(byte)]
                        guard nibble < 16 else { return nil }
                        value = value << 4 | UInt64(nibble)
                    }
                    words[word] = value
                }
                return words
            }
            self = words.map(Self.digest) ?? .text(hex)
        }

        /// Each byte's value as a lowercase hex digit; 0xFF for any other byte.
        private static let nibbles: [UInt8] = (0...255).map { byte in
            switch UInt8(byte) {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt8(byte) - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt8(byte) - UInt8(ascii: "a") + 10
            default: 0xFF
            }
        }
    }
}
