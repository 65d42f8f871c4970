import Foundation

/// A response body handed on while it arrives: the one shape in which a transport delivers a
/// body that is not gathered in memory (a stream, a download to a file).
///
/// The transport is the producer: it ``deliver(_:resume:)``s each piece and ``finish(_:)``es once.
/// The reader takes pieces with ``next()``. Pieces wait here while the reader is slower than the
/// network (joined, up to ``joinBelow`` bytes a piece, so that a reader that is behind takes the
/// small pieces of a chunked body together), up to ``pauseAbove`` bytes; past that
/// ``deliver(_:resume:)`` answers `false` and the
/// transport stops reading until the reader has taken the backlog below ``resumeBelow``, when
/// `resume` runs. So a slow reader slows the reading, and memory stays bounded.
///
/// A transport that cannot pause (URLSession on Linux: swift-corelibs-foundation cannot hold a
/// transfer back) makes its body with `spillsBacklog`: past ``pauseAbove`` bytes, the backlog goes
/// to an unnamed temporary file (``SpillFile``) instead of memory, written a megabyte at a time
/// (one write per piece was slower than the pieces came, and they piled up in URLSession's
/// delegate queue instead), and the reader reads it back in order. Memory stays bounded; the disk
/// holds what the reader has not caught up with.
///
/// ``stop()`` (the reader cancelled, or let the stream go) drops what is held and stops the
/// exchange with the closure the transport gave ``onStop(_:)``.
package final class LiveBody: Sendable {
    /// A piece as a transport has it (a `Data`, or async-http-client's buffer): its bytes are read
    /// where they are, and made a `Data` only when the piece is handed on whole (to a reader that
    /// waits, or as a piece too large to join). Making and freeing a `Data` for every small piece
    /// of a stream cost more than the bytes it copied.
    package protocol Piece {
        /// Its length in bytes.
        var count: Int { get }
        /// Calls `body` with its bytes.
        func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result
        /// Its bytes as a `Data`.
        func makeData() -> Data
    }

    /// What wakes a waiting reader.
    private enum Wake {
        case piece(Data)
        /// Something is ready that the reader fetches itself (the backlog on disk).
        case lookAgain
        case end(Result<Data?, CourierError>)
    }

    /// What a delivered piece leads to, decided under the lock.
    private enum DeliveryStep {
        case handled(UnsafeContinuation<Wake, Never>?, goOn: Bool)
        case spill(SpillFile?, Data, offset: Int64)
    }

    /// What a reader can take now.
    private enum Ready {
        case piece(Data, resume: (@Sendable () -> Void)?)
        case spilled(SpillFile, offset: Int64, length: Int)
        case end(Result<Data?, CourierError>)
    }

    /// The largest piece read back from the backlog on disk at once.
    private static let spillReadSize = 256 << 10
    /// Bytes gathered after the backlog on disk before they are written to it, at once.
    static let spillWriteSize = 1 << 20

    /// Bytes held for a slow reader before the transport is asked to pause.
    static let pauseAbove = 1 << 20
    /// Bytes held below which a paused transport reads again.
    package static let resumeBelow = 256 << 10
    /// The size up to which pieces waiting for the reader are joined into one.
    static let joinBelow = 64 << 10

    private struct State {
        var pieces: [Data] = []
        /// Small pieces joined after every piece in `pieces`, as plain bytes: appending to a
        /// `Data` cost more than the bytes it copied, for every piece.
        var joining: [UInt8] = []
        /// The index in `pieces` of the next piece to hand out.
        var first = 0
        var held = 0
        var ended = false
        var failure: CourierError?
        var stopped = false
        /// The reader waiting for something to take. An unsafe continuation: a checked one is a
        /// resilient type, copied through the runtime's value witnesses on every piece; this one
        /// is taken out under the lock, and so resumed once, by construction.
        var reader: UnsafeContinuation<Wake, Never>?
        var resumeTransport: (@Sendable () -> Void)?
        var stopTransport: (@Sendable () -> Void)?
        /// Body bytes delivered so far.
        var received: Int64 = 0
        /// The backlog on disk, for a body that spills: bytes `spillRead..<spillEnd` of `spill`
        /// wait for the reader, after every piece in memory; `spillReading` while the reader
        /// reads a range outside the lock (the file is not reused from its start meanwhile).
        var spill: SpillFile?
        var spillRead: Int64 = 0
        var spillEnd: Int64 = 0
        var spillReading = false
        /// Pieces that came after the backlog on disk, gathered for the next write to it; the
        /// reader takes them once the disk is read and no write is under way (`spillWriting`).
        var tail = Data()
        var spillWriting = false

        /// What the reader can take now, if anything: pieces in memory first, then the backlog
        /// on disk, then the end.
        mutating func ready(url: URL) -> Ready? {
            if let piece = take() { return .piece(piece, resume: resumeIfDrained()) }
            if stopped { return .end(.failure(.cancelled(url))) }
            if let spill, spillRead < spillEnd {
                let length = Int(min(Int64(LiveBody.spillReadSize), spillEnd - spillRead))
                defer {
                    spillRead += Int64(length)
                    spillReading = true
                }
                return .spilled(spill, offset: spillRead, length: length)
            }
            if spillWriting { return nil }  // older bytes are on their way to the disk
            if !tail.isEmpty {
                defer { tail = Data() }
                return .piece(tail, resume: nil)
            }
            if ended { return .end(failure.map { .failure($0) } ?? .success(nil)) }
            return nil
        }

        /// Whether ``ready(url:)`` has something for the reader.
        var hasSomething: Bool {
            stopped || first < pieces.count || !joining.isEmpty || spillRead < spillEnd || (!spillWriting && (!tail.isEmpty || ended))
        }

        mutating func take() -> Data? {
            guard first < pieces.count else {
                guard !joining.isEmpty else { return nil }
                defer { joining.removeAll(keepingCapacity: true) }
                held -= joining.count
                return Data(joining)
            }
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

        /// Queues `piece` after the others: joined to the small pieces before it while they stay
        /// within ``LiveBody/joinBelow`` bytes, so that the reader takes what one read of the
        /// socket brought (many small pieces of a chunked body) at once.
        mutating func queue(_ piece: some Piece) {
            if !joining.isEmpty, joining.count + piece.count > LiveBody.joinBelow {
                pieces.append(Data(joining))
                joining.removeAll(keepingCapacity: true)
            }
            if piece.count <= LiveBody.joinBelow {
                piece.withUnsafeBytes { joining.append(contentsOf: $0) }
            } else {
                pieces.append(piece.makeData())  // a large piece goes as it is
            }
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
    /// Whether a backlog past ``pauseAbove`` goes to disk (a transport that cannot pause).
    package let spillsBacklog: Bool
    private let state = Locked(State())

    package init(url: URL, spillsBacklog: Bool = false) {
        self.url = url
        self.spillsBacklog = spillsBacklog
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
    /// (already on their way) are kept and answered `true`: one pause, one resume. A body that
    /// spills its backlog always answers `true`.
    package func deliver(_ piece: some Piece, resume: @escaping @Sendable () -> Void) -> Bool {
        let step = state.withLock { state -> DeliveryStep in
            guard !state.stopped, !state.ended else { return .handled(nil, goOn: true) }
            state.received += Int64(piece.count)
            // A waiting reader has had everything before this piece, unless older bytes are still
            // on their way to the disk or gathered for it.
            if let reader = state.reader, !state.spillWriting, state.tail.isEmpty {
                state.reader = nil
                return .handled(reader, goOn: true)
            }
            if spillsBacklog,
               state.spillEnd > state.spillRead || state.spillWriting || !state.tail.isEmpty || state.held + piece.count > Self.pauseAbove {
                state.tail.append(piece.makeData())
                guard state.tail.count >= Self.spillWriteSize, !state.spillWriting else { return .handled(nil, goOn: true) }
                // A drained file is written again from its start, unless the reader is reading it.
                if state.spillRead == state.spillEnd, !state.spillReading {
                    state.spillRead = 0
                    state.spillEnd = 0
                }
                state.spillWriting = true
                defer { state.tail = Data() }
                return .spill(state.spill, state.tail, offset: state.spillEnd)
            }
            state.queue(piece)
            state.held += piece.count
            // Paused already (pieces the transport had on their way): the one resume answers it.
            guard !spillsBacklog, state.held > Self.pauseAbove, state.resumeTransport == nil else { return .handled(nil, goOn: true) }
            state.resumeTransport = resume
            return .handled(nil, goOn: false)
        }
        switch step {
        case .handled(let reader, let goOn):
            reader?.resume(returning: .piece(piece.makeData()))
            return goOn
        case .spill(let existing, let bytes, let offset):
            spill(bytes, to: existing, at: offset)
            return true
        }
    }

    /// Writes `bytes` to the backlog on disk at `offset` (the producer alone moves the end), then
    /// makes them readable and wakes a waiting reader. A file that cannot be made or written fails
    /// the body and stops the exchange.
    private func spill(_ bytes: Data, to existing: SpillFile?, at offset: Int64) {
        do throws(CourierError) {
            let file: SpillFile
            if let existing { file = existing } else { file = try SpillFile() }
            try file.write(bytes, at: offset)
            let reader = state.withLock { state -> UnsafeContinuation<Wake, Never>? in
                state.spillWriting = false
                guard !state.stopped, !state.ended else { return nil }
                state.spill = file
                state.spillEnd = offset + Int64(bytes.count)
                defer { state.reader = nil }
                return state.reader
            }
            reader?.resume(returning: .lookAgain)
        } catch {
            let stop = state.withLock { state -> (@Sendable () -> Void)? in
                state.spillWriting = false
                defer { state.stopTransport = nil }
                return state.stopTransport
            }
            finish(error)
            stop?()
        }
    }

    /// Ends the body: whole when `failure` is `nil`. Only the first call counts; the reader gets
    /// every piece delivered before it, then the end or the failure.
    package func finish(_ failure: CourierError?) {
        let reader = state.withLock { state -> UnsafeContinuation<Wake, Never>? in
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
        reader?.resume(returning: .lookAgain)
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

    /// Body bytes in memory waiting for the reader (what the backlog costs in memory): at most
    /// ``pauseAbove`` plus, for a body that spills, ``spillWriteSize`` gathered for the disk.
    var heldInMemory: Int { state.withLock { $0.held + $0.tail.count } }

    // MARK: The reader's side

    /// The next piece, `nil` at the end of the body, or the failure that ended it. Cancelling the
    /// calling task stops the body (``stop()``) and throws a ``CourierError/Kind/cancelled`` error.
    package func next() async throws(CourierError) -> Data? {
        while true {
            // A reader that never has to wait (the pieces are always here first) still stops when
            // its task is cancelled.
            if Task.isCancelled {
                stop()
                throw .cancelled(url)
            }
            // What is here already is taken without suspending.
            if let ready = state.withLock({ $0.ready(url: url) }) { return try take(ready) }
            let wake = await withTaskCancellationHandler {
                await withUnsafeContinuation { (continuation: UnsafeContinuation<Wake, Never>) in
                    let now = state.withLock { state -> Bool in
                        if state.hasSomething { return true }
                        state.reader = continuation
                        return false
                    }
                    if now { continuation.resume(returning: .lookAgain) }
                }
            } onCancel: {
                stop()
            }
            switch wake {
            case .piece(let piece): return piece
            case .end(let result): return try result.get()
            case .lookAgain: continue
            }
        }
    }

    /// Hands out what ``State/ready(url:)`` gave: a piece, the end, or a range of the backlog
    /// on disk, read here, outside the lock.
    private func take(_ ready: Ready) throws(CourierError) -> Data? {
        switch ready {
        case .piece(let piece, let resume):
            resume?()
            return piece
        case .end(let result):
            return try result.get()
        case .spilled(let file, let offset, let length):
            defer { state.withLock { $0.spillReading = false } }
            do throws(CourierError) {
                return try file.read(length, at: offset)
            } catch {
                stop()
                throw error
            }
        }
    }

    /// The reader is done (cancelled, or it let the body go before its end): drops what is held,
    /// fails a waiting ``next()`` as cancelled and stops the exchange.
    package func stop() {
        let (reader, resume, stop) = state.withLock { state in
            guard !state.stopped else { return (nil, nil, nil) as (UnsafeContinuation<Wake, Never>?, (@Sendable () -> Void)?, (@Sendable () -> Void)?) }
            state.stopped = true
            state.pieces = []
            state.joining = []
            state.first = 0
            state.held = 0
            state.spill = nil
            state.spillRead = 0
            state.spillEnd = 0
            state.tail = Data()
            defer {
                state.reader = nil
                state.resumeTransport = nil
                state.stopTransport = nil
            }
            return (state.reader, state.resumeTransport, state.stopTransport)
        }
        reader?.resume(returning: .end(.failure(.cancelled(url))))
        resume?()
        stop?()
    }
}

extension Data: LiveBody.Piece {
    /// The piece itself.
    package func makeData() -> Data { self }
}
