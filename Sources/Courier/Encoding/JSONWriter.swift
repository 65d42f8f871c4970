import Foundation

/// Writes ``Parameter`` values as JSON with sorted object keys: compact, or pretty-printed
/// (`"key" : value`, two spaces an indent level, empty arrays and objects as `[]` and `{}`).
///
/// A document can also be written piece by piece, without building a ``Parameter`` tree first:
/// ``beginObject()``, ``key(_:)`` (or ``literalKey(_:)``) and a value for each member, ``endObject()`` (and the same for
/// arrays with ``beginArray()``/``endArray()``). Written that way, keys come out in the order
/// given: the caller gives them sorted to get the same bytes as ``write(_:)``.
package struct JSONWriter {
    package private(set) var bytes: [UInt8] = []
    /// Whether to break lines and indent.
    private let pretty: Bool
    /// The current indent level when pretty-printing.
    private var depth = 0
    /// Whether the innermost open array or object has a member yet (it then needs a comma before
    /// the next one).
    private var hasMember = false

    /// A writer of compact JSON, or of pretty-printed JSON when `prettyPrinted`, its lines
    /// indented `depth` levels (for a value written inside a larger document).
    package init(prettyPrinted: Bool = false, depth: Int = 0) {
        pretty = prettyPrinted
        self.depth = depth
    }

    package mutating func write(_ value: Parameter) throws {
        switch value {
        case .string(let string): writeString(string)
        case .int(let int): write(int)
        case .double(let double): try write(double)
        case .bool(let bool): bytes.append(contentsOf: (bool ? "true" : "false").utf8)
        case .null: bytes.append(contentsOf: "null".utf8)
        case .array(let values):
            beginArray()
            for (index, value) in values.enumerated() {
                element()
                do { try write(value) } catch let error as ParameterEncodingError { throw error.inside("[\(index)]") }
            }
            endArray()
        case .object(let values):
            beginObject()
            for (key, value) in values.sorted(by: { $0.key < $1.key }) {
                self.key(key)
                do { try write(value) } catch let error as ParameterEncodingError { throw error.inside(key) }
            }
            endObject()
        case .data(let data, _, _): writeString(data.base64EncodedString())
        case .file(let url, _, _):
            throw ParameterEncodingError("the file \(url.path) cannot be sent in a JSON body; send it as multipart")
        }
    }

    // MARK: Piece by piece

    /// A string value.
    package mutating func write(_ string: String) { writeString(string) }

    /// An integer value.
    package mutating func write(_ int: Int) { bytes.append(contentsOf: String(int).utf8) }

    /// A number value; infinities and NaN are refused (JSON has no way to write them).
    package mutating func write(_ double: Double) throws {
        guard double.isFinite else {
            throw ParameterEncodingError("the number is \(double), which JSON cannot represent", at: "")
        }
        bytes.append(contentsOf: Self.format(double).utf8)
    }

    /// Opens an object; its members follow as ``key(_:)`` and a value each.
    package mutating func beginObject() { open(UInt8(ascii: "{")) }

    /// Closes the innermost object.
    package mutating func endObject() { close(UInt8(ascii: "}")) }

    /// Opens an array; each element follows ``element()``.
    package mutating func beginArray() { open(UInt8(ascii: "[")) }

    /// Closes the innermost array.
    package mutating func endArray() { close(UInt8(ascii: "]")) }

    /// Starts the next member of the innermost object: its key, and the colon after it.
    package mutating func key(_ key: String) {
        element()
        writeString(key)
        colon()
    }

    /// Starts the next member of the innermost object with a key written in the source, copied as
    /// it is: it must need no escaping (no quote, backslash or control character).
    package mutating func literalKey(_ key: StaticString) {
        element()
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        colon()
    }

    private mutating func colon() {
        if pretty {
            bytes.append(UInt8(ascii: " "))
            bytes.append(UInt8(ascii: ":"))
            bytes.append(UInt8(ascii: " "))
        } else {
            bytes.append(UInt8(ascii: ":"))
        }
    }

    /// Starts the next element of the innermost array.
    package mutating func element() {
        if hasMember { bytes.append(UInt8(ascii: ",")) }
        hasMember = true
        breakLine()
    }

    private mutating func open(_ bracket: UInt8) {
        bytes.append(bracket)
        depth += 1
        hasMember = false
    }

    private mutating func close(_ bracket: UInt8) {
        depth -= 1
        if hasMember { breakLine() }
        bytes.append(bracket)
        hasMember = true  // the value just closed is a member of the level around it
    }

    /// Integral values within 2^53 are written without a fraction; others in Swift's shortest
    /// round-tripping form.
    static func format(_ double: Double) -> String {
        if double == double.rounded(), abs(double) < 9_007_199_254_740_992 { return String(Int64(double)) }
        return "\(double)"
    }

    /// A line break and the indent of the first 32 levels, copied from in one piece.
    private static let lineBreaks: [UInt8] = [0x0A] + Array(repeating: UInt8(ascii: " "), count: 64)

    /// A line break and the current indent, when pretty-printing.
    private mutating func breakLine() {
        guard pretty else { return }
        let width = 1 + depth * 2
        if width <= Self.lineBreaks.count {
            Self.lineBreaks.withUnsafeBufferPointer { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: $0[..<width])) }
        } else {
            bytes.append(0x0A)
            bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth * 2))
        }
    }

    /// `string` quoted, with `"`, `\\` and control characters escaped; the runs between them are
    /// copied whole.
    private mutating func writeString(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { utf8 in
            var start = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                escape(byte)
                start = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// The escape sequence of a quote, backslash or control character.
    private mutating func escape(_ byte: UInt8) {
        bytes.append(0x5C)
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        default:
            bytes.append(contentsOf: "u00".utf8)
            bytes.append(Self.hex[Int(byte >> 4)])
            bytes.append(Self.hex[Int(byte & 0xF)])
        }
    }

    private static let hex = Array("0123456789abcdef".utf8)
}

/// Why a set of parameters could not be encoded.
struct ParameterEncodingError: Error, CustomStringConvertible {
    let problem: String
    /// Where the value is, for JSON bodies (`user.scores[2]`); `nil` when the problem names it.
    let path: String?

    init(_ problem: String) {
        self.problem = problem
        path = nil
    }

    init(_ problem: String, at path: String) {
        self.problem = problem
        self.path = path
    }

    /// The same problem one level further out: `component` is a key or an `[index]`.
    func inside(_ component: String) -> ParameterEncodingError {
        guard let path else { return self }
        let joined = path.isEmpty ? component : component + (path.hasPrefix("[") ? path : "." + path)
        return ParameterEncodingError(problem, at: joined)
    }

    var description: String {
        guard let path, !path.isEmpty else { return problem }
        return "the value at \(path): \(problem)"
    }
}
