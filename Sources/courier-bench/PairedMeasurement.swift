/// Times two ways of doing the same work in alternating rounds (A then B, then B then A, …) so
/// that drift of the machine hits both, and reports their rates.
struct PairedMeasurement {
    let name: String
    let count: Int
    let concurrency: Int
    let rounds: Int

    /// Returns the rate of `courier` and of `raw` in operations per second.
    func run(
        courier: @escaping @Sendable () async throws -> Void, raw: @escaping @Sendable () async throws -> Void
    ) async throws -> (courier: Double, raw: Double) {
        let warmup = max(concurrency * 2, count / 10)
        _ = try await LoadRunner.run(count: warmup, concurrency: concurrency, raw)
        _ = try await LoadRunner.run(count: warmup, concurrency: concurrency, courier)
        var courierTime = 0.0
        var rawTime = 0.0
        for round in 0..<rounds {
            if round.isMultiple(of: 2) {
                rawTime += try await LoadRunner.run(count: count, concurrency: concurrency, raw).seconds
                courierTime += try await LoadRunner.run(count: count, concurrency: concurrency, courier).seconds
            } else {
                courierTime += try await LoadRunner.run(count: count, concurrency: concurrency, courier).seconds
                rawTime += try await LoadRunner.run(count: count, concurrency: concurrency, raw).seconds
            }
        }
        let total = Double(count * rounds)
        return (total / courierTime, total / rawTime)
    }

    /// Prints `name ratio=… courier=…/s raw=…/s`.
    static func report(_ name: String, _ rates: (courier: Double, raw: Double)) {
        let ratio = rates.courier / rates.raw
        print("\(name) ratio=\(String(format: "%.2f", ratio)) courier=\(Int(rates.courier.rounded()))/s raw=\(Int(rates.raw.rounded()))/s")
    }
}
