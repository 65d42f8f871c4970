import AsyncHTTPClient
import Courier
import Foundation
import NIOCore
import NIOFoundationCompat

/// An ``Courier/HTTPTransport`` on swift-server's async-http-client: a connection pool per host,
/// HTTP/2 where the server offers it, connect and read timeouts, and request bodies streamed with
/// backpressure when upload progress is observed.
///
/// Redirects are not followed by async-http-client: ``Courier/APIClient`` follows them itself and
/// removes `Authorization`, cookies and the configured authentication headers when a redirect
/// changes origin.
///
/// A transport created with ``init(configuration:)`` owns its `HTTPClient`; call ``shutdown()``
/// when you are done with it (it is also shut down, without waiting, when the transport is freed).
public final class AsyncHTTPClientTransport: HTTPTransport {
    /// Settings of the connection pool and timeouts.
    public struct Configuration: Sendable {
        /// Connections kept open to one host (HTTP/1.1).
        public var maximumConnectionsPerHost: Int = 8
        /// Time allowed to open a connection, and to wait for a pooled one to become free when
        /// ``maximumConnectionsPerHost`` are busy.
        public var connectTimeout: Duration = .seconds(10)
        /// Time allowed between two reads of a response; `nil` for no limit besides the request's timeout.
        public var readTimeout: Duration? = .seconds(60)
        /// How long an idle connection stays in the pool.
        public var idleTimeout: Duration = .seconds(60)
        /// Size of the pieces a body is streamed in when upload progress is observed.
        public var uploadChunkSize: Int = 64 * 1024

        /// Creates the default configuration.
        public init() {}
    }

    /// The underlying client.
    public let client: HTTPClient
    private let ownsClient: Bool
    private let uploadChunkSize: Int
    /// Paces streamed request bodies (see ``BodyChunks``).
    private let fence: @Sendable () async -> Void

    /// Creates a transport with its own `HTTPClient`.
    public init(configuration: Configuration = Configuration()) {
        var pool = HTTPClient.Configuration.ConnectionPool(idleTimeout: .init(configuration.idleTimeout))
        pool.concurrentHTTP1ConnectionsPerHostSoftLimit = configuration.maximumConnectionsPerHost
        pool.retryConnectionEstablishment = false  // a refused connection fails now, not at the connect timeout
        let clientConfiguration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .init(configuration.connectTimeout), read: configuration.readTimeout.map { .init($0) }),
            connectionPool: pool)
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
        ownsClient = true
        uploadChunkSize = configuration.uploadChunkSize
        fence = BodyChunks.fence(on: client.eventLoopGroup)
    }

    /// Wraps a client you own and shut down yourself. Give it `redirectConfiguration: .disallow` so
    /// redirects reach ``Courier/APIClient`` and its header rules.
    public init(client: HTTPClient, uploadChunkSize: Int = 64 * 1024) {
        self.client = client
        ownsClient = false
        self.uploadChunkSize = uploadChunkSize
        fence = BodyChunks.fence(on: client.eventLoopGroup)
    }

    deinit {
        if ownsClient { client.shutdown { _ in } }
    }

    /// Shuts down the client this transport created; does nothing for a client passed in.
    public func shutdown() async throws {
        if ownsClient { try await client.shutdown() }
    }

    /// Sends `request`; returns 3xx responses without following them.
    public func send(_ request: TransportRequest, observer: TransferObserver) async throws -> TransportResponse {
        var wire = HTTPClientRequest(url: request.url.absoluteString)
        wire.method = .init(rawValue: request.method.rawValue)
        for field in request.headers {
            wire.headers.add(name: field.name, value: field.value)
        }
        if let stream = request.bodyStream {
            wire.body = .stream(BodyChunks(body: stream, chunkSize: uploadChunkSize, progress: observer.upload, fence: fence), length: .known(stream.length))
        } else if let body = request.body, !body.isEmpty {
            if let upload = observer.upload {
                let whole = StreamedBody(segments: [.bytes(body)], contentType: "")
                wire.body = .stream(BodyChunks(body: whole, chunkSize: uploadChunkSize, progress: upload, fence: fence), length: .known(Int64(body.count)))
            } else {
                wire.body = .bytes(ByteBuffer(data: body))
            }
        }
        do {
            let deadline = NIODeadline.now() + .nanoseconds(Int64(request.timeout * 1_000_000_000))
            let response = try await client.execute(wire, deadline: deadline)
            let expected = response.headers.first(name: "content-length").flatMap { Int64($0) }
            if let destination = request.downloadDestination, (200..<300).contains(Int(response.status.code)) {
                var result = TransportResponse(url: request.url, statusCode: Int(response.status.code), headers: Self.headers(of: response))
                try await write(response.body, to: destination, expected: expected, observer: observer)
                result.bodyFile = destination
                return result
            }
            if let maximum = request.maximumResponseSize, let expected, expected > maximum {
                throw CourierError.responseTooLarge(request.url, maximum: maximum, length: expected)
            }
            let body = try await collect(response.body, expected: expected, request: request, observer: observer)
            return TransportResponse(url: request.url, statusCode: Int(response.status.code), headers: Self.headers(of: response), body: body)
        } catch {
            throw Self.courierError(for: error, request: request)
        }
    }

    static func headers(of response: HTTPClientResponse) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for field in response.headers {
            headers.add(name: field.name, value: field.value)
        }
        return headers
    }

    /// Streams a body into a temporary file beside `destination`, then moves it into place; the
    /// temporary file is removed on failure or cancellation.
    private func write(_ body: HTTPClientResponse.Body, to destination: URL, expected: Int64?, observer: TransferObserver) async throws {
        var file = try PartialDownload(for: destination)
        do {
            for try await buffer in body {
                try file.write(buffer.readableBytesView)
                let received = file.written
                if received != expected {
                    observer.download?(TransferProgress(completed: received, total: expected.flatMap { $0 >= received ? $0 : nil }))
                }
            }
        } catch {
            file.discard()
            throw error
        }
        observer.download?(TransferProgress(completed: file.written, total: file.written))
        try file.commit()
    }

    private func collect(
        _ body: HTTPClientResponse.Body, expected: Int64?, request: TransportRequest, observer: TransferObserver
    ) async throws -> Data {
        let maximum = request.maximumResponseSize
        guard let download = observer.download else {
            do {
                var buffer = try await body.collect(upTo: maximum.map { Int(clamping: $0) } ?? Int.max)
                return buffer.readData(length: buffer.readableBytes) ?? Data()
            } catch is NIOTooManyBytesError {
                throw CourierError.responseTooLarge(request.url, maximum: maximum ?? 0, length: nil)
            }
        }
        var data = Data()
        if let expected, expected < 1 << 30 { data.reserveCapacity(Int(expected)) }
        for try await buffer in body {
            data.append(contentsOf: buffer.readableBytesView)
            let received = Int64(data.count)
            if let maximum, received > maximum {
                throw CourierError.responseTooLarge(request.url, maximum: maximum, length: nil)
            }
            if received != expected {
                download(TransferProgress(completed: received, total: expected.flatMap { $0 >= received ? $0 : nil }))
            }
        }
        download(TransferProgress(completed: Int64(data.count), total: Int64(data.count)))
        return data
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
