import Foundation
#if canImport(Network)
import Network
#endif

/// Calls back when the network path becomes usable again: `NWPathMonitor` on Apple platforms;
/// nothing elsewhere (Linux has no such monitor; the outbox's probes and the client's answers
/// cover it).
final class PathMonitor: @unchecked Sendable {
    // @unchecked: `NWPathMonitor` is documented as safe to use from any thread; the monitor is
    // set once here and only cancelled afterwards.
    #if canImport(Network)
    private let monitor = NWPathMonitor()
    #endif

    /// Starts watching; `back` runs (on a private queue) each time the path turns usable.
    init(back: @escaping @Sendable () -> Void) {
        #if canImport(Network)
        let usable = Locked(false)
        monitor.pathUpdateHandler = { path in
            let isUsable = path.status == .satisfied
            let cameBack = usable.withLock { was in
                defer { was = isUsable }
                return isUsable && !was
            }
            if cameBack { back() }
        }
        monitor.start(queue: DispatchQueue(label: "Courier.Outbox.PathMonitor"))
        #endif
    }

    /// Stops watching.
    func cancel() {
        #if canImport(Network)
        monitor.cancel()
        #endif
    }
}
