import Testing
@testable import OfflineSyncCore
@testable import OfflineSyncStore
@testable import OfflineSyncJournal
@testable import OfflineSyncHTTP
@testable import OfflineSyncEngine
import OfflineSync

/// A large snapshot's first pass scans its second half on another core, from a line whose state (inside a table
/// or not) it does not know: for every line it may start at, the result must be exactly that of one scan from the
/// start, whether the lines are sound or not.
struct SnapshotLineScannerTests {
    static func header(items: Int) -> String {
        SnapshotWriter.headerOpening + #"{"format":\#(JournalRecord.formatVersion),"generation":2,"lastSequence":9,"items":\#(items)}"#
            + SnapshotWriter.headerClosing
    }

    static let sound = [
        header(items: 6), #""A":["#, #"{"id":"a1"},"#, #"{"id":"a2"},"#, #"{"id":"a3"}"#, "],",
        #""B":["#, #"{"id":"b1"}"#, "],", #""C":["#, #"{"id":"c1"},"#, #"{"id":"c2"}"#, "]",
    ]

    /// Sound lines, and lines with each kind of fault the scan finds.
    static let variants: [[String]] = [
        sound,
        Array(sound.prefix(5)) + sound.dropFirst(6),                         // A's closing line missing
        Array(sound.prefix(6)) + [#"{"id":"stray"}"#] + sound.dropFirst(6),  // an item outside every table
        Array(sound.prefix(6)) + ["]"] + sound.dropFirst(6),                 // a closing line too many
        Array(sound.dropLast()),                                             // the last table left open
        [header(items: 5)] + sound.dropFirst(),                              // a count the header does not announce
    ]

    /// The layout of `lines` (tables and counts) or the fault's description, after the lines before `split` are
    /// scanned as the first half and the others as the second (no split when it is nil).
    static func outcome(_ lines: [String], splitAt split: Int?) -> String {
        var offsets: [Int] = []
        var text: [UInt8] = []
        for line in lines {
            offsets.append(text.count)
            text += Array(line.utf8) + [0x0A]
        }
        let cut = split.map { offsets[$0] } ?? text.count
        var scanner = SnapshotLineScanner(path: "s")
        var inside = SnapshotLineScanner(path: "s", resumingInsideATable: true)
        var outside = SnapshotLineScanner(path: "s", resumingInsideATable: false)
        text.withUnsafeBytes { raw in
            scanner.scan(UnsafeRawBufferPointer(rebasing: raw[0..<cut]), at: 0)
            if cut < raw.count {
                inside.scan(UnsafeRawBufferPointer(rebasing: raw[cut...]), at: cut)
                outside.scan(UnsafeRawBufferPointer(rebasing: raw[cut...]), at: cut)
            }
        }
        if split != nil { scanner.follow(by: inside, or: outside) }
        do {
            let layout = try scanner.layout(trailerStart: text.count)
            return layout.tables.map { "\($0.name)=\($0.count)" }.joined(separator: " ")
        } catch {
            return "\(error)"
        }
    }

    @Test(arguments: 0..<variants.count)
    func aScanSplitAtAnyLineEndsAsAScanFromTheStart(variant: Int) {
        let lines = Self.variants[variant]
        let whole = Self.outcome(lines, splitAt: nil)
        if variant == 0 { #expect(whole == "A=3 B=1 C=2") } else { #expect(whole.contains("snapshot"), "\(whole)") }
        for split in 1..<lines.count {
            #expect(Self.outcome(lines, splitAt: split) == whole, "variant \(variant), split before line \(split)")
        }
    }
}
