/// A small seeded pseudo-random generator (SplitMix64, Steele, Lea and Flood, "Fast splittable
/// pseudorandom number generators", OOPSLA 2014): the same seed gives the same numbers on every
/// platform and toolchain, so a race exploration run can be replayed from its seed alone.
///
/// The helpers below derive integers, doubles and choices from ``next()`` with fixed arithmetic
/// instead of the standard library's `random(in:using:)`, whose algorithm is not promised to stay
/// the same between Swift releases. Not for cryptography. A value type: copy it to fork a stream.
public struct SplitMix64: Sendable, Equatable {
    private var state: UInt64

    /// Creates a generator.
    /// - Parameter seed: any value; equal seeds give equal sequences.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    /// - Returns: a uniformly distributed `UInt64`.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform double in `0 ..< 1` (53 random bits).
    /// - Returns: the number.
    public mutating func unit() -> Double { Double(next() >> 11) / Double(UInt64(1) << 53) }

    /// A uniform integer in `range` (bias below 2⁻³² for the small ranges used here).
    /// - Parameter range: a non-empty range.
    /// - Returns: the number.
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        let span = UInt64(range.upperBound - range.lowerBound) + 1
        return range.lowerBound + Int(next() % span)
    }

    /// A uniform double in `range`.
    /// - Parameter range: the bounds, lower ≤ upper.
    /// - Returns: the number.
    public mutating func double(in range: ClosedRange<Double>) -> Double {
        range.lowerBound + unit() * (range.upperBound - range.lowerBound)
    }

    /// True with probability `probability`.
    /// - Parameter probability: 0 (never) to 1 (always).
    /// - Returns: the outcome.
    public mutating func chance(_ probability: Double) -> Bool { unit() < probability }

    /// One of `choices`, each with its weight's share of the total.
    /// - Parameter choices: values and positive weights; not empty.
    /// - Returns: the chosen value.
    public mutating func weighted<T>(_ choices: [(T, Double)]) -> T {
        let total = choices.reduce(0) { $0 + $1.1 }
        var roll = unit() * total
        for (value, weight) in choices {
            if roll < weight { return value }
            roll -= weight
        }
        return choices[choices.count - 1].0
    }
}
