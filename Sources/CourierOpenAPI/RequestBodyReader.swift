import Courier
import Foundation
import OpenAPIRuntime

/// Reads a generated request's body before it is sent, so that a retry or a redirect can send it
/// again: in memory up to ``inMemoryLimit``, and a longer one (or one that grows past it) written
/// to a temporary file as it is read, then streamed from there, so memory stays bounded whatever
/// the body's size. Either way at most `limit` bytes.
struct RequestBodyReader {
    /// Bodies up to this many bytes stay in memory.
    static let inMemoryLimit = 1 << 20

    /// Where a body ends up.
    enum Read {
        case memory(Data)
        /// A temporary file the caller removes once the request is done.
        case file(URL, length: Int64)
    }

    /// The most bytes read.
    let limit: Int
    /// The operation, for messages.
    let operationID: String
    /// Where a spooled body's file goes.
    var directory = FileManager.default.temporaryDirectory

    /// The whole of `body`, or a ``Courier/CourierError/Kind/invalidRequest`` error when it is
    /// longer than ``limit`` or cannot be read or spooled.
    func read(_ body: HTTPBody) async throws(CourierError) -> Read {
        guard limit >= 0 else {
            throw CourierError(.invalidRequest, "The transport's maximumRequestBodySize is \(limit) bytes; a size must be 0 or more.")
        }
        var known: Int64?
        if case .known(let length) = body.length {
            guard length <= limit else { throw tooLarge(length) }
            known = length
        }
        var bytes = Data(capacity: Int(min(max(known ?? 0, 0), Int64(Self.inMemoryLimit))))
        var spool: (file: URL, handle: FileHandle)?
        var length: Int64 = 0
        do {
            for try await chunk in body {
                length += Int64(chunk.count)
                guard length <= limit else { throw tooLarge(nil) }
                if let spool {
                    try spool.handle.write(contentsOf: chunk)
                } else if bytes.count + chunk.count <= Self.inMemoryLimit {
                    bytes.append(contentsOf: chunk)
                } else {
                    let opened = try Self.openSpool(in: directory)
                    spool = opened
                    try opened.handle.write(contentsOf: bytes)
                    try opened.handle.write(contentsOf: chunk)
                    bytes = Data()
                }
            }
            guard let spool else { return .memory(bytes) }
            try spool.handle.close()
            return .file(spool.file, length: length)
        } catch {
            if let spool {
                try? spool.handle.close()
                try? FileManager.default.removeItem(at: spool.file)
            }
            switch error {
            case let error as CourierError: throw error
            case let error as CancellationError:
                throw CourierError(.cancelled, "The request \(operationID) was cancelled while its body was read.", underlyingError: error)
            default:
                throw CourierError(.invalidRequest, "The body of \(operationID) could not be read or written to a temporary file: \(error)", underlyingError: error)
            }
        }
    }

    /// A new file in `directory`, open for writing.
    private static func openSpool(in directory: URL) throws -> (file: URL, handle: FileHandle) {
        let file = directory.appendingPathComponent("courier-openapi-\(UUID().uuidString).body")
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
        }
        return (file, try FileHandle(forWritingTo: file))
    }

    private func tooLarge(_ length: Int64?) -> CourierError {
        let size = length.map { "\($0) bytes" } ?? "more than that"
        return CourierError(
            .invalidRequest,
            "The body of \(operationID) is \(size); the transport sends at most \(limit) bytes (its maximumRequestBodySize). Raise it, or send the file with Courier's upload(_:parts:).")
    }
}
