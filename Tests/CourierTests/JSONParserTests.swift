import Courier
import Foundation
import Testing

/// The byte parser behind `JSONValue.parse`.
@Suite struct JSONParserTests {
    /// A random JSON value of bounded depth.
    static func randomValue(depth: Int, using generator: inout some RandomNumberGenerator) -> JSONValue {
        let choice = Int.random(in: 0..<(depth > 3 ? 5 : 7), using: &generator)
        switch choice {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2: return .int(Int.random(in: Int.min...Int.max, using: &generator))
        case 3: return .double(Double.random(in: -1e12...1e12, using: &generator).rounded(.towardZero) + 0.5)  // never whole
        case 4:
            let scalars: [UnicodeScalar] = ["a", "Z", "\"", "\\", "/", "\n", "\t", "\u{01}", "é", "中", "😀", " "]
            return .string(String(String.UnicodeScalarView((0..<Int.random(in: 0...12, using: &generator)).map { _ in scalars.randomElement(using: &generator)! })))
        case 5: return .array((0..<Int.random(in: 0...4, using: &generator)).map { _ in randomValue(depth: depth + 1, using: &generator) })
        default:
            var members: [String: JSONValue] = [:]
            for index in 0..<Int.random(in: 0...4, using: &generator) { members["k\(index)_é"] = randomValue(depth: depth + 1, using: &generator) }
            return .object(members)
        }
    }

    @Test func randomDocumentsRoundTrip() throws {
        var generator = SystemRandomNumberGenerator()
        let encoder = JSONEncoder()
        for _ in 0..<2_000 {
            let value = Self.randomValue(depth: 0, using: &generator)
            let data = try encoder.encode(value)
            #expect(try JSONValue.parse(data) == value, "\(String(decoding: data, as: UTF8.self))")
        }
    }

    @Test func escapesSurrogatesAndNumbers() throws {
        let text = #" {"s":"a\"b\\c\/d\b\f\n\r\t\u00e9\u4e2d\ud83d\ude00","i":-0,"big":123456789012345678901234,"e":1E2,"f":-2.5e-3,"t":true,"n":null,"a":[]} "#
        let value = try JSONValue.parse(Data(text.utf8))
        #expect(value["s"]?.stringValue == "a\"b\\c/d\u{08}\u{0C}\n\r\té中😀")
        #expect(value["i"] == .int(0))
        #expect(value["big"] == .double(1.2345678901234568e23))
        #expect(value["e"] == .int(100) && value["f"] == .double(-0.0025))
        #expect(value["t"] == .bool(true) && value["n"] == .null && value["a"] == .array([]))
        #expect(try JSONValue.parse(Data([0xEF, 0xBB, 0xBF] + Array(#"[1]"#.utf8))) == .array([.int(1)]))
        #expect(try JSONValue.parse(Data("  ".utf8)) == .null)
    }

    @Test(arguments: [
        "{", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "[1 2]", "01", "1.", ".5", "-", "1e", "+1", "tru", "nul", "\"abc",
        "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"", "\"a\u{01}b\"", "[1] x", "NaN", "1e999", "{\"a\":}", "]",
    ])
    func malformedInputIsAnErrorWithAnOffset(text: String) {
        #expect {
            _ = try JSONValue.parse(Data(text.utf8))
        } throws: { error in
            "\(error)".hasPrefix("Invalid JSON at byte ")
        }
    }

    @Test func invalidUTF8AndDeepNestingAreErrorsNotCrashes() {
        #expect(throws: (any Error).self) { try JSONValue.parse(Data([0x22, 0xFF, 0xFE, 0x22])) }
        #expect(throws: (any Error).self) { try JSONValue.parse(Data(String(repeating: "[", count: 100_000).utf8)) }
        let deepButAllowed = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        #expect(throws: Never.self) { try JSONValue.parse(Data(deepButAllowed.utf8)) }
    }
}
