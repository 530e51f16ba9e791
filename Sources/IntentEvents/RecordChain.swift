import IntentCrypto

/// Tamper evidence for the topics auditors rely on (the ledger, confirmations,
/// responses). A signature proves who wrote an event, not that the topic still
/// holds everything that was written, in the order it was written: a record can
/// be deleted, or a genuine one appended again later. So each record a stage
/// writes there also names the record before it in its chain (this source on
/// this partition) and signs that link with the source's key.
///
/// The link travels in headers, not in the event: events stay byte-identical
/// when a batch is redone (their ids dedupe), while every physical write gets a
/// fresh link (a random nonce), so only a copy made by someone else repeats one.
/// A record's hash, the thing the next record names, is its link signature:
/// changing a record's value leaves the chain intact and fails that record's
/// signatures (modified), while deleting one leaves its successor naming a hash
/// no record has (a gap).
///
/// Several writers of one chain (two members during a rebalance, the payments
/// members each sending credits to a payee's partition) fork it: each names the
/// last record it knows. A fork is not tampering (both branches are signed); an
/// auditor counts it.
public enum RecordChain {
    /// `SOURCE PREVIOUS NONCE [SUPERSEDES]`: who chains the record, the hash it follows
    /// (``genesis`` for a chain's first record), a random nonce, and for a record sent
    /// again after a failed delivery, the hash of the earlier attempt. That attempt may
    /// never have landed while a record after it did and names it: the resend, signed,
    /// says the missing hash was its own, so the gap is not a deletion.
    public static let header = "intent-chain"
    /// `KEYID HEX`: the HMAC-SHA256 of ``canonical(topic:partition:link:value:)``
    /// with the source's key. The hex is the record's hash in the chain.
    public static let signatureHeader = "intent-chain-signature"
    /// What a chain's first record follows.
    public static let genesis = "genesis"

    /// One record's place in its chain.
    public struct Link: Sendable, Hashable {
        public var source: String
        public var previous: String
        public var nonce: String
        /// The hash of the attempt this record is sent again for.
        public var supersedes: String?

        public init(source: String, previous: String, nonce: String, supersedes: String? = nil) {
            self.source = source
            self.previous = previous
            self.nonce = nonce
            self.supersedes = supersedes
        }

        /// A new link with a fresh random nonce.
        public init(source: String, previous: String, supersedes: String? = nil) {
            self.init(
                source: source, previous: previous, nonce: Digest.hex(SecureRandom.bytes(8)), supersedes: supersedes)
        }

        /// The ``RecordChain/header`` value.
        public var headerValue: String {
            "\(source) \(previous) \(nonce)" + (supersedes.map { " \($0)" } ?? "")
        }

        /// Parses a ``RecordChain/header`` value; nil when it is not one.
        public init?(headerValue: String) {
            let fields = RecordChain.fields(of: headerValue)
            guard fields.count == 3 || fields.count == 4, fields.allSatisfy({ !$0.isEmpty }) else { return nil }
            self.init(
                source: fields[0], previous: fields[1], nonce: fields[2],
                supersedes: fields.count == 4 ? fields[3] : nil)
        }
    }

    /// What the link signature covers: the place (the topic's name without the
    /// deployment's prefix, so a mirrored copy under another prefix still verifies,
    /// and the partition), the link, and the value's SHA-256. A record moved to
    /// another partition or to another of the pipeline's topics does not verify.
    public static func canonical(topic: String, partition: Int32, link: Link, value: [UInt8]) -> [UInt8] {
        canonical(
            topic: topic, partition: partition, source: link.source, previous: link.previous, nonce: link.nonce.utf8,
            supersedes: link.supersedes, value: value)
    }

    /// The same from the link's fields, the nonce as its hex digits.
    static func canonical(
        topic: String, partition: Int32, source: String, previous: String, nonce: some Collection<UInt8>,
        supersedes: String?, value: [UInt8]
    ) -> [UInt8] {
        withCanonical(
            topic: topic, partition: partition, source: source, previous: previous, nonce: nonce,
            supersedes: supersedes, value: value, Array.init)
    }

    /// What ``canonical(topic:partition:source:previous:nonce:supersedes:value:)`` is, written
    /// field by field into scratch memory on the stack for `body`: a signer only hashes it, and
    /// an auditor, which builds it for every chained record, copies it once (interpolating a
    /// string first, then copying its bytes, was a twentieth of the check).
    static func withCanonical<Result>(
        topic: String, partition: Int32, source: String, previous: String, nonce: some Collection<UInt8>,
        supersedes: String?, value: [UInt8], _ body: (UnsafeBufferPointer<UInt8>) -> Result
    ) -> Result {
        let header = "intent-chain/v1".utf8
        let partitionText = String(partition).utf8
        // Seven lines, the last the value's SHA-256 in hex.
        let capacity =
            header.count + topic.utf8.count + partitionText.count + source.utf8.count + previous.utf8.count
            + nonce.count + (supersedes?.utf8.count ?? 0) + 7 + 64
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { scratch in
            var count = 0
            func line(_ field: some Collection<UInt8>) {
                for byte in field {
                    scratch[count] = byte
                    count += 1
                }
                scratch[count] = UInt8(ascii: "\n")
                count += 1
            }
            line(header)
            line(topic.utf8)
            line(partitionText)
            line(source.utf8)
            line(previous.utf8)
            line(nonce)
            line((supersedes ?? "").utf8)
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { digest in
                value.withUnsafeBufferPointer { Digest.sha256($0, into: digest.baseAddress!) }
                Digest.writeHex(UnsafeBufferPointer(digest), to: scratch.baseAddress! + count)
                count += 2 * digest.count
            }
            return body(UnsafeBufferPointer(rebasing: scratch[0..<count]))
        }
    }

    /// A record's link as written: the values of its ``header`` and ``signatureHeader``,
    /// and its hash (what the next record in the chain names).
    public struct Stamp: Sendable, Hashable {
        public var link: [UInt8]
        public var signature: [UInt8]
        public var hash: String
    }

    /// Stamps a record's `value` as the record after `previous` in `source`'s chain on
    /// `partition` of `topic` (``Link``, ``signature(topic:partition:link:value:keys:)``),
    /// with a fresh random nonce; nil when `keys` has no key for `source`. The header values
    /// are written straight to bytes, the nonce and digests kept on the stack: every record
    /// a stage writes to a chained topic is stamped, and the strings in between (the link's,
    /// the digests' hex, the header texts) were a dozen allocations per record.
    public static func stamp(
        topic: String, partition: Int32, source: String, previous: String, supersedes: String?, value: [UInt8],
        keys: EventAuthenticator
    ) -> Stamp? {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 8 + 16) { scratch in
            let random = UnsafeMutableBufferPointer(rebasing: scratch[0..<8])
            SecureRandom.fill(random)
            Digest.writeHex(UnsafeBufferPointer(random), to: scratch.baseAddress! + 8)
            return stamp(
                topic: topic, partition: partition, source: source, previous: previous,
                nonce: UnsafeBufferPointer(rebasing: scratch[8..<24]), supersedes: supersedes, value: value,
                keys: keys)
        }
    }

    /// ``stamp(topic:partition:source:previous:supersedes:value:keys:)`` with a given nonce
    /// (hex digits), which the tests compare with the ``Link`` path byte for byte.
    static func stamp(
        topic: String, partition: Int32, source: String, previous: String, nonce: UnsafeBufferPointer<UInt8>,
        supersedes: String?, value: [UInt8], keys: EventAuthenticator
    ) -> Stamp? {
        guard let key = keys.signingKey(for: source) else { return nil }
        var signature: [UInt8] = []
        signature.reserveCapacity(key.idBytes.count + 1 + HMACKey.hexCount)
        signature += key.idBytes
        signature.append(UInt8(ascii: " "))
        // What the signature covers is only hashed: written on the stack, not into an array.
        withCanonical(
            topic: topic, partition: partition, source: source, previous: previous, nonce: nonce,
            supersedes: supersedes, value: value
        ) { key.mac.appendHexAuthentication(of: $0, to: &signature) }
        let hash = String(decoding: signature[(key.idBytes.count + 1)...], as: UTF8.self)
        var link: [UInt8] = []
        link.reserveCapacity(source.utf8.count + previous.utf8.count + nonce.count + (supersedes?.utf8.count ?? 0) + 3)
        link += source.utf8
        link.append(UInt8(ascii: " "))
        link += previous.utf8
        link.append(UInt8(ascii: " "))
        link += nonce
        if let supersedes {
            link.append(UInt8(ascii: " "))
            link += supersedes.utf8
        }
        return Stamp(link: link, signature: signature, hash: hash)
    }

    /// The ``signatureHeader`` value for a link: nil when the source has no key.
    public static func signature(
        topic: String, partition: Int32, link: Link, value: [UInt8], keys: EventAuthenticator
    ) -> EventSignature? {
        keys.signature(
            forCanonical: canonical(topic: topic, partition: partition, link: link, value: value), source: link.source)
    }

    /// Checks a link's signature (``signatureHeader``) over the record's place and value,
    /// as ``signature(topic:partition:link:value:keys:)`` made it; throws why not.
    public static func verify(
        _ signature: EventSignature, topic: String, partition: Int32, link: Link, value: [UInt8],
        keys: EventAuthenticator
    ) throws(EventDecodingError) {
        try keys.verify(
            canonical: canonical(topic: topic, partition: partition, link: link, value: value), source: link.source,
            what: "a chain link", signature: signature)
    }

    /// ``signatureHeader``'s value from a signature, and back.
    public static func headerValue(of signature: EventSignature) -> String {
        "\(signature.keyID ?? "-") \(signature.hex)"
    }

    public static func signature(headerValue: String) -> EventSignature? {
        let fields = fields(of: headerValue)
        guard fields.count == 2, fields.allSatisfy({ !$0.isEmpty }) else { return nil }
        return EventSignature(keyID: fields[0] == "-" ? nil : fields[0], hex: fields[1])
    }

    /// A header value's fields, split at each space by byte over its contiguous UTF-8 (empty
    /// fields kept): an auditor parses two headers per record, and splitting by `Character`
    /// (grapheme breaking), then through the generic `split`, was a tenth of its check.
    static func fields(of headerValue: String) -> [String] {
        var text = headerValue
        return text.withUTF8 { bytes in
            var fields: [String] = []
            fields.reserveCapacity(4)
            var start = 0
            for index in bytes.indices where bytes[index] == UInt8(ascii: " ") {
                fields.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
                start = index + 1
            }
            fields.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[start...]), as: UTF8.self))
            return fields
        }
    }
}
