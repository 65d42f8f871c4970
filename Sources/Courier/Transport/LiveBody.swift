import Foundation

/// A response body handed on while it arrives: the one shape in which a transport delivers a
/// body that is not gathered in memory (a stream, a download to a file).
///
/// The transport is the producer: it ``deliver(_:resume:)``s each piece and ``finish(_:)``es once.
/// The reader takes pieces with ``next()``. Pieces wait here while the reader is slower than the
/// network, up to ``pauseAbove`` bytes; past that ``deliver(_:resume:)`` answers `false` and the
/// transport stops reading until the reader has taken the backlog below ``resumeBelow``, when
/// `resume` runs. So a slow reader slows the reading, and memory stays bounded.
///
/// ``stop()`` (the reader cancelled, or let the stream go) drops what is held and stops the
/// exchange with the closure the transport gave ``onStop(_:)``.
package final class LiveBody: Sendable {
    /// Bytes held for a slow reader before the transport is asked to pause.
    package static let pauseAbove = 1 << 20
    /// Bytes held below which a paused transport reads again.
    package static let resumeBelow = 256 << 10

    private struct State {
        var pieces: [Data] = []
        /// The index in `pieces` of the next piece to hand out.
        var first = 0
        var held = 0
        var ended = false
        var failure: CourierError?
        var stopped = false
        var reader: CheckedContinuation<Result<Data?, CourierError>, Never>?
        var resumeTransport: (@Sendable () -> Void)?
        var stopTransport: (@Sendable () -> Void)?
        /// Body bytes delivered so far.
        var received: Int64 = 0

        mutating func take() -> Data? {
            guard first < pieces.count else { return nil }
            let piece = pieces[first]
            pieces[first] = Data()
            first += 1
            held -= piece.count
            if first == pieces.count {
                pieces.removeAll(keepingCapacity: true)
                first = 0
            } else if first > 64, first * 2 > pieces.count {
                pieces.removeFirst(first)
                first = 0
            }
            return piece
        }

        /// The transport's resume, when the backlog has drained enough for it.
        mutating func resumeIfDrained() -> (@Sendable () -> Void)? {
            guard held < LiveBody.resumeBelow, let resume = resumeTransport else { return nil }
            resumeTransport = nil
            return resume
        }
    }

    /// The URL the body comes from (for errors).
    package let url: URL
    private let state = Locked(State())

    package init(url: URL) {
        self.url = url
    }

    /// A body that has already arrived whole (a transport that gathers bodies in memory).
    package convenience init(whole body: Data, url: URL) {
        self.init(url: url)
        if !body.isEmpty { _ = deliver(body) {} }
        finish(nil)
    }

    // MARK: The transport's side

    /// Hands on a piece of the body. Returns whether the transport may deliver more now; when
    /// `false`, it reads nothing more until `resume` runs. Pieces delivered while it is paused
    /// (already on their way) are kept and answered `true`: one pause, one resume.
    package func deliver(_ piece: Data, resume: @escaping @Sendable () -> Void) -> Bool {
        let (reader, goOn) = state.withLock { state -> (CheckedContinuation<Result<Data?, CourierError>, Never>?, Bool) in
            guard !state.stopped, !state.ended else { return (nil, true) }
            state.received += Int64(piece.count)
            if let reader = state.reader {
                state.reader = nil
                return (reader, true)
            }
            state.pieces.append(piece)
            state.held += piece.count
            // Paused already (pieces the transport had on their way): the one resume answers it.
            guard state.held > Self.pauseAbove, state.resumeTransport == nil else { return (nil, true) }
            state.resumeTransport = resume
            return (nil, false)
        }
        reader?.resume(returning: .success(piece))
        return goOn
    }

    /// Ends the body: whole when `failure` is `nil`. Only the first call counts; the reader gets
    /// every piece delivered before it, then the end or the failure.
    package func finish(_ failure: CourierError?) {
        let reader = state.withLock { state -> CheckedContinuation<Result<Data?, CourierError>, Never>? in
            guard !state.ended else { return nil }
            state.ended = true
            state.failure = failure
            // Nothing is left to pause or stop; the transport's closures (which may hold the
            // exchange that holds this body) go with the end.
            state.resumeTransport = nil
            state.stopTransport = nil
            defer { state.reader = nil }
            return state.reader
        }
        reader?.resume(returning: failure.map { .failure($0) } ?? .success(nil))
    }

    /// How ``stop()`` stops the exchange; run at once if the reader stopped already.
    package func onStop(_ stop: @escaping @Sendable () -> Void) {
        let stopNow = state.withLock { state in
            guard !state.stopped else { return true }
            if !state.ended { state.stopTransport = stop }  // an ended body has nothing to stop
            return false
        }
        if stopNow { stop() }
    }

    /// Body bytes delivered so far.
    package var received: Int64 { state.withLock { $0.received } }

    // MARK: The reader's side

    /// The next piece, `nil` at the end of the body, or the failure that ended it. Cancelling the
    /// calling task stops the body (``stop()``) and throws a ``CourierError/Kind/cancelled`` error.
    package func next() async throws(CourierError) -> Data? {
        // A reader that never has to wait (the pieces are always here first) still stops when
        // its task is cancelled.
        if Task.isCancelled {
            stop()
            throw .cancelled(url)
        }
        // A piece already here is handed out without suspending.
        let ready = state.withLock { state -> (Result<Data?, CourierError>, (@Sendable () -> Void)?)? in
            if let piece = state.take() { return (.success(piece), state.resumeIfDrained()) }
            if state.stopped { return (.failure(.cancelled(url)), nil) }
            if state.ended { return (state.failure.map { .failure($0) } ?? .success(nil), nil) }
            return nil
        }
        if let (result, resume) = ready {
            resume?()
            return try result.get()
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Data?, CourierError>, Never>) in
                let (now, resume) = state.withLock { state -> (Result<Data?, CourierError>?, (@Sendable () -> Void)?) in
                    if let piece = state.take() { return (.success(piece), state.resumeIfDrained()) }
                    if state.stopped { return (.failure(.cancelled(url)), nil) }
                    if state.ended { return (state.failure.map { .failure($0) } ?? .success(nil), nil) }
                    state.reader = continuation
                    return (nil, nil)
                }
                resume?()
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            stop()
        }
        return try result.get()
    }

    /// The reader is done (cancelled, or it let the body go before its end): drops what is held,
    /// fails a waiting ``next()`` as cancelled and stops the exchange.
    package func stop() {
        let (reader, resume, stop) = state.withLock { state in
            guard !state.stopped else { return (nil, nil, nil) as (CheckedContinuation<Result<Data?, CourierError>, Never>?, (@Sendable () -> Void)?, (@Sendable () -> Void)?) }
            state.stopped = true
            state.pieces = []
            state.first = 0
            state.held = 0
            defer {
                state.reader = nil
                state.resumeTransport = nil
                state.stopTransport = nil
            }
            return (state.reader, state.resumeTransport, state.stopTransport)
        }
        reader?.resume(returning: .failure(.cancelled(url)))
        resume?()
        stop?()
    }
}
