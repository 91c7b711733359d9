/// The state of one decode of ``PackedObjectDecoder``: the members of a packed object, read in place where the caller
/// lends its bytes, each when its key is asked for. Reused from one decode to the next when the caller keeps
/// ``PackedObjectReaders`` and no model kept it.
///
/// - Each member's start is found once, in order, as far as the keys asked need: a model that asks for its keys in
///   another order than the shape's skips each member at most once, and reads none twice.
/// - A key's position is looked for from a guess: the position the key asked in the same turn had in the last decode
///   of the same keys from the same shape (the order is kept across decodes), else the one after the last key's.
final class PackedObjectReader {
    /// The shape of the object lent, nil between decodes.
    private(set) var shape: JSONObjectShape?
    /// The packed object (tag byte first); empty between decodes.
    private var bytes = UnsafeRawBufferPointer(start: nil, count: 0)
    /// Where the member at each position of the shape starts in `bytes`, found for the first `locatedCount`
    /// positions; room for `startsCapacity`.
    private var starts: UnsafeMutablePointer<Int>
    private var startsCapacity: Int
    private var locatedCount = 0
    /// The position of the member asked last, -1 before the first.
    private var lastPosition = -1
    /// Set when a member could not be read (the bytes are not a packed object): the decode then fails as a whole.
    private(set) var isDamaged = false
    /// The parent of the decoders of nested values, whose coding path is empty (the top level's).
    private var rootDecoder: JSONNodeDecoder?

    // The order kept: the shape and coding keys it is of, each turn's position, and the turn of the next key asked.
    private var orderShape: ObjectIdentifier?
    private var orderKeys: ObjectIdentifier?
    private let order: UnsafeMutablePointer<Int>?
    private var orderCount = 0
    private var turn = 0

    /// A reader for one decode, or for many (`keepingOrder`, when it is reused: then it keeps the order of the keys
    /// asked from one decode to the next).
    init(keepingOrder: Bool = false) {
        startsCapacity = 16
        starts = .allocate(capacity: startsCapacity)
        order = keepingOrder ? .allocate(capacity: JSONObjectShape.maximumKeys) : nil
    }

    deinit {
        starts.deallocate()
        order?.deallocate()
    }

    /// Lends the object packed in `bytes` with `shape`, until ``finish()``.
    func lend(_ bytes: UnsafeRawBufferPointer, shape: JSONObjectShape) {
        let count = shape.keys.count + 1
        if count > startsCapacity {
            starts.deallocate()
            starts = .allocate(capacity: count)
            startsCapacity = count
        }
        self.bytes = bytes
        self.shape = shape
        starts[0] = 1
        locatedCount = 1
        lastPosition = -1
        isDamaged = false
        turn = 0
    }

    /// Ends the loan of the bytes: a member asked for later is missing.
    func finish() {
        bytes = UnsafeRawBufferPointer(start: nil, count: 0)
        shape = nil
        locatedCount = 0
    }

    /// The parent of the decoders of nested values.
    var root: JSONNodeDecoder {
        if let rootDecoder { return rootDecoder }
        let root = JSONNodeDecoder(value: .null, parent: nil, key: nil)
        rootDecoder = root
        return root
    }

    /// Starts a keyed container's turns: its keys' positions are guessed from the order kept for `Key` and the shape.
    func beginKeys<Key: CodingKey>(_ type: Key.Type) {
        guard let shape else { return }
        let keys = ObjectIdentifier(Key.self)
        if orderShape != ObjectIdentifier(shape) || orderKeys != keys {
            orderShape = ObjectIdentifier(shape)
            orderKeys = keys
            orderCount = 0
        }
        turn = 0
    }

    // MARK: Members

    /// The position in the shape of the member named `name`, whose start is found, or nil when the object has none
    /// (not in the shape, the decode over, or the bytes damaged before it).
    func position(of name: String) -> Int? {
        guard let shape else { return nil }
        let guess = turn < orderCount ? order?[turn] ?? 0 : lastPosition + 1
        guard let position = shape.position(of: name, trying: guess), start(of: position) != nil else { return nil }
        if let order, turn <= orderCount, turn < JSONObjectShape.maximumKeys {
            order[turn] = position
            if turn == orderCount { orderCount += 1 }
        }
        turn += 1
        lastPosition = position
        return position
    }

    /// Where the member at `position` starts in the bytes, the members before it found once (skipped when they were
    /// not read); nil when the bytes cannot be read so far (and then damaged).
    private func start(of position: Int) -> Int? {
        if position < locatedCount { return starts[position] }
        var offset = starts[locatedCount - 1]
        var located = locatedCount
        defer { locatedCount = located }
        while located <= position {
            guard PackedValue.skip(bytes, at: &offset) != nil else {
                isDamaged = true
                return nil
            }
            starts[located] = offset
            located += 1
        }
        return offset
    }

    /// Reads the member at `position` (from ``position(of:)``) with `read`, which moves the offset it is given past
    /// what it reads, or gives nil, moving nothing, when the member is not of its kind; notes where the next member
    /// starts when it was not known.
    private func read<Value>(_ position: Int, _ read: (UnsafeRawBufferPointer, inout Int) -> Value?) -> Value? {
        var offset = starts[position]
        guard let value = read(bytes, &offset) else { return nil }
        if position + 1 == locatedCount {
            starts[locatedCount] = offset
            locatedCount += 1
        }
        return value
    }

    /// The member at `position` (from ``position(of:)``), or nil when it cannot be read (the bytes are then damaged).
    func member(at position: Int) -> JSONValue? {
        guard let value = read(position, PackedValue.read) else {
            isDamaged = true
            return nil
        }
        return value
    }

    /// The member named `name`, or nil when the object has none.
    func member(named name: String) -> JSONValue? {
        position(of: name).flatMap(member(at:))
    }

    /// The string at `position` (from ``position(of:)``), nil when the member is not a string.
    func string(at position: Int) -> String? { read(position, PackedValue.string) }

    /// The flag at `position` (from ``position(of:)``), nil when the member is not `true` or `false`.
    func bool(at position: Int) -> Bool? { read(position, PackedValue.bool) }

    /// The integer at `position` (from ``position(of:)``), nil when the member is not an integer.
    func integer(at position: Int) -> Int64? { read(position, PackedValue.integer) }

    /// The number at `position` (from ``position(of:)``) as a `Double`, nil when the member is not a number.
    func number(at position: Int) -> Double? { read(position, PackedValue.number) }

    /// Whether the member at `position` (from ``position(of:)``) is `null`.
    func isNull(at position: Int) -> Bool { read(position, PackedValue.null) != nil }

    /// The object lent, as a dictionary; nil when the bytes are not a packed object (or none are lent).
    func object() -> JSONObject? {
        guard let shape else { return nil }
        return PackedObject.decode(bytes, shape: shape)
    }
}
