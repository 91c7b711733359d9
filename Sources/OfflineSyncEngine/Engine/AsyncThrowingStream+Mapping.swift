import OfflineSyncCore
import OfflineSyncStore
extension AsyncThrowingStream where Failure == any Error {
    /// A stream of `transform` applied to each element, keeping only the newest when the consumer is slow; it
    /// ends as this one ends, or with the error `transform` throws, and cancels its reading when it is dropped.
    func mappingNewest<T: Sendable>(_ transform: @escaping @Sendable (Element) throws -> T) -> AsyncThrowingStream<T, any Error>
        where Element: Sendable {
        let (stream, continuation) = AsyncThrowingStream<T, any Error>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let forwarding = Task {
            do {
                for try await element in self { continuation.yield(try transform(element)) }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in forwarding.cancel() }
        return stream
    }
}
