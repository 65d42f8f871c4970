/// Reads the responses of ``APIClient/responses(_:)``.
struct ResponseReader<Value: Sendable>: CourierIterator {
    var base: AsyncThrowingStream<Response<Value>, any Error>.Iterator

    /// Starts the request.
    init(client: APIClient, request: Request<Value>) {
        let (stream, continuation) = AsyncThrowingStream<Response<Value>, any Error>.makeStream()
        let task = Task {
            do throws(CourierError) {
                let last = try await client.deliver(request, id: .next()) { cached in continuation.yield(cached) }
                continuation.yield(last)
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        base = stream.makeAsyncIterator()
    }

    mutating func next() async throws(CourierError) -> Response<Value>? {
        do {
            return try await base.next()
        } catch let error as CourierError {
            throw error
        } catch {
            throw CourierError.cancelled(nil)
        }
    }
}

extension APIClient {
    /// The responses to one request: for a ``CacheOption/both`` request with a cached response, the
    /// cached one (`fromCache` true) and then the network's; otherwise one response.
    ///
    /// ```swift
    /// for try await response in client.responses(UserAPI.profile()) {
    ///     show(response.value, fromCache: response.fromCache)
    /// }
    /// ```
    ///
    /// The request starts when iteration starts; ending the iteration early (or cancelling the
    /// iterating task) cancels it.
    public func responses<Value>(_ request: Request<Value>) -> CourierSequence<Response<Value>> {
        CourierSequence { [self] in ResponseReader(client: self, request: request) }
    }
}
