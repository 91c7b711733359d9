import Testing
@testable import OfflineSyncCore

/// ``ItemID/keyVersion`` tells apart every standard library whose case mapping could key an id otherwise.
struct ItemKeyVersionTests {
    /// Every character the standard library lower-cases is of the Unicode version the key version names, or older:
    /// a standard library with case mappings of a version the probes do not know yet fails here (add its probe).
    @Test func theKeyVersionNamesTheNewestUnicodeVersionOfAnyCaseMapping() {
        let named = ItemID.caseMappingVersion
        var newest: Unicode.Version = (1, 1)
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value), scalar.properties.changesWhenLowercased,
                  let age = scalar.properties.age, age > newest else { continue }
            newest = age
        }
        #expect(newest <= named, "a case mapping of Unicode \(newest.major).\(newest.minor), the key version names \(named.major).\(named.minor)")
        #expect(ItemID.keyVersion == "1/unicode-\(named.major).\(named.minor)")
    }
}
