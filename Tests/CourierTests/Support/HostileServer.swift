import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A server on 127.0.0.1 (port 0) that misbehaves on purpose, on raw sockets so it can break HTTP
/// in ways a real server framework never would: stall, cut a body short, reset the connection,
/// send conflicting framing. Each connection runs `behaviour` on a thread of its own.
final class HostileServer: Sendable {
    let port: UInt16
    private let listener: Int32
    /// Closed by ``stop()``: connections that hold still wake up and close.
    private let stopPipe: (read: Int32, write: Int32)

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    init(_ behaviour: @escaping @Sendable (HostileConnection) -> Void) throws {
        let (fd, address) = try listenOnLoopback(backlog: 64)
        port = UInt16(bigEndian: address.sin_port)
        listener = fd
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { close(fd); throw POSIXError(.EMFILE) }
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        stopPipe = (pipeEnds[0], pipeEnds[1])
        let stopRead = stopPipe.read
        let thread = Thread {
            while true {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { return }  // the listener was shut down
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                let connection = HostileConnection(fd: client, stop: stopRead)
                let worker = Thread {
                    behaviour(connection)
                    connection.close()
                }
                worker.start()
            }
        }
        thread.start()
    }

    /// Stops accepting, and wakes every connection that holds still.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        close(stopPipe.write)
    }
}

/// One connection of a ``HostileServer``.
final class HostileConnection: @unchecked Sendable {
    private let fd: Int32
    private let stop: Int32
    private var closed = false

    init(fd: Int32, stop: Int32) {
        self.fd = fd
        self.stop = stop
    }

    /// Reads the request head (through the blank line); `nil` if the client went away first.
    @discardableResult
    func readHead() -> String? {
        var data = Data()
        var byte: UInt8 = 0
        while !data.suffix(4).elementsEqual([13, 10, 13, 10]) {
            guard recv(fd, &byte, 1, 0) == 1 else { return nil }
            data.append(byte)
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Ends the server's side of the connection (a FIN), still reading.
    func shutdownWrite() {
        shutdown(fd, Int32(SHUT_WR))
    }

    /// Reads exactly `count` bytes; fewer when the client closed first.
    func read(_ count: Int) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: min(max(count, 1), 65536))
        while data.count < count {
            let read = recv(fd, &buffer, min(buffer.count, count - data.count), 0)
            guard read > 0 else { break }
            data.append(contentsOf: buffer[0..<read])
        }
        return data
    }

    /// Reads and drops `count` bytes of request body.
    func skipBody(_ count: Int) {
        var remaining = count
        var buffer = [UInt8](repeating: 0, count: 65536)
        while remaining > 0 {
            let read = recv(fd, &buffer, min(buffer.count, remaining), 0)
            guard read > 0 else { return }
            remaining -= read
        }
    }

    /// Reads up to `length` bytes of request body and returns how many came before the client
    /// stopped sending or closed.
    func readBody(length: Int) -> Int {
        var received = 0
        var buffer = [UInt8](repeating: 0, count: 65536)
        while received < length {
            let read = recv(fd, &buffer, min(buffer.count, length - received), 0)
            guard read > 0 else { break }
            received += read
        }
        return received
    }

    /// Shrinks the receive buffer, so a client sending a large body blocks soon.
    func shrinkReceiveBuffer() {
        var size: Int32 = 4096
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    func write(_ text: String) { write(Data(text.utf8)) }

    func write(_ data: Data) {
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let sent = send(fd, bytes.baseAddress!.advanced(by: offset), bytes.count - offset, Int32(MSG_NOSIGNAL))
                guard sent > 0 else { return }
                offset += sent
            }
        }
    }

    /// Sends `data`, calling `stalled` (once, at the moment) when the client has stopped reading:
    /// the kernel's buffers stayed full for `patience` seconds. The rest is then sent once the
    /// client reads again.
    func sendNoticingStall(_ data: Data, patience: Int32 = 3, stalled: () -> Void) {
        var noticed = false
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let sent = send(fd, bytes.baseAddress!.advanced(by: offset), bytes.count - offset, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
                if sent > 0 {
                    offset += sent
                    continue
                }
                guard sent < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else { return }
                var fds = [pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)]
                if poll(&fds, 1, noticed ? -1 : patience * 1000) == 0, !noticed {
                    noticed = true
                    stalled()
                }
            }
        }
    }

    /// Holds the connection open, sending nothing, until the client closes it or the server stops.
    func holdStill() {
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: stop, events: Int16(POLLIN), revents: 0)]
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            guard poll(&fds, 2, -1) >= 0 else { if errno == EINTR { continue } else { return } }
            if fds[1].revents != 0 { return }
            if fds[0].revents != 0 {
                // Read (and drop) what the client sends, unless it closed.
                if recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT)) <= 0 { return }
            }
        }
    }

    /// Holds the connection open without reading anything, until the server stops.
    func holdWithoutReading() {
        var fds = [pollfd(fd: stop, events: Int16(POLLIN), revents: 0)]
        while poll(&fds, 1, -1) < 0, errno == EINTR {}
    }

    /// Closes with a reset (RST) instead of an orderly close.
    func reset() {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        close()
    }

    func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
    }
}

/// A port on 127.0.0.1 that takes no connection: it listens with no room in its accept queue,
/// which a connection it never accepts fills, so the kernel drops every later connection's SYN and
/// a client's connect times out (where a closed port would refuse at once).
final class FullListener: Sendable {
    let port: Int
    private let descriptors: [Int32]

    init() throws {
        let (listener, address) = try listenOnLoopback(backlog: 0)
        // Fillers, never accepted: non-blocking, so one the full queue drops does not wait here.
        var descriptors = [listener]
        for _ in 0..<2 {
            let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard filler >= 0 else { continue }
            descriptors.append(filler)
            var target = address
            _ = withUnsafePointer(to: &target) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        self.descriptors = descriptors
    }

    func close() {
        for descriptor in descriptors { Glibc.close(descriptor) }
    }
}

/// A socket listening on 127.0.0.1 at a port the system chose, close-on-exec (a helper process the
/// tests start must not inherit it), and its address.
private func listenOnLoopback(backlog: Int32) throws -> (descriptor: Int32, address: sockaddr_in) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(.EMFILE) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
    guard bound == 0, listen(fd, backlog) == 0 else { close(fd); throw POSIXError(.EADDRINUSE) }
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
    return (fd, address)
}
