import Courier
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A port kept bound, and not listening, after the server on it stopped: connections to it are
/// refused, as to a server that is gone, and no server started on port 0 meanwhile is given it.
final class PortHold: Sendable {
    private let descriptor: Locked<Int32?>

    /// Binds `port` on `host` (an IPv4 or IPv6 address), with `SO_REUSEADDR`: the stopped server's
    /// connections may still be in `TIME_WAIT`.
    init(host: String, port: Int) throws {
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        let family: Int32
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            family = AF_INET
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
        } else if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
            family = AF_INET6
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
        } else {
            throw PortHoldError("the port of \(host) cannot be held: \(host) is not an IP address")
        }
        #if canImport(Glibc)
        let stream = Int32(SOCK_STREAM.rawValue)
        #else
        let stream = SOCK_STREAM
        #endif
        let socketDescriptor = socket(family, stream, 0)
        guard socketDescriptor >= 0 else { throw Self.failure("socket", host, port) }
        var one: Int32 = 1
        guard setsockopt(socketDescriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            let error = Self.failure("setsockopt", host, port)
            close(socketDescriptor)
            throw error
        }
        let bound: Int32
        if family == AF_INET {
            bound = withUnsafePointer(to: &v4) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        } else {
            bound = withUnsafePointer(to: &v6) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        }
        guard bound == 0 else {
            let error = Self.failure("bind", host, port)
            close(socketDescriptor)
            throw error
        }
        descriptor = Locked(socketDescriptor)
    }

    /// Unbinds the port (once).
    func release() {
        let taken = descriptor.withLock { descriptor in
            defer { descriptor = nil }
            return descriptor
        }
        if let taken { close(taken) }
    }

    deinit { release() }

    private static func failure(_ call: String, _ host: String, _ port: Int) -> PortHoldError {
        PortHoldError("port \(port) of \(host) cannot be held: \(call) failed (\(String(cString: strerror(errno))))")
    }
}

/// Why a port could not be held.
struct PortHoldError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
