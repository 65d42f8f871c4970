import Foundation

/// Checks that a response body agrees with the headers that frame it, so a body cut short or
/// padded never passes as a whole one. Both transports run it before they return a response.
package enum ResponseFraming {
    /// The declared `Content-Length`, or `nil` when there is none.
    /// - Throws: ``CourierError/Kind/invalidResponse`` when the header is not a number or when
    ///   several `Content-Length` values disagree (a response smuggling two framings).
    package static func declaredLength(_ headers: HTTPHeaders, url: URL) throws(CourierError) -> Int64? {
        // The usual case, one field of plain digits, read byte by byte: trimming through
        // Foundation's character sets costs more than the rest of a small response's handling.
        if let only = headers.onlyValue(for: "Content-Length"), let length = plainDigits(only) { return length }
        let declared = headers.values(for: "Content-Length")
        let values = declared
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = values.first else { return nil }
        guard let length = Int64(first), length >= 0 else {
            throw CourierError(
                .invalidResponse, "\(url.hostAndPort) sent a Content-Length that is not a number (\"\(first)\").", url: url)
        }
        if values.contains(where: { $0 != first }) {
            throw CourierError(
                .invalidResponse,
                "\(url.hostAndPort) sent conflicting Content-Length headers (\(values.joined(separator: ", "))), so the body's end cannot be known; nothing of it was used.",
                url: url)
        }
        return length
    }

    /// The value of `text` when it is 1 to 18 ASCII digits and nothing else.
    package static func plainDigits(_ text: String) -> Int64? {
        let utf8 = text.utf8
        guard !utf8.isEmpty, utf8.count <= 18 else { return nil }
        var value: Int64 = 0
        for byte in utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// Whether the body came in a content coding (`gzip`, `deflate`, `br`): its decoded length is
    /// not the one `Content-Length` declares.
    package static func isEncoded(_ headers: HTTPHeaders) -> Bool {
        guard let coding = headers["Content-Encoding"]?.trimmingCharacters(in: .whitespaces).lowercased() else { return false }
        return !coding.isEmpty && coding != "identity"
    }

    /// Whether a response to `method` with `statusCode` has a body at all (RFC 9110 §6.4.1).
    package static func hasBody(statusCode: Int, method: HTTPMethod) -> Bool {
        !(method == .head || (100..<200).contains(statusCode) || statusCode == 204 || statusCode == 304)
    }

    /// Throws when `received` body bytes contradict the declared length.
    /// - Throws: ``CourierError/Kind/connectionLost`` for a body shorter than declared (the
    ///   connection ended early), ``CourierError/Kind/invalidResponse`` for conflicting lengths or
    ///   a longer body.
    package static func check(
        received: Int64, headers: HTTPHeaders, statusCode: Int, method: HTTPMethod, url: URL
    ) throws(CourierError) {
        guard let declared = try declaredLength(headers, url: url),
              hasBody(statusCode: statusCode, method: method), !isEncoded(headers)
        else { return }
        if received < declared {
            throw truncated(url: url, received: received, declared: declared)
        }
        if received > declared {
            throw CourierError(
                .invalidResponse,
                "\(url.hostAndPort) sent \(received) bytes of body where its Content-Length said \(declared); the body was not used.",
                url: url)
        }
    }

    /// A body that ended before its declared length.
    package static func truncated(url: URL, received: Int64, declared: Int64?, underlyingError: (any Error)? = nil) -> CourierError {
        let amount = declared.map { "\(received) of \($0) bytes" } ?? "\(received) bytes"
        return CourierError(
            .connectionLost,
            "The connection to \(url.hostAndPort) ended after \(amount) of the response body; the partial body was discarded. Try again.",
            url: url, underlyingError: underlyingError)
    }

    /// The headers of a body a transport decoded: without `Content-Encoding` and `Content-Length`,
    /// which described the encoded bytes, not the body handed on.
    package static func decoded(_ headers: HTTPHeaders) -> HTTPHeaders {
        guard isEncoded(headers) else { return headers }
        var result = headers
        result.remove("Content-Encoding")
        result.remove("Content-Length")
        return result
    }
}
