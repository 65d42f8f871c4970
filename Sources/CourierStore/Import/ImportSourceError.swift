/// Why a response body holds no objects to import where the import looked.
enum ImportSourceError: Error, CustomStringConvertible {
    case notAList(path: String, found: String)
    case notJSONOrXML

    var description: String {
        switch self {
        case .notAList(let path, let found):
            "the response \(path.isEmpty ? "" : "under “\(path)” ")holds \(found), not an object or a list of objects"
        case .notJSONOrXML: "the response is neither JSON nor XML (text, such as an HTML page, or binary data)"
        }
    }
}
