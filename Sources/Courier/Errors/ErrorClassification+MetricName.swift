extension ErrorClassification {
    /// A short stable name, for metrics dimensions and span attributes.
    var metricName: String {
        if isCustom { return "custom" }
        // camelCase to snake_case: `timedOut` → `timed_out`.
        var result = ""
        for character in name {
            if character.isUppercase {
                result += "_" + character.lowercased()
            } else {
                result.append(character)
            }
        }
        return result
    }
}
