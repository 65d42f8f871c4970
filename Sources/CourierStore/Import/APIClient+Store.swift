import Courier
import Foundation
import GRDB

extension APIClient {
    /// Sends `request` and imports the `Model` objects of its response into `store`, as
    /// `store.import(_:from:contentType:root:missing:)` does.
    ///
    /// With ``CacheOption/both``, the cached answer is imported first and then the network's; a
    /// `304 Not Modified`, or a network answer identical to the cached one, touches nothing
    /// (``ImportSummary/notModified``).
    ///
    /// ```swift
    /// try await client.send(Request<Data>(.get, "images", cache: .both), into: store, as: Image.self, root: "images")
    /// ```
    /// - Returns: what the last import changed.
    /// - Throws: the request's ``CourierError``, or the import's (``CourierError/Kind/decodingFailed``,
    ///   ``CourierError/Kind/store``).
    @_disfavoredOverload
    @discardableResult
    public func send<Value, Model: Decodable & Identified & Sendable>(
        _ request: Request<Value>, into store: CourierStore, as type: Model.Type, root: String? = nil, missing: MissingObjects = .keep
    ) async throws(CourierError) -> ImportSummary {
        try await send(request) { response throws(CourierError) in
            try await store.import(Model.self, from: response.data, contentType: response.headers["Content-Type"], root: root, missing: missing)
        }
    }

    /// Sends `request` and imports the GRDB records of its response into `store`, as
    /// `store.import(_:from:contentType:root:missing:)` does, with the same handling of cached
    /// answers and `304`s as the model form.
    @discardableResult
    public func send<Value, Record: Decodable & FetchableRecord & PersistableRecord & Sendable>(
        _ request: Request<Value>, into store: CourierStore, as type: Record.Type, root: String? = nil, missing: MissingObjects = .keep
    ) async throws(CourierError) -> ImportSummary {
        try await send(request) { response throws(CourierError) in
            try await store.import(Record.self, from: response.data, contentType: response.headers["Content-Type"], root: root, missing: missing)
        }
    }

    private func send<Value>(
        _ request: Request<Value>, importing: (Response<Data>) async throws(CourierError) -> ImportSummary
    ) async throws(CourierError) -> ImportSummary {
        var responses = responses(request.reading(with: .data)).makeAsyncIterator()
        var summary = ImportSummary()
        var imported: Data?
        while let response = try await responses.next() {
            if response.statusCode == 304 || response.data == imported {
                summary = ImportSummary()
                summary.notModified = true
                continue
            }
            summary = try await importing(response)
            imported = response.data
        }
        return summary
    }
}
