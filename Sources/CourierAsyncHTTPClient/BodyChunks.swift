import Courier
import Foundation
import NIOCore
import NIOFoundationCompat

/// A request body as async-http-client pulls it: the next chunk is read (from memory or from a
/// file) only when the client asks for it, so a large upload never sits in memory, and upload
/// progress is reported as each chunk is taken.
struct BodyChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let body: StreamedBody
    let chunkSize: Int
    let progress: ProgressHandler?

    struct AsyncIterator: AsyncIteratorProtocol {
        var reader: StreamedBody.Iterator
        let total: Int64
        let progress: ProgressHandler?
        var sent: Int64 = 0

        mutating func next() async throws -> ByteBuffer? {
            progress?(TransferProgress(completed: sent, total: total))
            guard let chunk = try reader.next() else { return nil }
            sent += Int64(chunk.count)
            return ByteBuffer(data: chunk)
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(reader: body.chunks(size: chunkSize).makeIterator(), total: body.length, progress: progress)
    }
}
