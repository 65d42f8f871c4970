import Foundation

/// A JSON parser (RFC 8259) straight from bytes to ``JSONValue``: no Foundation objects on the way.
///
/// Numbers with an integral value that fits in `Int` (`5`, `5.0`, `5e0`) become ``JSONValue/int(_:)``,
/// other numbers ``JSONValue/double(_:)``;
/// strings are validated UTF-8 with every escape decoded (surrogate pairs included); nesting is
/// limited to 512 levels; anything after the value but white space is an error.
package struct JSONParser {
    /// Why bytes are not JSON, and where.
    struct Failure: Error, CustomStringConvertible {
        let offset: Int
        let reason: String
        var description: String { "Invalid JSON at byte \(offset): \(reason)" }
    }

    static let maximumDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0
    private var depth = 0

    private init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    /// Parses one JSON document.
    static func parse(_ data: Data) throws -> JSONValue {
        try data.withUnsafeBytes { raw in
            var parser = JSONParser(bytes: raw.bindMemory(to: UInt8.self))
            if parser.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }  // a UTF-8 byte order mark
            parser.skipWhitespace()
            let value = try parser.parseValue()
            parser.skipWhitespace()
            guard parser.index == parser.bytes.count else { throw parser.failure("unexpected data after the value") }
            return value
        }
    }

    private func failure(_ reason: String) -> Failure { Failure(offset: index, reason: reason) }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws -> JSONValue {
        guard index < bytes.count else { throw failure("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw failure("unexpected character '\(Character(UnicodeScalar(bytes[index])))'")
        }
    }

    private mutating func expect(_ literal: StaticString) throws {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw failure("unexpected end of input") }
        for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] {
            throw failure("invalid literal")
        }
        index += count
    }

    private mutating func enter() throws {
        depth += 1
        guard depth <= Self.maximumDepth else { throw failure("nesting deeper than \(Self.maximumDepth) levels") }
    }

    private mutating func parseObject() throws -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a string key") }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected ':'") }
            index += 1
            skipWhitespace()
            members[key] = try parseValue()
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            throw failure("expected ',' or '}'")
        }
    }

    private mutating func parseArray() throws -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(elements) }
            throw failure("expected ',' or ']'")
        }
    }

    private mutating func parseString() throws -> String {
        index += 1
        let start = index
        // Fast path: no escapes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                guard let text = String(validating: slice, as: UTF8.self) else { throw Failure(offset: start, reason: "invalid UTF-8 in a string") }
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw failure("control character in a string") }
            index += 1
        }
        var buffer = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: buffer, as: UTF8.self) else { throw Failure(offset: start, reason: "invalid UTF-8 in a string") }
                return text
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw failure("unexpected end of input") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(escape)
                case UInt8(ascii: "b"): buffer.append(0x08)
                case UInt8(ascii: "f"): buffer.append(0x0C)
                case UInt8(ascii: "n"): buffer.append(0x0A)
                case UInt8(ascii: "r"): buffer.append(0x0D)
                case UInt8(ascii: "t"): buffer.append(0x09)
                case UInt8(ascii: "u"): buffer.append(contentsOf: try parseUnicodeEscape())
                default: throw failure("invalid escape")
                }
            case 0..<0x20:
                throw failure("control character in a string")
            default:
                buffer.append(byte)
                index += 1
            }
        }
        throw failure("unterminated string")
    }

    /// After `\u`: four hex digits, and the low half of a surrogate pair when needed; the UTF-8 bytes.
    private mutating func parseUnicodeEscape() throws -> [UInt8] {
        var scalar = try parseHex4()
        if (0xD800...0xDBFF).contains(scalar) {
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw failure("unpaired surrogate")
            }
            index += 2
            let low = try parseHex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw failure("unpaired surrogate") }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(scalar) {
            throw failure("unpaired surrogate")
        }
        guard let unicode = UnicodeScalar(scalar) else { throw failure("invalid code point") }
        return Array(String(Character(unicode)).utf8)
    }

    private mutating func parseHex4() throws -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("unexpected end of input") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private mutating func parseNumber() throws -> JSONValue {
        let start = index
        var isInteger = true
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { throw failure("unexpected end of input") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else if (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(bytes[index]) {
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        } else {
            throw failure("invalid number")
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            let digits = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            guard index > digits else { throw failure("invalid number") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            let digits = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            guard index > digits else { throw failure("invalid number") }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if isInteger, let int = Int(text) { return .int(int) }
        guard let double = Double(text), double.isFinite else { throw Failure(offset: start, reason: "number out of range") }
        // JSON has one number type: `1e10` and `10000000000` are the same value.
        if double == double.rounded(), let int = Int(exactly: double) { return .int(int) }
        return .double(double)
    }

    // MARK: - The objects of a list, found without building values

    /// What ``elements(in:path:)`` found at a path.
    package enum Found {
        /// The byte ranges (offsets from the data's start) of each element of the array there, or
        /// of the one object there; none for `null`.
        case elements([Range<Int>])
        /// Something that is neither an object, a list nor `null`: what it is, in words.
        case other(String)
    }

    /// Follows `path` through objects and finds where each element of the array there begins and
    /// ends (or the one object there), skipping values without building them: a store import
    /// hashes each object's bytes and decodes only those it has not stored before. The skipping
    /// checks structure only; an element is parsed in full when it is decoded. `nil`, for the
    /// caller to parse the whole body instead, when a key on the path is written with escapes or
    /// is not there (``RootKeyPath`` then says what is missing).
    package static func elements(in data: Data, path: [String]) throws -> Found? {
        try data.withUnsafeBytes { raw in
            var parser = JSONParser(bytes: raw.bindMemory(to: UInt8.self))
            if parser.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
            return try parser.findElements(path: path)
        }
    }

    private mutating func findElements(path: [String]) throws -> Found? {
        guard let found = try elementsAt(path) else { return nil }
        guard case .elements = found else { return found }
        // The rest of the document: the members after the path's keys, then nothing.
        for _ in path {
            while true {
                skipWhitespace()
                if peek == UInt8(ascii: "}") { break }
                guard peek == UInt8(ascii: ",") else { throw failure("expected ',' or '}'") }
                index += 1
                skipWhitespace()
                guard peek == UInt8(ascii: "\"") else { throw failure("expected a string key") }
                _ = try skipString()
                skipWhitespace()
                guard peek == UInt8(ascii: ":") else { throw failure("expected ':'") }
                index += 1
                try skipValue()
            }
            index += 1
        }
        skipWhitespace()
        guard index == bytes.count else { throw failure("unexpected data after the value") }
        return found
    }

    /// The elements at `path`, the parser left just after them.
    private mutating func elementsAt(_ path: [String]) throws -> Found? {
        for component in path {
            skipWhitespace()
            guard peek == UInt8(ascii: "{") else { return nil }
            index += 1
            var found = false
            members: while true {
                skipWhitespace()
                if peek == UInt8(ascii: "}") { break members }
                guard peek == UInt8(ascii: "\"") else { throw failure("expected a string key") }
                let keyStart = index + 1
                if try skipString() { return nil }
                let key = UnsafeBufferPointer(rebasing: bytes[keyStart..<(index - 1)])
                skipWhitespace()
                guard peek == UInt8(ascii: ":") else { throw failure("expected ':'") }
                index += 1
                if key.elementsEqual(component.utf8) {
                    found = true
                    break members
                }
                try skipValue()
                skipWhitespace()
                if peek == UInt8(ascii: ",") {
                    index += 1
                } else if peek == UInt8(ascii: "}") {
                    break members
                } else {
                    throw failure("expected ',' or '}'")
                }
            }
            if !found { return nil }
        }
        skipWhitespace()
        switch peek {
        case UInt8(ascii: "["):
            index += 1
            var ranges: [Range<Int>] = []
            skipWhitespace()
            if peek == UInt8(ascii: "]") {
                index += 1
                return .elements(ranges)
            }
            while true {
                skipWhitespace()
                let start = index
                try skipValue()
                ranges.append(start..<index)
                skipWhitespace()
                if peek == UInt8(ascii: ",") {
                    index += 1
                } else if peek == UInt8(ascii: "]") {
                    index += 1
                    return .elements(ranges)
                } else {
                    throw failure("expected ',' or ']'")
                }
            }
        case UInt8(ascii: "{"):
            let start = index
            try skipValue()
            return .elements([start..<index])
        case UInt8(ascii: "n"):
            try expect("null")
            return .elements([])
        case nil: return .other("the end of the body")
        case UInt8(ascii: "\""): return .other("a string")
        default: return .other("a number, Boolean or null")
        }
    }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// Skips a string starting at its quote; says whether it had escapes.
    private mutating func skipString() throws -> Bool {
        index += 1
        var escaped = false
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                index += 1
                return escaped
            case UInt8(ascii: "\\"):
                escaped = true
                index += 2
            default:
                index += 1
            }
        }
        throw failure("unterminated string")
    }

    /// Skips one value by its structure (brackets and strings), without building it.
    private mutating func skipValue() throws {
        skipWhitespace()
        guard let first = peek else { throw failure("unexpected end of input") }
        switch first {
        case UInt8(ascii: "\""):
            _ = try skipString()
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "\""):
                    _ = try skipString()
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                    guard depth <= Self.maximumDepth else { throw failure("nesting deeper than \(Self.maximumDepth) levels") }
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 {
                        index += 1
                        return
                    }
                default:
                    break
                }
                index += 1
            }
            throw failure("unterminated \(first == UInt8(ascii: "{") ? "object" : "array")")
        default:
            let start = index
            scalar: while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), 0x20, 0x0A, 0x0D, 0x09: break scalar
                default: index += 1
                }
            }
            if index == start { throw failure("expected a value") }
        }
    }
}
