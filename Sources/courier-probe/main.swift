import AsyncHTTPClient
import BenchWorkloads
import Courier
import CourierAsyncHTTPClient
import Dispatch
import Foundation
import ImageStoreServer
import ImageStoreTesting
import MallocInterposerSwift
#if canImport(Glibc)
import Glibc
#endif

// `courier-probe`: the client half of `courier-bench overhead`'s hot-path lines, run as a process of
// its own so that its counters (context switches, allocations, instructions under valgrind) see the
// client and nothing of the server.
//
//   courier-probe --url BASE|--in-process --side courier|transport|raw|raw-delegate|cache-hit|cache-disk-hit|events|raw-events
//                 --transport ahc|urlsession
//                 [--path sample] [--count N] [--warmup N] [--concurrency C] [--allocations]
//                 [--feature off|sharing|metrics|tracing|tracing-recording|tracing-inmemory|cache|cookies|retry|record]
//
// It sends `warmup` GETs, then `count` more while counting, and prints one line (`cache-hit`: a GET
// answered from a memory cache, `.cacheOnly`, the whole `send`, the first one storing it;
// `cache-disk-hit`: the same from a cache with no memory store; `events` and `raw-events`, on
// async-http-client with `--path "events?count=N"`: one stream of N Server-Sent Events read through
// Courier, or counted by hand as `courier-bench stream` does; `transport`: the transport's own
// `send`, with no APIClient above it). `--in-process` starts the sample server in this process, as
// `courier-bench` does, in place of `--url` (the counters then see the server too). It prints:
//   switches=… voluntary=… involuntary=… mallocs=… bytes=…   (per request)   seconds=… (the counted requests)
// `--allocations` needs the interposer preloaded (LD_PRELOAD=libMallocInterposerSwift.so).

struct ProbeOptions {
    var url: URL?
    var inProcess = false
    var side = "courier"
    var transport = "ahc"
    var path = "sample"
    var count = 1000
    var warmup = 200
    var concurrency = 1
    var allocations = false
    var feature: String?

    init(_ arguments: [String]) throws {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--url": url = iterator.next().flatMap(URL.init(string:))
            case "--in-process": inProcess = true
            case "--side": side = iterator.next() ?? side
            case "--transport": transport = iterator.next() ?? transport
            case "--path": path = iterator.next() ?? path
            case "--count": count = iterator.next().flatMap(Int.init) ?? count
            case "--warmup": warmup = iterator.next().flatMap(Int.init) ?? warmup
            case "--concurrency": concurrency = iterator.next().flatMap(Int.init) ?? concurrency
            case "--allocations": allocations = true
            case "--feature": feature = iterator.next()
            default: throw BenchError("unknown option \(argument)")
            }
        }
    }
}

func contextSwitches() -> (voluntary: Int, involuntary: Int) {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return (usage.ru_nvcsw, usage.ru_nivcsw)
}

func probe(_ options: ProbeOptions) async throws {
    let server = options.inProcess ? try await ImageStoreServer.instrumented() : nil
    guard let base = server?.baseURL ?? options.url else { throw BenchError("--url or --in-process is required") }
    var ahcConfiguration = AsyncHTTPClientTransport.Configuration()
    ahcConfiguration.maximumConnectionsPerHost = 32
    let ahc = AsyncHTTPClientTransport(configuration: ahcConfiguration)
    let expected: Int? = options.path == "sample" ? nil : Int(options.path.split(separator: "/").last ?? "")
    let operation: @Sendable () async throws -> Void
    switch (options.side, options.transport) {
    case ("courier", "ahc"):
        operation = SmallGet.courier(try SmallGet.client(base, ahc, feature: options.feature), path: options.path, expectedBytes: expected)
    case ("courier", "urlsession"):
        operation = SmallGet.courier(try SmallGet.client(base, URLSessionTransport(), feature: options.feature), path: options.path, expectedBytes: expected)
    case ("cache-hit", _), ("cache-disk-hit", _):
        var configuration = ClientConfiguration(baseURL: base)
        configuration.cache = ResponseCache(
            directory: FileManager.default.temporaryDirectory.appendingPathComponent("courier-probe-cache-\(UUID().uuidString)"),
            memoryCapacity: options.side == "cache-hit" ? ResponseCache.defaultMemoryCapacity : 0)
        let client = APIClient(configuration: configuration, transport: ahc)
        let request = Request<Data>(.get, options.path, cache: .cacheOnly)
        _ = try await client.send(request)
        guard try await client.send(request).source == .cache else { throw BenchError("cache-hit: the GET was not stored") }
        operation = { _ = try await client.send(request) }
    case ("events", "ahc"), ("raw-events", "ahc"):
        // `--path events?count=N`: each operation reads one stream of N Server-Sent Events.
        let client = try SmallGet.client(base, ahc, feature: options.feature)
        let url = base.absoluteString + "/" + options.path
        let expectedEvents = options.path.split(separator: "=").last.flatMap { Int($0) }
        let courierSide = options.side == "events"
        operation = {
            var seen = 0
            if courierSide {
                for try await _ in try await client.stream(Request(.get, url)).events { seen += 1 }
            } else {
                seen = try await RawEvents.count(ahc.client, url)
            }
            guard expectedEvents.map({ $0 == seen }) ?? true else { throw BenchError("\(seen) events, not \(expectedEvents ?? 0)") }
        }
    case ("transport", "ahc"): operation = SmallGet.transport(ahc, baseURL: base, path: options.path, expectedBytes: expected)
    case ("transport", "urlsession"): operation = SmallGet.transport(URLSessionTransport(), baseURL: base, path: options.path, expectedBytes: expected)
    case ("raw-delegate", "ahc"): operation = SmallGet.rawAHCDelegate(ahc.client, baseURL: base, path: options.path, expectedBytes: expected)
    case ("raw", "ahc"): operation = SmallGet.rawAHC(ahc.client, baseURL: base, path: options.path, expectedBytes: expected)
    case ("raw", "urlsession"): operation = SmallGet.rawURLSession(SmallGet.rawSession(), baseURL: base, path: options.path, expectedBytes: expected)
    default: throw BenchError("unknown side or transport: \(options.side) \(options.transport)")
    }
    if options.warmup > 0 {
        _ = try await LoadRunner.run(count: options.warmup, concurrency: options.concurrency, operation)
    }
    let before = contextSwitches()
    let started = ContinuousClock.now
    if options.allocations {
        MallocInterposerSwift.initialize()
        MallocInterposerSwift.hook()
    }
    _ = try await LoadRunner.run(count: options.count, concurrency: options.concurrency, operation)
    let elapsed = ContinuousClock.now - started
    if options.allocations { MallocInterposerSwift.unhook() }
    let after = contextSwitches()
    let statistics = MallocInterposerSwift.getStatistics()
    let requests = Double(max(1, options.count))
    let voluntary = Double(after.voluntary - before.voluntary) / requests
    let involuntary = Double(after.involuntary - before.involuntary) / requests
    var line = String(format: "switches=%.3f voluntary=%.3f involuntary=%.3f", voluntary + involuntary, voluntary, involuntary)
    if options.allocations {
        line += String(format: " mallocs=%.2f bytes=%.0f", Double(statistics.mallocCount) / requests, Double(statistics.mallocBytesCount) / requests)
    }
    line += String(format: " seconds=%.3f", elapsed.seconds)
    print(line)
    try await ahc.shutdown()
    await server?.stop()
}

// A synchronous main that waits for the work on a semaphore: valgrind 3.19 crashes on the way an
// `async` main parks the main thread in libdispatch.
let finished = DispatchSemaphore(value: 0)
let failure = Locked<String?>(nil)
Task.detached {
    do {
        try await probe(try ProbeOptions(Array(CommandLine.arguments.dropFirst())))
    } catch {
        failure.withLock { $0 = "courier-probe: \(error)\n" }
    }
    finished.signal()
}
finished.wait()
if let message = failure.withLock({ $0 }) {
    FileHandle.standardError.write(Data(message.utf8))
    exit(1)
}
exit(0)
