import Courier
import CourierDemo
import Foundation

/// `mitmdump` in reverse-proxy mode in front of a server, writing every exchange to a HAR file when
/// it stops. It runs under a small Python watcher that reads a pipe from this process: when the
/// pipe closes (``stop()``, or this process dying) the watcher stops mitmdump with SIGTERM, which
/// is when mitmproxy writes the HAR file.
final class MitmProxy: @unchecked Sendable {
    /// Where requests go to reach the server through the proxy (set once, before ``start`` returns).
    private(set) var url = URL(fileURLWithPath: "/")
    private let process = Process()
    private let input = Pipe()
    private let exited = AsyncEvent()
    private let log: Locked<String>

    /// Starts a proxy in front of `upstream` that records to `har`.
    static func start(inFrontOf upstreamURL: URL, recordingTo har: URL) async throws -> MitmProxy {
        let output = Pipe()
        let log = Locked("")
        let (ports, continuation) = AsyncStream.makeStream(of: Int?.self)
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty {
                continuation.yield(nil)
                handle.readabilityHandler = nil
                return
            }
            let text = log.withLock { log in
                log += String(decoding: data, as: UTF8.self)
                return log
            }
            if let range = text.range(of: #"listening at 127\.0\.0\.1:[0-9]+"#, options: .regularExpression),
               let port = Int(text[range].split(separator: ":").last ?? "") {
                continuation.yield(port)
            }
        }
        let upstream = "\(upstreamURL.scheme ?? "http")://\(upstreamURL.host ?? "127.0.0.1"):\(upstreamURL.port ?? 80)"
        let proxy = try MitmProxy(
            arguments: [
                try TestTools.executable("mitmdump").path, "--mode", "reverse:\(upstream)", "--listen-host", "127.0.0.1",
                "--listen-port", "0", "--set", "hardump=\(har.path)",
            ], output: output, log: log)
        // A limit, not synchronisation: mitmdump prints its port when it is ready.
        let port = await withTaskGroup(of: Int?.self) { group in
            group.addTask {
                for await port in ports { return port }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(60))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        continuation.finish()
        guard let port, let url = URL(string: "http://127.0.0.1:\(port)") else {
            await proxy.stop()
            throw TestTools.Missing(description: "mitmdump did not start:\n\(log.withLock { $0 })")
        }
        proxy.url = url
        return proxy
    }

    private init(arguments: [String], output: Pipe, log: Locked<String>) throws {
        self.log = log
        process.executableURL = try TestTools.executable("python")
        process.arguments = ["-c", Self.watcher] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONUNBUFFERED"] = "1"  // its log lines (the port) reach the pipe as they are written
        process.environment = environment
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        let exited = exited
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
    }

    /// Starts the command in its arguments with the signal mask and handlers a fresh process has
    /// (the test runner's threads block signals, and a child inherits that), then stops it when its
    /// standard input ends.
    static let watcher = """
        import signal, subprocess, sys
        def reset():
            signal.pthread_sigmask(signal.SIG_SETMASK, [])
            for number in (signal.SIGTERM, signal.SIGINT):
                signal.signal(number, signal.SIG_DFL)
        reset()
        child = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, preexec_fn=reset)
        sys.stdin.read()
        child.terminate()
        try:
            child.wait(timeout=60)
        except subprocess.TimeoutExpired:
            child.kill()
        """

    /// Stops mitmdump and waits until it has written the HAR file.
    func stop() async {
        try? input.fileHandleForWriting.close()
        await exited.wait()
    }

    /// What mitmdump printed.
    var output: String { log.withLock { $0 } }

    deinit {
        try? input.fileHandleForWriting.close()  // the shell then stops mitmdump
    }
}
