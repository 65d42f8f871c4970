import Foundation

/// The delegate queue of ``URLSessionTransport``'s session: one callback at a time, run on a
/// serial dispatch queue of its own rather than on the concurrent queue an `OperationQueue` makes
/// for itself, which measured slower with many requests at once (`courier-bench transport`,
/// URLSession at concurrency 32).
///
/// The operation queue owns its dispatch queue: swift-corelibs-foundation does not retain an
/// `underlyingQueue`, so the dispatch queue must live exactly as long as the operation queue.
final class SerialCallbackQueue: OperationQueue, @unchecked Sendable {
    // Restated, as Swift asks of a subclass: OperationQueue is `@unchecked Sendable` itself, and
    // the one property added here is an immutable, Sendable dispatch queue.
    private let callbacks = DispatchQueue(label: "Courier.URLSessionTransport")

    override init() {
        super.init()
        name = "Courier.URLSessionTransport"
        maxConcurrentOperationCount = 1
        underlyingQueue = callbacks
    }
}
