import Courier
import Foundation
import NIOCore
import NIOFoundationCompat

/// A request body as async-http-client pulls it: the next chunk is read (from memory or from a
/// file) only when the client asks for it, so a large upload never sits in memory, and upload
/// progress is reported as each chunk is taken.
///
/// async-http-client hands each chunk to its event loop without waiting for the write and pauses
/// only once the event loop has seen the channel fill up; while that loop is busy, chunks could
/// pile up in its queue (24.5 MB of them at the peak of one 200 MB upload, measured with heaptrack).
/// So every ``fenceInterval`` bytes the sequence waits for `fence`: until the client's event loops
/// have run what was queued before, by which time a full channel has paused the stream.
struct BodyChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let body: StreamedBody
    let chunkSize: Int
    let progress: ProgressHandler?
    /// Returns once the event loops have run every task queued before the call.
    let fence: @Sendable () async -> Void
    /// Bytes handed out between two fences.
    static let fenceInterval: Int64 = 1 << 20

    struct AsyncIterator: AsyncIteratorProtocol {
        var reader: StreamedBody.Iterator
        let total: Int64
        let progress: ProgressHandler?
        let fence: @Sendable () async -> Void
        var sent: Int64 = 0
        var sinceFence: Int64 = 0

        mutating func next() async throws -> ByteBuffer? {
            if sinceFence >= BodyChunks.fenceInterval {
                await fence()
                sinceFence = 0
            }
            progress?(TransferProgress(completed: sent, total: total))
            guard let chunk = try reader.next() else { return nil }
            sent += Int64(chunk.count)
            sinceFence += Int64(chunk.count)
            return ByteBuffer(data: chunk)
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(reader: body.chunks(size: chunkSize).makeIterator(), total: body.length, progress: progress, fence: fence)
    }
}

extension BodyChunks {
    /// A fence on every event loop of `group`: each runs an empty task, queued after whatever was
    /// queued before.
    static func fence(on group: any EventLoopGroup) -> @Sendable () async -> Void {
        {
            for loop in group.makeIterator() {
                try? await loop.submit {}.get()
            }
        }
    }
}
