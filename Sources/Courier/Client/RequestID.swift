import Synchronization

/// A process-unique identifier for one sent request (seed 003 returns one from `performRequest`).
///
/// Identifiers increase in the order requests are started.
public struct RequestID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The number.
    public let rawValue: UInt64

    /// Wraps a number.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// The next identifier.
    static func next() -> RequestID {
        RequestID(rawValue: counter.add(1, ordering: .relaxed).newValue)
    }

    /// Orders by number.
    public static func < (lhs: RequestID, rhs: RequestID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `#` followed by the number.
    public var description: String { "#\(rawValue)" }

    private static let counter = Atomic<UInt64>(0)
}
