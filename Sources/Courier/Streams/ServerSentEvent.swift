import Foundation

/// One event of a Server-Sent Events stream (`text/event-stream`), as the WHATWG HTML standard's
/// event-stream section dispatches it.
public struct ServerSentEvent: Sendable, Hashable {
    /// The event's type: its `event:` field, or `"message"` when it had none.
    public var type: String
    /// Its `data:` lines, joined with LF.
    public var data: String
    /// The last event ID when it was dispatched: the latest `id:` field, which stays until another
    /// replaces it (`""` when none came). Sent back as `Last-Event-ID` on a reconnect.
    public var id: String

    /// Creates an event.
    public init(type: String = "message", data: String, id: String = "") {
        self.type = type
        self.data = data
        self.id = id
    }
}

/// Reads an event stream line by line, as the WHATWG HTML standard says: fields `event`, `data`
/// (several lines joined with LF), `id` (ignored when it contains NUL) and `retry` (ASCII digits
/// only), comments (lines that start with a colon), one space after the colon dropped, a BOM at
/// the start dropped, and an event dispatched at each blank line unless its data is empty.
package struct EventStreamParser: Sendable {
    private var type = ""
    /// The data lines' bytes, joined with LF; made a `String` once, when the event is dispatched.
    private var data: [UInt8] = []
    private var hasData = false
    /// The last event ID string: the last event ID buffer as the latest dispatch found it, which a
    /// reconnect sends as `Last-Event-ID`. An event cut short never moves it.
    package private(set) var lastEventID = ""
    /// The last event ID buffer: set by each `id:` field, kept across events, and made the last
    /// event ID string at the next blank line.
    private var idBuffer = ""
    /// The reconnection time the stream asked for (`retry:`), in milliseconds.
    package private(set) var retry: Int?
    private var atStart = true

    package init(lastEventID: String = "") {
        self.lastEventID = lastEventID
        self.idBuffer = lastEventID
    }

    /// Takes one line (without its end); returns the event it dispatches, if any.
    package mutating func take(_ line: String) -> ServerSentEvent? {
        take(ArraySlice(line.utf8))
    }

    /// Takes one line as its bytes (UTF-8, without its end), as ``LineSplitter`` hands them on:
    /// the field is told by its bytes, and only the values kept become text (invalid UTF-8 read
    /// as U+FFFD, as a decoded line would be: the colon, the space and LF are ASCII, so decoding
    /// before or after cutting there gives the same text).
    package mutating func take(_ line: ArraySlice<UInt8>) -> ServerSentEvent? {
        line.withUnsafeBytes { take(bytes: $0) }
    }

    /// ``take(_:)`` on the line's bytes where they are.
    mutating func take(bytes: UnsafeRawBufferPointer) -> ServerSentEvent? {
        var line = bytes
        if atStart {
            atStart = false
            if line.starts(with: [0xEF, 0xBB, 0xBF]) { line = UnsafeRawBufferPointer(rebasing: line.dropFirst(3)) }  // a BOM, U+FEFF
        }
        guard let first = line.first else { return dispatch() }
        if first == UInt8(ascii: ":") { return nil }
        let field: UnsafeRawBufferPointer
        var value: UnsafeRawBufferPointer
        if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            field = UnsafeRawBufferPointer(rebasing: line[..<colon])
            let after = colon + 1 < line.count && line[colon + 1] == UInt8(ascii: " ") ? colon + 2 : colon + 1
            value = UnsafeRawBufferPointer(rebasing: line[after...])
        } else {
            field = line
            value = UnsafeRawBufferPointer(start: nil, count: 0)
        }
        if Self.is(field, "data") {
            if hasData { data.append(UInt8(ascii: "\n")) }
            data.append(contentsOf: value)
            hasData = true
        } else if Self.is(field, "event") {
            type = String(decoding: value, as: UTF8.self)
        } else if Self.is(field, "id") {
            if !value.contains(0) { idBuffer = String(decoding: value, as: UTF8.self) }
        } else if Self.is(field, "retry") {
            if !value.isEmpty, value.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
                retry = Int(String(decoding: value, as: UTF8.self)) ?? Int.max  // digits past Int's range: as long as it gets
            }
        }
        return nil
    }

    /// Whether `bytes` are the ASCII field name `name`.
    private static func `is`(_ bytes: UnsafeRawBufferPointer, _ name: StaticString) -> Bool {
        guard bytes.count == name.utf8CodeUnitCount, let field = bytes.baseAddress else { return false }
        return memcmp(field, name.utf8Start, bytes.count) == 0
    }

    /// The end of the stream: an event not ended by a blank line is dropped, its `id:` with it, and
    /// the next stream (a reconnect) starts afresh but for the last event ID of a dispatched event.
    package mutating func endOfStream() {
        idBuffer = lastEventID
        type = ""
        data.removeAll(keepingCapacity: true)
        hasData = false
        atStart = true
    }

    private mutating func dispatch() -> ServerSentEvent? {
        lastEventID = idBuffer  // even when no data makes an event of it, as the standard says
        defer {
            type = ""
            data.removeAll(keepingCapacity: true)
            hasData = false
        }
        guard hasData else { return nil }
        return ServerSentEvent(type: type.isEmpty ? "message" : type, data: String(decoding: data, as: UTF8.self), id: lastEventID)
    }
}
