import Courier
import Foundation
import HTTPTypes
import Hummingbird
import ImageStoreServer
import NIOCore

/// The routes only Courier's own tests and benchmarks use, added by ``Instruments``:
///
/// - `GET /_counters`: requests per route, as ``ImageStoreServer/requestCounts`` (not itself counted).
/// - `GET` or `POST /hold/{key}`: answers `{"key": key}` (or `size` pattern bytes, as `/bytes`
///   sends them) once `key` is released (``ImageStoreServer/release(_:)`` or
///   `POST /hold/{key}/release`), at once after that.
/// - `GET /cached/{name}`: a resource whose caching headers the query chooses, for the cache's
///   HTTP freshness tests: `{"name", "served"}` (`served`: the requests for `name` so far, this one
///   included; per-name counts: ``ImageStoreServer/flakyAttempts(_:)`` of `cached/name`), with
///   `cc` as `Cache-Control`, `expires` (seconds ahead, negative for past) as `Expires`,
///   `modified` (seconds ago) as `Last-Modified`, `age` as `Age`, `etag` as a strong `ETag` (a
///   request whose `If-None-Match` holds it gets a `304`), and `status` as the status (`first_cc`,
///   when given, is the first answer's `Cache-Control`); `vary=Name` answers with `Vary: Name` and
///   the request's value of that field as `varied`. With `fail=S`, every request for `name` after
///   the first answers `S`; with `hold=key`, every request after the first waits until `key` is
///   released. `PURGE /cached/{name}` (a method of an app's own, unsafe by RFC 9110) answers `204`.
/// - `GET /ranged/{count}`: `count` bytes of a pattern that depends on `version` (default `1`),
///   with a strong `ETag` (`W/` with `weak=true`) and a `Last-Modified` of long ago, honouring
///   `Range: bytes=N-` / `bytes=N-M` under `If-Range` (RFC 9110 §14): `206` with `Content-Range`,
///   `416` past the end, the whole file when `If-Range` does not match. `drop_after=K` closes the
///   connection after K bytes of each body; `pace_ms=P` sends 16 KiB pieces P milliseconds apart
///   (a slow link); `ignore_range=true` always sends the whole file; `wrong_range=true` answers a
///   range one byte later than asked. Bytes sent per count: the tally's `ranged/<count>/bytes`.
/// - `GET /cookies`: answers `{"cookie": …}`, the request's `Cookie` field (`""` when none), with
///   each line of `set` in the query as a `Set-Cookie` field of its own; with `to=URL`, a `302` to that URL.
struct TestRoutes {
    let counter: RequestCounter
    let ledger: Tally
    let gate: HoldGate

    /// Routes the counters do not see.
    func addUncounted(to router: Router<BasicRequestContext>) {
        router.get("_counters") { _, _ in
            try jsonResponse(counter.all)
        }
    }

    func add(to router: Router<BasicRequestContext>) {
        router.get("hold/{key}", use: hold)
        router.post("hold/{key}", use: hold)
        router.get("cached/{name}", use: cached)
        router.get("ranged/{count}", use: ranged)
        router.get("cookies", use: cookies)
        if let purge = HTTPRequest.Method("PURGE") {
            router.on("cached/{name}", method: purge) { _, _ in Response(status: .noContent) }
        }
        router.post("hold/{key}/release") { _, context in
            gate.release(try context.parameters.require("key"))
            return Response(status: .noContent)
        }
    }

    @Sendable func cookies(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        var response = try jsonResponse(["cookie": request.headers[values: .cookie].joined(separator: "; ")])
        for line in (query.get("set") ?? "").split(separator: "\n") { response.headers.append(HTTPField(name: .setCookie, value: String(line))) }
        if let target = query.get("to") {
            response.status = .found
            response.headers[.location] = String(target)
        }
        return response
    }

    @Sendable func cached(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let name = try context.parameters.require("name")
        let query = request.uri.queryParameters
        let served = ledger.next("cached/" + name)
        if served > 1, let key = query.get("hold") { await gate.wait(for: String(key)) }
        if served > 1, let failure = query.get("fail").flatMap({ Int($0) }) {
            guard (200...599).contains(failure) else { throw HTTPError(.badRequest, message: "fail is a status between 200 and 599.") }
            return try jsonResponse(["name": name], status: HTTPResponse.Status(code: failure))
        }
        let now = Date()
        func date(_ seconds: String?) -> String? { seconds.flatMap { Double($0) }.flatMap { HTTPDate.format(now.addingTimeInterval($0)) } }
        var fields = HTTPFields()
        if let control = served == 1 ? query.get("first_cc") ?? query.get("cc") : query.get("cc") { fields[.cacheControl] = String(control) }
        if let expires = date(query.get("expires")) { fields[.expires] = expires }
        if let modified = query.get("modified").flatMap({ Double($0) }).flatMap({ HTTPDate.format(now.addingTimeInterval(-$0)) }) {
            fields[.lastModified] = modified
        }
        if let age = query.get("age") { fields[.age] = String(age) }
        if let tag = query.get("etag") {
            let etag = "\"\(tag)\""
            fields[.eTag] = etag
            if request.headers[.ifNoneMatch]?.contains(etag) == true {
                return Response(status: .notModified, headers: fields)
            }
        }
        let status = query.get("status").flatMap { Int($0) } ?? 200
        guard (200...599).contains(status), ![204, 205, 304].contains(status) else {
            throw HTTPError(.badRequest, message: "status is between 200 and 599, and not 204, 205 or 304 (they have no body).")
        }
        var reply = CachedReply(name: name, served: served)
        if let vary = query.get("vary"), let field = HTTPField.Name(String(vary)) {
            fields[.vary] = field.rawName
            reply.varied = request.headers[field] ?? ""
        }
        var response = try jsonResponse(reply, status: HTTPResponse.Status(code: status))
        for field in fields { response.headers[field.name] = field.value }
        return response
    }

    @Sendable func ranged(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let count = try context.parameters.require("count", as: Int.self)
        guard (0...(1 << 30)).contains(count) else { throw HTTPError(.badRequest, message: "count must be between 0 and 2^30.") }
        let query = request.uri.queryParameters
        let version = query.get("version").map { String($0) } ?? "1"
        let shift = Self.shift(version)
        let etag = (query.get("weak") == "true" ? "W/" : "") + "\"r\(count)-\(version)\""
        let lastModified = HTTPDate.format(Date(timeIntervalSince1970: 1_700_000_000)) ?? ""
        var selection = RangeSelection(request, length: count, etag: etag, lastModified: lastModified)
        if query.get("ignore_range") == "true" { selection = .whole }
        if query.get("wrong_range") == "true", case .part(let first, let last) = selection, first < last {
            selection = .part(first: first + 1, last: last)
        }
        let fields = selection.fields([.contentType: "application/octet-stream", .eTag: etag, .lastModified: lastModified], length: count)
        guard selection != .unsatisfiable else { return Response(status: selection.status, headers: fields) }
        let (start, length) = selection.span(of: count)
        let (first, last) = (start, start + length - 1)
        let dropAfter = query.get("drop_after").flatMap { Int($0) }
        let pace = query.get("pace_ms").flatMap { Int($0) }.map { Duration.milliseconds(min(max($0, 0), 1_000)) }
        let ledger = self.ledger
        let body = ResponseBody(contentLength: length) { writer in
            var offset = first
            var sent = 0
            while offset <= last {
                var size = min(pace == nil ? 64 * 1024 : 16 * 1024, last - offset + 1)
                if let dropAfter { size = min(size, dropAfter - sent) }
                guard size > 0 else { throw HTTPError(.internalServerError, message: "dropped") }  // closes the connection mid-body
                // One write of the whole piece, made in place: a call per byte costs the server's
                // threads far more, and so does `map` over a range in a debug build.
                var piece = ByteBuffer()
                piece.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { [start = offset] bytes in
                    var index = 0
                    while index < size {
                        bytes[index] = Self.patternByte(start &+ index, shift: shift)
                        index &+= 1
                    }
                    return size
                }
                try await writer.write(piece)
                ledger.add(size, to: "ranged/\(count)/bytes")
                if let pace { try await Task.sleep(for: pace) }
                offset += size
                sent += size
            }
            try await writer.finish(nil)
        }
        return Response(status: selection.status, headers: fields, body: body)
    }

    /// The byte of `/ranged/{count}` at `index` for `version`, as the route writes it.
    static func rangedByte(_ index: Int, version: String = "1") -> UInt8 {
        patternByte(index, shift: shift(version))
    }

    private static func shift(_ version: String) -> Int {
        var shift = 0
        for byte in version.utf8 { shift = (shift &* 31 &+ Int(byte)) & 0xFF }
        return shift
    }

    private static func patternByte(_ index: Int, shift: Int) -> UInt8 {
        UInt8(truncatingIfNeeded: index % 251 + shift)
    }

    struct CachedReply: Encodable {
        let name: String
        let served: Int
        /// The request's value of the header `vary` names, when it names one.
        var varied: String?
    }

    @Sendable func hold(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let key = try context.parameters.require("key")
        await gate.wait(for: key)
        if let size = request.uri.queryParameters.get("size").flatMap({ Int($0) }), size >= 0 {
            let body = ByteBuffer(bytes: (0..<size).map { UInt8($0 % 251) })
            return Response(status: .ok, headers: [.contentType: "application/octet-stream"], body: .init(byteBuffer: body))
        }
        return try jsonResponse(["key": key])
    }
}
