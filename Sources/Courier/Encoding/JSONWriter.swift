import Foundation

/// Writes ``Parameter`` values as JSON with sorted object keys: compact, or pretty-printed
/// (`"key" : value`, two spaces an indent level, empty arrays and objects as `[]` and `{}`).
package struct JSONWriter {
    package private(set) var bytes: [UInt8] = []
    /// Whether to break lines and indent.
    private let pretty: Bool
    /// The current indent level when pretty-printing.
    private var depth = 0

    /// A writer of compact JSON, or of pretty-printed JSON when `prettyPrinted`, its lines
    /// indented `depth` levels (for a value written inside a larger document).
    package init(prettyPrinted: Bool = false, depth: Int = 0) {
        pretty = prettyPrinted
        self.depth = depth
    }

    package mutating func write(_ value: Parameter) throws {
        switch value {
        case .string(let string): writeString(string)
        case .int(let int): bytes.append(contentsOf: String(int).utf8)
        case .double(let double):
            guard double.isFinite else {
                throw ParameterEncodingError("the number is \(double), which JSON cannot represent", at: "")
            }
            bytes.append(contentsOf: Self.format(double).utf8)
        case .bool(let bool): bytes.append(contentsOf: (bool ? "true" : "false").utf8)
        case .null: bytes.append(contentsOf: "null".utf8)
        case .array(let values):
            bytes.append(UInt8(ascii: "["))
            depth += 1
            for (index, element) in values.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                breakLine()
                do { try write(element) } catch let error as ParameterEncodingError { throw error.inside("[\(index)]") }
            }
            depth -= 1
            if !values.isEmpty { breakLine() }
            bytes.append(UInt8(ascii: "]"))
        case .object(let values):
            bytes.append(UInt8(ascii: "{"))
            depth += 1
            for (index, key) in values.keys.sorted().enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                breakLine()
                writeString(key)
                bytes.append(contentsOf: pretty ? Self.prettyColon : [UInt8(ascii: ":")])
                do { try write(values[key]!) } catch let error as ParameterEncodingError { throw error.inside(key) }
            }
            depth -= 1
            if !values.isEmpty { breakLine() }
            bytes.append(UInt8(ascii: "}"))
        case .data(let data, _, _): writeString(data.base64EncodedString())
        case .file(let url, _, _):
            throw ParameterEncodingError("the file \(url.path) cannot be sent in a JSON body; send it as multipart")
        }
    }

    /// Integral values within 2^53 are written without a fraction; others in Swift's shortest
    /// round-tripping form.
    static func format(_ double: Double) -> String {
        if double == double.rounded(), abs(double) < 9_007_199_254_740_992 { return String(Int64(double)) }
        return "\(double)"
    }

    private static let prettyColon = Array(" : ".utf8)

    /// A line break and the current indent, when pretty-printing.
    private mutating func breakLine() {
        guard pretty else { return }
        bytes.append(0x0A)
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth * 2))
    }

    private mutating func writeString(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20:
                bytes.append(contentsOf: "\\u00".utf8)
                bytes.append(Self.hex[Int(byte >> 4)])
                bytes.append(Self.hex[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
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
