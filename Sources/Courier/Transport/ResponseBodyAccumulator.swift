import Foundation

/// A response body as it arrives, counted and limited the same way on every transport: the
/// declared length is checked against the size limit when the head arrives, every piece against
/// it as it comes, memory is reserved up front from the declared length but never more than
/// ``largestReservation`` (a server may overstate its `Content-Length`), and each piece yields the
/// progress to report.
package struct ResponseBodyAccumulator: Sendable {
    /// The most memory reserved up front for a body from its declared length.
    package static let largestReservation: Int64 = 4 << 20

    private let url: URL
    private let maximumSize: Int64?
    /// Whether the body is kept here; a body written to a file is only counted.
    private let keepsBody: Bool
    /// The length the head declared, when it declared one the body can be held to.
    package let expected: Int64?
    /// Body bytes received so far.
    package private(set) var received: Int64 = 0
    private var body = Data()

    /// Starts a body whose head declared `expected` bytes.
    /// - Throws: ``CourierError/Kind/responseTooLarge`` when `expected` is over `maximumSize`.
    package init(url: URL, maximumSize: Int64?, expected: Int64?, keepsBody: Bool = true) throws(CourierError) {
        self.url = url
        self.maximumSize = maximumSize
        self.expected = expected
        self.keepsBody = keepsBody
        if keepsBody, let maximumSize, let expected, expected > maximumSize {
            throw CourierError.responseTooLarge(url, maximum: maximumSize, length: expected)
        }
        if keepsBody, let expected, expected > 0 {
            body.reserveCapacity(Int(min(expected, maximumSize ?? expected, Self.largestReservation)))
        }
    }

    /// Adds a piece of the body.
    /// - Returns: the progress to report, or `nil` when the piece completes the declared length
    ///   (the final report, ``finalProgress``, follows when the exchange ends).
    /// - Throws: ``CourierError/Kind/responseTooLarge`` when the body grows past the limit.
    package mutating func append(_ data: Data) throws(CourierError) -> TransferProgress? {
        try count(data.count)
        if keepsBody { body.append(data) }
        return progress
    }

    /// Adds a piece of the body from raw bytes.
    package mutating func append(_ bytes: UnsafeRawBufferPointer) throws(CourierError) -> TransferProgress? {
        try count(bytes.count)
        if keepsBody { body.append(contentsOf: bytes) }
        return progress
    }

    private mutating func count(_ count: Int) throws(CourierError) {
        received += Int64(count)
        if keepsBody, let maximumSize, received > maximumSize {
            throw CourierError.responseTooLarge(url, maximum: maximumSize, length: nil)
        }
    }

    /// The progress so far, unless it is the complete declared length.
    private var progress: TransferProgress? {
        guard received != expected else { return nil }
        return TransferProgress(completed: received, total: expected.flatMap { $0 >= received ? $0 : nil })
    }

    /// The last report: everything received, as the total.
    package var finalProgress: TransferProgress { TransferProgress(completed: received, total: received) }

    /// The body received, handed over (the accumulator keeps no copy).
    package mutating func takeBody() -> Data {
        defer { body = Data() }
        return body
    }
}

