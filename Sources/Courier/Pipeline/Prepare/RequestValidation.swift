import Foundation

/// The checks that refuse a value the app set wrongly, before anything is sent: a clear
/// ``CourierError/Kind/invalidRequest`` that names the setting and the value, never a crash in a
/// transport and never bytes on the wire the app did not mean.
///
/// - Durations are finite and greater than 0 (timeouts), or at least 0 (retry delays, budgets,
///   cache ages; ``CacheFreshness/age(_:)`` also takes `.infinity`, "fresh forever").
/// - Sizes and counts are at least 0.
/// - Method and header names are RFC 9110 tokens; header values hold no control character but
///   the tab (CR, LF and NUL would end or split a header line).
enum RequestValidation {
    /// A timeout in seconds: finite and greater than 0.
    static func checkTimeout(_ seconds: TimeInterval, _ setting: String) throws(CourierError) {
        guard seconds.isFinite, seconds > 0 else {
            throw invalid(
                "\(setting) is \(seconds) seconds; a timeout must be a finite number of seconds greater than 0 "
                    + "(for a long transfer, give a large value such as 3600, or use download(to:), which streams)")
        }
    }

    /// A size in bytes: at least 0.
    static func checkSize(_ bytes: Int64?, _ setting: String) throws(CourierError) {
        guard let bytes, bytes < 0 else { return }
        throw invalid("\(setting) is \(bytes) bytes; a size must be 0 or more")
    }

    /// A method name: a token (letters, digits and ``!#$%&'*+-.^_`|~``), not empty.
    static func checkMethod(_ method: HTTPMethod) throws(CourierError) {
        // GET and POST, most requests' methods, are tokens: no byte of theirs is read.
        guard method != .get, method != .post else { return }
        guard isToken(method.rawValue) else {
            throw invalid("the method \(quoted(method.rawValue)) is not a valid HTTP method name (a token: letters, digits and !#$%&'*+-.^_`|~)")
        }
    }

    /// Every header's name is a token and its value holds no control character but the tab.
    /// `setting` names where the headers came from; it is made only for the message of a failure.
    static func checkHeaders(_ headers: HTTPHeaders, _ setting: @autoclosure () -> String) throws(CourierError) {
        for field in headers {
            guard isToken(field.name) else {
                throw invalid("\(setting()) has a header named \(quoted(field.name)), which is not a valid header name (a token: letters, digits and !#$%&'*+-.^_`|~)")
            }
            guard isFieldValue(field.value) else {
                throw invalid("\(setting()) has a value for \(field.name) with a line break or another control character (\(quoted(field.value))); header values cannot hold CR, LF or NUL")
            }
        }
    }

    /// A `GET` or `HEAD` request carries no body (their parameters go in the URL): HTTP gives such
    /// a body no meaning, and URLSession on Linux fails where async-http-client sends it.
    static func checkBody(_ body: RequestBody, for method: HTTPMethod) throws(CourierError) {
        guard method.encodesParametersInURL else { return }
        switch body.content {
        case .none, .parameters: return
        default:
            throw invalid("the \(method.rawValue) request has a body; \(method.rawValue) requests cannot carry one (their parameters go in the query): send it with POST, PUT or PATCH")
        }
    }

    /// A wire request as a hook returned it: method, headers, timeout, size, file ranges.
    static func check(_ wire: TransportRequest, _ setting: String) throws(CourierError) {
        try checkMethod(wire.method)
        for segment in wire.bodyStream?.segments ?? [] {
            guard case .file(let url, let start, let length) = segment.content, start < 0 || length < 0 else { continue }
            throw invalid("\(setting) has a body whose range of \(url.path) starts at \(start) and is \(length) bytes long; neither may be negative")
        }
        try checkHeaders(wire.headers, setting)
        try checkTimeout(wire.timeout, setting + "'s timeout")
        try checkSize(wire.maximumResponseSize, setting + "'s maximumResponseSize")
    }

    /// A freshness rule's age: 0 or more seconds, or `.infinity`.
    static func checkFreshness(_ freshness: CacheFreshness, _ setting: String) throws(CourierError) {
        guard let seconds = freshness.maximumAge, seconds.isNaN || seconds < 0 else { return }
        throw invalid("\(setting) is .age(\(seconds)); an age must be 0 or more seconds (.infinity: fresh forever)")
    }

    /// A freshness rule for a cache on a shared store: only HTTP's, which the client then applies
    /// as a shared cache (RFC 9111); the others know nothing of what a shared cache must not store.
    static func checkSharedFreshness(_ freshness: CacheFreshness, _ setting: String) throws(CourierError) {
        guard !freshness.isHTTP else { return }
        throw invalid("\(setting) is \(freshness.spelling) and the cache is on a shared store; a shared cache follows HTTP's rules only (set it to .http), so that no answer meant for one user reaches another")
    }

    /// A retry policy's counts and durations.
    static func checkRetryPolicy(_ policy: RetryPolicy, _ setting: String) throws(CourierError) {
        guard policy.maximumAttempts >= 1 else {
            throw invalid("\(setting).maximumAttempts is \(policy.maximumAttempts), below 1; it must be 1 or more (1 sends once)")
        }
        for (name, value) in [("baseDelay", policy.baseDelay), ("maximumDelay", policy.maximumDelay), ("budget", policy.budget)]
        where value < .zero {
            throw invalid("\(setting).\(name) is negative (\(value)); a delay or budget must be 0 or more")
        }
    }

    /// The client-wide settings, checked once when the client is made; the problem fails every
    /// request the client sends.
    static func problem(in configuration: ClientConfiguration) -> CourierError? {
        do throws(CourierError) {
            try checkTimeout(configuration.timeout, "ClientConfiguration.timeout")
            try checkSize(configuration.maximumResponseSize, "ClientConfiguration.maximumResponseSize")
            try checkHeaders(configuration.defaultHeaders, "ClientConfiguration.defaultHeaders")
            try checkRetryPolicy(configuration.retryPolicy, "ClientConfiguration.retryPolicy")
            try checkFreshness(configuration.cacheFreshness, "ClientConfiguration.cacheFreshness")
            if configuration.cache?.isShared == true {
                try checkSharedFreshness(configuration.cacheFreshness, "ClientConfiguration.cacheFreshness")
                if let names = configuration.cacheScopeHeaders {
                    throw invalid("ClientConfiguration.cacheScopeHeaders is \(names); a cache on a shared store keeps no entry per user, so it has no per-user scope (set it to nil)")
                }
            }
            if let directory = configuration.resumableDownloadsDirectory, !directory.isFileURL {
                throw invalid("ClientConfiguration.resumableDownloadsDirectory is \(quoted(directory.absoluteString)); it must be a file URL (a folder on this device)")
            }
            if let jar = configuration.cookies.jar, let problem = jar.problem {
                throw invalid("ClientConfiguration.cookies is a CookieJar whose \(problem)")
            }
            guard configuration.redirects.maximumRedirects >= 0 else {
                throw invalid("ClientConfiguration.redirects.maximumRedirects is \(configuration.redirects.maximumRedirects); it must be 0 or more (0 follows none)")
            }
            for name in configuration.authenticationHeaders + (configuration.cacheScopeHeaders ?? []) + [configuration.expiryHeader].compactMap({ $0 })
            where !isToken(name) {
                throw invalid("ClientConfiguration names the header \(quoted(name)), which is not a valid header name")
            }
            return nil
        } catch {
            return error
        }
    }

    private static func invalid(_ message: String) -> CourierError {
        CourierError(.invalidRequest, message.prefix(1).uppercased() + message.dropFirst() + ". Nothing was sent.")
    }

    /// The text in quotes with control characters shown as escapes (a line break in a message
    /// would split a log line), cut to 80 characters.
    static func quoted(_ text: String) -> String {
        var shown = ""
        for scalar in text.unicodeScalars.prefix(80) {
            shown += scalar.value < 0x20 || scalar.value == 0x7F ? scalar.escaped(asASCII: true) : String(scalar)
        }
        return "\"" + shown + (text.unicodeScalars.count > 80 ? "…" : "") + "\""
    }

    /// RFC 9110 `token`: one or more `tchar`.
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(isTokenByte)
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// RFC 9110 `field-value`: visible characters, spaces, tabs and non-ASCII bytes; no other
    /// control character.
    private static func isFieldValue(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 ? $0 != 0x7F : $0 == 0x09 }
    }
}
