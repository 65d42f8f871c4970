import Courier
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The two swift-corelibs-foundation failures ``URLSessionTransport`` is built around, with plain
/// Foundation and no Courier, for `courier-test-helper cancel-storm --mode foundation-…` in a process of its
/// own: when it crashes or hangs there, Foundation still has the bug.
struct FoundationReproduction: Sendable {
    let baseURL: URL
    let upload: URL

    func run(mode: CancelStorm.Mode, count: Int) async -> CancelStorm.Result {
        let session = URLSession(configuration: .default)
        let body = mode == .foundationDataUpload ? (try? Data(contentsOf: upload)) ?? Data() : nil
        var result = CancelStorm.Result()
        for _ in 0..<count {
            let cancelled = switch mode {
            case .foundationFileUpload, .foundationDataUpload: await upload(session, body: body)
            default: await asyncRace(session)
            }
            result.requests += 1
            if cancelled { result.cancelled += 1 } else { result.succeeded += 1 }
        }
        session.invalidateAndCancel()
        return result
    }

    /// `uploadTask(with:fromFile:)`, or `uploadTask(with:from:)` when `body` is given, cancelled
    /// 0-30 ms in; whether it ended cancelled.
    private func upload(_ session: URLSession, body: Data?) async -> Bool {
        var request = URLRequest(url: baseURL.appendingPathComponent("uploads/raw"))
        request.httpMethod = "POST"
        let ended = AsyncEvent()
        let outcome = Locked(false)
        let done: @Sendable (Data?, URLResponse?, (any Error)?) -> Void = { _, _, error in
            outcome.withLock { $0 = (error as? URLError)?.code == .cancelled }
            ended.signal()
        }
        let task = if let body {
            session.uploadTask(with: request, from: body, completionHandler: done)
        } else {
            session.uploadTask(with: request, fromFile: upload, completionHandler: done)
        }
        task.resume()
        try? await Task.sleep(for: .microseconds(Int.random(in: 0...30_000)))  // the random moment
        task.cancel()
        await ended.wait()
        return outcome.withLock { $0 }
    }

    /// `data(for:)` cancelled 0-600 µs in, around when a small GET completes.
    private func asyncRace(_ session: URLSession) async -> Bool {
        let url = baseURL.appendingPathComponent("bytes/64")
        let task = Task { try await session.data(for: URLRequest(url: url)) }
        try? await Task.sleep(for: .microseconds(Int.random(in: 0...600)))  // the random moment
        task.cancel()
        if case .failure = await task.result { return true }
        return false
    }
}
