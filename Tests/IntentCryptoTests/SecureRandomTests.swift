import Testing

@testable import IntentCrypto

/// Nonces come from a pool the CSPRNG fills 4 KiB at a time: every request gets bytes no
/// other request got, also across a refill, and a request larger than the pool serves goes
/// to the generator itself.
@Suite("Secure random bytes")
struct SecureRandomTests {
    func nonce(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBufferPointer { SecureRandom.fill($0) }
        return bytes
    }

    @Test("eight-byte nonces do not repeat, across several refills of the pool")
    func noncesDoNotRepeat() {
        // 3,000 x 8 bytes spans about six pools, and requests of 5 and 3 bytes misalign them.
        var seen: Set<[UInt8]> = []
        for index in 0..<3_000 {
            let count = index % 7 == 0 ? 5 : (index % 11 == 0 ? 3 : 8)
            let bytes = nonce(count)
            if count == 8 { #expect(seen.insert(bytes).inserted, "nonce \(index) repeated") }
        }
        #expect(seen.count > 2_000)
    }

    @Test("the bytes look random: every byte value turns up, none stuck at zero")
    func bytesAreSpread() {
        var counts = [Int](repeating: 0, count: 256)
        for _ in 0..<2_000 { for byte in nonce(8) { counts[Int(byte)] += 1 } }
        // 16,000 bytes: each value about 62 times; a pool handed out unfilled would be all zeros.
        #expect(counts.allSatisfy { $0 > 10 })
        #expect(counts[0] < 200)
    }

    @Test("a request larger than the pool's share is served directly")
    func largeRequests() {
        let first = nonce(RandomPool.size)
        let second = nonce(RandomPool.size)
        #expect(first != second)
        #expect(first.contains { $0 != 0 })
        #expect(SecureRandom.bytes(32) != SecureRandom.bytes(32))
    }
}
