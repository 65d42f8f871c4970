import Foundation
import Testing
import Courier

/// The package's one JSON writer, checked against Foundation's parser: whatever it writes parses
/// back to the value written.
@Suite struct JSONWriterTests {
    @Test func everyEscapeAndEveryLengthParsesBack() throws {
        var generator = SystemRandomNumberGenerator()
        // All 128 ASCII characters (controls, quote and backslash among them), two-, three- and
        // four-byte UTF-8, in strings from empty to past the writer's first buffer.
        let alphabet = (0..<128).map { Character(UnicodeScalar(UInt8($0))) } + ["é", "€", "😀", "\u{2028}"]
        for length in [0, 1, 7, 8, 9, 63, 1_000, 5_000] {
            let string = String((0..<length).map { _ in alphabet.randomElement(using: &generator) ?? "a" })
            var writer = JSONWriter()
            try writer.write(.array([.string(string), .int(Int.min), .int(Int.max), .int(0), .int(-7), .double(-0.5)]))
            let parsed = try #require(try JSONSerialization.jsonObject(with: writer.data) as? [Any])
            #expect(parsed.first as? String == string, "length \(length)")
            #expect((parsed[1] as? NSNumber)?.int64Value == Int64.min && (parsed[2] as? NSNumber)?.int64Value == Int64.max)
            #expect(parsed[3] as? Int == 0 && parsed[4] as? Int == -7 && parsed[5] as? Double == -0.5)
        }
    }

    @Test func piecesGiveTheSameBytesAsATree() throws {
        var pieces = JSONWriter(prettyPrinted: true, capacity: 16)
        pieces.beginObject()
        pieces.literalKey("a")
        pieces.beginArray()
        pieces.element()
        pieces.write(1)
        pieces.element()
        pieces.write("x\n\"y\"")
        pieces.endArray()
        pieces.literalKey("b")
        pieces.beginObject()
        pieces.endObject()
        pieces.literalKey("c")
        try pieces.write(2.5)
        pieces.endObject()
        var tree = JSONWriter(prettyPrinted: true)
        try tree.write(.object(["c": .double(2.5), "a": .array([.int(1), .string("x\n\"y\"")]), "b": .object([:])]))
        #expect(pieces.bytes == tree.bytes)
        #expect(String(decoding: tree.bytes, as: UTF8.self) == "{\n  \"a\" : [\n    1,\n    \"x\\n\\\"y\\\"\"\n  ],\n  \"b\" : {},\n  \"c\" : 2.5\n}")
    }
}
