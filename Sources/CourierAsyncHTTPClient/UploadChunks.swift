import Courier
import Foundation
import NIOCore
import NIOFoundationCompat

/// A request body handed to async-http-client one chunk at a time. async-http-client asks for the
/// next chunk only once the previous one is written, so each request for a chunk reports the bytes
/// sent so far, and the end of the sequence reports the total.
struct UploadChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let data: Data
    let chunkSize: Int
    let progress: ProgressHandler

    struct AsyncIterator: AsyncIteratorProtocol {
        let chunks: UploadChunks
        var offset = 0

        mutating func next() async -> ByteBuffer? {
            let total = Int64(chunks.data.count)
            chunks.progress(TransferProgress(completed: Int64(offset), total: total))
            guard offset < chunks.data.count else { return nil }
            let end = Swift.min(offset + chunks.chunkSize, chunks.data.count)
            let start = chunks.data.startIndex
            let buffer = ByteBuffer(data: chunks.data[(start + offset)..<(start + end)])
            offset = end
            return buffer
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunks: self) }
}
