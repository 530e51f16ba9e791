import Foundation
import IntentCrypto

/// Authenticates events from outside the pipeline (voice services): each
/// source has its own key, and signs the event's canonical form
/// (``EventEnvelope/encoded()``: sorted keys, RFC 3339 times with
/// milliseconds) with HMAC-SHA256. The signature travels in the record header
/// ``signatureHeader`` as lowercase hex. A leaked key lets an attacker speak
/// only as that one source, and rotating it is a configuration change.
public struct EventAuthenticator: Sendable {
    public static let signatureHeader = "intent-signature"

    /// Key bytes by event `source` (e.g. `/voice/eu-1`).
    private let keys: [String: [UInt8]]

    public init(keys: [String: [UInt8]]) {
        self.keys = keys
    }

    public var sources: [String] { keys.keys.sorted() }

    /// The signature to send with the event; nil when the source has no key.
    public func signature(for event: EventEnvelope) -> String? {
        keys[event.source].map { Digest.hex(Digest.hmacSHA256(key: $0, message: event.encoded())) }
    }

    /// Accepts the event only with a valid signature from its own source's key.
    public func verify(_ event: EventEnvelope, signature: String?) throws(EventDecodingError) {
        guard let key = keys[event.source] else {
            throw EventDecodingError(.unauthenticated, field: "$.source", "no key for source \(event.source)")
        }
        guard let signature else {
            throw EventDecodingError(.unauthenticated, field: Self.signatureHeader, "the event is not signed")
        }
        let expected = Digest.hmacSHA256(key: key, message: event.encoded())
        guard Digest.constantTimeEqual(Array(Digest.hex(expected).utf8), Array(signature.lowercased().utf8)) else {
            throw EventDecodingError(
                .unauthenticated, field: Self.signatureHeader, "the signature does not match the event")
        }
    }

    public struct KeyError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Reads keys as lines `SOURCE HEXKEY` (blank lines and `#` comments
    /// allowed), from a file or from an environment variable's value. Keys
    /// must be at least 32 bytes.
    public static func parseKeys(_ text: String, origin: String) throws(KeyError) -> [String: [UInt8]] {
        var keys: [String: [UInt8]] = [:]
        for (number, rawLine) in text.split(whereSeparator: { $0 == "\n" || $0 == "," }).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "=" }).map(String.init)
            guard fields.count == 2, let key = Digest.bytes(hex: fields[1]), key.count >= 32 else {
                throw KeyError(
                    description:
                        "\(origin), entry \(number + 1): expected \"SOURCE HEXKEY\" with a key of at least 32 bytes (64 hex digits)"
                )
            }
            keys[fields[0]] = key
        }
        return keys
    }
}
