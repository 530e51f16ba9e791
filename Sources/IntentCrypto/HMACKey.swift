internal import COpenSSL

/// An HMAC-SHA256 key with its padded blocks already hashed (RFC 2104's inner and
/// outer states), so each MAC hashes only the message and the inner digest: a
/// signing key is used for every event its worker writes or an auditor checks, and
/// padding and hashing the key each time was a fifth of a MAC.
///
/// The states are OpenSSL's plain `SHA256_CTX` structures, copied by value for each
/// MAC: the EVP interface allocated a context and duplicated the provider's state twice
/// per MAC (three heap allocations, and a provider dispatch per call), on every record a
/// worker reads or writes. The functions are deprecated in OpenSSL 3 in favour of EVP
/// (the shim suppresses the notice) but remain part of its API, and run the same
/// assembly block function.
public final class HMACKey: @unchecked Sendable {
    /// Only read once built (copied into a local state per MAC), so safe from any thread.
    private let inner: SHA256_CTX
    private let outer: SHA256_CTX

    /// The size of a MAC, in bytes, and of its lowercase hex form.
    public static let byteCount = 32
    public static let hexCount = 64

    public init(_ key: some Collection<UInt8>) {
        let blockSize = 64
        var block = Array(key)
        if block.count > blockSize { block = Digest.sha256(block) }
        block += [UInt8](repeating: 0, count: blockSize - block.count)
        func state(_ pad: UInt8) -> SHA256_CTX {
            var context = SHA256_CTX()
            let padded = block.map { $0 ^ pad }
            let ok = SHA256_Init(&context) == 1 && SHA256_Update(&context, padded, padded.count) == 1
            precondition(ok, "HMAC-SHA256 failed: \(CryptoError.fromQueue("HMAC"))")
            return context
        }
        inner = state(0x36)
        outer = state(0x5c)
    }

    /// HMAC-SHA256 of `message`.
    public func authenticate(_ message: some Collection<UInt8>) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: Self.byteCount) { output, count in
            authenticate(message, into: output.baseAddress!)
            count = Self.byteCount
        }
    }

    /// The MAC of `message` as lowercase hex (what signature headers carry), with no
    /// allocation but the string's own.
    public func hexAuthenticate(_ message: some Collection<UInt8>) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.byteCount) { digest in
            authenticate(message, into: digest.baseAddress!)
            return Digest.hex(UnsafeBufferPointer(digest))
        }
    }

    /// Appends the MAC of `message` as lowercase hex to `output`: a signature header's
    /// value written where it goes, with no string or digest array in between.
    public func appendHexAuthentication(of message: some Collection<UInt8>, to output: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.byteCount) { digest in
            authenticate(message, into: digest.baseAddress!)
            Digest.appendHex(UnsafeBufferPointer(digest), to: &output)
        }
    }

    /// Whether `hex` (either case) is the MAC of `message`, compared in constant time
    /// (``Digest/constantTimeEqual(_:_:)``): what checking a record's signature takes,
    /// with no allocation.
    public func verifies(_ message: some Collection<UInt8>, hex: UnsafeBufferPointer<UInt8>) -> Bool {
        guard hex.count == Self.hexCount else { return false }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.byteCount + 2 * Self.hexCount) {
            scratch in
            let base = scratch.baseAddress!
            authenticate(message, into: base)
            let expected = base + Self.byteCount
            let given = expected + Self.hexCount
            Digest.writeHex(UnsafeBufferPointer(start: base, count: Self.byteCount), to: expected)
            for index in 0..<Self.hexCount {
                let digit = hex[index]
                given[index] = digit >= UInt8(ascii: "A") && digit <= UInt8(ascii: "Z") ? digit | 0x20 : digit
            }
            return CRYPTO_memcmp(expected, given, Self.hexCount) == 0
        }
    }

    /// Writes the 32-byte MAC of `message` to `output`.
    private func authenticate(_ message: some Collection<UInt8>, into output: UnsafeMutablePointer<UInt8>) {
        var context = inner
        var ok =
            (message.withContiguousStorageIfAvailable { SHA256_Update(&context, $0.baseAddress, $0.count) }
                ?? Array(message).withUnsafeBufferPointer { SHA256_Update(&context, $0.baseAddress, $0.count) }) == 1
        ok = ok && SHA256_Final(output, &context) == 1
        context = outer
        ok = ok && SHA256_Update(&context, output, Self.byteCount) == 1 && SHA256_Final(output, &context) == 1
        precondition(ok, "HMAC-SHA256 failed: \(CryptoError.fromQueue("HMAC"))")
    }
}
