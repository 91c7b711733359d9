import OfflineSyncCore
/// The hash table of an ``ItemTable``: open addressing with linear probing, from a key's hash to slot numbers.
///
/// Each bucket holds the hash in its high 32 bits and the slot number + 1 in the low ones, so that a probe compares
/// hashes without visiting the slots; 0 is an empty bucket. The table is a power of two long, and the item table
/// keeps it at most 3/4 full (``needsGrowth(toHold:)``). Removal moves later buckets of the probe run back, so no
/// tombstones are needed.
struct SlotBuckets: Sendable {
    private var buckets: [UInt64] = []

    /// How many buckets there are.
    var capacity: Int { buckets.count }

    /// Whether holding `count` slots would make the table more than 3/4 full.
    func needsGrowth(toHold count: Int) -> Bool {
        (count + 1) * 4 > buckets.count * 3
    }

    /// The smallest capacity, doubling from the current one (at least 16), that holds `count` slots.
    func capacity(toHold count: Int) -> Int {
        var capacity = max(16, buckets.count)
        while (count + 1) * 4 > capacity * 3 { capacity *= 2 }
        return capacity
    }

    /// The first slot in `hash`'s probe run that `matches`, or nil.
    func probe(hash: UInt32, matches: (Int32) -> Bool) -> Int32? {
        guard !buckets.isEmpty else { return nil }
        var position = Int(hash) & (buckets.count - 1)
        while buckets[position] != 0 {
            let bucket = buckets[position]
            if UInt32(truncatingIfNeeded: bucket >> 32) == hash {
                let slot = Self.slot(in: bucket)
                if matches(slot) { return slot }
            }
            position = (position + 1) & (buckets.count - 1)
        }
        return nil
    }

    /// Adds `slot`, whose key hashes to `hash`; the table must have room (``needsGrowth(toHold:)``).
    mutating func insert(_ slot: Int32, hash: UInt32) {
        var position = Int(hash) & (buckets.count - 1)
        while buckets[position] != 0 { position = (position + 1) & (buckets.count - 1) }
        buckets[position] = UInt64(hash) << 32 | UInt64(UInt32(slot) + 1)
    }

    /// Removes `slot`, whose key hashes to `hash`, and moves later buckets of the probe run back.
    mutating func remove(_ slot: Int32, hash: UInt32) {
        let mask = buckets.count - 1
        var hole = Int(hash) & mask
        while Self.slot(in: buckets[hole]) != slot { hole = (hole + 1) & mask }
        var next = (hole + 1) & mask
        while buckets[next] != 0 {
            let home = Int(truncatingIfNeeded: buckets[next] >> 32) & mask
            // The entry at `next` may fill the hole when its home lies cyclically outside (hole, next].
            if (next > hole && (home <= hole || home > next)) || (next < hole && home <= hole && home > next) {
                buckets[hole] = buckets[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        buckets[hole] = 0
    }

    /// Empties the table and gives it `capacity` buckets (a power of two); the caller inserts the slots again.
    mutating func reset(capacity: Int) {
        buckets = [UInt64](repeating: 0, count: capacity)
    }

    /// The slot a non-empty bucket names.
    private static func slot(in bucket: UInt64) -> Int32 {
        Int32(truncatingIfNeeded: (bucket & 0xFFFF_FFFF) - 1)
    }
}
