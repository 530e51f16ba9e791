public import Foundation
import IntentCrypto
import IntentEvents

/// Bearer tokens for the app-state API: `v2.EXPIRY.KEYID.MAC`, where MAC is
/// HMAC-SHA256 of the user id and the expiry (Unix seconds) under one of the
/// service's keys. The app gets its user's token at sign-in (here: from
/// `intent-appstate token` or the demo); a token opens only its own user's
/// state, and only until it expires, so a leaked token stops working by
/// itself. Keys rotate like the pipeline's: list the new key after the old
/// one (both are accepted, the last one issues), then drop the old one.
public struct UserTokens: Sendable {
    /// How long a token issued now is valid unless said otherwise.
    public static let defaultLifetime: Duration = .seconds(24 * 3600)
    /// The longest lifetime a token may claim: a forged far-future expiry cannot help
    /// (the MAC covers it), but a real key's token is never valid for longer than this.
    public static let maximumLifetime: Duration = .seconds(30 * 24 * 3600)

    private let keys: [(id: String, bytes: [UInt8])]
    public let lifetime: Duration

    /// `keys`, oldest first: the last one issues tokens, all of them are accepted.
    public init(keys: [[UInt8]], lifetime: Duration = defaultLifetime) {
        precondition(!keys.isEmpty && keys.allSatisfy { $0.count >= 32 }, "app keys have at least 32 bytes")
        self.keys = keys.map { (Digest.hex(Digest.sha256($0).prefix(4)), $0) }
        self.lifetime = min(lifetime, Self.maximumLifetime)
    }

    public init(key: [UInt8], lifetime: Duration = defaultLifetime) {
        self.init(keys: [key], lifetime: lifetime)
    }

    /// A token for `user`, valid until `now + lifetime`.
    public func token(for user: String, now: Date = Date()) -> String {
        let key = keys[keys.count - 1]
        let expiry = Int64(now.timeIntervalSince1970) + lifetime.components.seconds
        return "v2.\(expiry).\(key.id).\(mac(key.bytes, user, expiry))"
    }

    public enum Verdict: Sendable, Hashable {
        case accepted
        /// Well formed and this user's, but past its expiry (401: sign in again).
        case expired
        /// Not this user's, not ours, or malformed (403).
        case refused
    }

    /// Whether `candidate` is this user's, unexpired token (the MAC compared in constant time).
    public func check(_ candidate: String, for user: String, now: Date = Date()) -> Verdict {
        let parts = candidate.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "v2", let expiry = Int64(parts[1]),
            let key = keys.first(where: { $0.id == parts[2] })
        else { return .refused }
        let given = Array(parts[3].lowercased().utf8)
        guard Digest.constantTimeEqual(Array(mac(key.bytes, user, expiry).utf8), given) else { return .refused }
        let current = Int64(now.timeIntervalSince1970)
        guard expiry - current <= Self.maximumLifetime.components.seconds else { return .refused }
        return current < expiry ? .accepted : .expired
    }

    /// Whether `candidate` is this user's unexpired token.
    public func accepts(_ candidate: String, for user: String, now: Date = Date()) -> Bool {
        check(candidate, for: user, now: now) == .accepted
    }

    private func mac(_ key: [UInt8], _ user: String, _ expiry: Int64) -> String {
        // A JSON array: unambiguous whatever the user id holds.
        let message = CanonicalJSON.encode(["intent-pipeline/app/v2", user, String(expiry)])
        return Digest.hex(Digest.hmacSHA256(key: key, message: message))
    }
}
