import HTTPTypes
import Hummingbird
import NIOCore

/// The bytes of a representation a GET asks for with `Range` (RFC 9110 §14), for the routes that
/// serve ranges: all of it (200), one range (206 with `Content-Range`), or none (416).
///
/// One range is served: a request for several, a unit other than `bytes` or a range this server
/// cannot read gets the whole representation, as §14.2 allows. `If-Range` (§13.1.5) applies the
/// range only to the representation the client holds: its strong entity tag (a weak one never
/// matches) or its `Last-Modified` date, exactly as sent.
package enum RangeSelection: Equatable {
    case whole
    case part(first: Int, last: Int)
    case unsatisfiable

    /// What `request` asks of a representation of `length` bytes with these validators.
    package init(_ request: Request, length: Int, etag: String?, lastModified: String?) {
        guard request.method == .get, let range = request.headers[.range] else {
            self = .whole
            return
        }
        if let condition = request.headers[.ifRange] {
            let sameTag = etag.map { !$0.hasPrefix("W/") && $0 == condition } ?? false
            let sameDate = lastModified.map { $0 == condition } ?? false
            guard sameTag || sameDate else {
                self = .whole
                return
            }
        }
        self = Self.parse(range, length: length)
    }

    /// `field` (a `Range` value) for a representation of `length` bytes.
    static func parse(_ field: String, length: Int) -> RangeSelection {
        let value = field.utf8.drop { $0 == UInt8(ascii: " ") }
        guard value.count > 6, String(Substring(value.prefix(6))).lowercased() == "bytes=" else { return .whole }
        let spec = Substring(value.dropFirst(6))
        guard !spec.contains(",") else { return .whole }
        let bounds = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2 else { return .whole }
        if bounds[0].isEmpty {
            // A suffix: the last N bytes.
            guard let suffix = number(bounds[1]) else { return .whole }
            guard suffix > 0, length > 0 else { return .unsatisfiable }
            return .part(first: max(0, length - suffix), last: length - 1)
        }
        guard let first = number(bounds[0]) else { return .whole }
        var last = length - 1
        if !bounds[1].isEmpty {
            guard let end = number(bounds[1]), end >= first else { return .whole }
            last = min(end, length - 1)
        }
        guard first < length else { return .unsatisfiable }
        return .part(first: first, last: last)
    }

    /// Decimal digits as a count; a count too large for `Int` is `Int.max` (past any end).
    private static func number(_ text: Substring) -> Int? {
        let digits = text.utf8.drop { $0 == UInt8(ascii: " ") }.reversed().drop { $0 == UInt8(ascii: " ") }.reversed()
        guard !digits.isEmpty, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        var value = 0
        for digit in digits {
            let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = times.addingReportingOverflow(Int(digit - UInt8(ascii: "0")))
            if overflowTimes || overflowSum { return Int.max }
            value = sum
        }
        return value
    }

    /// The status this selection is answered with.
    package var status: HTTPResponse.Status {
        switch self {
        case .whole: .ok
        case .part: .partialContent
        case .unsatisfiable: .rangeNotSatisfiable
        }
    }

    /// The bytes sent of a representation of `length` bytes, as `(first, count)`.
    package func span(of length: Int) -> (first: Int, count: Int) {
        switch self {
        case .whole: (0, length)
        case .part(let first, let last): (first, last - first + 1)
        case .unsatisfiable: (0, 0)
        }
    }

    /// `fields` with `Accept-Ranges` and, for a part or a 416, `Content-Range`.
    package func fields(_ fields: HTTPFields, length: Int) -> HTTPFields {
        var fields = fields
        fields[.acceptRanges] = "bytes"
        switch self {
        case .whole: break
        case .part(let first, let last): fields[.contentRange] = "bytes \(first)-\(last)/\(length)"
        case .unsatisfiable: fields[.contentRange] = "bytes */\(length)"
        }
        return fields
    }

    /// `body` answered as this selection asks, with `fields`.
    func response(_ body: ByteBuffer, fields: HTTPFields) -> Response {
        let length = body.readableBytes
        let (first, count) = span(of: length)
        let fields = self.fields(fields, length: length)
        if self == .unsatisfiable { return Response(status: status, headers: fields) }
        return Response(status: status, headers: fields, body: .init(byteBuffer: body.getSlice(at: body.readerIndex + first, length: count) ?? body))
    }
}
