/// The streams that follow one source of values, by key: each added stream may get a first value, then every value
/// sent; a stream removed (its consumer stopped) gets nothing more.
package struct StreamFanOut<Element: Sendable>: Sendable {
    private var continuations: [Int: AsyncStream<Element>.Continuation] = [:]
    private var nextKey = 0

    /// A fan-out with no streams yet.
    package init() {}

    /// Whether no stream follows.
    package var isEmpty: Bool { continuations.isEmpty }

    /// Adds a stream, yielding `first` to it when given; returns its key for ``remove(_:)``.
    package mutating func add(_ continuation: AsyncStream<Element>.Continuation, first: Element? = nil) -> Int {
        let key = nextKey
        nextKey += 1
        continuations[key] = continuation
        if let first { continuation.yield(first) }
        return key
    }

    /// Adds a new stream that buffers every value, or only the newest `limit` when given; returns it, its
    /// continuation (for `onTermination`) and its key for ``remove(_:)``.
    package mutating func addStream(bufferingNewest limit: Int?) -> (AsyncStream<Element>, AsyncStream<Element>.Continuation, key: Int) {
        let policy: AsyncStream<Element>.Continuation.BufferingPolicy = limit.map { .bufferingNewest(max(1, $0)) } ?? .unbounded
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: policy)
        return (stream, continuation, add(continuation))
    }

    /// Removes a stream.
    package mutating func remove(_ key: Int) {
        continuations.removeValue(forKey: key)
    }

    /// Sends `element` to every stream.
    package func send(_ element: Element) {
        for continuation in continuations.values { continuation.yield(element) }
    }

    /// Ends every stream.
    package func finishAll() {
        for continuation in continuations.values { continuation.finish() }
    }
}
