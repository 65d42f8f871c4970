import AsyncHTTPClient

/// Server-Sent Events counted by hand, the raw side of `courier-bench stream` and of
/// `courier-probe --side raw-events`: blank lines (LF LF) in the bytes as they arrive.
package enum RawEvents {
    /// Counts LF LF in bytes that arrive in pieces.
    package struct Counter {
        package var events = 0
        var lastWasLineFeed = false

        package init() {}

        package mutating func scan(_ bytes: UnsafeRawBufferPointer) {
            for byte in bytes {
                if byte == 10 {
                    if lastWasLineFeed { events += 1 }
                    lastWasLineFeed = true
                } else {
                    lastWasLineFeed = false
                }
            }
        }
    }

    /// The events of `url` counted in async-http-client's body sequence, stopping after `stopAfter`.
    package static func count(_ client: HTTPClient, _ url: String, stopAfter: Int = .max) async throws -> Int {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(600))
        var counter = Counter()
        for try await buffer in response.body {
            buffer.withUnsafeReadableBytes { counter.scan($0) }
            if counter.events >= stopAfter { break }
        }
        return counter.events
    }
}
