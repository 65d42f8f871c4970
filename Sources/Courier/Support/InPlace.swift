/// Runs `body` on `value` in place: with a dictionary's subscript (`modify(&table[key]) { … }`,
/// or with `default:`), the key is looked up once for reading and writing both.
func modify<Value, Result>(_ value: inout Value, _ body: (inout Value) -> Result) -> Result {
    body(&value)
}
