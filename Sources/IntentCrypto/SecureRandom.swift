import COpenSSL
import Synchronization

/// Key material from OpenSSL's CSPRNG (`RAND_bytes`), for keys that sign
/// money-moving events: Swift's `SystemRandomNumberGenerator` is also
/// secure on Linux, but one source of randomness for every key keeps audits simple.
public enum SecureRandom {
    public static func bytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBufferPointer { generate($0) }
        return bytes
    }

    /// Fills `buffer` with random bytes: a chain link's nonce on the stack, one per record written.
    ///
    /// Served from a pool the same generator fills 4 KiB at a time: one `RAND_bytes` call per
    /// record was 6% of a decision path (OpenSSL 3 looks its generator's parameters up by name
    /// on every call), for eight bytes. Requests larger than a pool's eighth go to it directly.
    public static func fill(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        guard buffer.count <= RandomPool.size / 8 else { return generate(buffer) }
        pool.take(into: buffer)
    }

    static func generate(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        let result = RAND_bytes(buffer.baseAddress, Int32(buffer.count))
        // RAND_bytes fails only when the CSPRNG cannot be seeded: nothing safe can be signed then.
        precondition(result == 1, "OpenSSL RAND_bytes failed: no secure randomness available")
    }

    private static let pool = RandomPool()
}

/// Bytes from ``SecureRandom/generate(_:)``, handed out in order, each once.
final class RandomPool: Sendable {
    static let size = 4096

    private struct State {
        var bytes = [UInt8](repeating: 0, count: RandomPool.size)
        var used = RandomPool.size
    }

    private let state = Mutex(State())

    func take(into buffer: UnsafeMutableBufferPointer<UInt8>) {
        state.withLock { state in
            if state.used + buffer.count > Self.size {
                state.bytes.withUnsafeMutableBufferPointer { SecureRandom.generate($0) }
                state.used = 0
            }
            let used = state.used
            state.bytes.withUnsafeMutableBufferPointer { pool in
                for index in buffer.indices {
                    buffer[index] = pool[used + index]
                    pool[used + index] = 0
                }
            }
            state.used += buffer.count
        }
    }
}
