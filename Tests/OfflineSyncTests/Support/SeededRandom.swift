import OfflineSyncTesting
/// A small deterministic generator (SplitMix64): the same seed gives the same numbers on every run and machine.
struct SeededRandom {
    private var generator: SplitMix64
    init(seed: UInt64) { generator = SplitMix64(seed: seed) }

    mutating func next() -> UInt64 { generator.next() }

    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// One of `choices`, each as likely.
    mutating func pick<T>(_ choices: [T]) -> T { choices[below(choices.count)] }
}
