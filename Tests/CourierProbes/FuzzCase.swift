import Courier
import Foundation

/// One random request and client configuration for the public-API fuzz: what a test generates
/// and a `courier-test-helper fuzz-probe` process sends. Numbers are kept as bit patterns, so NaN and the
/// infinities survive the JSON file between the two.
package struct FuzzCase: Codable, Sendable {
    /// A parameter value.
    package enum Value: Codable, Sendable {
        case string(String)
        case int(Int)
        case double(bits: UInt64)
        case bool(Bool)
        case null
        case data([UInt8])

        var parameter: Parameter {
            switch self {
            case .string(let text): .string(text)
            case .int(let number): .int(number)
            case .double(let bits): .double(Double(bitPattern: bits))
            case .bool(let flag): .bool(flag)
            case .null: .null
            case .data(let bytes): .data(Data(bytes), fileName: "f.bin", mimeType: nil)
            }
        }
    }

    /// The request's body.
    package enum Body: Codable, Sendable {
        case parameters([String: Value], form: Bool)
        case raw([UInt8], contentType: String)
    }

    /// The method's token, as the app would write it.
    package var method: String
    /// The request path.
    package var path: String
    /// The query parameters.
    package var query: [String: Value]
    /// Header name and value pairs.
    package var headers: [[String]]
    /// A timeout's bit pattern, when the request sets one.
    package var timeoutBits: UInt64?
    /// The request's response size limit, when it sets one.
    package var maximumResponseSize: Int64?
    /// The body, when there is one.
    package var body: Body?
    /// The client's timeout, as a bit pattern.
    package var clientTimeoutBits: UInt64
    /// The client's default headers, as name and value pairs.
    package var clientHeaders: [[String]]
    /// The client's retry policy's attempts.
    package var retryAttempts: Int
    /// The client's redirect limit.
    package var maximumRedirects: Int
    /// The client's API path: `echo` (the server's echo routes) unless given.
    package var apiPath: String?

    /// Creates a case.
    package init(
        method: String, path: String, query: [String: Value], headers: [[String]], timeoutBits: UInt64?,
        maximumResponseSize: Int64?, body: Body?, clientTimeoutBits: UInt64, clientHeaders: [[String]],
        retryAttempts: Int, maximumRedirects: Int, apiPath: String? = nil
    ) {
        self.apiPath = apiPath
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.timeoutBits = timeoutBits
        self.maximumResponseSize = maximumResponseSize
        self.body = body
        self.clientTimeoutBits = clientTimeoutBits
        self.clientHeaders = clientHeaders
        self.retryAttempts = retryAttempts
        self.maximumRedirects = maximumRedirects
    }

    /// The request the case describes.
    var request: Request<Data> {
        var request = Request<Data>(HTTPMethod(rawValue: method), path, query: query.mapValues(\.parameter))
        for pair in headers where pair.count == 2 { request.headers[pair[0]] = pair[1] }
        request.timeout = timeoutBits.map { Double(bitPattern: $0) }
        request.maximumResponseSize = maximumResponseSize
        switch body {
        case .parameters(let parameters, let form)?:
            request.body = .parameters(parameters.mapValues(\.parameter))
            if form { request.encoder = URLFormParameterEncoder() }
        case .raw(let bytes, let contentType)?:
            request.body = .data(Data(bytes), contentType: contentType)
        case nil:
            break
        }
        return request
    }

    /// The case's client settings applied to `configuration`.
    func configure(_ configuration: inout ClientConfiguration) {
        configuration.timeout = Double(bitPattern: clientTimeoutBits)
        for pair in clientHeaders where pair.count == 2 { configuration.defaultHeaders[pair[0]] = pair[1] }
        configuration.retryPolicy.maximumAttempts = retryAttempts
        configuration.redirects.maximumRedirects = maximumRedirects
    }
}
