#if canImport(FoundationNetworking)
import Foundation

/// A ``StreamedBody`` as an `InputStream`, the body ``URLSessionTransport`` gives
/// swift-corelibs-foundation for streamed uploads.
///
/// Why not a file: corelibs reads a file-backed body (`uploadTask(with:fromFile:)`) with
/// `DispatchIO`, pauses libcurl while it waits and un-pauses it from a callback with a `try!`
/// that kills the process when the transfer was cancelled in between (`EasyHandle.swift`,
/// "Error Domain=libcurl.Easy Code=43"). A stream body is read synchronously on the session's
/// work queue and never pauses the transfer, so cancellation at any moment is safe. It also needs
/// no temporary copy of the body on disk.
///
/// corelibs calls ``hasBytesAvailable`` before every read and takes `false` as the end of the
/// body, so that property reads ahead by one chunk. A file that changes while it is sent fails the
/// read (`-1`), which aborts the transfer with an error. Only corelibs' serial work queue uses the
/// stream.
final class StreamedBodyInputStream: InputStream {
    private var reader: StreamedBody.Iterator
    private var pending = Data()
    private var pendingOffset = 0
    private var status: Stream.Status = .notOpen
    private var failure: (any Error)?

    /// Where a failed read is told, for the exchange to report (corelibs reports only that the
    /// transfer was aborted).
    private let readFailure: Locked<String?>

    init(_ body: StreamedBody, readFailure: Locked<String?>) {
        reader = body.chunks(size: 64 * 1024).makeIterator()
        self.readFailure = readFailure
        super.init(data: Data())
    }

    override func open() {
        if status == .notOpen { status = .open }
    }

    override func close() { status = .closed }

    override var streamStatus: Stream.Status { status }

    override var streamError: (any Error)? { failure }

    override var hasBytesAvailable: Bool {
        guard status == .open || status == .notOpen else { return status == .error }
        fill()
        return status == .error || pendingOffset < pending.count
    }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        fill()
        if status == .error { return -1 }
        let available = pending.count - pendingOffset
        guard available > 0, length > 0 else {
            if available == 0 { status = .atEnd }
            return 0
        }
        let count = min(length, available)
        pending.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            buffer.update(from: base.advanced(by: pendingOffset).assumingMemoryBound(to: UInt8.self), count: count)
        }
        pendingOffset += count
        return count
    }

    override func getBuffer(_ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length len: UnsafeMutablePointer<Int>) -> Bool {
        false
    }

    override func property(forKey key: Stream.PropertyKey) -> AnyObject? { nil }

    override func setProperty(_ property: AnyObject?, forKey key: Stream.PropertyKey) -> Bool { false }

    override func schedule(in aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}

    override func remove(from aRunLoop: RunLoop, forMode mode: RunLoop.Mode) {}

    /// Reads the next chunk when the current one is used up.
    private func fill() {
        guard status != .error, pendingOffset >= pending.count else { return }
        do {
            if let chunk = try reader.next() {
                pending = Data(chunk)  // rebased, so offsets start at 0
            } else {
                pending = Data()
            }
            pendingOffset = 0
        } catch {
            failure = error
            readFailure.withLock { $0 = error.localizedDescription }
            status = .error
        }
    }
}
#endif
