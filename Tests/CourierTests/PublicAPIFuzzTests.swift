import CourierDemo
import CourierProbes
import Foundation
import PropertyBased
import Testing

/// Random requests and client configurations, odd and wrong values included, sent through the
/// public API on both transports and on `StubTransport`. They run in a `courier-test-helper fuzz-probe`
/// process: a crash fails this test alone, and the last `case=` line names the case.
@Suite(.timeLimit(.minutes(5)))
struct PublicAPIFuzzTests {
    static let count = 400

    // Each value is mostly one a careful app would send (odd but valid: Unicode, spaces, `?`,
    // `#`, `%`, dot segments, empties), now and then one it should not (NaN, CR LF, NUL…), so most
    // cases reach the wire and the rest are refused.
    static let goodNumbers: [Double] = [0.5, 5, 30, 1e-9, 1e300, -0.0, 0, -1, .greatestFiniteMagnitude]
    static let badNumbers: [Double] = [.nan, .infinity, -.infinity]
    static let goodTexts = [
        "", "a", "a b", "ü", "日本", "?", "#", "%", "%zz", "%20", "&", "=", "+", "..", ".", "/", "//", "\t", "\"", "'",
        "<x/>", "http://", "https://127.0.0.1:1/", "ftp://x", "a?b=c", "échos", String(repeating: "x", count: 3000),
    ]
    static let badTexts = ["\r\n", "\u{0}", "a\nb", "\u{7F}"]
    static let goodHeaderNames = ["X-A", "Accept", "X-Trace", "Content-Type", "If-None-Match", "X-Empty"]
    static let badHeaderNames = ["", "X B", "X\r\nY", "ü", "Host:"]
    static let goodMethods = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "PROPFIND", "get"]
    static let badMethods = ["", "G ET", "GET\r\n", "ünï"]
    static let goodTimeouts: [Double?] = [nil, nil, nil, 5, 30, 0.5]
    static let goodSizes: [Int64?] = [nil, nil, nil, 0, 100, 1 << 20, .max]

    static func pick<T: Sendable>(_ values: [T]) -> Generator<T, Shrink.Integer<Int>> {
        Gen.int(in: 0...(values.count - 1)).map { index -> T in values[index] }
    }

    /// One in ten from `bad`, else from `good`.
    static func mostly<T: Sendable>(_ good: [T], _ bad: [T]) -> Generator<T, Shrink.Integer<Int>> {
        Gen.int(in: 0...(good.count * 9 + bad.count - 1)).map { index -> T in
            index < good.count * 9 ? good[index % good.count] : bad[index - good.count * 9]
        }
    }

    static let text = mostly(goodTexts, badTexts)
    static let number = mostly(goodNumbers, badNumbers).map { number -> UInt64 in number.bitPattern }
    static let bytes = Gen.uint8().array(of: 0...64)
    static let value = zip(Gen.int(in: 0...5), text, Gen.int(), number, Gen.bool, bytes).map { kind, text, int, bits, flag, bytes -> FuzzCase.Value in
        switch kind {
        case 0: .string(text)
        case 1: .int(int)
        case 2: .double(bits: bits)
        case 3: .bool(flag)
        case 4: .null
        default: .data(bytes)
        }
    }
    static let headers = zip(mostly(goodHeaderNames, badHeaderNames), text).map { name, value -> [String] in [name, value] }.array(of: 0...3)
    static let path = text.array(of: 0...4).map { parts -> String in parts.joined(separator: "/") }
    static let query = zip(text, value).map { key, value -> [String: FuzzCase.Value] in [key: value] }.array(of: 0...3).map { pairs -> [String: FuzzCase.Value] in
        pairs.reduce(into: [String: FuzzCase.Value]()) { result, pair in result.merge(pair) { first, _ in first } }
    }
    static let body = zip(Gen.int(in: 0...2), query, Gen.bool, bytes, text).map { kind, parameters, form, bytes, type -> FuzzCase.Body? in
        switch kind {
        case 0: nil
        case 1: .parameters(parameters, form: form)
        default: .raw(bytes, contentType: type)
        }
    }
    static let request = zip(
        mostly(goodMethods, badMethods), path, query, headers,
        mostly(goodTimeouts, [.nan, .infinity, -1, 0]).map { $0?.bitPattern }, mostly(goodSizes, [-1]))
    static let client = zip(
        mostly([5.0, 5, 5, 30], [.nan, .infinity, -.infinity, -1, 0]).map { number -> UInt64 in number.bitPattern }, headers,
        mostly([1, 2, 3], [0, -1]), mostly([0, 1, 5], [-1]))
    static let fuzzCase = zip(request, body, client).map { request, body, client -> FuzzCase in
        FuzzCase(
            method: request.0, path: request.1, query: request.2, headers: request.3, timeoutBits: request.4,
            maximumResponseSize: request.5, body: body, clientTimeoutBits: client.0, clientHeaders: client.1,
            retryAttempts: client.2, maximumRedirects: client.3)
    }

    @Test(arguments: ["ahc", "urlsession", "stub"])
    func randomRequestsNeverCrashOrHang(_ transport: String) async throws {
        var cases: [FuzzCase] = []
        await propertyCheck(count: Self.count, input: Self.fuzzCase) { cases.append($0) }
        #expect(cases.count == Self.count)
        let directory = try TemporaryDirectory.created()
        defer { directory.remove() }
        let file = directory.url.appendingPathComponent("cases.json")
        try JSONEncoder().encode(cases).write(to: file)
        let outcome = try await ChildProcess.run(
            helper: ["fuzz-probe", "--cases", file.path, "--transport", transport], within: .seconds(240))
        let last = outcome.output.split(separator: "\n").last { $0.hasPrefix("case=") } ?? "none"
        let failing = Int(last.dropFirst("case=".count)).flatMap { cases.indices.contains($0) ? cases[$0] : nil }
        let failingJSON = failing.flatMap { try? JSONEncoder().encode($0) }.map { String(decoding: $0, as: UTF8.self) } ?? "?"
        #expect(outcome.succeeded, "stopped at \(last), the case \(failingJSON): \(outcome)")
        let summary = outcome.output.split(separator: "\n").last { $0.hasPrefix("cases=") }.map(String.init) ?? "no summary"
        #expect(summary.hasPrefix("cases=\(cases.count) "), "\(outcome.output.suffix(300))")
        // The figures for the closing note: cases run and what they got.
        print("fuzz-probe \(transport): \(summary)")
        for line in outcome.output.split(separator: "\n") where line.hasPrefix("result=transport") || line.hasPrefix("result=invalidResponse") {
            print("fuzz-probe \(transport): \(line.prefix(400))")
        }
    }
}
