import BenchWorkloads
import Courier
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// Seed 004's image store, through the library: the whole CRUD flow and the server's refusals.
@Suite struct ImageStoreTests {
    struct ImageInfo: Decodable, Sendable, Equatable {
        var uid: Int
        var title: String
        var description: String
        var fileName: String
        var mimeType: String
        var size: Int
    }

    struct ImageList: Decodable, Sendable {
        var images: [ImageInfo]
    }

    /// PNG signature and filler: the store checks the first bytes.
    static func png(_ count: Int = 4_000) -> Data {
        Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) + PatternBytes.make(count) { UInt8(truncatingIfNeeded: $0 &* 7) }
    }

    static let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(repeating: 0x42, count: 2_000) + Data("\r\n--x--\r\n".utf8)

    @Test(arguments: TransportKind.allCases)
    func theImageCRUDFlow(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport)
                let created = try await client.send(Request<ImageInfo>(.post, "images", body: .multipart([
                    .text("title", "Sunset"), .text("description", "Over the bay"), .data("image", Self.png(), fileName: "sunset.png"),
                ])))
                #expect(created.statusCode == 201)
                let image = created.value
                #expect(image.title == "Sunset" && image.fileName == "sunset.png" && image.mimeType == "image/png" && image.size == Self.png().count)

                let list = try await client.send(Request<ImageList>(.get, "images")).value
                #expect(list.images == [image])
                #expect(try await client.send(Request<ImageInfo>(.get, "images/\(image.uid)")).value == image)
                let xml = try await client.send(Request(.get, "images/\(image.uid)", query: ["type": "xml"], serializer: .xml)).value
                #expect(xml.name == "image" && xml["title"]?.text == "Sunset")
                #expect(try await client.send(Request<Data>(.get, "images/\(image.uid)/data")).value == Self.png())

                let renamed = try await client.send(Request<ImageInfo>(.patch, "images/\(image.uid)", body: .json(["title": "Dusk"])))
                #expect(renamed.value.title == "Dusk" && renamed.value.description == "Over the bay")
                let replaced = try await client.send(Request<ImageInfo>(.patch, "images/\(image.uid)", body: .multipart([
                    .data("image", Self.jpeg, fileName: "dusk.jpg"),
                ])))
                #expect(replaced.value.mimeType == "image/jpeg" && replaced.value.size == Self.jpeg.count && replaced.value.title == "Dusk")
                #expect(try await client.send(Request<Data>(.get, "images/\(image.uid)/data")).value == Self.jpeg)

                _ = try await client.send(Request<JSONValue>(.delete, "images/\(image.uid)"))
                let gone = await #expect(throws: CourierError.self) { try await client.send(Request<ImageInfo>(.get, "images/\(image.uid)")) }
                #expect(gone?.classification == .notFound)
                #expect(gone?.userMessage == "Image \(image.uid) was not found.")
                #expect(try await client.send(Request<ImageList>(.get, "images")).value.images.isEmpty)
            }
        }
    }

    @Test func imageReadsRevalidateWithTheirEntityTags() async throws {
        try await withTemporaryCache { cache, _ in
            try await withServer { server in
                let client = server.client(URLSessionTransport()) { $0.cache = cache }
                let image = try await client.send(Request<ImageInfo>(.post, "images", body: .multipart([.data("image", Self.png(), fileName: "a.png")]))).value
                let reads: [(route: String, request: Request<Data>)] = [
                    ("/images", Request<Data>(.get, "images", cache: .both)),
                    ("/images/{id}", Request<Data>(.get, "images/\(image.uid)", cache: .both)),
                    ("/images/{id}", Request<Data>(.get, "images/\(image.uid)", query: ["type": "xml"], cache: .both)),
                    ("/images/{id}/data", Request<Data>(.get, "images/\(image.uid)/data", cache: .both)),
                ]
                for (index, read) in reads.enumerated() {
                    let first = try await client.send(read.request)
                    #expect(first.headers["ETag"] != nil, "\(read.route)")
                    let second = try await client.send(read.request)
                    #expect(second.data == first.data && second.statusCode == 200)
                    #expect(server.notModifiedCount("GET", read.route) == (index == 2 ? 2 : 1), "\(read.route)")
                }
                // Changed behind the cache's back (a client without it): the tags no longer match.
                _ = try await server.client(URLSessionTransport()).send(
                    Request<JSONValue>(.patch, "images/\(image.uid)", body: .json(["title": "Renamed"])))
                let renamed = try await client.send(Request<ImageInfo>(.get, "images/\(image.uid)", cache: .both))
                #expect(renamed.value.title == "Renamed" && server.notModifiedCount("GET", "/images/{id}") == 2)
            }
        }
    }

    /// An image's data and `/bytes` answer `Range` under `If-Range` (RFC 9110 §14): one range,
    /// a suffix, a range past the end (416), and the whole for several ranges, another unit, or an
    /// `If-Range` that is not the current strong tag.
    @Test func theDataRoutesAnswerRanges() async throws {
        try await withServer { server in
            let client = server.client(URLSessionTransport()) { $0.acceptableStatusCodes = 200..<500 }
            let image = Self.png()
            let created = try await client.send(Request<ImageInfo>(.post, "images", body: .multipart([.data("image", image, fileName: "a.png")]))).value
            let whole = try await client.send(Request<Data>(.get, "images/\(created.uid)/data"))
            let etag = try #require(whole.headers["ETag"])
            #expect(whole.headers["Accept-Ranges"] == "bytes")
            let bytes = Data((0..<1_000).map { UInt8($0 % 251) })
            for (path, body, tag) in [("images/\(created.uid)/data", image, etag), ("bytes/1000", bytes, "\"bytes-1000\"")] {
                func get(_ range: String, ifRange: String? = nil) async throws -> Response<Data> {
                    var request = Request<Data>(.get, path).header("Range", range)
                    if let ifRange { request = request.header("If-Range", ifRange) }
                    return try await client.send(request)
                }
                let length = body.count
                let cases: [(String, String?, Int, Data, String?)] = [
                    ("bytes=10-19", nil, 206, body[10...19], "bytes 10-19/\(length)"),
                    ("bytes=-5", nil, 206, body.suffix(5), "bytes \(length - 5)-\(length - 1)/\(length)"),
                    ("bytes=\(length - 10)-99999999999999999999", nil, 206, body.suffix(10), "bytes \(length - 10)-\(length - 1)/\(length)"),
                    ("bytes=10-19", tag, 206, body[10...19], "bytes 10-19/\(length)"),
                    ("bytes=\(length)-", nil, 416, Data(), "bytes */\(length)"),
                    ("bytes=0-1,5-6", nil, 200, body, nil),
                    ("items=0-5", nil, 200, body, nil),
                    ("bytes=9-3", nil, 200, body, nil),
                    ("bytes=10-19", "W/" + tag, 200, body, nil),
                    ("bytes=10-19", "\"another\"", 200, body, nil),
                ]
                for (range, ifRange, status, expected, contentRange) in cases {
                    let response = try await get(range, ifRange: ifRange)
                    let label = "\(path) \(range) If-Range: \(ifRange ?? "none")"
                    #expect(response.statusCode == status, "\(label)")
                    #expect(response.value == Data(expected), "\(label)")
                    #expect(response.headers["Content-Range"] == contentRange, "\(label)")
                }
            }
        }
    }

    @Test func theStoreRefusesBadUploadsAndKeepsNothing() async throws {
        try await withServer(ServerConfiguration(maximumImageSize: 10_000)) { server in
            let client = server.client(URLSessionTransport())
            func refusal<Value>(_ request: Request<Value>) async throws -> CourierError? {
                await #expect(throws: CourierError.self) { try await client.send(request) }
            }
            let notMultipart = try await refusal(Request<JSONValue>(.post, "images", body: ["title": "x"]))
            #expect(notMultipart?.statusCode == 415)
            let notImage = try await refusal(Request<JSONValue>(.post, "images", body: .multipart([.data("image", Data("hello".utf8), fileName: "a.png")])))
            #expect(notImage?.statusCode == 415 && notImage?.userMessage.contains("not an image") == true)
            let tooLarge = try await refusal(Request<JSONValue>(.post, "images", body: .multipart([.data("image", Self.png(20_000), fileName: "big.png")])))
            #expect(tooLarge?.statusCode == 413 && tooLarge?.userMessage.contains("10000-byte limit") == true)
            let noImage = try await refusal(Request<JSONValue>(.post, "images", body: .multipart([.text("title", "only text")])))
            #expect(noImage?.statusCode == 422 && noImage?.validationErrors?.fields["image"] == ["is missing"])
            let truncated = Data("--b\r\nContent-Disposition: form-data; name=\"image\"; filename=\"a.png\"\r\n\r\n".utf8) + Self.png(100)
            let malformed = try await refusal(Request<JSONValue>(.post, "images", body: .data(truncated, contentType: "multipart/form-data; boundary=b")))
            #expect(malformed?.statusCode == 400)
            let missing = try await refusal(Request<JSONValue>(.patch, "images/999", body: .json(["title": "x"])))
            #expect(missing?.classification == .notFound)
            #expect(try await client.send(Request<ImageList>(.get, "images")).value.images.isEmpty)
        }
    }
}
