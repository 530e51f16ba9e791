/// SplitMix64: a small, fast generator whose whole state is its seed, for what must
/// be replayable: the runtime's retry jitter (seeded from the system in production,
/// from the seed in a simulation), a benchmark that resolves the same queries every
/// run, a crash test whose kill schedule is reproduced from the seed it printed. Not
/// for keys (see `SecureRandom`).
public struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
    @usableFromInline var state: UInt64

    @inlinable
    public init(seed: UInt64) { state = seed }

    @inlinable
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
