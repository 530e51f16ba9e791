import COpenSSL

/// Key material from OpenSSL's CSPRNG (`RAND_bytes`), for keys that sign
/// money-moving events: Swift's `SystemRandomNumberGenerator` is also
/// secure on Linux, but one source of randomness for every key keeps audits simple.
public enum SecureRandom {
    public static func bytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBufferPointer { fill($0) }
        return bytes
    }

    /// Fills `buffer` with random bytes: a chain link's nonce on the stack, one per record written.
    public static func fill(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        let result = RAND_bytes(buffer.baseAddress, Int32(buffer.count))
        // RAND_bytes fails only when the CSPRNG cannot be seeded: nothing safe can be signed then.
        precondition(result == 1, "OpenSSL RAND_bytes failed: no secure randomness available")
    }
}
