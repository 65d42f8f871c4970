import Foundation

/// Writes ``Parameter`` values as JSON with sorted object keys: compact, or pretty-printed
/// (`"key" : value`, two spaces an indent level, empty arrays and objects as `[]` and `{}`).
///
/// A document can also be written piece by piece, without building a ``Parameter`` tree first:
/// ``beginObject()``, ``key(_:)`` (or ``literalKey(_:)``) and a value for each member, ``endObject()`` (and the same for
/// arrays with ``beginArray()``/``endArray()``). Written that way, keys come out in the order
/// given: the caller gives them sorted to get the same bytes as ``write(_:)``.
///
/// The writer owns its buffer (so it cannot be copied): each piece is measured, then written
/// into the buffer in place. Appending to an `Array` cost more than writing the piece.
package struct JSONWriter: ~Copyable {
    /// The bytes written so far.
    private var storage: UnsafeMutablePointer<UInt8>
    private var used = 0
    private var capacity: Int
    /// Whether to break lines and indent.
    private let pretty: Bool
    /// The current indent level when pretty-printing.
    private var depth = 0
    /// Whether the innermost open array or object has a member yet (it then needs a comma before
    /// the next one).
    private var hasMember = false

    /// A writer of compact JSON, or of pretty-printed JSON when `prettyPrinted`, its lines
    /// indented `depth` levels (for a value written inside a larger document); `capacity` is the
    /// room it starts with (it grows as needed).
    package init(prettyPrinted: Bool = false, depth: Int = 0, capacity: Int = 1024) {
        pretty = prettyPrinted
        self.depth = depth
        self.capacity = Swift.max(capacity, 16)
        storage = .allocate(capacity: capacity)
    }

    deinit { storage.deallocate() }

    /// The bytes written so far.
    package var bytes: [UInt8] { Array(UnsafeBufferPointer(start: storage, count: used)) }

    /// How many bytes have been written.
    package var count: Int { used }

    /// The bytes written so far, as `Data`.
    package var data: Data { Data(bytes: storage, count: used) }

    /// Copies `bytes` in as they are (text around a document, which the caller makes valid).
    package mutating func writeRaw(_ bytes: UnsafeRawBufferPointer) {
        let out = reserve(bytes.count)
        if let source = bytes.baseAddress { UnsafeMutableRawPointer(out).copyMemory(from: source, byteCount: bytes.count) }
        used += bytes.count
    }

    /// Gives the bytes written so far to `body`, without a copy.
    package func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: storage, count: used))
    }

    package mutating func write(_ value: Parameter) throws {
        switch value {
        case .string(let string): writeString(string)
        case .int(let int): write(int)
        case .double(let double): try write(double)
        case .bool(let bool): append(bool ? "true" : "false")
        case .null: append("null")
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
    package mutating func write(_ int: Int) {
        let negative = int < 0
        var rest = int.magnitude
        var digits = 1
        while rest >= 10 {
            rest /= 10
            digits += 1
        }
        let length = digits + (negative ? 1 : 0)
        let out = reserve(length)
        if negative { out[0] = UInt8(ascii: "-") }
        rest = int.magnitude
        for index in stride(from: length - 1, through: negative ? 1 : 0, by: -1) {
            out[index] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
        used += length
    }

    /// A number value; infinities and NaN are refused (JSON has no way to write them).
    package mutating func write(_ double: Double) throws {
        guard double.isFinite else {
            throw ParameterEncodingError("the number is \(double), which JSON cannot represent", at: "")
        }
        if let integral = Self.integral(double) {
            write(integral)
        } else {
            append("\(double)")
        }
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
    /// it is: it must need no escaping (no quote, backslash or control character). The comma, line
    /// break, indent, quoted key and colon go in as one piece.
    package mutating func literalKey(_ key: StaticString) {
        element()
        key.withUTF8Buffer { utf8 in
            let out = reserve(utf8.count + 2)
            out[0] = UInt8(ascii: "\"")
            if let source = utf8.baseAddress { (out + 1).initialize(from: source, count: utf8.count) }
            out[utf8.count + 1] = UInt8(ascii: "\"")
            used += utf8.count + 2
        }
        colon()
    }

    private mutating func colon() {
        if pretty {
            let out = reserve(3)
            out[0] = UInt8(ascii: " ")
            out[1] = UInt8(ascii: ":")
            out[2] = UInt8(ascii: " ")
            used += 3
        } else {
            append(byte: UInt8(ascii: ":"))
        }
    }

    /// Starts the next element of the innermost array.
    package mutating func element() {
        if hasMember { append(byte: UInt8(ascii: ",")) }
        hasMember = true
        breakLine()
    }

    private mutating func open(_ bracket: UInt8) {
        append(byte: bracket)
        depth += 1
        hasMember = false
    }

    private mutating func close(_ bracket: UInt8) {
        depth -= 1
        if hasMember { breakLine() }
        append(byte: bracket)
        hasMember = true  // the value just closed is a member of the level around it
    }

    /// Integral values within 2^53 are written without a fraction; others in Swift's shortest
    /// round-tripping form.
    static func format(_ double: Double) -> String {
        if let integral = integral(double) { return String(integral) }
        return "\(double)"
    }

    /// `double` as an integer when it is integral and within 2^53 (so exact); `nil` otherwise,
    /// NaN and the infinities among them.
    private static func integral(_ double: Double) -> Int? {
        double == double.rounded() && abs(double) < 9_007_199_254_740_992 ? Int(double) : nil
    }

    /// A line break and the current indent, when pretty-printing.
    private mutating func breakLine() {
        guard pretty else { return }
        let width = 1 + depth * 2
        let out = reserve(width)
        out[0] = 0x0A
        (out + 1).initialize(repeating: UInt8(ascii: " "), count: width - 1)
        used += width
    }

    /// `string` quoted, with `"`, `\\` and control characters escaped.
    private mutating func writeString(_ string: String) {
        var string = string
        string.withUTF8 { writeString(utf8: UnsafeRawBufferPointer($0)) }
    }

    /// A string value from its UTF-8 bytes (which must be valid UTF-8), quoted, with `"`, `\\` and
    /// control characters escaped: measured first, then written in place, the runs between escapes
    /// copied whole.
    package mutating func writeString(utf8: UnsafeRawBufferPointer) {
        Self.writtenLengths.withUnsafeBufferPointer { lengths in
            var length = 2
            for byte in utf8 { length &+= Int(lengths[Int(byte)]) }
            let out = reserve(length)
            out[0] = UInt8(ascii: "\"")
            if let source = utf8.baseAddress?.assumingMemoryBound(to: UInt8.self) {
                if length == utf8.count + 2 {
                    (out + 1).initialize(from: source, count: utf8.count)
                } else {
                    var at = 1
                    var start = 0
                    for index in 0..<utf8.count where lengths[Int(source[index])] != 1 {
                        (out + at).initialize(from: source + start, count: index - start)
                        at += index - start
                        at += Self.escape(source[index], into: out + at)
                        start = index + 1
                    }
                    (out + at).initialize(from: source + start, count: utf8.count - start)
                }
            }
            out[length - 1] = UInt8(ascii: "\"")
            used += length
        }
    }

    /// How many bytes each byte takes in a JSON string: 1, or the length of its escape sequence
    /// (a quote, backslash or control character).
    private static let writtenLengths: [UInt8] = (0...255).map { byte in
        switch byte {
        case 0x22, 0x5C, 0x0A, 0x0D, 0x09: 2
        case 0..<0x20: 6
        default: 1
        }
    }

    /// Writes the escape sequence of a quote, backslash or control character at `out`; returns its length.
    private static func escape(_ byte: UInt8, into out: UnsafeMutablePointer<UInt8>) -> Int {
        out[0] = 0x5C
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): out[1] = byte
        case 0x0A: out[1] = UInt8(ascii: "n")
        case 0x0D: out[1] = UInt8(ascii: "r")
        case 0x09: out[1] = UInt8(ascii: "t")
        default:
            let hex: StaticString = "0123456789abcdef"
            out[1] = UInt8(ascii: "u")
            out[2] = UInt8(ascii: "0")
            out[3] = UInt8(ascii: "0")
            out[4] = hex.utf8Start[Int(byte >> 4)]
            out[5] = hex.utf8Start[Int(byte & 0xF)]
            return 6
        }
        return 2
    }

    // MARK: The buffer

    /// Room for `length` more bytes: where they go. The caller writes them, then adds `length` to `count`.
    private mutating func reserve(_ length: Int) -> UnsafeMutablePointer<UInt8> {
        if used + length > capacity {
            let grown = Swift.max(capacity * 2, used + length)
            let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
            larger.initialize(from: storage, count: used)
            storage.deallocate()
            storage = larger
            capacity = grown
        }
        return storage + used
    }

    private mutating func append(byte: UInt8) {
        reserve(1).pointee = byte
        used += 1
    }

    private mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            let out = reserve(utf8.count)
            if let source = utf8.baseAddress { out.initialize(from: source, count: utf8.count) }
            used += utf8.count
        }
    }
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
