import Foundation
import GRDB

/// An image's metadata, as the store returns it (JSON, or XML with `?type=xml`).
struct ImageRecord: Codable, Sendable, FetchableRecord {
    var id: Int64
    var title: String
    var description: String
    var fileName: String
    var mimeType: String
    var size: Int
    /// ISO 8601.
    var createdAt: String
    /// ISO 8601.
    var updatedAt: String

    init(row: Row) throws {
        id = row["id"]
        title = row["title"]
        description = row["description"]
        fileName = row["fileName"]
        mimeType = row["mimeType"]
        size = row["size"]
        createdAt = (row["createdAt"] as Date).formatted(.iso8601)
        updatedAt = (row["updatedAt"] as Date).formatted(.iso8601)
    }

    /// The columns selected for a record (never the bytes).
    static let columns = "id, title, description, fileName, mimeType, length(data) AS size, createdAt, updatedAt"
}
