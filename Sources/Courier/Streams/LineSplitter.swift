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
        if pendingLineFeed, start < buffer.count {
            pendingLineFeed = false
            if buffer[start] == UInt8(ascii: "\n") {
                start += 1
                scanned = max(scanned, start)
            }
        }
        let from = max(scanned, start)
        let anyEnd = endings == .any
        // The first line end at or after `from`, searched in the buffer's storage.
        let found: Int? = buffer.withUnsafeBufferPointer { bytes in
            var index = from
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\n") || (anyEnd && byte == UInt8(ascii: "\r")) { return index }
                index += 1
            }
            return nil
        }
        guard let index = found else {
            scanned = buffer.count
            return nil
        }
        if buffer[index] == UInt8(ascii: "\n") {
            var end = index
            if endings == .lineFeed, end > start, buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            return take(upTo: end, next: index + 1)
        }
        // A CR, with `.any` endings.
        if index + 1 < buffer.count {
            return take(upTo: index, next: buffer[index + 1] == UInt8(ascii: "\n") ? index + 2 : index + 1)
        }
        pendingLineFeed = true
        return take(upTo: index, next: index + 1)
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
