import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ends a helper process when the process that started it goes away, so a test runner that
/// crashes never leaves a child holding its pipes open (which makes `swift test` wait forever).
///
/// The parent gives the child a pipe as standard input and never writes to it. When the parent
/// exits or dies, even by SIGKILL, the kernel closes its end and the child reads end-of-file.
/// `prctl(PR_SET_PDEATHSIG)` is not used: on Linux it fires when the *thread* that started the
/// child exits, and the Swift runtime's pool threads come and go, so it would kill healthy children.
enum ParentWatch {
    /// Starts a thread that exits the process when standard input reaches end-of-file or fails.
    /// Call it first thing in every hidden command a parent starts.
    static func start() {
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 512)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                if count == 0 || (count < 0 && errno != EINTR) {
                    _exit(0)
                }
            }
        }
        thread.name = "courier.parent-watch"
        thread.start()
    }
}
