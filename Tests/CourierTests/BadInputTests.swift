import Foundation
import Testing

/// Values the app set wrongly get a clear error before anything is sent, on both transports. The
/// requests run in a `courier-test-helper bad-input-probe` process: before these checks some of them killed the
/// process, and a crash must fail this test alone.
@Suite(.timeLimit(.minutes(5)))
struct BadInputTests {
    /// Case name → the kind it must get and words its message must hold.
    static let expected: [String: (kind: String, words: [String])] = [
        "timeout-infinity": ("invalidRequest", ["Request.timeout", "inf"]),
        "websocket-message-size-huge": ("invalidRequest", ["maximumMessageSize", "\(Int.max)"]),
        "websocket-message-size-zero": ("invalidRequest", ["maximumMessageSize", "not 0"]),
        "websocket-ping-zero": ("invalidRequest", ["pingInterval"]),
        "websocket-subprotocol-space": ("invalidRequest", [#""chat v1""#]),
        "websocket-reconnection-negative-delay": ("invalidRequest", ["WebSocketOptions.reconnection"]),
        "websocket-post": ("invalidRequest", ["GET without a body"]),
        "websocket-timeout-nan": ("invalidRequest", ["Request.timeout", "nan"]),
        "timeout-nan": ("invalidRequest", ["Request.timeout", "nan"]),
        "timeout-negative": ("invalidRequest", ["Request.timeout", "-1"]),
        "timeout-zero": ("invalidRequest", ["Request.timeout", "0"]),
        "maximum-size-negative": ("invalidRequest", ["Request.maximumResponseSize", "-1"]),
        "header-value-crlf": ("invalidRequest", ["X-Note", #"\r\n"#]),
        "header-value-nul": ("invalidRequest", ["X-Note"]),
        "header-name-crlf": ("invalidRequest", ["header named", "X-Bad"]),
        "header-name-space": ("invalidRequest", [#""X Bad""#]),
        "header-name-empty": ("invalidRequest", ["header named"]),
        "method-space": ("invalidRequest", [#""GET /ADMIN""#]),
        "method-empty": ("invalidRequest", ["method"]),
        "retry-negative-budget": ("invalidRequest", ["Request.retryPolicy.budget"]),
        "json-infinity": ("encodingFailed", ["user.scores[1]", "inf"]),
        "form-nan": ("encodingFailed", ["score", "nan"]),
        "query-infinity": ("encodingFailed", ["score", "-inf"]),
        "get-with-body": ("invalidRequest", ["GET request has a body"]),
        "model-date-infinity": ("encodingFailed", ["date", "cannot be written"]),
        "download-timeout-infinity": ("invalidRequest", ["Request.timeout"]),
        "configuration-timeout-infinity": ("invalidRequest", ["ClientConfiguration.timeout", "inf"]),
        "configuration-timeout-negative": ("invalidRequest", ["ClientConfiguration.timeout", "-5"]),
        "configuration-header-crlf": ("invalidRequest", ["ClientConfiguration.defaultHeaders", "X-Note"]),
        "configuration-maximum-size-negative": ("invalidRequest", ["ClientConfiguration.maximumResponseSize"]),
        "configuration-freshness-nan": ("invalidRequest", ["ClientConfiguration.cacheFreshness"]),
        "configuration-retry-attempts-zero": ("invalidRequest", ["ClientConfiguration.retryPolicy.maximumAttempts"]),
        "configuration-downloads-directory-web": ("invalidRequest", ["ClientConfiguration.resumableDownloadsDirectory", "file URL"]),
        "delegate-header-crlf": ("invalidRequest", ["willSend", "X-Hooked"]),
    ]

    @Test(arguments: TransportKind.allCases)
    func badValuesFailClearlyBeforeAnythingIsSent(_ kind: TransportKind) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let outcome = try await ChildProcess.run(
            helper: ["bad-input-probe", "--transport", kind == .urlSession ? "urlsession" : "ahc", "--directory", directory.url.path],
            within: .seconds(120))
        #expect(outcome.succeeded, "\(outcome)")
        var seen: Set<String> = []
        for line in outcome.output.split(separator: "\n") where line.hasPrefix("case=") {
            let fields = line.split(separator: " ", maxSplits: 2)
            let name = String(fields[0].dropFirst("case=".count))
            let gotKind = String(fields[1].dropFirst("kind=".count))
            let message = fields.count > 2 ? String(fields[2]) : ""
            seen.insert(name)
            let want = try #require(Self.expected[name], "an unexpected case: \(line)")
            #expect(gotKind == want.kind, "\(line)")
            for word in want.words { #expect(message.contains(word), "\(line) should name \(word)") }
        }
        #expect(seen == Set(Self.expected.keys), "cases missing from: \(outcome.output)")
        #expect(outcome.output.contains("server-requests=0"), "a bad request reached the server: \(outcome.output)")
    }
}
