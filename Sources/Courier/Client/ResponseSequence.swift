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
public struct ResponseSequence<Value: Sendable>: AsyncSequence, Sendable {
    /// Each element is one response: the cached one, then the network's.
    public typealias Element = Response<Value>
    /// Iteration fails with the request's error.
    public typealias Failure = CourierError

    let client: APIClient
    let request: Request<Value>

    /// Starts the request.
    public func makeAsyncIterator() -> Iterator {
        let (stream, continuation) = AsyncThrowingStream<Response<Value>, any Error>.makeStream()
        let client = client
        let request = request
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
        return Iterator(base: stream.makeAsyncIterator())
    }

    /// Reads the responses in order.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Response<Value>, any Error>.Iterator

        /// The next response, `nil` after the last.
        public mutating func next() async throws(CourierError) -> Response<Value>? {
            do {
                return try await base.next()
            } catch let error as CourierError {
                throw error
            } catch {
                throw CourierError.cancelled(nil)
            }
        }

        /// The next response, `nil` after the last.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(CourierError) -> Response<Value>? {
            do {
                return try await base.next(isolation: actor)
            } catch let error as CourierError {
                throw error
            } catch {
                throw CourierError.cancelled(nil)
            }
        }
    }
}

extension APIClient {
    /// The responses to `request` as an `AsyncSequence`: two for a ``CacheOption/both`` request
    /// with a cached response (cache first), else one.
    public func responses<Value>(_ request: Request<Value>) -> ResponseSequence<Value> {
        ResponseSequence(client: self, request: request)
    }
}
