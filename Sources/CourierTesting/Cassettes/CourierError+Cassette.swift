import Courier

extension CourierError.Kind {
    /// A ``Cassette`` has no recorded answer for a request and may not record one (mode `once`
    /// with a cassette on disk, `none`, or a ``ReplayTransport``). The message names the request,
    /// the closest recorded entry and how they differ, secrets redacted. Nothing was sent.
    public static let cassetteMiss = CourierError.Kind("cassetteMiss")
    /// A cassette file cannot be read or written (not HAR, an entry that cannot be replayed, a
    /// missing file in mode `none`); the message names the file and the problem.
    public static let cassetteInvalid = CourierError.Kind("cassetteInvalid")
}
