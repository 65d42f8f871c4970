import ArgumentParser
import Crypto
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOPosix
import NIOResumableUpload
import Synchronization

/// `courier-test-helper draft-upload-server`: swift-nio-extras' `NIOResumableUpload` (the IETF
/// resumable-upload draft, interop versions 3, 5 and 6) in front of a small app, on a port of the
/// kernel's choosing on 127.0.0.1; prints `listening at 127.0.0.1:PORT` once it accepts.
///
/// The app takes any `POST` whole (the draft's machinery hands it the body across every resumed
/// request) and answers `{"sha256": …, "size": …}`. `GET /stats` answers
/// `{"bodyBytes": N, "requests": M, "cuts": C}`: the body bytes of every request received, the
/// requests, and the connections cut.
///
/// Faults, set with `POST /faults?…` and made in front of the draft's handler (``DraftFaults``):
/// `cut_every=N` closes the connection where the body bytes received reach a multiple of N;
/// `lie=K` adds K to every `Upload-Offset` the server answers; `expire=PATH` answers `404` to
/// every request for the upload resource PATH (the draft's handler's own answer for an upload it
/// does not have), as a server that forgot it; `tokens=N` puts every other request behind a bearer
/// token (`Bearer t0` first) that is good for N `PATCH`es, answering `401` past them, and
/// `POST /token` issues the next one in its answer's `Authorization` header (`GET /stats` then
/// also tells `tokens`, the tokens issued).
struct DraftUploadServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "draft-upload-server", abstract: "Serve the IETF resumable-upload draft with NIOResumableUpload (for tests).")

    // Started through courier-watch (`ToolServer`), which stops it when the tests end; no
    // ParentWatch, which would read courier-watch's closed input as the parent's end.
    func run() async throws {
        let counts = Counts()
        let faults = FaultSettings()
        let origin = Mutex("")
        let context = Mutex<HTTPResumableUploadContext?>(nil)
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let uploads = context.withLock { stored in
                        if let stored { return stored }
                        let made = HTTPResumableUploadContext(origin: origin.withLock { $0 })
                        stored = made
                        return made
                    }
                    let sync = channel.pipeline.syncOperations
                    try sync.configureHTTPServerPipeline()
                    try sync.addHandler(HTTP1ToHTTPServerCodec(secure: false))
                    try sync.addHandler(DraftFaults(settings: faults, counts: counts))
                    try sync.addHandler(WireCounter(counts: counts))
                    try sync.addHandler(HTTPResumableUploadHandler(context: uploads, handlers: [WholeBodyApp(counts: counts, faults: faults)]))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = server.localAddress?.port ?? 0
        origin.withLock { $0 = "http://127.0.0.1:\(port)" }
        FileHandle.standardOutput.write(Data("listening at 127.0.0.1:\(port)\n".utf8))
        try await server.closeFuture.get()
    }
}

/// What the server received.
final class Counts: Sendable {
    let bodyBytes = Atomic<Int>(0)
    let requests = Atomic<Int>(0)
    let cuts = Atomic<Int>(0)
}

/// Counts requests and body bytes as they arrive, before the draft's handler.
final class WireCounter: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    let counts: Counts

    init(counts: Counts) { self.counts = counts }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            if request.path != "/stats" { counts.requests.add(1, ordering: .relaxed) }
        case .body(let body):
            counts.bodyBytes.add(body.readableBytes, ordering: .relaxed)
        case .end:
            break
        }
        context.fireChannelRead(data)
    }
}

/// The app behind the draft: hashes a POST's whole body and answers its SHA-256; answers the counts.
final class WholeBodyApp: ChannelInboundHandler {
    typealias InboundIn = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    let counts: Counts
    let faults: FaultSettings
    private var hash: SHA256?
    private var size = 0
    private var path = ""

    init(counts: Counts, faults: FaultSettings) {
        self.counts = counts
        self.faults = faults
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            path = request.path ?? ""
            hash = request.method == .post && !path.hasPrefix("/faults") ? SHA256() : nil
            size = 0
        case .body(let body):
            body.withUnsafeReadableBytes { hash?.update(bufferPointer: $0) }
            size += body.readableBytes
        case .end:
            let json: String
            if let hash {
                let hex = hash.finalize().map { String(format: "%02x", $0) }.joined()
                json = #"{"sha256":"\#(hex)","size":\#(size)}"#
            } else if path.hasPrefix("/faults") {
                faults.apply(URLComponents(string: path)?.queryItems ?? [])
                json = "{}"
            } else if path == "/stats" {
                let tokens = faults.state.withLock { $0.issued }
                json = #"{"bodyBytes":\#(counts.bodyBytes.load(ordering: .relaxed)),"requests":\#(counts.requests.load(ordering: .relaxed)),"cuts":\#(counts.cuts.load(ordering: .relaxed)),"tokens":\#(tokens)}"#
            } else {
                respond(context, status: .notFound, json: "{}")
                return
            }
            respond(context, status: .ok, json: json)
        }
    }

    private func respond(_ context: ChannelHandlerContext, status: HTTPResponse.Status, json: String) {
        var response = HTTPResponse(status: status)
        response.headerFields[.contentType] = "application/json"
        response.headerFields[.contentLength] = "\(json.utf8.count)"
        context.write(wrapOutboundOut(.head(response)), promise: nil)
        context.write(wrapOutboundOut(.body(ByteBuffer(string: json))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}

/// The faults the server is told to make (`POST /faults`), shared by every connection.
final class FaultSettings: Sendable {
    struct State {
        var cutEvery: Int?
        var received = 0
        var lie: Int64 = 0
        var expired: Set<String> = []
        /// The `PATCH`es a token is good for, when tokens are asked for; the tokens issued, and
        /// the `PATCH`es the current one was used for.
        var appendsPerToken: Int?
        var issued = 0
        var appends = 0
    }

    /// What the server does with a request, when tokens are asked for.
    enum Gate {
        case pass
        case refuse
        case issue(String)
    }

    let state = Mutex(State())

    /// Takes `cut_every=N`, `lie=K` and `expire=PATH`.
    func apply(_ items: [URLQueryItem]) {
        state.withLock { state in
            for item in items {
                switch item.name {
                case "cut_every": state.cutEvery = item.value.flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
                // Bounded, so that an offset plus it cannot overflow.
                case "lie": state.lie = item.value.flatMap { Int64($0) }.map { max(-(1 << 40), min($0, 1 << 40)) } ?? 0
                case "expire": if let value = item.value { state.expired.insert(value) }
                case "tokens": state.appendsPerToken = item.value.flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
                default: break
                }
            }
        }
    }
}

extension FaultSettings {
    /// Whether `request` passes the token check, or is refused, or asks for a new token.
    func gate(_ request: HTTPRequest) -> Gate {
        let path = request.path ?? ""
        guard !path.hasPrefix("/faults"), path != "/stats" else { return .pass }
        return state.withLock { state in
            guard let perToken = state.appendsPerToken else { return .pass }
            if path == "/token", request.method == .post {
                state.issued += 1
                state.appends = 0
                return .issue("Bearer t\(state.issued)")
            }
            guard request.headerFields[.authorization] == "Bearer t\(state.issued)" else { return .refuse }
            guard request.method == .patch else { return .pass }
            state.appends += 1
            return state.appends > perToken ? .refuse : .pass
        }
    }
}

/// Makes the faults of ``FaultSettings`` in front of the draft's handler: cuts connections,
/// moves offsets, and sends requests for an expired upload to one the draft's handler never had.
final class DraftFaults: ChannelDuplexHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let settings: FaultSettings
    let counts: Counts
    private var cut = false
    /// Whether the rest of a request this handler answered itself is dropped.
    private var swallowing = false

    init(settings: FaultSettings, counts: Counts) {
        self.settings = settings
        self.counts = counts
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !cut else { return }
        if swallowing {
            if case .end = unwrapInboundIn(data) {
                swallowing = false
                // The draft's handler, which never saw this request, reads on only after a
                // request's end it saw: the next request is read from here.
                context.read()
            }
            return
        }
        switch unwrapInboundIn(data) {
        case .head(var request):
            switch settings.gate(request) {
            case .pass:
                break
            case .refuse:
                return answer(context, HTTPResponse(status: .unauthorized, headerFields: [.wwwAuthenticate: #"Bearer error="invalid_token""#]))
            case .issue(let token):
                return answer(context, HTTPResponse(status: .ok, headerFields: [.authorization: token]))
            }
            guard let path = request.path, settings.state.withLock({ $0.expired.contains(path) }) else {
                context.fireChannelRead(data)
                return
            }
            request.path = "/resumable_upload/1-1"  // an upload the handler never had: its own 404
            context.fireChannelRead(wrapInboundOut(.head(request)))
        case .body(let body):
            let room: Int? = settings.state.withLock { state in
                guard let every = state.cutEvery else { return nil }
                let room = every - state.received % every
                state.received += min(room, body.readableBytes)
                return body.readableBytes >= room ? room : nil
            }
            guard let room else {
                context.fireChannelRead(data)
                return
            }
            cut = true
            counts.cuts.add(1, ordering: .relaxed)
            if let slice = body.getSlice(at: body.readerIndex, length: room) {
                context.fireChannelRead(wrapInboundOut(.body(slice)))
            }
            context.close(promise: nil)
        case .end:
            context.fireChannelRead(data)
        }
    }

    /// Answers the request whose head just came with `response` and no body, at once, and drops
    /// the rest of the request as it comes, keeping the connection (a `401` to a `PATCH` comes
    /// while its body is still on its way).
    private func answer(_ context: ChannelHandlerContext, _ response: HTTPResponse) {
        var response = response
        response.headerFields[.contentLength] = "0"
        swallowing = true
        context.write(wrapOutboundOut(.head(response)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .head(var response) = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        let lie = settings.state.withLock { $0.lie }
        let offset = HTTPField.Name("Upload-Offset")!
        if lie != 0, let told = response.headerFields[offset].flatMap({ Int64($0) }) {
            response.headerFields[offset] = String(told + lie)
        }
        context.write(wrapOutboundOut(.head(response)), promise: promise)
    }
}
