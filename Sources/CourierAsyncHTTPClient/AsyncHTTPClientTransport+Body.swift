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
    func write(_ body: HTTPClientResponse.Body, to destination: URL, expected: Int64?, observer: TransferObserver) async throws {
        var file = try PartialDownload(for: destination)
        do {
            for try await buffer in body {
                try file.write(buffer.readableBytesView)
                let received = file.written
                if received != expected {
                    observer.download?(TransferProgress(completed: received, total: expected.flatMap { $0 >= received ? $0 : nil }))
                }
            }
        } catch let error as CourierError {
            file.discard()
            throw error
        } catch {
            file.discard()
            throw BodyInterrupted(underlying: error, received: file.written, expected: expected)
        }
        observer.download?(TransferProgress(completed: file.written, total: file.written))
        try file.commit()
    }

    /// Reads the whole body into memory, within the request's maximum size.
    func collect(
        _ body: HTTPClientResponse.Body, expected: Int64?, request: TransportRequest, observer: TransferObserver
    ) async throws -> Data {
        let maximum = request.maximumResponseSize
        var data = Data()
        if let expected, expected < 1 << 30 { data.reserveCapacity(Int(expected)) }
        do {
            for try await buffer in body {
                data.append(contentsOf: buffer.readableBytesView)
                let received = Int64(data.count)
                if let maximum, received > maximum {
                    throw CourierError.responseTooLarge(request.url, maximum: maximum, length: nil)
                }
                if let download = observer.download, received != expected {
                    download(TransferProgress(completed: received, total: expected.flatMap { $0 >= received ? $0 : nil }))
                }
            }
        } catch let error as CourierError {
            throw error
        } catch {
            throw BodyInterrupted(underlying: error, received: Int64(data.count), expected: expected)
        }
        observer.download?(TransferProgress(completed: Int64(data.count), total: Int64(data.count)))
        return data
    }
}

/// The request's deadline passed before the whole response arrived.
struct DeadlineExceeded: Error {}
