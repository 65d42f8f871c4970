import BenchWorkloads
import Foundation
import ImageStoreServer
import ImageStoreTesting

/// The hot-path lines of `courier-bench overhead`, measured on figures the machine's load cannot
/// move: instructions (valgrind's callgrind), context switches and allocations (the
/// malloc-interposer package) per small GET, for Courier and for the raw transport. Each figure
/// comes from `courier-probe`, a client process of its own against a server in this one, so
/// the server's work never counts.
struct HotPathBenchmark {
    let options: BenchOptions

    func run() async throws {
        guard let probe = Self.sibling("courier-probe") else {
            print("overhead.switches skipped: build courier-probe first (swift build -c release --product courier-probe)")
            return
        }
        let server = try await ImageStoreServer.instrumented()
        let interposer = Self.sibling("libMallocInterposerSwift.so")
        for transport in options.transports {
            for concurrency in [1, 32] {
                let name = "\(transport).c\(concurrency)"
                guard options.selects("overhead.switches.\(name)") || options.selects("overhead.allocations.\(name)") else { continue }
                let count = options.scaled(concurrency == 1 ? 2000 : 4000)
                var environment: [String: String] = [:]
                if let interposer { environment["LD_PRELOAD"] = interposer.path }
                var samples: [String: [Sample]] = ["courier": [], "raw": []]
                for round in 0..<3 {
                    for side in round.isMultiple(of: 2) ? ["raw", "courier"] : ["courier", "raw"] {
                        var arguments = Self.arguments(server.baseURL, side: side, transport: transport, count: count, warmup: 300, concurrency: concurrency)
                        if interposer != nil { arguments.append("--allocations") }
                        let output = try await Self.spawn(probe, arguments, environment: environment)
                        samples[side, default: []].append(try Sample(output))
                    }
                }
                let courier = Sample.median(samples["courier"] ?? [])
                let raw = Sample.median(samples["raw"] ?? [])
                print(String(
                    format: "overhead.switches.%@ courier=%.2f raw=%.2f difference=%+.2f per request (voluntary+involuntary, median of 3 runs)",
                    name, courier.switches, raw.switches, courier.switches - raw.switches))
                if let courierMallocs = courier.mallocs, let rawMallocs = raw.mallocs {
                    print(String(
                        format: "overhead.allocations.%@ courier=%.1f raw=%.1f difference=%+.1f mallocs per request (bytes %.0f/%.0f)",
                        name, courierMallocs, rawMallocs, courierMallocs - rawMallocs, courier.bytes ?? 0, raw.bytes ?? 0))
                } else {
                    print("overhead.allocations.\(name) skipped: libMallocInterposerSwift.so not found beside courier-bench")
                }
            }
        }
        try await instructions(probe, server)
        await server.stop()
    }

    /// Instructions per request at concurrency 1: two callgrind runs of the probe that differ only
    /// in the number of requests, so process start and warm-up cancel out.
    private func instructions(_ probe: URL, _ server: ImageStoreServer) async throws {
        guard options.selectsAny(under: "overhead.instructions") else { return }
        guard let valgrind = Self.which("valgrind") else {
            print("overhead.instructions skipped: valgrind is not installed (apt-get install valgrind)")
            return
        }
        let (program, libraries) = try await Self.withoutDebugInfo(probe)
        /// Instructions per request of one side, the median of `--runs` measurements (5 by
        /// default). Each is the difference of two runs that differ only in the number of
        /// requests, so process start and warm-up cancel out. 1,500 requests apart: work that
        /// comes now and then (a pool's idle timer, a first use) moved 500-request differences by
        /// several thousand instructions a request, as much as a feature's target.
        func perRequest(_ side: String, _ transport: String, feature: String? = nil) async throws -> Double {
            let (small, large) = (100, 1600)
            var measured: [Double] = []
            for _ in 0..<options.runs {
                var totals: [Int] = []
                for count in [small, large] {
                    var arguments = ["--tool=callgrind", "--callgrind-out-file=/dev/null", program.path]
                        + Self.arguments(server.baseURL, side: side, transport: transport, count: count, warmup: 200, concurrency: 1)
                    if let feature { arguments += ["--feature", feature] }
                    // Deterministic hashing for both sides, as issue 61 measures the line: with seeds
                    // that differ between processes, the line moved by thousands between invocations.
                    let output = try await Self.spawn(
                        valgrind, arguments, environment: ["LD_LIBRARY_PATH": libraries.path, "SWIFT_DETERMINISTIC_HASHING": "1"],
                        readingStandardError: true)
                    guard let total = Self.collected(output) else { throw BenchError("no callgrind total in: \(output.suffix(400))") }
                    totals.append(total)
                }
                measured.append(Double(totals[1] - totals[0]) / Double(large - small))
            }
            return measured.sorted()[measured.count / 2]
        }
        for transport in options.transports {
            if options.selects("overhead.instructions.\(transport)") {
                let raw = try await perRequest("raw", transport)
                let courier = try await perRequest("courier", transport)
                print(String(
                    format: "overhead.instructions.%@ courier=%.0f raw=%.0f difference=%+.0f instructions per small GET (callgrind, c=1, median of %d runs)",
                    transport, courier, raw, courier - raw, options.runs))
                // async-http-client's delegate API, which Courier sends in-memory requests with, costs
                // more than its async API: this line shows what part of the difference is that API's.
                if transport == "ahc" {
                    let delegate = try await perRequest("raw-delegate", transport)
                    print(String(
                        format: "overhead.instructions.ahc-delegate-api raw-delegate=%.0f raw=%.0f difference=%+.0f; courier over raw-delegate %+.0f instructions per small GET (callgrind, c=1, median of %d runs)",
                        delegate, raw, delegate - raw, courier - delegate, options.runs))
                }
            }
            // Each optional feature on, alone, against every one off.
            let features = ["sharing", "metrics", "tracing", "tracing-recording", "tracing-inmemory", "cache", "cookies", "retry"].filter { options.selects("overhead.instructions.feature.\($0).\(transport)") }
            guard !features.isEmpty else { continue }
            let off = try await perRequest("courier", transport, feature: "off")
            for feature in features {
                let on = try await perRequest("courier", transport, feature: feature)
                print(String(
                    format: "overhead.instructions.feature.%@.%@ on=%.0f off=%.0f difference=%+.0f instructions per small GET (callgrind, c=1, median of %d runs)",
                    feature, transport, on, off, on - off, options.runs))
            }
        }
    }

    /// Copies of the probe and of the Swift runtime libraries without their debug information,
    /// which valgrind 3.19 cannot read (DWARF 5): the probe beside the original (its run path
    /// finds the interposer there), the libraries in a folder for `LD_LIBRARY_PATH`.
    private static func withoutDebugInfo(_ probe: URL) async throws -> (program: URL, libraries: URL) {
        guard let objcopy = which("objcopy") else { throw BenchError("objcopy is not installed (apt-get install binutils)") }
        let directory = probe.deletingLastPathComponent()
        let libraries = directory.appendingPathComponent("callgrind-libraries")
        try FileManager.default.createDirectory(at: libraries, withIntermediateDirectories: true)
        var copies = [(probe, directory.appendingPathComponent("courier-probe.callgrind"))]
        let runtime = try runtimeDirectory()
        for name in try FileManager.default.contentsOfDirectory(atPath: runtime.path) where name.hasSuffix(".so") {
            copies.append((runtime.appendingPathComponent(name), libraries.appendingPathComponent(name)))
        }
        if let interposer = sibling("libMallocInterposerSwift.so") {
            copies.append((interposer, libraries.appendingPathComponent(interposer.lastPathComponent)))
        }
        for (source, copy) in copies {
            _ = try await spawn(objcopy, ["--strip-debug", source.path, copy.path], environment: [:])
        }
        return (copies[0].1, libraries)
    }

    /// The folder this process loaded the Swift runtime from.
    private static func runtimeDirectory() throws -> URL {
        // procfs files report a size of 0: read to the end rather than by size.
        let data = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/maps")).readToEnd() ?? Data()
        let maps = String(decoding: data, as: UTF8.self)
        for line in maps.split(separator: "\n") {
            guard let path = line.split(separator: " ", omittingEmptySubsequences: true).last, path.hasSuffix("/libswiftCore.so") else { continue }
            return URL(fileURLWithPath: String(path)).deletingLastPathComponent()
        }
        throw BenchError("cannot find the Swift runtime in /proc/self/maps")
    }

    /// Per-request figures one probe run printed.
    struct Sample {
        var switches: Double
        var mallocs: Double?
        var bytes: Double?

        init(switches: Double, mallocs: Double?, bytes: Double?) {
            (self.switches, self.mallocs, self.bytes) = (switches, mallocs, bytes)
        }

        init(_ line: String) throws {
            var fields: [String: Double] = [:]
            for field in line.split(whereSeparator: \.isWhitespace) {
                let parts = field.split(separator: "=", maxSplits: 1)
                if parts.count == 2, let value = Double(parts[1]) { fields[String(parts[0])] = value }
            }
            guard let switches = fields["switches"] else { throw BenchError("courier-probe printed: \(line)") }
            self.init(switches: switches, mallocs: fields["mallocs"], bytes: fields["bytes"])
        }

        static func median(_ samples: [Sample]) -> Sample {
            func middle(_ values: [Double]) -> Double? { values.isEmpty ? nil : values.sorted()[values.count / 2] }
            return Sample(
                switches: middle(samples.map(\.switches)) ?? 0, mallocs: middle(samples.compactMap(\.mallocs)),
                bytes: middle(samples.compactMap(\.bytes)))
        }
    }

    private static func arguments(_ base: URL, side: String, transport: String, count: Int, warmup: Int, concurrency: Int) -> [String] {
        ["--url", base.absoluteString, "--side", side, "--transport", transport, "--count", "\(count)",
         "--warmup", "\(warmup)", "--concurrency", "\(concurrency)"]
    }

    /// callgrind's "Collected : N" total.
    private static func collected(_ output: String) -> Int? {
        for line in output.split(separator: "\n") where line.contains("Collected :") {
            return line.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        }
        return nil
    }

    /// A file beside this executable.
    private static func sibling(_ name: String) -> URL? {
        guard let executable = Bundle.main.executableURL else { return nil }
        let url = executable.deletingLastPathComponent().appendingPathComponent(name)
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    private static func which(_ tool: String) -> URL? {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return paths.map { URL(fileURLWithPath: String($0)).appendingPathComponent(tool) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Runs `executable` to its end and returns what it printed (standard output, or standard
    /// error for valgrind's summary); a failure exit throws with its standard error.
    private static func spawn(_ executable: URL, _ arguments: [String], environment: [String: String], readingStandardError: Bool = false) async throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("courier-probe-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("out")
        let err = directory.appendingPathComponent("err")
        guard FileManager.default.createFile(atPath: out.path, contents: nil),
              FileManager.default.createFile(atPath: err.path, contents: nil)
        else { throw BenchError("cannot create files in \(directory.path)") }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            process.terminationHandler = { _ in continuation.resume() }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        let printed = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
        let errors = (try? String(contentsOf: err, encoding: .utf8)) ?? ""
        guard process.terminationStatus == 0 else {
            throw BenchError("\(executable.lastPathComponent) exited with \(process.terminationStatus): \(errors.suffix(600))")
        }
        return readingStandardError ? errors : printed
    }
}
