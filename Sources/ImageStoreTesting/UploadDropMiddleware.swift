import Courier
import Hummingbird
import ImageStoreServer
import NIOCore

/// Counts the body bytes the resumable-upload routes (`/uploads/tus…`, `/uploads/resumable…`)
/// take, in the tally's `uploads/received`, and with a `Test-Drop-Every: N` header on a request,
/// cuts its body where the bytes taken reach a multiple of N (less `Test-Drop-Offset`, when
/// given): the route keeps what arrived, and
/// the request fails as a dropped connection would (`uploads/drops` counts the cuts).
struct UploadDropMiddleware<Context: RequestContext>: RouterMiddleware {
    let tally: Tally

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard path.hasPrefix("/uploads/tus") || path.hasPrefix("/uploads/resumable") else { return try await next(request, context) }
        var request = request
        let every = request.headers[values: .init("Test-Drop-Every")!].first.flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
        // Within 0..<every, so that the count plus it cannot overflow.
        let offset = every.map { every in (request.headers[values: .init("Test-Drop-Offset")!].first.flatMap { Int($0) } ?? 0) % every } ?? 0
        request.body = RequestBody(asyncSequence: CuttingBody(base: request.body, tally: tally, every: every, offset: max(offset, 0)))
        do {
            return try await next(request, context)
        } catch is CuttingBody.Cut {
            // The connection closes part way through an answer's body: what a client sees of a
            // connection lost before the answer.
            return Response(status: .ok, headers: [.contentLength: "1"], body: ResponseBody { _ in throw CuttingBody.Cut() })
        }
    }
}

/// A request body that counts what is read of it and ends in an error at the next multiple of
/// `every` bytes counted (over every request).
struct CuttingBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    struct Cut: Error {}

    let base: RequestBody
    let tally: Tally
    let every: Int?
    let offset: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: RequestBody.AsyncIterator
        let tally: Tally
        let every: Int?
        let offset: Int
        var cut = false

        mutating func next() async throws -> ByteBuffer? {
            if cut {
                tally.add(1, to: "uploads/drops")
                throw Cut()
            }
            guard var buffer = try await base.next() else { return nil }
            let before = tally.count("uploads/received")
            if let every {
                let room = every - (before % every + offset) % every
                if buffer.readableBytes >= room {
                    buffer = buffer.getSlice(at: buffer.readerIndex, length: room) ?? buffer
                    cut = true
                }
            }
            tally.add(buffer.readableBytes, to: "uploads/received")
            return buffer
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), tally: tally, every: every, offset: offset)
    }
}
