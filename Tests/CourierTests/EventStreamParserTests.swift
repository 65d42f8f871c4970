@testable import Courier
import Foundation
import Testing

/// The event-stream format, as the WHATWG HTML standard's "Interpreting an event stream" says,
/// fed in pieces cut everywhere (line ends split across reads, events merged in one read).
struct EventStreamParserTests {
    /// Parses `text` fed in pieces of `size` bytes; the events dispatched and the parser at the end.
    static func parse(_ text: String, pieces size: Int) -> ([ServerSentEvent], EventStreamParser) {
        var splitter = LineSplitter(endings: .any)
        var parser = EventStreamParser()
        var events: [ServerSentEvent] = []
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            splitter.append(bytes[index..<min(index + size, bytes.count)])
            index += size
            while let line = splitter.nextLine() {
                if let event = parser.take(line) { events.append(event) }
            }
        }
        if let rest = splitter.rest(), let event = parser.take(rest) { events.append(event) }
        return (events, parser)
    }

    static let pieceSizes = [1, 2, 3, 7, 64, 100_000]

    @Test(arguments: pieceSizes)
    func fieldsCommentsAndLineEnds(size: Int) {
        let text = "\u{FEFF}: a comment\r\nevent: add\rdata: one\ndata:two\r\n\r\n"
            + "id: 7\ndata\n\n"  // a field with no colon: data is ""
            + "retry: 2500\ndata: x\nretry: 12s\n\n"  // retry with a non-digit is ignored
            + "id: bad\u{0}id\ndata: y\n\n"  // an id with NUL is ignored: the last id stays
            + "data: no blank line after this"
        let (events, parser) = Self.parse(text, pieces: size)
        #expect(events == [
            ServerSentEvent(type: "add", data: "one\ntwo", id: ""),
            ServerSentEvent(type: "message", data: "", id: "7"),
            ServerSentEvent(type: "message", data: "x", id: "7"),
            ServerSentEvent(type: "message", data: "y", id: "7"),
        ])
        #expect(parser.retry == 2500 && parser.lastEventID == "7")
    }

    @Test(arguments: pieceSizes)
    func emptyDataDispatchesNothingAndAnEmptyIdResets(size: Int) {
        let text = "event: ignored\n\n" + "id: 1\n\n" + "data:  two spaces\n\n" + "id\ndata: after reset\n\n" + ":\n\n" + "event\ndata: d\n\n"
        let (events, parser) = Self.parse(text, pieces: size)
        #expect(events == [
            ServerSentEvent(type: "message", data: " two spaces", id: "1"),
            ServerSentEvent(type: "message", data: "after reset", id: ""),
            ServerSentEvent(type: "message", data: "d", id: ""),
        ])
        #expect(parser.lastEventID == "")
    }

    /// An `id:` moves the resume point only when its event is dispatched: an event cut short by
    /// the end of the stream is dropped with its id, so a reconnect asks for it again.
    @Test(arguments: pieceSizes)
    func anEventCutShortDoesNotMoveTheLastEventID(size: Int) {
        let text = "id: 4\ndata: four\n\n" + "id: 5\nevent: tick\ndata: five\ndata: more\n"
        var (events, parser) = Self.parse(text, pieces: size)
        #expect(events == [ServerSentEvent(type: "message", data: "four", id: "4")])
        #expect(parser.lastEventID == "4")
        parser.endOfStream()
        #expect(parser.lastEventID == "4")
        // The reconnect's stream, with no id of its own: its events carry the last dispatched id.
        for line in ["data: again", ""] {
            if let event = parser.take(line) { events.append(event) }
        }
        #expect(events.last == ServerSentEvent(type: "message", data: "again", id: "4"))
    }

    /// A CR at the end of one read and an LF at the start of the next make one line end, not two
    /// (which would dispatch an event early).
    @Test func aCRLFSplitAcrossReadsIsOneLineEnd() {
        var splitter = LineSplitter(endings: .any)
        splitter.append(Array("data: a\r".utf8))
        #expect(splitter.nextLine() == "data: a")
        #expect(splitter.nextLine() == nil)
        splitter.append(Array("\ndata: b\r\n\r\n".utf8))
        #expect(splitter.nextLine() == "data: b")
        #expect(splitter.nextLine() == "")
        #expect(splitter.nextLine() == nil)
    }

    /// Lines taken where they lie (``LineSplitter/nextLine(_:)``, as events are read) and as slices
    /// come out alike, as the standard cuts them: CR, LF and CRLF each end one line, however the
    /// pieces fall, for lines that end with CR alone (searched a window at a time) and lines longer
    /// than that window.
    @Test(arguments: pieceSizes)
    func longLinesAndLinesEndedByCRAloneSplitAsTheStandardSays(size: Int) {
        var text = String(repeating: "a\r", count: 2_000)
        text += String(repeating: "x", count: 3_000) + "\r\n" + String(repeating: "y", count: 2_500) + "\n"
        text += String(repeating: "b\r\n", count: 1_500) + String(repeating: "z", count: 1_100) + "\r" + "\rc\n\nd"
        var expected: [String] = []
        var current = ""
        var afterCR = false
        for character in text.unicodeScalars {
            if character == "\n", afterCR {
                afterCR = false
                continue
            }
            afterCR = character == "\r"
            if character == "\r" || character == "\n" {
                expected.append(current)
                current = ""
            } else {
                current.unicodeScalars.append(character)
            }
        }
        let bytes = Array(text.utf8)
        for whereTheyLie in [true, false] {
            var splitter = LineSplitter(endings: .any)
            var lines: [String] = []
            var index = 0
            while index < bytes.count {
                splitter.append(bytes[index..<min(index + size, bytes.count)])
                index += size
                if whereTheyLie {
                    while let line = splitter.nextLine({ String(decoding: $0, as: UTF8.self) }) { lines.append(line) }
                } else {
                    while let line = splitter.nextLine() { lines.append(line) }
                }
            }
            #expect(lines == expected, "taken where they lie: \(whereTheyLie)")
            #expect(splitter.rest() == current)
        }
    }

    /// NDJSON's lines end with LF; a CR before it goes, a CR alone does not end a line.
    @Test func lineFeedLinesKeepALoneCR() {
        var splitter = LineSplitter(endings: .lineFeed)
        splitter.append(Array("{\"a\":1}\r\n{\"b\":\"x\ry\"}\n{\"c\":".utf8))
        #expect(splitter.nextLine() == "{\"a\":1}")
        #expect(splitter.nextLine() == "{\"b\":\"x\ry\"}")
        #expect(splitter.nextLine() == nil)
        splitter.append(Array("3}".utf8))
        #expect(splitter.nextLine() == nil)
        #expect(splitter.rest() == "{\"c\":3}")
    }

    @Test func retryDigitsPastIntAreClampedNotACrash() {
        var parser = EventStreamParser()
        _ = parser.take("retry: 99999999999999999999999999")
        #expect(parser.retry == Int.max)
        #expect(RetryPolicy.reconnecting.asking(parser.retry).delayBound(beforeRetry: 1) == .seconds(60))
    }

    /// A reconnection policy is a retry policy: the same doubling bound, jitter and count.
    @Test func theReconnectWaitDoublesUpToTheMaximum() {
        var retries = RetryPolicy.reconnecting
        (retries.baseDelay, retries.maximumDelay, retries.maximumAttempts) = (.seconds(1), .seconds(10), 3)
        #expect((1...6).map(retries.delayBound(beforeRetry:)) == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(10), .seconds(10)])
        #expect(retries.asking(250).delayBound(beforeRetry: 1) == .milliseconds(250))
        var schedule = AttemptSchedule(retries)
        let waits = [schedule.retry(), schedule.retry(), schedule.retry()]
        #expect(waits[0].map { $0 >= .milliseconds(500) && $0 <= .seconds(1) } == true)
        #expect(waits[1].map { $0 >= .seconds(1) && $0 <= .seconds(2) } == true)
        #expect(waits[2] == nil, "two reconnects in a row, then the stream ends")
        schedule.progressed()
        #expect(schedule.retry() != nil, "an event starts the count again")
        #expect(retries.asking(-5).baseDelay == .zero, "a negative retry from a stream is no wait, not a negative one")
    }
}
