extension Cassette {
    /// When a cassette uses the network, as VCR-style tools name it.
    ///
    /// | mode | cassette file missing | cassette file there |
    /// |---|---|---|
    /// | ``once`` | every request is sent and recorded | replayed; a request not recorded fails |
    /// | ``newEpisodes`` | every request is sent and recorded | replayed; a request not recorded is sent and added |
    /// | ``none`` | the cassette fails to open | replayed; a request not recorded fails |
    /// | ``all`` | every request is sent and recorded | ignored: every request is sent, the file rewritten |
    public struct RecordMode: Sendable, Hashable, CustomStringConvertible {
        /// The mode's name, as in the table above.
        public let name: String

        private init(_ name: String) { self.name = name }

        /// Record when the file is missing, else replay only: the default.
        public static let once = RecordMode("once")
        /// Replay what is recorded; send and add what is not.
        public static let newEpisodes = RecordMode("newEpisodes")
        /// Never touch the network (what CI should run with).
        public static let none = RecordMode("none")
        /// Send everything and record it anew.
        public static let all = RecordMode("all")

        /// The mode's name.
        public var description: String { name }
    }
}
