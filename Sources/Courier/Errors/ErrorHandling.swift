/// How ``APIClient`` completes the errors it throws: the user-facing message (seed 001's
/// `localizedDescription` extension, as configuration) and custom classes (seed 004's
/// `customErrorHandler`).
public struct ErrorHandling: Sendable {
    /// Finds a user-facing message in an error's body; `nil` falls back to the classification's
    /// sentence. The default is ``defaultMessage(in:)``.
    public var messageExtractor: @Sendable (CourierError) -> String?
    /// Chooses a classification before the default rules; return `nil` to keep the default.
    public var classifier: (@Sendable (CourierError) -> ErrorClassification?)?

    /// Creates the default handling, optionally with your own pieces.
    public init(
        messageExtractor: @escaping @Sendable (CourierError) -> String? = ErrorHandling.defaultMessage(in:),
        classifier: (@Sendable (CourierError) -> ErrorClassification?)? = nil
    ) {
        self.messageExtractor = messageExtractor
        self.classifier = classifier
    }

    /// The string under `error`, `error_message` or `message` of a JSON body (or of `error` when it
    /// is an object), or of an XML body's child elements of those names; else `nil`.
    public static func defaultMessage(in error: CourierError) -> String? {
        let keys = ["error", "error_message", "message"]
        switch error.bodyValue {
        case .json(let json):
            for key in keys {
                if let text = json[key]?.stringValue, !text.isEmpty { return text }
            }
            for key in keys {
                if let text = json["error"]?[key]?.stringValue, !text.isEmpty { return text }
            }
            return nil
        case .xml(let root):
            for key in keys {
                if let text = root[key]?.text, !text.isEmpty { return text }
            }
            return nil
        default:
            return nil
        }
    }

    /// `error` with its body read, classified and given a user message.
    func complete(_ error: CourierError) -> CourierError {
        var error = error
        if error.bodyValue == nil, let body = error.body, !body.isEmpty {
            error.bodyValue = ResponseBodyValue.read(body, contentType: error.headers?["Content-Type"])
        }
        error.classification = classifier?(error) ?? error.defaultClassification
        error.userMessage = messageExtractor(error) ?? CourierError.defaultUserMessage(for: error.classification) ?? error.message
        return error
    }
}
