import COpenSSL

/// Key material from OpenSSL's CSPRNG (`RAND_bytes`), for keys that sign
/// money-moving events: Swift's `SystemRandomNumberGenerator` is also
/// secure on Linux, but one source of randomness for every key keeps audits simple.
public enum SecureRandom {
    public static func bytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let result = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        // RAND_bytes fails only when the CSPRNG cannot be seeded: nothing safe can be signed then.
        precondition(result == 1, "OpenSSL RAND_bytes failed: no secure randomness available")
        return bytes
    }
}
