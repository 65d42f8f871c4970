import CoreMetrics
import Courier

/// A metrics backend that keeps a running count and sum per handler: the least a real backend
/// does, for measuring what Courier's metrics cost a request when a backend is there.
package final class CountingMetrics: MetricsFactory {
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
    package init() {}

    package func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler { Handler() }
    package func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler { Handler() }
    package func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler { Handler() }
    package func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler { Handler() }
    package func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler { Handler() }
    package func destroyCounter(_ handler: any CounterHandler) {}
    package func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {}
    package func destroyRecorder(_ handler: any RecorderHandler) {}
    package func destroyTimer(_ handler: any TimerHandler) {}
    package func destroyMeter(_ handler: any MeterHandler) {}
}
