/// A transport that only has ``HTTPTransport/send(_:observer:)`` (a user's own, `StubTransport`) in
/// the start-and-call-back shape every exchange of ``APIClient`` runs in: `send` runs in a task
/// of the exchange's own, started on the calling thread, which cancelling the exchange cancels.
struct SendingTransportAdapter: CallbackTransport {
    let base: any HTTPTransport

    func send(_ request: TransportRequest, observer: TransferObserver) async throws -> TransportResponse {
        try await base.send(request, observer: observer)
    }

    func start(
        _ request: TransportRequest, observer: TransferObserver,
        completion: @escaping @Sendable (Result<TransportResponse, any Error>) -> Void
    ) -> TransportCancellation {
        let task = Task<Void, Never>.startingHere {
            do {
                completion(.success(try await base.send(request, observer: observer)))
            } catch {
                completion(.failure(error))
            }
        }
        return { task.cancel() }
    }
}
