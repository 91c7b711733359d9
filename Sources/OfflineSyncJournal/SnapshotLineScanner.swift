import OfflineSyncCore
import OfflineSyncStore
/// The structure of a snapshot's lines before its trailer, seen a block at a time: the header, then each table's
/// line (`"name":[`), its item lines and its closing line. The first fault is kept and thrown once the checksum has
/// been checked (``SnapshotLayout/check(_:path:blocks:)``).
///
/// A scanner may start in the middle of the file, at a line boundary, without knowing whether a table is open
/// there: two scanners follow the lines, one as if a table (of a name still unknown) were open, one as if none were.
/// Once the lines before are scanned, ``follow(by:or:)`` takes the one that started in the state they ended in, so
/// the result is exactly a scan from the start.
struct SnapshotLineScanner {
    let path: String
    private var expectsHeader: Bool
    private(set) var contents: SnapshotContents?
    private(set) var tables: [(name: String, count: Int)] = []
    private var currentName: String?
    private var currentCount = 0
    private var items = 0
    /// The first fault found in the lines.
    private(set) var fault: JournalError?
    /// Whether this scanner started inside a table it does not know the name of, and that table is still open.
    private var isInResumedTable = false
    /// Whether that table was closed: then it is the first of `tables`, with an empty name.
    private var closedResumedTable = false

    /// A scanner for a whole snapshot, from its header line on.
    init(path: String) {
        self.path = path
        expectsHeader = true
    }

    /// A scanner for the lines after the header, from a line boundary on, as if a table were open there or not.
    init(path: String, resumingInsideATable inside: Bool) {
        self.path = path
        expectsHeader = false
        if inside {
            currentName = ""
            isInResumedTable = true
        }
    }

    /// Follows the lines of a block that starts at `start` in the file.
    mutating func scan(_ raw: UnsafeRawBufferPointer, at start: Int) {
        var offset = 0
        while fault == nil, offset < raw.count, let newline = JournalScan.newline(in: raw, from: offset) {
            let line = UnsafeRawBufferPointer(rebasing: raw[offset..<newline])
            do throws(JournalError) { try scanLine(line, at: start + offset) } catch { fault = error }
            offset = newline + 1
        }
    }

    private mutating func scanLine(_ line: UnsafeRawBufferPointer, at offset: Int) throws(JournalError) {
        if expectsHeader {
            contents = try SnapshotLayout.header(line, path: path)
            expectsHeader = false
            return
        }
        if let name = currentName {
            if SnapshotLayout.closesTable(line) {
                tables.append((name, currentCount))
                currentName = nil
                if isInResumedTable {
                    isInResumedTable = false
                    closedResumedTable = true
                }
            } else {
                currentCount += 1
                items += 1
            }
        } else {
            guard let name = SnapshotLayout.tableName(line) else {
                throw SnapshotReader.invalid(path, offset, "expected a table line \"name\":[")
            }
            currentName = name
            currentCount = 0
        }
    }

    /// Adds the lines after this scanner's, followed by `inside` and `outside` (``init(path:resumingInsideATable:)``):
    /// the one that started in the state this one ends in.
    mutating func follow(by inside: SnapshotLineScanner, or outside: SnapshotLineScanner) {
        guard fault == nil, !expectsHeader else { return }
        let next = currentName == nil ? outside : inside
        items += next.items
        fault = next.fault
        var nextTables = next.tables[...]
        if let name = currentName {
            guard next.closedResumedTable, let resumed = nextTables.popFirst() else {
                currentCount += next.currentCount
                return
            }
            tables.append((name, currentCount + resumed.count))
        }
        tables += nextTables
        currentName = next.currentName
        currentCount = next.currentCount
    }

    /// The layout of a snapshot whose trailer starts at `trailerStart`, once every line before it was scanned.
    /// - Throws: the first fault, or ``JournalError/invalidSnapshot(file:offset:reason:)`` for a missing header, an
    ///   unclosed table or an item count the header does not announce.
    func layout(trailerStart: Int) throws(JournalError) -> SnapshotLayout {
        if let fault { throw fault }
        guard let contents else { throw SnapshotReader.invalid(path, 0, "no header line") }
        guard currentName == nil else { throw SnapshotReader.invalid(path, trailerStart, "a table is not closed") }
        guard items == contents.itemCount else {
            throw SnapshotReader.invalid(path, trailerStart, "the header announces \(contents.itemCount) items but the file holds \(items)")
        }
        return SnapshotLayout(contents: contents, tables: tables, trailerStart: trailerStart)
    }
}
