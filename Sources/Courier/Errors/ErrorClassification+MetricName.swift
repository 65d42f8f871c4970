extension ErrorClassification {
    /// A short stable name, for metrics dimensions and span attributes.
    var metricName: String {
        switch self {
        case .offline: "offline"
        case .timedOut: "timed_out"
        case .cannotConnect: "cannot_connect"
        case .connectionLost: "connection_lost"
        case .invalidResponse: "invalid_response"
        case .cancelled: "cancelled"
        case .unauthorized: "unauthorized"
        case .forbidden: "forbidden"
        case .notFound: "not_found"
        case .validationFailed: "validation_failed"
        case .clientError: "client_error"
        case .serverError: "server_error"
        case .decodingFailed: "decoding_failed"
        case .invalidRequest: "invalid_request"
        case .custom: "custom"
        case .other: "other"
        }
    }
}
