import Courier
import OpenAPIRuntime

extension ClientError {
    /// The ``Courier/CourierError`` a request sent through ``APIClientTransport`` failed with: its
    /// classification, user message, status and body, and a 422's parsed field errors.
    ///
    /// ```swift
    /// do {
    ///     _ = try await client.signUp(body: .json(.init(email: "ana@example.com", password: "short")))
    /// } catch let error as ClientError {
    ///     if let fields = error.courierError?.validationErrors { show(fields) }
    /// }
    /// ```
    public var courierError: CourierError? { underlyingError as? CourierError }
}
