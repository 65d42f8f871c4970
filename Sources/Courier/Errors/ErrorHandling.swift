/// How ``APIClient`` completes the errors it throws: the user-facing message (seed 001's
/// `localizedDescription` extension, as configuration) and custom classes (seed 004's
/// `customErrorHandler`).
public struct ErrorHandling: Sendable {
    /// Finds a user-facing message in an error's body; `nil` falls back to the classification's
    /// sentence. The default is ``defaultMessage(in:)``.
    public var messageExtractor: @Sendable (CourierError) -> String?
    /// Chooses a classification before the default rules; return `nil` to keep the default.
    public var classifier: (@Sendable (CourierError) -> ErrorClassification?)?

    /// Reads the field errors of an API's own 4xx body shape: given the status and the body, it
    /// returns the errors, or `nil` to let the built-in shapes try.
    public typealias ValidationParser = @Sendable (_ statusCode: Int, _ body: ResponseBodyValue) -> ValidationErrors?

    /// Creates the default handling, optionally with your own pieces.
    public init(
        messageExtractor: @escaping @Sendable (CourierError) -> String? = ErrorHandling.defaultMessage(in:),
        classifier: (@Sendable (CourierError) -> ErrorClassification?)? = nil
    ) {
        self.messageExtractor = messageExtractor
        self.classifier = classifier
    }

    /// The field errors' ``ValidationErrors/summary(limit:)`` when the error has any; else the
    /// string under `error`, `error_message` or `message` of a JSON body (or of `error` when it is
    /// an object; for 4xx answers also `detail` and `title`, as problem details and FastAPI write
    /// them), or of an XML body's child elements of those names; else `nil`.
    public static func defaultMessage(in error: CourierError) -> String? {
        if let errors = error.classification.validationErrors, !errors.fields.isEmpty { return errors.summary() }
        var keys = ["error", "error_message", "message"]
        if let status = error.statusCode, (400..<500).contains(status) { keys += ["detail", "title"] }
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

    /// `error` with its body read, classified (the app's `validationParser` tried on 4xx bodies
    /// before the built-in shapes) and given a user message.
    func complete(_ error: CourierError, validationParser: ValidationParser? = nil) -> CourierError {
        var error = error
        if error.bodyValue == nil, let body = error.body, !body.isEmpty {
            error.bodyValue = ResponseBodyValue.read(body, contentType: error.headers?["Content-Type"])
        }
        if let chosen = classifier?(error) {
            error.classification = chosen
        } else if let validationParser, let status = error.kind.status, (400..<500).contains(status), ![401, 403, 404].contains(status),
                  let body = error.bodyValue, let errors = validationParser(status, body) {
            error.classification = .validationFailed(errors)
        } else {
            error.classification = error.defaultClassification
        }
        error.userMessage = messageExtractor(error) ?? CourierError.defaultUserMessage(for: error.classification) ?? error.message
        return error
    }
}
