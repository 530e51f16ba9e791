internal import COpenSSL

/// SHA-256 and HMAC-SHA256 through OpenSSL.
public enum Digest {
    /// SHA-256 of `bytes` (the chain link of every record a worker writes hashes its value).
    public static func sha256(_ bytes: some Collection<UInt8>) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 32) { output, count in
            sha256(bytes, into: output.baseAddress!)
            count = 32
        }
    }

    /// The lowercase hex of the SHA-256 of `bytes`, with no allocation but the string's.
    public static func hexSHA256(_ bytes: some Collection<UInt8>) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { digest in
            sha256(bytes, into: digest.baseAddress!)
            return hex(UnsafeBufferPointer(digest))
        }
    }

    /// The SHA-256 of `bytes` written to `output` (32 bytes), for a digest kept on the stack.
    ///
    /// Through `SHA256_Init`/`Update`/`Final` on a context on the stack, not the one-shot
    /// `SHA256`: in OpenSSL 3 the one-shot is `EVP_Q_digest`, which fetches the algorithm from
    /// the provider store on every call (a name lookup under a read lock, and allocations):
    /// about 0.7 µs of a 0.85 µs digest of 64 bytes here, paid for every derived event id and
    /// every chain link (docs/benchmarks.md, "SHA-256 without a fetch per digest").
    public static func sha256(_ bytes: UnsafeBufferPointer<UInt8>, into output: UnsafeMutablePointer<UInt8>) {
        var context = SHA256_CTX()
        // These fail only on null pointers, which this never passes.
        _ = SHA256_Init(&context)
        _ = SHA256_Update(&context, bytes.baseAddress, bytes.count)
        _ = SHA256_Final(output, &context)
    }

    private static func sha256(_ bytes: some Collection<UInt8>, into output: UnsafeMutablePointer<UInt8>) {
        _ =
            bytes.withContiguousStorageIfAvailable { sha256($0, into: output) }
            ?? Array(bytes).withUnsafeBufferPointer { sha256($0, into: output) }
    }

    /// HMAC-SHA256 of `message` under `key` (RFC 2104); a key used for many messages
    /// is an ``HMACKey``, which hashes its padded blocks once.
    public static func hmacSHA256(key: some Collection<UInt8>, message: some Collection<UInt8>) -> [UInt8] {
        HMACKey(key).authenticate(message)
    }

    /// Compares in time independent of where the inputs differ, so a
    /// signature check does not leak how much of a forged MAC was right.
    public static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs.isEmpty { return true }
        return lhs.withUnsafeBytes { left in
            rhs.withUnsafeBytes { right in
                CRYPTO_memcmp(left.baseAddress, right.baseAddress, left.count) == 0
            }
        }
    }

    /// Lowercase hexadecimal.
    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        hex(Array(bytes))
    }

    /// Called for every signature made or checked: concrete (a generic one is
    /// not specialized across modules), one allocation, no digit table per call.
    public static func hex(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBufferPointer { hex($0) }
    }

    /// The same for bytes in place (a digest on the stack).
    public static func hex(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { output in
            writeHex(bytes, to: output.baseAddress!)
            return bytes.count * 2
        }
    }

    /// Writes the lowercase hex of `bytes` (two digits a byte, `2 * bytes.count` in all) from
    /// `output` on: for hex written into memory already sized for it (a string's, scratch on
    /// the stack), where each signature, chain link and nonce is spelled out.
    @inlinable
    public static func writeHex(_ bytes: UnsafeBufferPointer<UInt8>, to output: UnsafeMutablePointer<UInt8>) {
        for (index, byte) in bytes.enumerated() {
            output[2 * index] = hexDigit(byte >> 4)
            output[2 * index + 1] = hexDigit(byte & 0x0f)
        }
    }

    /// Appends the lowercase hex of `bytes` to `output`.
    public static func appendHex(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        for byte in bytes {
            output.append(hexDigit(byte >> 4))
            output.append(hexDigit(byte & 0x0f))
        }
    }

    /// The lowercase hex digit of a value 0...15.
    @inlinable @inline(__always)
    public static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }

    /// Bytes from hex digits (either case); nil for anything else or an odd count.
    public static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
