import Foundation

/// Cuts bytes that arrive in pieces into lines, however the pieces fall: a line end split across
/// two pieces (CR in one, LF in the next) counts once.
package struct LineSplitter: Sendable {
    /// Which line ends count.
    package enum Endings: Sendable {
        /// LF, with a CR before it dropped (NDJSON, text).
        case lineFeed
        /// CR, LF and CRLF alike (the event-stream format).
        case any
    }

    private let endings: Endings
    private var buffer: [UInt8] = []
    /// Where the next line starts in `buffer`.
    private var start = 0
    /// Where to look for the next line end (everything before it has none).
    private var scanned = 0
    /// The last line ended with a CR whose LF may come first in the next piece.
    private var pendingLineFeed = false

    package init(endings: Endings) {
        self.endings = endings
    }

    /// Adds a piece.
    package mutating func append(_ piece: some Sequence<UInt8>) {
        if start > 0, start * 2 >= buffer.count {
            buffer.removeFirst(start)
            scanned -= start
            start = 0
        }
        buffer.append(contentsOf: piece)
    }

    /// The next whole line, without its end; `nil` until one is whole.
    package mutating func nextLine() -> String? {
        nextLineBytes().map { String(decoding: $0, as: UTF8.self) }
    }

    /// What is left after the last line end (at the end of the body); `nil` when nothing is.
    package mutating func rest() -> String? {
        restBytes().map { String(decoding: $0, as: UTF8.self) }
    }

    /// ``nextLine()`` as its bytes, with no `String` made: a slice of the splitter's buffer, to let
    /// go of before the next ``append(_:)`` (which would otherwise copy the buffer).
    package mutating func nextLineBytes() -> ArraySlice<UInt8>? {
        guard let (end, next) = nextLineEnd() else { return nil }
        return take(upTo: end, next: next)
    }

    /// The next whole line handed to `body` where it lies in the buffer, without its end (no slice
    /// of the buffer is kept, so nothing is retained or copied); `nil` until a line is whole.
    package mutating func nextLine<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result? {
        guard let (end, next) = nextLineEnd() else { return nil }
        let from = start
        start = next
        scanned = next
        return buffer.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[from..<end])) }
    }

    /// Where the next whole line ends and the one after it starts, in `buffer`; `nil` until a line
    /// is whole. Searches the buffer's storage with `memchr`.
    private mutating func nextLineEnd() -> (end: Int, next: Int)? {
        let anyEnd = endings == .any
        let lineStart = start
        let found: (skipped: Bool, end: Int?, next: Int) = buffer.withUnsafeBufferPointer { bytes in
            var from = max(scanned, lineStart)
            var skipped = false
            // The LF of a CR that ended the last line, come in this piece.
            if pendingLineFeed, lineStart < bytes.count {
                skipped = true
                if bytes[lineStart] == UInt8(ascii: "\n") { from = max(from, lineStart + 1) }
            }
            let count = bytes.count
            guard from < count, let base = bytes.baseAddress else { return (skipped, nil, count) }
            guard anyEnd else {
                guard let lineFeed = Self.find(UInt8(ascii: "\n"), in: base, from: from, to: count) else { return (skipped, nil, count) }
                let end = lineFeed > lineStart && base[lineFeed - 1] == UInt8(ascii: "\r") ? lineFeed - 1 : lineFeed
                return (skipped, end, lineFeed + 1)
            }
            // A CR ends a line too: the first CR or LF wins. Searched a window at a time, so that a
            // stream whose lines end with CR alone is not searched to its end for an LF at each line.
            var window = from
            while window < count {
                let windowEnd = min(count, window + Self.window)
                let lineFeed = Self.find(UInt8(ascii: "\n"), in: base, from: window, to: windowEnd)
                if let carriageReturn = Self.find(UInt8(ascii: "\r"), in: base, from: window, to: lineFeed ?? windowEnd) {
                    guard carriageReturn + 1 < count else { return (skipped, carriageReturn, -1) }  // its LF may come in the next piece
                    return (skipped, carriageReturn, base[carriageReturn + 1] == UInt8(ascii: "\n") ? carriageReturn + 2 : carriageReturn + 1)
                }
                if let lineFeed { return (skipped, lineFeed, lineFeed + 1) }
                window = windowEnd
            }
            return (skipped, nil, count)
        }
        if found.skipped {
            pendingLineFeed = false
            if buffer[lineStart] == UInt8(ascii: "\n") {
                start += 1
                scanned = max(scanned, start)
            }
        }
        guard let end = found.end else {
            scanned = found.next
            return nil
        }
        if found.next < 0 {
            pendingLineFeed = true
            return (end, end + 1)
        }
        return (end, found.next)
    }

    /// The bytes searched at once for the end of a line that may end with CR or LF.
    private static let window = 1024

    /// The index of the first `byte` in `base[from..<to]`, if any.
    private static func find(_ byte: UInt8, in base: UnsafePointer<UInt8>, from: Int, to: Int) -> Int? {
        guard from < to, let found = memchr(base + from, Int32(byte), to - from) else { return nil }
        return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
    }

    /// ``rest()`` as its bytes.
    package mutating func restBytes() -> ArraySlice<UInt8>? {
        guard start < buffer.count else { return nil }
        var end = buffer.count
        if endings == .lineFeed, buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        return take(upTo: end, next: buffer.count)
    }

    private mutating func take(upTo end: Int, next: Int) -> ArraySlice<UInt8> {
        let line = buffer[start..<end]
        start = next
        scanned = next
        return line
    }
}
