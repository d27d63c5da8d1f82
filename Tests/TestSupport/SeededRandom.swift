#if canImport(Glibc)
import Glibc
#endif

/// A reproducible random number generator for tests with random inputs.
///
/// The seed comes from `CAST_TEST_SEED` when it is set (Tests/stress.sh sets
/// one per run and prints it with every failure), else from the system; a
/// test prints the seed it used in its failure messages, so any run can be
/// repeated exactly: `CAST_TEST_SEED=N swift test --filter TEST`.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    public let seed: UInt64
    private var state: UInt64

    public init(seed: UInt64? = nil) {
        let chosen = seed ?? SeededRandom.environmentSeed ?? UInt64.random(in: .min ... .max)
        self.seed = chosen
        state = chosen
    }

    /// `CAST_TEST_SEED`, when set to a number.
    public static var environmentSeed: UInt64? {
        guard let text = getenv("CAST_TEST_SEED") else { return nil }
        return UInt64(String(cString: text))
    }

    /// SplitMix64: small, fast and good enough for test inputs.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
