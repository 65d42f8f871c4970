import CoreMetrics
import Courier

/// A metrics backend that keeps a running count and sum per handler: the least a real backend
/// does, for measuring what Courier's metrics cost a request when a backend is there.
public final class CountingMetrics: MetricsFactory {
    final class Handler: CounterHandler, FloatingPointCounterHandler, RecorderHandler, TimerHandler, MeterHandler, Sendable {
        private let total = Locked<Double>(0)
        func increment(by amount: Int64) { total.withLock { $0 += Double(amount) } }
        func increment(by amount: Double) { total.withLock { $0 += amount } }
        func reset() { total.withLock { $0 = 0 } }
        func record(_ value: Int64) { total.withLock { $0 += Double(value) } }
        func record(_ value: Double) { total.withLock { $0 += value } }
        func recordNanoseconds(_ duration: Int64) { total.withLock { $0 += Double(duration) } }
        func set(_ value: Int64) { total.withLock { $0 = Double(value) } }
        func set(_ value: Double) { total.withLock { $0 = value } }
        func decrement(by amount: Double) { total.withLock { $0 -= amount } }
    }

    /// Creates a backend.
    public init() {}

    public func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler { Handler() }
    public func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler { Handler() }
    public func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler { Handler() }
    public func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler { Handler() }
    public func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler { Handler() }
    public func destroyCounter(_ handler: any CounterHandler) {}
    public func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {}
    public func destroyRecorder(_ handler: any RecorderHandler) {}
    public func destroyTimer(_ handler: any TimerHandler) {}
    public func destroyMeter(_ handler: any MeterHandler) {}
}
