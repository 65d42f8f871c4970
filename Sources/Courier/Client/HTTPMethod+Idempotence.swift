extension HTTPMethod {
    /// GET, HEAD, OPTIONS, PUT, DELETE and TRACE: methods whose repetition has the effect of one request.
    var isIdempotent: Bool {
        self == .get || self == .head || self == .options || self == .put || self == .delete || rawValue == "TRACE"
    }
}
