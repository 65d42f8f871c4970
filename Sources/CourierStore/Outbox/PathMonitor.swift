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
        let recovery = Locked(PathRecovery())
        monitor.pathUpdateHandler = { path in
            let isUsable = path.status == .satisfied
            if recovery.withLock({ $0.update(usable: isUsable) }) { back() }
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

/// When a network path "came back", from the usable/unusable states a monitor reports: on a turn
/// from unusable (or from the start) to usable, and not again while it stays usable. Kept apart from
/// `NWPathMonitor` so that it is tested on every platform.
package struct PathRecovery: Sendable {
    private var usable = false

    package init() {}

    /// Takes the path's new state; whether it came back with it.
    package mutating func update(usable isUsable: Bool) -> Bool {
        defer { usable = isUsable }
        return isUsable && !usable
    }
}
