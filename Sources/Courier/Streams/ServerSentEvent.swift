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
    private var data = ""
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
        var line = Substring(line)
        if atStart {
            atStart = false
            if line.unicodeScalars.first == "\u{FEFF}" { line = Substring(line.unicodeScalars.dropFirst()) }
        }
        if line.isEmpty { return dispatch() }
        if line.utf8.first == UInt8(ascii: ":") { return nil }
        let field: Substring
        var value: Substring
        if let colon = line.utf8.firstIndex(of: UInt8(ascii: ":")) {
            field = line[..<colon]
            value = line[line.utf8.index(after: colon)...]
            if value.utf8.first == UInt8(ascii: " ") { value = value.dropFirst() }
        } else {
            field = line
            value = ""
        }
        switch field {
        case "event":
            type = String(value)
        case "data":
            if hasData { data += "\n" }
            data += value
            hasData = true
        case "id":
            if !value.utf8.contains(0) { idBuffer = String(value) }
        case "retry":
            if !value.isEmpty, value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
                retry = Int(value) ?? Int.max  // digits past Int's range: as long as it gets
            }
        default:
            break
        }
        return nil
    }

    /// The end of the stream: an event not ended by a blank line is dropped, its `id:` with it, and
    /// the next stream (a reconnect) starts afresh but for the last event ID of a dispatched event.
    package mutating func endOfStream() {
        idBuffer = lastEventID
        type = ""
        data = ""
        hasData = false
        atStart = true
    }

    private mutating func dispatch() -> ServerSentEvent? {
        lastEventID = idBuffer  // even when no data makes an event of it, as the standard says
        defer {
            type = ""
            data = ""
            hasData = false
        }
        guard hasData else { return nil }
        return ServerSentEvent(type: type.isEmpty ? "message" : type, data: data, id: lastEventID)
    }
}
