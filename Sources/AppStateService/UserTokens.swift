import IntentCrypto

/// Bearer tokens for the app-state API, one per user: HMAC-SHA256 of the user
/// id under the service's key. The app gets its user's token at sign-in (here:
/// from `intentctl` or the demo); a token only ever opens its own user's state.
public struct UserTokens: Sendable {
    private let key: [UInt8]

    public init(key: [UInt8]) {
        precondition(key.count >= 32, "an app key has at least 32 bytes")
        self.key = key
    }

    public func token(for user: String) -> String {
        Digest.hex(Digest.hmacSHA256(key: key, message: Array("intent-pipeline/app/v1/\(user)".utf8)))
    }

    /// Whether `token` is this user's (compared in constant time).
    public func accepts(_ candidate: String, for user: String) -> Bool {
        Digest.constantTimeEqual(Array(token(for: user).utf8), Array(candidate.lowercased().utf8))
    }
}
