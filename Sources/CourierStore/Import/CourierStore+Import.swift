import Courier
import Foundation
import GRDB

extension CourierStore {
    /// Imports the `Model` objects of a response body (JSON or XML) in one transaction: new ones
    /// are inserted, changed ones updated, unchanged ones left untouched (not rewritten, so
    /// observers hear nothing), and with ``MissingObjects/delete`` stored ones the body does not
    /// list are deleted. Nested `Identified` models are stored as their own rows too.
    ///
    /// ```swift
    /// let summary = try await store.import(User.self, from: response.data, root: "data.users", missing: .delete)
    /// ```
    ///
    /// - Parameters:
    ///   - root: the key path of the objects in the body (seed 004's `firstKey`: `"object"`,
    ///     `"data.items"`); `nil` for a body that is the object or the list itself.
    ///   - contentType: the response's `Content-Type`; without it, XML is told by its first byte.
    /// - Throws: ``CourierError/Kind/decodingFailed`` (with the key path) when an object does not
    ///   fit the model or the root is missing, ``CourierError/Kind/store`` when SQLite fails. Either
    ///   way nothing was changed.
    @_disfavoredOverload
    @discardableResult
    public func `import`<Model: Decodable & Identified & Sendable>(
        _ type: Model.Type, from body: Data, contentType: String? = nil, root: String? = nil, missing: MissingObjects = .keep
    ) async throws(CourierError) -> ImportSummary {
        let decoder = configuration.decoder
        let elements = try Self.elements(of: body, contentType: contentType, root: root, as: Model.self, decoder: decoder)
        let importedAt = Date().timeIntervalSince1970
        do {
            return try await database.write { db in
                try ModelImporter(db: db, store: self, decoder: decoder, importedAt: importedAt)
                    .run(Model.self, elements: elements, missing: missing)
            }
        } catch {
            throw CourierError.store(error, path: path, doing: "import \(StoreTable.name(of: Model.self)) objects")
        }
    }

    /// The objects of a body, or a decoding error that says where the import looked.
    static func elements<Model: Decodable>(
        of body: Data, contentType: String?, root: String?, as model: Model.Type, decoder: ModelDecoder
    ) throws(CourierError) -> [ImportElement] {
        do {
            return try ImportSource.elements(of: body, contentType: contentType, root: root, as: Model.self, decoder: decoder)
        } catch {
            var failure = CourierError(
                .decodingFailed, "The response could not be imported as \(StoreTable.name(of: model)) objects: \(error)",
                underlyingError: error)
            failure.keyPath = root
            failure.classification = failure.defaultClassification
            throw failure
        }
    }
}
