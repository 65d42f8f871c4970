import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a lock, the one lock wrapper of the package.
///
/// The value is a stored property of the wrapper, beside a `Mutex<Void>`, rather than inside a
/// `Mutex<Value>`: code that uses a `Locked` from another module runs unspecialised, and there
/// every `Mutex<Value>` (each lock, and the wrapper's deinit) looked its type up in the runtime's
/// generic-metadata table, which cost more than the locking. A property of the class itself is
/// found through the class's own metadata, and shares its allocation (an earlier version kept the
/// value in memory of its own: one allocation more for every lock). The value goes in `sending`,
/// results come out `sending`, and it is only ever reached under the lock, so the wrapper is
/// `Sendable` whatever it holds.
///
/// It also tells ThreadSanitizer about the lock: `Mutex` locks with atomics and futexes the
/// sanitizer does not see (a two-thread counter under `Mutex` is reported as a race on Linux), so
/// when the TSan runtime is loaded, each critical section is marked with `__tsan_acquire` /
/// `__tsan_release` on the wrapper's address. Without TSan the hooks are `nil` and cost a branch.
package final class Locked<Value: ~Copyable>: @unchecked Sendable {
    private let lock = Mutex<Void>(())
    /// Reached only under `lock`, so the runtime's exclusivity check (a cost on every access of a
    /// class's stored property) has nothing to find.
    @exclusivity(unchecked) private var value: Value

    package init(_ value: consuming sending Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        let address = Unmanaged.passUnretained(self).toOpaque()
        return try lock.withLock { (_: inout Void) throws(E) -> sending Result in
            ThreadSanitizerHooks.acquire?(address)
            defer { ThreadSanitizerHooks.release?(address) }
            return try body(&self.value)
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
