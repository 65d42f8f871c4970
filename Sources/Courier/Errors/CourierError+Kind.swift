extension CourierError {
    /// The class of failure: a value with static members, so that a release can add kinds without
    /// breaking code that reads them.
    ///
    /// ```swift
    /// switch error.kind {
    /// case .timedOut, .cannotConnect: showRetryButton()
    /// case .httpStatus(404): showNotFound()
    /// default: showGenericFailure(error.message)
    /// }
    /// ```
    ///
    /// Match ``httpStatus(_:)`` with a code, or read ``CourierError/statusCode`` and ``isHTTPStatus``.
    /// Packages built on Courier may add kinds of their own (`CourierStore` adds `store`).
    ///
    /// This is Courier's one list of failures: each kind says here what it is, and the rest is
    /// derived from that: its ``CourierError/classification``, whether it is a network failure
    /// (what ``RetryPolicy`` retries by default, what offline mode answers from the cache) and
    /// whether the same request could ever be sent (what the outbox gives up on).
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        /// The kind's name, such as `timedOut`; for ``httpStatus(_:)``, `httpStatus`.
        public let name: String
        /// The status, for ``httpStatus(_:)``.
        public let status: Int?
        /// The classification the kind has whatever the response; `nil` for kinds classified by
        /// their status or key path, and for `other`.
        let classification: ErrorClassification?
        /// What the failure says of the request and the network.
        package let nature: Nature

        /// What a failure says of the request and the network.
        package enum Nature: Sendable {
            /// The request could not be made: nothing was sent, and sending it again as it is fails
            /// again.
            case unsendable
            /// The server was not reached, or did not answer in time.
            case unreachable
            /// The server was reached, and the connection broke before the whole answer arrived.
            case lost
            /// Anything else: an answer, a refusal, a cancellation, a decoding failure.
            case other
        }

        /// A kind named `name`: for packages that add their own kinds (pick a name no other
        /// package would use, such as one prefixed with your package's).
        public init(_ name: String) {
            self.init(name, nil, .other)
        }

        private init(_ name: String, _ classification: ErrorClassification?, _ nature: Nature) {
            self.name = name
            status = nil
            self.classification = classification
            self.nature = nature
        }

        private init(httpStatus: Int) {
            name = "httpStatus"
            status = httpStatus
            classification = nil
            nature = .other
        }

        /// Whether the server was not reached, did not answer in time, or broke the connection:
        /// the one answer to "was this a network failure".
        package var isNetworkFailure: Bool { nature == .unreachable || nature == .lost }

        /// Kinds are equal by name and status.
        public static func == (lhs: Kind, rhs: Kind) -> Bool { lhs.name == rhs.name && lhs.status == rhs.status }

        /// Hashes the name and the status, as ``==`` compares them.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(name)
            hasher.combine(status)
        }

        /// The URL could not be built, or is not an absolute `http`/`https` URL.
        public static let invalidURL = Kind("invalidURL", .invalidRequest, .unsendable)
        /// A setting of the request or of the client has a value Courier cannot send (an infinite
        /// or negative timeout, a header with a line break, a method that is not a token…); the
        /// message names the setting and the value. Nothing was sent.
        public static let invalidRequest = Kind("invalidRequest", .invalidRequest, .unsendable)
        /// The parameters or body could not be encoded (a value JSON cannot hold, such as an
        /// infinite number; a file that cannot be read).
        public static let encodingFailed = Kind("encodingFailed", .invalidRequest, .unsendable)
        /// The host refused the connection or could not be found.
        public static let cannotConnect = Kind("cannotConnect", .cannotConnect, .unreachable)
        /// The request or the connection timed out: the server is not responding.
        public static let timedOut = Kind("timedOut", .timedOut, .unreachable)
        /// The device has no network connection.
        public static let notConnectedToInternet = Kind("notConnectedToInternet", .offline, .unreachable)
        /// The connection broke after it was made: the server closed or reset it before the whole
        /// response arrived (a body shorter than its `Content-Length`, a reset mid-body, a close
        /// before any answer). The server was reached; what it sent is not used.
        public static let connectionLost = Kind("connectionLost", .connectionLost, .lost)
        /// The server's answer broke HTTP's rules: conflicting `Content-Length` headers, a malformed
        /// chunk, a header too large to read, a body in an encoding the transport cannot decode.
        public static let invalidResponse = Kind("invalidResponse", .invalidResponse, .other)
        /// The request was cancelled.
        public static let cancelled = Kind("cancelled", .cancelled, .other)
        /// Redirects looped or went past the limit, or a redirect had no valid `Location`.
        public static let redirectFailed = Kind("redirectFailed", nil, .other)
        /// The body could not be turned into the expected type.
        public static let decodingFailed = Kind("decodingFailed", nil, .other)
        /// Any other transport failure; see ``CourierError/underlyingError``.
        public static let transport = Kind("transport", nil, .other)
        /// A delegate hook turned the response into an error; see ``CourierError/underlyingError``.
        public static let rejected = Kind("rejected", nil, .other)
        /// The response body was longer than the allowed maximum
        /// (``ClientConfiguration/maximumResponseSize``); it was not read further.
        public static let responseTooLarge = Kind("responseTooLarge", nil, .other)
        /// The request said `Cache-Control: only-if-cached` (under ``CacheFreshness/http``) and the
        /// cache holds no response for it; nothing was sent. An HTTP cache answers `504` here.
        public static let notCached = Kind("notCached", nil, .other)
        /// The TLS handshake refused the server: its certificate is not signed by a trusted root,
        /// is for another host name, has expired, holds none of the host's pins, or the server
        /// offers no TLS version the ``TrustPolicy`` accepts. Nothing of the request was sent.
        public static let untrustedServer = Kind("untrustedServer", .insecureConnection, .other)
        /// The server refused the TLS handshake over the client certificate: it asked for one and
        /// none was configured (``TrustPolicy/clientIdentity``), or it did not accept the one
        /// presented. Nothing of the request was sent.
        public static let clientCertificateRefused = Kind("clientCertificateRefused", .insecureConnection, .other)

        /// The server answered with `status`, outside the acceptable range.
        public static func httpStatus(_ status: Int) -> Kind { Kind(httpStatus: status) }

        /// Whether the kind is ``httpStatus(_:)``, whatever the status.
        var isHTTPStatus: Bool { status != nil }

        /// `timedOut`, `httpStatus(404)`.
        public var description: String {
            status.map { "httpStatus(\($0))" } ?? name
        }
    }
}
