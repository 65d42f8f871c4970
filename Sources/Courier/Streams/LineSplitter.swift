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
        nextLineRange().map { buffer[$0] }
    }

    /// The next whole line handed to `body` where it lies in the buffer, without its end (no slice
    /// of the buffer is kept, so nothing is retained or copied); `nil` until a line is whole.
    package mutating func nextLine<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result? {
        guard let line = nextLineRange() else { return nil }
        return buffer.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[line])) }
    }

    /// Where the next whole line lies in `buffer`, without its end, the splitter moved past it;
    /// `nil` until a line is whole.
    private mutating func nextLineRange() -> Range<Int>? {
        if pendingLineFeed, start < buffer.count {
            pendingLineFeed = false
            if buffer[start] == UInt8(ascii: "\n") {
                start += 1
                scanned = max(scanned, start)
            }
        }
        guard let index = firstLineEnd(from: max(scanned, start)) else {
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

    /// The first line end at or after `from`: an LF, or with `.any` endings a CR too. Searched with
    /// `memchr`; for `.any`, a window at a time, so that a stream whose lines end with CR alone is
    /// not searched to its end for an LF at each line.
    private func firstLineEnd(from: Int) -> Int? {
        buffer.withUnsafeBufferPointer { bytes in
            guard let base = bytes.baseAddress else { return nil }
            guard endings == .any else { return Self.find(UInt8(ascii: "\n"), in: base, from: from, to: bytes.count) }
            var window = from
            while window < bytes.count {
                let windowEnd = min(bytes.count, window + Self.window)
                let lineFeed = Self.find(UInt8(ascii: "\n"), in: base, from: window, to: windowEnd)
                if let carriageReturn = Self.find(UInt8(ascii: "\r"), in: base, from: window, to: lineFeed ?? windowEnd) { return carriageReturn }
                if let lineFeed { return lineFeed }
                window = windowEnd
            }
            return nil
        }
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
        return buffer[take(upTo: end, next: buffer.count)]
    }

    /// The line from `start` to `end`; the next one starts at `next`.
    private mutating func take(upTo end: Int, next: Int) -> Range<Int> {
        defer {
            start = next
            scanned = next
        }
        return start..<end
    }
}
