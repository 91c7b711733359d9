extension ItemID {
    /// The version of ``key(_:)`` in this build: the version of its rules (`1`), then the Unicode version of the
    /// character data the standard library lower-cases with (`1/unicode-17.0`).
    ///
    /// A key is only stable within one version: after an update of the standard library that adds a case mapping, an
    /// id holding the newly mapped character has another key. What keeps keys across processes (a snapshot's lookup
    /// file, Docs/JournalFormat.md) names this version, and a reader of another version does not use them.
    package static let keyVersion = "\(keyRulesVersion)/unicode-\(caseMappingVersion.major).\(caseMappingVersion.minor)"

    /// The version of the rules of ``key(_:)``: the next number with any change to them.
    private static let keyRulesVersion = 1

    /// The Unicode version of the standard library's character data: the newest whose probe, a character first
    /// assigned in that version, it knows (Unicode 1.1 when it knows none). Case mappings only change with a new
    /// version of Unicode, so this tells the case mapping ``key(_:)`` uses.
    static let caseMappingVersion: Unicode.Version = {
        let probes: [(version: Unicode.Version, scalar: UInt32)] = [
            ((17, 0), 0x088F), ((16, 0), 0x0897), ((15, 1), 0x2FFC), ((15, 0), 0x0CF3), ((14, 0), 0x061D),
            ((13, 0), 0x08BE), ((12, 1), 0x32FF), ((12, 0), 0x0C77), ((11, 0), 0x0560), ((10, 0), 0x0860),
            ((9, 0), 0x08B6), ((8, 0), 0x08B3), ((7, 0), 0x037F), ((6, 3), 0x061C), ((6, 2), 0x20BA),
            ((6, 1), 0x058F), ((6, 0), 0x0526), ((5, 2), 0x0524), ((5, 1), 0x0370), ((5, 0), 0x0242),
            ((4, 1), 0x0237), ((4, 0), 0x0221), ((3, 2), 0x0220), ((3, 1), 0x03F4), ((3, 0), 0x01F6),
            ((2, 1), 0x20AC), ((2, 0), 0x0591),
        ]
        for probe in probes where Unicode.Scalar(probe.scalar)?.properties.age != nil { return probe.version }
        return (1, 1)
    }()
}
