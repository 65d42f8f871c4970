import Courier
import Foundation
import GRDB

extension CourierError.Kind {
    /// A local store (`CourierStore`) could not read or write its database; the message has
    /// SQLite's words and the file's path.
    public static let store = CourierError.Kind("store")
}

extension CourierError {
    /// A store failure in words: decoding failures stay ``Kind/decodingFailed`` with their key path;
    /// SQLite's own failures become ``Kind/store`` with SQLite's message and the file's path.
    static func store(_ error: any Error, path: URL?, doing action: String) -> CourierError {
        if let error = error as? CourierError { return error }
        let place = path.map { "The store at \($0.path)" } ?? "The in-memory store"
        if let error = error as? ModelDecodingError {
            var failure = CourierError(
                .decodingFailed, "\(place) could not \(action): the response does not fit the model (\(error.description)).",
                underlyingError: error)
            failure.keyPath = error.keyPath
            failure.classification = failure.defaultClassification
            return failure
        }
        if let error = error as? DatabaseError {
            return CourierError(
                .store, "\(place) could not \(action): SQLite said “\(error.message ?? "\(error.resultCode)")” (\(error.resultCode)).",
                underlyingError: error)
        }
        if error is CancellationError {
            return CourierError(.cancelled, "\(place) did not \(action): the task was cancelled.", underlyingError: error)
        }
        return CourierError(.store, "\(place) could not \(action): \(error)", underlyingError: error)
    }
}
