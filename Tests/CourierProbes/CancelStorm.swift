import Courier
import CourierDemo
import CourierAsyncHTTPClient
import Dispatch
import BenchWorkloads
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import ImageStoreServer
import ImageStoreTesting

/// Requests cancelled at random moments against an in-process server: the check behind "cancel
/// anything at any moment". Run in a process of its own (`courier-test-helper cancel-storm`), so a crash or a
/// deadlock fails the test that started it instead of the test runner.
///
/// Each request is a small GET, a file-backed multipart upload, a download into memory or a
/// download to a file, sent through the callback API or `async`, and cancelled before it starts,
/// after a random 0-30 ms (connecting, mid-upload, mid-download), within a few hundred
/// microseconds (racing a quick completion), after it completed, or never.
package enum CancelStorm {
    /// Which requests a storm sends.
    package enum Mode: String, CaseIterable, Sendable {
        /// Every kind of request and every moment.
        case mixed
        /// File-backed uploads cancelled after 0-30 ms (the URLSession crash on Linux).
        case upload
        /// Quick GETs through callbacks, cancelled as they complete (the URLSession deadlock).
        case race
        /// Plain Foundation, no Courier: `uploadTask(with:fromFile:)` cancelled 0-30 ms in. On
        /// Linux this crashes swift-corelibs-foundation (the reason ``URLSessionTransport`` never
        /// hands it a file body); kept to check whether a newer Foundation still does.
        case foundationFileUpload = "foundation-file-upload"
        /// Plain Foundation, no Courier: `data(for:)` cancelled as it completes, which can hang or
        /// crash swift-corelibs-foundation (the reason ``URLSessionTransport`` does not use it).
        case foundationAsyncRace = "foundation-async-race"
        /// Plain Foundation, no Courier: `uploadTask(with:from:)` with the 2 MiB body in memory,
        /// cancelled at random moments, to measure what URLSession itself keeps per upload.
        case foundationDataUpload = "foundation-data-upload"
    }

    /// What one storm saw.
    package struct Result: Sendable, CustomStringConvertible {
        /// Requests sent.
        package var requests = 0
        /// Requests that ended with a response.
        package var succeeded = 0
        /// Requests that ended with a cancellation error.
        package var cancelled = 0
        /// Requests that ended with another error (each is listed in ``unexpected``).
        package var failed = 0
        /// Requests whose completion ran more or less than once.
        package var notExactlyOnce = 0
        /// URLSession tasks whose exchange was still registered at the end (never completed).
        package var pendingTasks = 0
        /// Temporary or partial files left behind.
        package var leftoverFiles = 0
        /// Resident memory after the warm-up and at the end, in MiB.
        package var residentStartMB = 0.0
        /// Resident memory at the end, in MiB.
        package var residentEndMB = 0.0
        /// The first few unexpected errors.
        package var unexpected: [String] = []

        /// Whether every completion ran once and nothing was left behind.
        package var passed: Bool { notExactlyOnce == 0 && leftoverFiles == 0 && failed == 0 && pendingTasks == 0 }

        /// The counts on one line, then the first unexpected errors.
        package var description: String {
            "cancel-storm requests=\(requests) succeeded=\(succeeded) cancelled=\(cancelled) failed=\(failed) "
                + "not-exactly-once=\(notExactlyOnce) pending-tasks=\(pendingTasks) leftover-files=\(leftoverFiles) "
                + "rss-start-mb=\(String(format: "%.1f", residentStartMB)) rss-end-mb=\(String(format: "%.1f", residentEndMB))"
                + (unexpected.isEmpty ? "" : "\n" + unexpected.joined(separator: "\n"))
        }
    }

    /// Sends `requests` requests through `transport` to a new in-process server, `concurrency` at
    /// a time; files go under `directory`.
    package static func run(
        mode: Mode, transport kind: DemoTransport, requests: Int, concurrency: Int = 16, directory: URL
    ) async throws -> Result {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        pinAllocatorThreshold()
        let upload = directory.appendingPathComponent("storm-upload.bin")
        try PatternFile.write(upload, size: 2 << 20)
        let downloads = directory.appendingPathComponent("downloads")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        let server = try await ImageStoreServer.instrumented()
        if [.foundationFileUpload, .foundationAsyncRace, .foundationDataUpload].contains(mode) {
            defer { Task { await server.stop() } }
            let reproduction = FoundationReproduction(baseURL: server.baseURL, upload: upload)
            _ = await reproduction.run(mode: mode, count: min(200, requests))  // warm-up
            let start = liveResidentMB()
            var result = await reproduction.run(mode: mode, count: requests)
            result.residentStartMB = start
            result.residentEndMB = liveResidentMB()
            return result
        }
        let transport: any HTTPTransport = kind == .ahc ? AsyncHTTPClientTransport() : URLSessionTransport()
        var configuration = ClientConfiguration(baseURL: server.baseURL)
        configuration.cache = nil
        configuration.errorPresenter = nil
        configuration.timeout = 120
        let client = APIClient(configuration: configuration, transport: transport)
        let storm = Storm(client: client, mode: mode, upload: upload, downloads: downloads)
        var result = Result()
        await storm.run(count: min(200, requests), concurrency: concurrency, into: &result)  // warm-up
        result = Result()
        result.residentStartMB = liveResidentMB()
        await storm.run(count: requests, concurrency: concurrency, into: &result)
        if let session = transport as? URLSessionTransport {
            // A cancelled request answers at once; its URLSession task reports its end a moment
            // later. Give those reports up to 10 s before counting the tasks that never ended.
            let deadline = ContinuousClock.now + .seconds(10)
            while session.pendingTasks > 0, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(20))
            }
            result.pendingTasks = session.pendingTasks
        }
        try? await (transport as? AsyncHTTPClientTransport)?.shutdown()
        await server.stop()
        result.residentEndMB = liveResidentMB()
        let left = (FileManager.default.enumerator(atPath: downloads.path)?.allObjects as? [String] ?? [])
            .filter { $0.hasPrefix(".") }
        let spooled = (try? FileManager.default.contentsOfDirectory(atPath: FileManager.default.temporaryDirectory.path))?
            .filter { $0.hasPrefix("courier-upload-") } ?? []
        result.leftoverFiles = left.count + spooled.count
        return result
    }
}

/// Pins glibc's mmap threshold at 128 KiB. glibc raises it after the first large block is freed, so
/// later 1-2 MiB bodies come from the heap arenas, whose fragmentation then shows as resident
/// memory that no one holds (10-20 MiB after 1,000 requests at 16 at a time, under load). Pinned,
/// large blocks are mapped and unmapped whole, and the storm's memory figure counts memory held.
private func pinAllocatorThreshold() {
    #if canImport(Glibc)
    typealias Option = @convention(c) (Int32, Int32) -> Int32
    if let symbol = dlsym(nil, "mallopt") {  // not in Swift's Glibc module
        _ = unsafeBitCast(symbol, to: Option.self)(-3, 128 * 1024)  // M_MMAP_THRESHOLD
    }
    #endif
}

/// Resident memory in MiB once the allocator has returned its free pages (`malloc_trim` on
/// glibc), so the figure counts memory in use, not what malloc keeps after a busy moment.
func liveResidentMB() -> Double {
    #if canImport(Glibc)
    typealias Trim = @convention(c) (Int) -> Int32
    if let symbol = dlsym(nil, "malloc_trim") {  // not in Swift's Glibc module
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
    }
    #endif
    return Double(MemoryStatus.read().residentKB) / 1024
}

/// One storm's requests.
private struct Storm: Sendable {
    let client: APIClient
    let mode: CancelStorm.Mode
    let upload: URL
    let downloads: URL

    /// When a request is cancelled.
    enum Moment: CaseIterable {
        case beforeStart, soon, racing, afterCompletion, never
    }

    /// How a request ended.
    enum Outcome: Sendable {
        case success, cancelled, failure(String)
    }

    func run(count: Int, concurrency: Int, into result: inout CancelStorm.Result) async {
        await withTaskGroup(of: (Outcome, Int).self) { group in
            var next = 0
            func add() {
                let index = next
                next += 1
                group.addTask { await self.one(index) }
            }
            while next < min(count, concurrency) { add() }
            while let (outcome, completions) = await group.next() {
                result.requests += 1
                if completions != 1 { result.notExactlyOnce += 1 }
                switch outcome {
                case .success: result.succeeded += 1
                case .cancelled: result.cancelled += 1
                case .failure(let text):
                    result.failed += 1
                    if result.unexpected.count < 10 { result.unexpected.append(text) }
                }
                if next < count { add() }
            }
        }
    }

    /// Sends request `index`; returns how it ended and how many times its completion ran.
    func one(_ index: Int) async -> (Outcome, Int) {
        let moment: Moment = mode == .race ? [.racing, .racing, .afterCompletion, .never].randomElement() ?? .racing
            : Moment.allCases.randomElement() ?? .never
        let kind = mode == .upload ? 1 : mode == .race ? 0 : Int.random(in: 0..<4)
        let viaCallback = mode == .race || Bool.random()
        let destination = downloads.appendingPathComponent("file-\(index).bin")
        defer { try? FileManager.default.removeItem(at: destination) }
        if viaCallback, kind != 3 {
            return await callback(kind: kind, moment: moment)
        }
        let task = Task { () -> Outcome in
            do throws(CourierError) {
                switch kind {
                case 0: _ = try await client.send(Request<Data>(.get, "bytes/64"))
                case 1: _ = try await client.send(uploadRequest())
                case 2: _ = try await client.send(Request<Data>(.get, "bytes/1048576"))
                default: _ = try await client.download(Request<Data>(.get, "bytes/1048576"), to: destination)
                }
                return .success
            } catch {
                return error.isCancelled ? .cancelled : .failure("\(kind): \(error)")
            }
        }
        switch moment {
        case .beforeStart: task.cancel()
        case .soon: try? await Task.sleep(for: .microseconds(Int.random(in: 0...30_000))); task.cancel()
        case .racing: try? await Task.sleep(for: .microseconds(Int.random(in: 0...600))); task.cancel()
        case .afterCompletion: _ = await task.value; task.cancel()
        case .never: break
        }
        return (await task.value, 1)
    }

    private func uploadRequest() -> Request<Data> {
        Request<Data>(.post, "uploads/raw", body: .multipart([.text("note", "storm"), .file("file", upload, mimeType: "application/octet-stream")]))
    }

    /// A request through the callback API; counts its completions until its work has ended.
    private func callback(kind: Int, moment: Moment) async -> (Outcome, Int) {
        let completions = Locked<(count: Int, outcome: Outcome?)>((0, nil))
        let ended = AsyncEvent()
        let complete: @Sendable (Result<Response<Data>, CourierError>) -> Void = { result in
            let outcome: Outcome
            switch result {
            case .success: outcome = .success
            case .failure(let error): outcome = error.isCancelled ? .cancelled : .failure("\(kind) via callback: \(error)")
            }
            completions.withLock { $0 = ($0.count + 1, $0.outcome ?? outcome) }
            ended.signal()
        }
        let request: Request<Data> = switch kind {
        case 1: uploadRequest()
        case 2: Request<Data>(.get, "bytes/1048576")
        default: Request<Data>(.get, "bytes/64")
        }
        let handle = client.request(request, completion: complete)
        switch moment {
        case .beforeStart: handle.cancel()
        case .soon: try? await Task.sleep(for: .microseconds(Int.random(in: 0...30_000))); handle.cancel()
        case .racing: try? await Task.sleep(for: .microseconds(Int.random(in: 0...600))); handle.cancel()
        case .afterCompletion: await ended.wait(); handle.cancel()
        case .never: break
        }
        await ended.wait()
        await handle.waitUntilFinished()
        // Every callback scheduled so far has run once this barrier has passed the queue.
        await withCheckedContinuation { continuation in
            ClientConfiguration.defaultCallbackQueue.async(flags: .barrier) { continuation.resume() }
        }
        let (count, outcome) = completions.withLock { $0 }
        return (outcome ?? .failure("no outcome"), count)
    }
}
