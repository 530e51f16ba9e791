internal import COpenSSL

/// An HMAC-SHA256 key with its padded blocks already hashed (RFC 2104's inner and
/// outer states), so each MAC hashes only the message and the inner digest: a
/// signing key is used for every event its worker writes or an auditor checks, and
/// padding and hashing the key each time was a fifth of a MAC.
public final class HMACKey: @unchecked Sendable {
    /// SHA-256 states after the key block XOR-ed with 0x36 and with 0x5c. Only read
    /// (copied into a fresh context per MAC) once built, which OpenSSL allows from any thread.
    private let inner: OpaquePointer
    private let outer: OpaquePointer

    public init(_ key: some Collection<UInt8>) {
        let blockSize = 64
        var block = Array(key)
        if block.count > blockSize { block = Digest.sha256(block) }
        block += [UInt8](repeating: 0, count: blockSize - block.count)
        func state(_ pad: UInt8) -> OpaquePointer {
            guard let context = EVP_MD_CTX_new() else { preconditionFailure("HMAC-SHA256: out of memory") }
            let padded = block.map { $0 ^ pad }
            let ok =
                EVP_DigestInit_ex2(context, SHA256Algorithm.shared.md, nil) == 1
                && EVP_DigestUpdate(context, padded, padded.count) == 1
            precondition(ok, "HMAC-SHA256 failed: \(CryptoError.fromQueue("HMAC"))")
            return context
        }
        inner = state(0x36)
        outer = state(0x5c)
    }

    deinit {
        EVP_MD_CTX_free(inner)
        EVP_MD_CTX_free(outer)
    }

    /// HMAC-SHA256 of `message`.
    public func authenticate(_ message: some Collection<UInt8>) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { preconditionFailure("HMAC-SHA256: out of memory") }
        defer { EVP_MD_CTX_free(context) }
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        var ok = EVP_MD_CTX_copy_ex(context, inner) == 1
        ok =
            ok
            && (message.withContiguousStorageIfAvailable { EVP_DigestUpdate(context, $0.baseAddress, $0.count) }
                ?? Array(message).withUnsafeBufferPointer { EVP_DigestUpdate(context, $0.baseAddress, $0.count) }) == 1
        ok = ok && EVP_DigestFinal_ex(context, &digest, &length) == 1 && length == 32
        ok = ok && EVP_MD_CTX_copy_ex(context, outer) == 1 && EVP_DigestUpdate(context, digest, 32) == 1
        ok = ok && EVP_DigestFinal_ex(context, &digest, &length) == 1 && length == 32
        precondition(ok, "HMAC-SHA256 failed: \(CryptoError.fromQueue("HMAC"))")
        return digest
    }
}
