import NIOCore

/// Refuses a multipart body that would crash MultipartKit's parser (4.7.1): it looks a header
/// name's bytes up in a 128-entry table, so a byte of 0x80 or more in a part's header name ends
/// the process ("Index out of range") instead of failing the parse. Fed the same chunks as the
/// parser, before it, this follows the body as the parser reads it (every `--boundary`, then
/// header lines until an empty one) and answers `false` for such a byte. Header values may hold
/// UTF-8 (a file name); bodies may hold anything.
package struct MultipartHeaderGuard {
    private enum State {
        /// Looking for the delimiter; `matched` bytes of it seen.
        case searching(matched: Int)
        /// Just after a delimiter: `dashes` of the `--` that would close the body seen.
        case afterDelimiter(dashes: Int)
        /// Up to the end of a delimiter's line or of a header line.
        case delimiterLine
        /// After the closing delimiter (the parser ignores what follows).
        case epilogue
        /// In a header line's name (before its colon); `empty` while nothing is read yet.
        case name(empty: Bool)
        /// In a header line's value, up to its CR.
        case value
    }

    private let delimiter: [UInt8]
    /// For each prefix of the delimiter, the length of its longest proper prefix that is also a suffix.
    private let fallback: [Int]
    private var state = State.searching(matched: 0)

    package init(boundary: String) {
        delimiter = Array("--\(boundary)".utf8)
        var fallback = [Int](repeating: 0, count: delimiter.count)
        var length = 0
        for index in delimiter.indices.dropFirst() {
            while length > 0, delimiter[index] != delimiter[length] { length = fallback[length - 1] }
            if delimiter[index] == delimiter[length] { length += 1 }
            fallback[index] = length
        }
        self.fallback = fallback
    }

    /// Reads the next bytes of the body; `false` when a header name holds a byte the parser cannot take.
    package mutating func accepts(_ bytes: some Sequence<UInt8>) -> Bool {
        Array(bytes).withUnsafeBytes { accepts(bytes: $0) }
    }

    /// Reads the next bytes of the body (a chunk as it arrived, without a copy).
    package mutating func accepts(_ buffer: ByteBuffer) -> Bool {
        buffer.withUnsafeReadableBytes { accepts(bytes: $0) }
    }

    /// The scan, over bytes of one concrete type: every byte of an upload passes here, and a
    /// generic sequence costs a call per byte where the compiler does not specialise it.
    private mutating func accepts(bytes: UnsafeRawBufferPointer) -> Bool {
        for byte in bytes {
            switch state {
            case .searching(var matched):
                while matched > 0, byte != delimiter[matched] { matched = fallback[matched - 1] }
                if byte == delimiter[matched] { matched += 1 }
                state = matched == delimiter.count ? .afterDelimiter(dashes: 0) : .searching(matched: matched)
            case .afterDelimiter(let dashes):
                if byte == UInt8(ascii: "-") {
                    state = dashes == 1 ? .epilogue : .afterDelimiter(dashes: 1)
                } else {
                    state = byte == 0x0A ? .name(empty: true) : .delimiterLine
                }
            case .epilogue:
                return true
            case .delimiterLine:
                if byte == 0x0A { state = .name(empty: true) }
            case .name(let empty):
                if byte >= 0x80 { return false }
                if byte == 0x0D, empty {
                    state = .searching(matched: 0)  // the empty line: the part's body follows
                } else if byte == UInt8(ascii: ":") {
                    state = .value
                } else {
                    state = .name(empty: false)
                }
            case .value:
                if byte == 0x0D { state = .delimiterLine }  // its LF starts the next header line
            }
        }
        return true
    }
}
