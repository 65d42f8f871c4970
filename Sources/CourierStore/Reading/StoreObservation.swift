import Courier
import Foundation
import GRDB

/// Query results as they change: the current value at once, then a new one after every
/// transaction that changes them (imports that change nothing yield nothing). Ending the
/// iteration stops the observation.
///
/// ```swift
/// for try await images in store.observe(Image.self) { show(images) }
/// ```
public struct StoreObservation<Element: Sendable>: AsyncSequence, Sendable {
    public typealias Failure = CourierError

    let path: URL?
    let start: @Sendable () async throws -> AsyncValueObservation<Element>

    /// Starts observing.
    public func makeAsyncIterator() -> Iterator { Iterator(path: path, start: start) }

    /// Reads the values in order.
    public struct Iterator: AsyncIteratorProtocol {
        let path: URL?
        let start: @Sendable () async throws -> AsyncValueObservation<Element>
        var base: AsyncValueObservation<Element>.Iterator?

        /// The next value; `nil` only when the observation ended.
        public mutating func next() async throws(CourierError) -> Element? {
            do {
                var iterator: AsyncValueObservation<Element>.Iterator
                if let base {
                    iterator = base
                } else {
                    iterator = try await start().makeAsyncIterator()
                }
                defer { base = iterator }
                return try await iterator.next()
            } catch {
                throw CourierError.store(error, path: path, doing: "observe a query")
            }
        }
    }
}
