extension ErrorClassification {
    /// A short stable name, for metrics dimensions and span attributes.
    var metricName: String {
        // The reverse key rule: `timedOut` → `timed_out`.
        isCustom ? "custom" : KeyMapping.payloadKey(for: name)
    }
}
