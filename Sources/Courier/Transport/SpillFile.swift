import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An unnamed temporary file a ``LiveBody`` keeps its backlog in when its transport cannot pause:
/// unlinked as soon as it is made, so it goes when it is closed (or the process ends) and nothing
/// else can open it. One writer appends at the end it alone moves; one reader reads what was
/// written before; neither holds a lock during the I/O.
package final class SpillFile: Sendable {
    private let descriptor: Int32

    /// Makes the file in the temporary directory.
    package init() throws(CourierError) {
        var template = Array((FileManager.default.temporaryDirectory.path + "/courier-stream-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw Self.failure("could not be created", errno) }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Writes `data` at `offset`, whole.
    package func write(_ data: Data, at offset: Int64) throws(CourierError) {
        var written = 0
        let error: Int32? = data.withUnsafeBytes { bytes in
            while written < bytes.count {
                let count = pwrite(descriptor, bytes.baseAddress! + written, bytes.count - written, off_t(offset) + off_t(written))
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                written += count
            }
            return nil
        }
        if let error { throw Self.failure("could not be written", error) }
    }

    /// Reads `length` bytes at `offset`, written before.
    package func read(_ length: Int, at offset: Int64) throws(CourierError) -> Data {
        var data = Data(count: length)
        var done = 0
        let error: Int32? = data.withUnsafeMutableBytes { bytes in
            while done < length {
                let count = pread(descriptor, bytes.baseAddress! + done, length - done, off_t(offset) + off_t(done))
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                if count == 0 { return EIO }  // shorter than what was written: never expected
                done += count
            }
            return nil
        }
        if let error { throw Self.failure("could not be read", error) }
        return data
    }

    private static func failure(_ what: String, _ code: Int32) -> CourierError {
        CourierError(
            .transport,
            "The part of a stream waiting for its reader \(what) in the temporary directory: \(String(cString: strerror(code))).",
            underlyingError: POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO))
    }
}
