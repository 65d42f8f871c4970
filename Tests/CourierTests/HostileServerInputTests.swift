import CourierDemo
import CourierProbes
import Foundation
import ImageStoreServer
import ImageStoreTesting
import Testing

/// Requests that ended the sample server's process, found by schemathesis against its OpenAPI
/// document (`Scripts/schemathesis.sh`), now answered with a 400:
/// - a multipart part whose header name holds a byte over 0x7F (MultipartKit 4.7.1's parser looks
///   it up in a 128-entry table);
/// - `/flaky/{key}?status=` outside 200-599 (swift-http-types' status precondition), or 204, 205
///   or 304: the route's JSON body went out as nothing under `Content-Type: application/json`,
///   which its document does not allow (schemathesis's check ST109, on a 304).
@Suite struct HostileServerInputTests {
    static let boundary = "courier-guard"

    /// A multipart body of one image part, with `name` as an extra header's name.
    static func body(headerName: [UInt8], fileName: String = "a.png") -> [UInt8] {
        var bytes = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"image\"; filename=\"\(fileName)\"\r\n".utf8)
        bytes += headerName + Array(": x\r\nContent-Type: image/png\r\n\r\n".utf8)
        bytes += [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 0xC3, count: 64)  // bytes over 0x7F in the body are fine
        bytes += Array("\r\n--\(boundary)--\r\n".utf8)
        return bytes
    }

    @Test func aNonASCIIHeaderNameIsRefusedWhereverTheChunksSplit() {
        let hostile = Self.body(headerName: Array("X-Caf\u{e9}".utf8))
        let fine = Self.body(headerName: Array("X-Cafe".utf8), fileName: "caf\u{e9}.png")  // UTF-8 in a value is fine
        for split in 0...hostile.count {
            var guarded = MultipartHeaderGuard(boundary: Self.boundary)
            #expect(!(guarded.accepts(hostile[..<split]) && guarded.accepts(hostile[split...])), "split at \(split)")
        }
        for split in 0...fine.count {
            var guarded = MultipartHeaderGuard(boundary: Self.boundary)
            #expect(guarded.accepts(fine[..<split]) && guarded.accepts(fine[split...]), "split at \(split)")
        }
    }

    /// Sent to a server in a child process, so a crash fails this test and not the run.
    @Test func theServerAnswersHostileRequests400AndKeepsServing() async throws {
        func request(_ method: String, _ path: String, query: [String: FuzzCase.Value] = [:], body: FuzzCase.Body? = nil) -> FuzzCase {
            FuzzCase(
                method: method, path: path, query: query, headers: [], timeoutBits: nil, maximumResponseSize: nil, body: body,
                clientTimeoutBits: (30.0).bitPattern, clientHeaders: [], retryAttempts: 1, maximumRedirects: 0, apiPath: "")
        }
        func upload(_ body: [UInt8]) -> FuzzCase {
            request("POST", "images", body: .raw(body, contentType: "multipart/form-data; boundary=\(Self.boundary)"))
        }
        let cases = [
            upload(Self.body(headerName: Array("X-Caf\u{e9}".utf8))), upload(Self.body(headerName: [0xFF])),
            request("GET", "flaky/a", query: ["status": .int(1215)]), request("GET", "flaky/b", query: ["status": .int(-3)]),
            request("GET", "flaky/c", query: ["status": .int(304)]), request("GET", "flaky/d", query: ["status": .int(204)]),
            upload(Self.body(headerName: Array("X-Cafe".utf8), fileName: "caf\u{e9}.png")),
        ]
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("cases.json")
        try JSONEncoder().encode(cases).write(to: file)
        let outcome = try await ChildProcess.run(helper: ["fuzz-probe", "--cases", file.path, "--transport", "ahc"], within: .seconds(120))
        #expect(outcome.succeeded, "\(outcome)")
        let results = outcome.output.split(separator: "\n").filter { $0.hasPrefix("result=") }
        #expect(results.count == cases.count, "\(outcome.output)")
        #expect(results.dropLast().allSatisfy { $0.contains("400") }, "\(results)")
        #expect(results.last?.hasPrefix("result=success") == true, "\(results)")
    }
}
