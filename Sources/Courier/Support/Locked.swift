import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a `Mutex`, the one lock wrapper of the package.
///
/// It also tells ThreadSanitizer about the lock: `Mutex` locks with atomics and futexes the
/// sanitizer does not see (a two-thread counter under `Mutex` is reported as a race on Linux), so
/// when the TSan runtime is loaded, each critical section is marked with `__tsan_acquire` /
/// `__tsan_release` on the wrapper's address. Without TSan the hooks are `nil` and cost a branch.
package final class Locked<Value: ~Copyable>: Sendable {
    private let mutex: Mutex<Value>

    package init(_ value: consuming sending Value) {
        mutex = Mutex(value)
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        let address = Unmanaged.passUnretained(self).toOpaque()
        return try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
            ThreadSanitizerHooks.acquire?(address)
            defer { ThreadSanitizerHooks.release?(address) }
            return try body(&value)
        }
    }
}

/// `__tsan_acquire` / `__tsan_release`, found at run time: present only in TSan builds.
enum ThreadSanitizerHooks {
    typealias Hook = @convention(c) (UnsafeMutableRawPointer?) -> Void

    static let acquire = lookup("__tsan_acquire")
    static let release = lookup("__tsan_release")

    private static func lookup(_ name: String) -> Hook? {
        #if canImport(Darwin)
        let everywhere = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
        #elseif canImport(Glibc) || canImport(Musl)
        let everywhere: UnsafeMutableRawPointer? = nil  // RTLD_DEFAULT
        #else
        return nil
        #endif
        return dlsym(everywhere, name).map { unsafeBitCast($0, to: Hook.self) }
    }
}
