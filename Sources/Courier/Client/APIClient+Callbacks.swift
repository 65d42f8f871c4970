import Dispatch

extension APIClient {
    /// The callback a request started with ``request(_:completion:)`` reports to.
    public typealias Completion<Value: Sendable> = @Sendable (Result<Response<Value>, CourierError>) -> Void

    /// Starts `request` and calls `completion` on the request's callback queue (else the client's)
    /// with the response or the error: exactly once, except for a ``CacheOption/both`` request with
    /// a cached response, which is called back first with the cached response (`fromCache` true)
    /// and then with the network's. Cancelling the returned task reports a
    /// ``CourierError/Kind/cancelled`` error, and nothing after it.
    @discardableResult
    public func request<Value>(_ request: Request<Value>, completion: @escaping Completion<Value>) -> RequestTask {
        let queue = request.callbackQueue ?? configuration.callbackQueue
        let id = RequestID.next()
        let handle = RequestTask(id: id) {
            queue.async { completion(.failure(CourierError.cancelled(nil).with(requestID: id))) }
        }
        let task = Task {
            let result: Result<Response<Value>, CourierError>
            do throws(CourierError) {
                result = .success(try await self.deliver(request, id: id) { cached in
                    handle.deliverIntermediate { queue.async { completion(.success(cached)) } }
                })
            } catch {
                result = .failure(error)
            }
            if handle.claimCallback() {
                queue.async { completion(result) }
            }
        }
        handle.attach(task)
        return handle
    }
}

extension CourierError {
    func with(requestID: RequestID) -> CourierError {
        var copy = self
        copy.requestID = requestID
        return copy
    }
}
