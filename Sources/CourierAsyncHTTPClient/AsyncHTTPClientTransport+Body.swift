import AsyncHTTPClient
import Courier
import Foundation
import NIOCore
import NIOFoundationCompat

/// A failure while the response body was read: the head had arrived, and `received` bytes of the
/// body, so the failure is a lost connection or a malformed body, not a failure to connect.
struct BodyInterrupted: Error {
    let underlying: any Error
    let received: Int64
    let expected: Int64?
}

extension AsyncHTTPClientTransport {
    /// Streams a body into a temporary file beside `destination`, then moves it into place; the
    /// temporary file is removed on failure or cancellation.
    func write(_ body: HTTPClientResponse.Body, to destination: URL, request: TransportRequest, expected: Int64?, observer: TransferObserver) async throws {
        var file = try PartialDownload(for: destination)
        var counted = try ResponseBodyAccumulator(url: request.url, maximumSize: nil, expected: expected, keepsBody: false)
        do {
            for try await buffer in body {
                try file.write(buffer.readableBytesView)
                if let progress = try buffer.withUnsafeReadableBytes({ bytes throws(CourierError) in try counted.append(bytes) }) {
                    observer.download?(progress)
                }
            }
        } catch let error as CourierError {
            file.discard()
            throw error
        } catch {
            file.discard()
            throw BodyInterrupted(underlying: error, received: counted.received, expected: expected)
        }
        observer.download?(counted.finalProgress)
        try file.commit()
    }

    /// Reads the whole body into memory, within the request's maximum size.
    func collect(
        _ body: HTTPClientResponse.Body, expected: Int64?, request: TransportRequest, observer: TransferObserver
    ) async throws -> Data {
        var collected = try ResponseBodyAccumulator(url: request.url, maximumSize: request.maximumResponseSize, expected: expected)
        do {
            for try await buffer in body {
                if let progress = try buffer.withUnsafeReadableBytes({ bytes throws(CourierError) in try collected.append(bytes) }) {
                    observer.download?(progress)
                }
            }
        } catch let error as CourierError {
            throw error
        } catch {
            throw BodyInterrupted(underlying: error, received: collected.received, expected: expected)
        }
        observer.download?(collected.finalProgress)
        return collected.takeBody()
    }
}

/// The request's deadline passed before the whole response arrived.
struct DeadlineExceeded: Error {}
