extension CourierError {
    /// The classification from ``kind``, the status code and the body alone.
    package var defaultClassification: ErrorClassification {
        if let status = kind.status {
            switch status {
            case 401: return .unauthorized
            case 403: return .forbidden
            case 404: return .notFound
            case 422: return .validationFailed(bodyValue?.json.flatMap(ValidationErrorParser.parse))
            case 400..<500:
                // A 400 with field errors is a validation failure (many frameworks answer 400);
                // another 4xx only when its errors name fields.
                if let errors = bodyValue?.json.flatMap(ValidationErrorParser.parse),
                   status == 400 || errors.fields.keys.contains(where: { $0 != "base" }) {
                    return .validationFailed(errors)
                }
                return .clientError(status)
            case 500..<600: return .serverError(status)
            default: return .other
            }
        }
        if kind == .decodingFailed { return .decodingFailed(keyPath: keyPath) }
        return kind.classification ?? .other
    }

    /// A plain sentence for a user, per classification (seed 004's messages), or `nil` for classes
    /// that have no general wording.
    static func defaultUserMessage(for classification: ErrorClassification) -> String? {
        if classification.isCustom { return nil }
        switch classification.name {
        case "offline": return "Please check your internet connection."
        case "timedOut": return "The server is not responding. Please try again later."
        case "cannotConnect": return "The server cannot be reached. Please try again later."
        case "connectionLost": return "The connection was interrupted before the answer arrived. Please try again."
        case "invalidResponse": return "The server sent an answer that could not be read. Please try again later."
        case "cancelled": return "The request was cancelled."
        case "unauthorized": return "Please sign in again."
        case "forbidden": return "You are not allowed to do this."
        case "notFound": return "What you asked for was not found."
        case "validationFailed": return classification.validationErrors.map { $0.summary() } ?? "Some of the information sent is not valid."
        case "clientError": return "The request was not accepted."
        case "serverError": return "The server had a problem. Please try again later."
        case "decodingFailed": return "The server's answer could not be read."
        case "insecureConnection": return "A secure connection to the server could not be made."
        default: return nil
        }
    }
}
