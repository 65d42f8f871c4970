import Foundation
import GRDB

/// A database value as JSON: its storage class and its value as text (a blob in base64, a real
/// in Swift's round-tripping form).
struct StoredValue: Codable {
    var kind: String
    var text: String

    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: (kind, text) = ("null", "")
        case .int64(let number): (kind, text) = ("integer", String(number))
        case .double(let number): (kind, text) = ("real", "\(number)")
        case .string(let string): (kind, text) = ("text", string)
        case .blob(let data): (kind, text) = ("blob", data.base64EncodedString())
        }
    }

    var databaseValue: DatabaseValue {
        switch kind {
        case "integer": return Int64(text)?.databaseValue ?? .null
        case "real": return Double(text)?.databaseValue ?? .null
        case "text": return text.databaseValue
        case "blob": return Data(base64Encoded: text)?.databaseValue ?? .null
        default: return .null
        }
    }
}
