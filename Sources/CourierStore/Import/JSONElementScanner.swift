import Foundation

/// Finds where each object of a JSON response's list begins and ends, without building values:
/// an import hashes each object's bytes and decodes only the ones it has not stored before.
///
/// It follows the root key path through objects, then splits the array found there (or takes the
/// one object). It returns `nil`, for the caller to parse the whole body instead, when a key on the
/// path is written with escapes or the path is not there: then ``RootKeyPath``, the one reader of
/// root key paths, says what is missing, as it does for `decoding(at:)`.
struct JSONElementScanner {
    private let bytes: UnsafeRawBufferPointer
    private var index = 0

    private init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    /// The byte ranges (offsets from `data.startIndex`) of the objects at `path`.
    static func elements(in data: Data, path: [String]) throws(ImportSourceError) -> [Range<Int>]? {
        let result: Result<[Range<Int>]?, ImportSourceError> = data.withUnsafeBytes { raw in
            var scanner = JSONElementScanner(bytes: raw)
            do throws(ImportSourceError) {
                return .success(try scanner.scan(path: path))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private mutating func scan(path: [String]) throws(ImportSourceError) -> [Range<Int>]? {
        for component in path {
            skipWhitespace()
            guard peek == UInt8(ascii: "{") else { return nil }
            index += 1
            var found = false
            members: while true {
                skipWhitespace()
                if peek == UInt8(ascii: "}") { break members }
                guard peek == UInt8(ascii: "\"") else { throw malformed("a key") }
                let keyStart = index + 1
                if try skipString() { return nil }
                let key = UnsafeRawBufferPointer(rebasing: bytes[keyStart..<(index - 1)])
                skipWhitespace()
                guard peek == UInt8(ascii: ":") else { throw malformed("“:”") }
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
                    throw malformed("“,” or “}”")
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
            if peek == UInt8(ascii: "]") { return ranges }
            while true {
                skipWhitespace()
                let start = index
                try skipValue()
                ranges.append(start..<index)
                skipWhitespace()
                if peek == UInt8(ascii: ",") {
                    index += 1
                } else if peek == UInt8(ascii: "]") {
                    return ranges
                } else {
                    throw malformed("“,” or “]”")
                }
            }
        case UInt8(ascii: "{"):
            let start = index
            try skipValue()
            return [start..<index]
        case UInt8(ascii: "n"):
            return []
        default:
            throw .notAList(path: path.joined(separator: "."), found: describeHere())
        }
    }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// Skips a string starting at its quote; returns whether it had escapes.
    private mutating func skipString() throws(ImportSourceError) -> Bool {
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
        throw .malformed(offset: bytes.count, expected: "the end of a string")
    }

    private mutating func skipValue() throws(ImportSourceError) {
        skipWhitespace()
        guard let first = peek else { throw malformed("a value") }
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
            throw malformed("the end of \(first == UInt8(ascii: "{") ? "an object" : "an array")")
        default:
            let start = index
            scalar: while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), 0x20, 0x0A, 0x0D, 0x09: break scalar
                default: index += 1
                }
            }
            if index == start { throw malformed("a value") }
        }
    }

    private func malformed(_ expected: String) -> ImportSourceError { .malformed(offset: index, expected: expected) }

    private func describeHere() -> String {
        switch peek {
        case nil: "the end of the body"
        case UInt8(ascii: "["): "an array"
        case UInt8(ascii: "{"): "an object"
        case UInt8(ascii: "\""): "a string"
        default: "a number, Boolean or null"
        }
    }
}
