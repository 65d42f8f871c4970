import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a writer of a crash test says it has started its work, and where its crash is armed.
///
/// The parent (`killWriter` in the tests) sets `COURIER_CRASH_WITHIN_US=N`; the first call of
/// ``ready()`` then starts a thread that kills the process with SIGKILL at a random moment within
/// `N` microseconds. The moment is taken in the child on a thread of its own, not in the parent:
/// a parent whose concurrency pool is busy with the rest of the suite would read the `ready` line
/// and send its signal late, by seconds on a loaded machine, and the work would end whole before
/// any crash. Without the variable it only writes the line.
package enum CrashPoint {
    private static let armed = Mutex(false)

    /// Writes `ready` to standard output and arms the crash, on the first call only.
    package static func ready() {
        let first = armed.withLock { armed in
            defer { armed = true }
            return !armed
        }
        guard first else { return }
        FileHandle.standardOutput.write(Data("ready\n".utf8))
        guard let text = ProcessInfo.processInfo.environment["COURIER_CRASH_WITHIN_US"], let limit = UInt32(text) else { return }
        let moment = UInt32.random(in: 0...limit)
        let thread = Thread {
            usleep(moment)  // the random moment of the crash, not synchronisation
            kill(getpid(), SIGKILL)
        }
        thread.name = "courier.crash-point"
        thread.start()
    }
}
