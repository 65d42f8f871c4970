import Courier
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// What goes over the wire for each kind of body, as the echo route sees it, on both transports.
@Suite struct BodyEncodingTests {
    struct NewUser: Codable, Sendable, Equatable {
        var name: String
        var age: Int
    }

    struct FailingBody: Encodable, Sendable {
        struct Refused: Error {}
        func encode(to encoder: any Encoder) throws { throw Refused() }
    }

    /// A user's own encoder: `key: value` lines.
    struct LinesEncoder: ParameterEncoding {
        func encode(_ parameters: Parameters) throws -> EncodedBody {
            let lines = parameters.keys.sorted().map { key in
                if case .string(let value) = parameters[key]! { return "\(key): \(value)" }
                return "\(key): ?"
            }
            return EncodedBody(data: Data(lines.joined(separator: "\n").utf8), contentType: "text/x-lines")
        }
    }

    @Test(arguments: TransportKind.allCases)
    func jsonBodyAndQueryOnTheSamePost(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport)
                let request = Request<EchoReply>(
                    .post, "echo/users", query: ["invite": "a b"],
                    body: ["name": "Ana", "age": 31, "tags": ["x", "y"], "address": ["city": "São Paulo", "zip": nil], "score": 9.5, "ok": true])
                let echo = try await client.send(request).value
                #expect(echo.method == "POST")
                #expect(echo.query == "invite=a%20b")
                #expect(echo.header("Content-Type") == "application/json")
                #expect(echo.bodyText == #"{"address":{"city":"São Paulo","zip":null},"age":31,"name":"Ana","ok":true,"score":9.5,"tags":["x","y"]}"#)
            }
        }
    }

    @Test(arguments: TransportKind.allCases)
    func formBody(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport)
                var request = Request<EchoReply>(.put, "echo/form", body: ["name": "Ana Lú", "user": ["roles": ["a", "b"]]])
                request.encoder = URLFormParameterEncoder()
                let echo = try await client.send(request).value
                #expect(echo.method == "PUT")
                #expect(echo.header("Content-Type") == "application/x-www-form-urlencoded; charset=utf-8")
                #expect(echo.bodyText == "name=Ana%20L%C3%BA&user%5Broles%5D%5B%5D=a&user%5Broles%5D%5B%5D=b")
            }
        }
    }

    @Test func clientWideEncoderAndCustomEncoder() async throws {
        try await withServer { server in
            let client = server.client(URLSessionTransport()) { $0.parameterEncoder = LinesEncoder() }
            let echo = try await client.send(Request<EchoReply>(.patch, "echo", body: ["b": "2", "a": "1"])).value
            #expect(echo.header("Content-Type") == "text/x-lines")
            #expect(echo.bodyText == "a: 1\nb: 2")
        }
    }

    @Test func encodableBody() async throws {
        try await withServer { server in
            let client = server.client(URLSessionTransport())
            let echo = try await client.send(Request<EchoReply>(.post, "echo", body: .json(NewUser(name: "Ana", age: 3)))).value
            #expect(echo.header("Content-Type") == "application/json")
            #expect(try JSONDecoder().decode(NewUser.self, from: echo.bodyData) == NewUser(name: "Ana", age: 3))
        }
    }

    @Test func rawDataBody() async throws {
        try await withServer { server in
            let client = server.client(URLSessionTransport())
            let bytes = Data((0..<1000).map { UInt8($0 % 256) })
            let echo = try await client.send(Request<EchoReply>(.post, "echo", body: .data(bytes, contentType: "application/octet-stream"))).value
            #expect(echo.bodyData == bytes)
            #expect(echo.header("Content-Length") == "1000")
        }
    }

    @Test func getParametersGoIntoTheQuery() async throws {
        try await withServer { server in
            let client = server.client(URLSessionTransport())
            let echo = try await client.send(Request<EchoReply>(.get, "echo", query: ["a": 1], body: ["b": 2, "a": 9])).value
            #expect(echo.query == "a=1&b=2")
            #expect(echo.body.isEmpty)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func binaryParametersSwitchToMultipart(kind: TransportKind) async throws {
        try await withServer { server in
            try await kind.with { transport in
                let client = server.client(transport)
                let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x0D, 0x0A, 0x2D, 0x2D])
                let echo = try await client.send(Request<EchoReply>(.post, "echo", body: ["title": "Cat", "photo": .data(png)])).value
                let contentType = try #require(echo.header("Content-Type"))
                #expect(contentType.hasPrefix("multipart/form-data; boundary="))
                let boundary = String(contentType.split(separator: "=", maxSplits: 1)[1])
                var expected = Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"file.png\"\r\nContent-Type: image/png\r\n\r\n".utf8)
                expected.append(png)
                expected.append(Data("\r\n--\(boundary)\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nCat\r\n--\(boundary)--\r\n".utf8))
                #expect(echo.bodyData == expected)
            }
        }
    }

    @Test func headersMergeDefaultsAndRequestHeaders() async throws {
        try await withServer { server in
            let client = server.client(URLSessionTransport()) {
                $0.defaultHeaders = ["X-App": "demo", "Accept-Language": "pt-BR"]
            }
            let request = Request<EchoReply>(.post, "echo", body: ["a": 1], headers: ["accept-language": "ru", "X-Trace": "t1", "Content-Type": "application/vnd.test+json"])
            let echo = try await client.send(request).value
            #expect(echo.header("X-App") == "demo")
            #expect(echo.header("Accept-Language") == "ru")
            #expect(echo.headers.filter { $0.first?.lowercased() == "accept-language" }.count == 1)
            #expect(echo.header("X-Trace") == "t1")
            #expect(echo.header("Content-Type") == "application/vnd.test+json")
        }
    }

    @Test func bodiesThatCannotBeEncodedAreTypedErrors() async throws {
        let client = APIClient(baseURL: URL(string: "http://127.0.0.1:1")!)
        for body: RequestBody in [["n": .double(.nan)], .json(FailingBody()), ["f": .file(URL(fileURLWithPath: "/nonexistent/courier.bin"))]] {
            await #expect {
                _ = try await client.send(Request<Data>(.post, "x", body: body))
            } throws: { error in
                let error = error as! CourierError
                return error.kind == .encodingFailed && error.message.contains("cannot be encoded")
            }
        }
        var form = Request<Data>(.post, "x", body: ["file": .data(Data([1]))])
        form.encoder = URLFormParameterEncoder()
        #expect(try client.transportRequest(for: form).headers["Content-Type"]?.hasPrefix("multipart/form-data") == true)
    }
}
