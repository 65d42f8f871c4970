import Foundation

extension APIClient {
    /// Called with the origin (``Foundation/URL/origin``) of a request the network answered.
    package typealias AnswerObserver = @Sendable (_ origin: String) -> Void

    /// Tells the answer observers (the outbox's trigger) that a request to `url` was answered by
    /// the network: one atomic load while there are none.
    func notifyAnswer(from url: URL) {
        let observers = answerObservers.all
        guard !observers.isEmpty else { return }
        let origin = url.origin
        for observer in observers { observer(origin) }
    }
}
