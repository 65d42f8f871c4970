import Courier
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ports for servers that cannot listen on port 0 and report theirs (nginx, PostgreSQL,
/// schemathesis's targets), for the tests and the benchmarks alike.
package enum FreePort {
    /// The ports ``next()`` handed out in this process: none is handed out twice.
    private static let handedOut = Locked(Set<Int>())

    /// A port no one listens on now: below the kernel's range for outgoing connections' ports, so
    /// no connection takes it before the server binds it, and never one handed out before in this
    /// process (the kernel's pick for port 0 can come again once its socket is closed).
    package static func next() throws -> Int {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        let low = text.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32768
        let range = max(1024, low - 12_000)..<max(2048, low)
        for _ in 0..<200 {
            let port = Int.random(in: range)
            guard handedOut.withLock({ $0.insert(port).inserted }) else { continue }
            if canBind(port) { return port }
        }
        throw POSIXError(.EADDRINUSE)
    }

    /// Whether a socket can bind 127.0.0.1:`port` now.
    private static func canBind(_ port: Int) -> Bool {
        #if canImport(Glibc)
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let socket = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
