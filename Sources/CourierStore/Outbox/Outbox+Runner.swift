import Courier
import Foundation
import GRDB

extension Outbox {
    /// The loop ``start()`` runs, how to wake it, and what it was woken for.
    struct Runner: Sendable {
        var task: Task<Void, Never>?
        var wake: AsyncStream<Void>.Continuation?
        /// The client's answer observer the loop added.
        var answerObserver: Int?
        /// The network path monitor (Apple platforms).
        var pathMonitor: PathMonitor?
        /// Origins of entries waiting because the server did not answer: an answer from one makes them due.
        var waitingOrigins: Set<String> = []
        /// When each origin last answered one of the client's requests.
        var lastAnswers: [String: Date] = [:]
        /// Origins that answered since: their unanswered entries are due now.
        var answeredOrigins: Set<String> = []
        /// Every unanswered entry is due now (``retryWaitingNow()``, the network path came back).
        var allDue = false
    }

    /// Sends by itself until ``stop()``: a flush at once, then
    /// - whenever the first waiting entry is due (its backoff, or the server's `Retry-After`), so
    ///   an absent server is probed with a growing wait;
    /// - right after every enqueue;
    /// - when the client's next request to an origin is answered by the server: the entries that
    ///   wait because that server did not answer are due at once;
    /// - on Apple platforms, when the network path becomes usable again (`NWPathMonitor`): every
    ///   entry that waits because its server did not answer is due at once.
    ///
    /// An entry the server answered with a wait (408, 409, 429, 5xx, with or without
    /// `Retry-After`) keeps its wait.
    ///
    /// One loop per store: calling `start()` again while it runs, or on another outbox of the same
    /// store while that one's runs, does nothing. The loop keeps the outbox alive until `stop()`.
    public func start() {
        // One loop per store: another outbox of the same store that runs one keeps it.
        guard Self.looping.withLock({ $0.insert(loopKey).inserted }) else {
            if !isRunning { client.configuration.logger.warning("Courier: another Outbox of this store already sends by itself; start() did nothing.") }
            return
        }
        runner.withLock { runner in
            guard runner.task == nil else { return }
            let (wakeUps, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
            runner.wake = wake
            runner.answerObserver = client.answerObservers.add { [weak self] origin in self?.heard(from: origin) }
            runner.pathMonitor = PathMonitor { [weak self] in self?.retryWaitingNow() }
            runner.task = Task { [self] in await run(wakeUps: wakeUps, wake: wake) }
        }
    }

    /// Ends the loop ``start()`` began; an attempt in flight finishes (or is cancelled) first.
    public func stop() {
        let stopped = runner.withLock { runner in
            defer { runner = Runner() }
            return runner
        }
        if stopped.task != nil { _ = Self.looping.withLock { $0.remove(loopKey) } }
        if let observer = stopped.answerObserver { client.answerObservers.remove(observer) }
        stopped.pathMonitor?.cancel()
        stopped.task?.cancel()
        stopped.wake?.finish()
    }

    /// Makes every entry that waits because its server did not answer (offline, cannot connect,
    /// timed out) due now, and wakes the loop of ``start()``: the app knows the network is back.
    /// Without a loop, the next ``flush()`` sends them. Entries the server told to wait keep
    /// their wait.
    public func retryWaitingNow() {
        let wake = runner.withLock { runner in
            runner.allDue = true
            return runner.wake
        }
        wake?.yield()
    }

    /// Whether this outbox's loop runs (``start()`` and not yet ``stop()``).
    package var isRunning: Bool { runner.withLock { $0.task != nil } }

    /// The stores whose outbox runs a loop, by ``loopKey``.
    private static let looping = Locked<Set<String>>([])

    /// The store, as ``looping`` knows it: its file (two store objects may open one file), or the
    /// object for an in-memory store.
    private var loopKey: String {
        store.path.map { "file:" + $0.standardizedFileURL.path } ?? "memory:\(ObjectIdentifier(store).hashValue)"
    }

    /// Wakes the loop, if one runs (an entry was just enqueued).
    func wake() {
        runner.withLock { $0.wake }?.yield()
    }

    /// The server at `origin` answered one of the client's requests: its waiting entries are due.
    private func heard(from origin: String) {
        let now = Date()
        let wake = runner.withLock { runner -> AsyncStream<Void>.Continuation? in
            runner.lastAnswers[origin] = now
            guard runner.waitingOrigins.remove(origin) != nil else { return nil }
            runner.answeredOrigins.insert(origin)
            return runner.wake
        }
        wake?.yield()
    }

    private func run(wakeUps: AsyncStream<Void>, wake: AsyncStream<Void>.Continuation) async {
        var wakeUp = wakeUps.makeAsyncIterator()
        while !Task.isCancelled {
            // A flush that fails to read or write the store is tried again at the next wake-up.
            let started = Date()
            let remaining = (try? await flush())?.remaining
            let (waiting, next) = (try? await waitState()) ?? ([], nil)
            // An origin that answered while the flush ran (before its entries were known to
            // wait) makes them due now, with another turn.
            let missed = runner.withLock { runner in
                let answered = waiting.filter { (runner.lastAnswers[$0] ?? .distantPast) >= started }
                runner.waitingOrigins = waiting.subtracting(answered)
                runner.answeredOrigins.formUnion(answered)
                return !answered.isEmpty
            }
            if missed { continue }
            let timer = delay(remaining: remaining, next: next).map { delay in
                Task {
                    try? await AttemptSchedule.wait(delay)
                    wake.yield()
                }
            }
            let woken: Void? = await wakeUp.next()
            timer?.cancel()
            if woken == nil { return }
        }
    }

    /// Makes due the unanswered entries the loop was woken for: those of origins that answered, or all.
    func makeDue() async throws {
        let (all, origins) = runner.withLock { runner in
            defer { (runner.allDue, runner.answeredOrigins) = (false, []) }
            return (runner.allDue, runner.answeredOrigins)
        }
        guard all || !origins.isEmpty else { return }
        try await store.database.write { db in
            let waiting = try Row.fetchAll(
                db, sql: "SELECT id, url FROM courier_outbox WHERE state = ? AND nextAttempt IS NOT NULL AND unanswered", arguments: [OutboxState.pending.name])
            for row in waiting {
                guard let id = Int64.fromDatabaseValue(row["id"] ?? .null) else { continue }
                let origin = String.fromDatabaseValue(row["url"] ?? .null).flatMap(URL.init(string:))?.origin
                guard all || origin.map(origins.contains) == true else { continue }
                try db.execute(sql: "UPDATE courier_outbox SET nextAttempt = NULL WHERE id = ?", arguments: [id])
            }
        }
    }

    /// In one read: the origins of entries waiting because their server did not answer, and
    /// when the first waiting entry is due.
    private func waitState() async throws -> (origins: Set<String>, next: Date?) {
        try await store.database.read { db in
            let urls = try String.fetchAll(
                db, sql: "SELECT DISTINCT url FROM courier_outbox WHERE state = ? AND nextAttempt IS NOT NULL AND unanswered", arguments: [OutboxState.pending.name])
            let next = try Date.fetchOne(db, sql: "SELECT MIN(nextAttempt) FROM courier_outbox WHERE state = ?", arguments: [OutboxState.pending.name])
            return (Set(urls.compactMap { URL(string: $0)?.origin }), next)
        }
    }

    /// How long the loop sleeps: `nil` when nothing waits (an enqueue wakes it), until `next`
    /// when an entry waits for a time, ``maximumDelay`` when entries wait without one (in flight
    /// elsewhere, or behind one that is) or the flush could not count them.
    private func delay(remaining: Int?, next: Date?) -> Duration? {
        guard remaining != 0 else { return nil }
        guard let next else { return maximumDelay }
        // Compared as seconds first: a far `Retry-After` (or a date in a tampered file) is no
        // number of milliseconds an `Int64` holds.
        let seconds = max(0, next.timeIntervalSinceNow)
        guard seconds < maximumDelay.seconds else { return maximumDelay }
        return .seconds(seconds)
    }
}
