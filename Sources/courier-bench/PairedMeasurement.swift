/// Times two ways of doing the same work in alternating rounds (A then B, then B then A, …) so
/// that drift of the machine hits both. Each round gives a ratio of adjacent runs; the reported
/// ratio is the median of those, which one disturbed round cannot move.
struct PairedMeasurement {
    let name: String
    let count: Int
    let concurrency: Int
    let rounds: Int

    struct Result {
        /// Median of the per-round ratios courier rate / raw rate.
        var ratio: Double
        /// Overall rates, operations per second.
        var courier: Double
        var raw: Double
    }

    func run(
        courier: @escaping @Sendable () async throws -> Void, raw: @escaping @Sendable () async throws -> Void
    ) async throws -> Result {
        let warmup = max(concurrency * 2, count / 10)
        _ = try await LoadRunner.run(count: warmup, concurrency: concurrency, raw)
        _ = try await LoadRunner.run(count: warmup, concurrency: concurrency, courier)
        var courierTimes: [Double] = []
        var rawTimes: [Double] = []
        for round in 0..<rounds {
            if round.isMultiple(of: 2) {
                rawTimes.append(try await LoadRunner.run(count: count, concurrency: concurrency, raw).seconds)
                courierTimes.append(try await LoadRunner.run(count: count, concurrency: concurrency, courier).seconds)
            } else {
                courierTimes.append(try await LoadRunner.run(count: count, concurrency: concurrency, courier).seconds)
                rawTimes.append(try await LoadRunner.run(count: count, concurrency: concurrency, raw).seconds)
            }
        }
        let ratios = zip(rawTimes, courierTimes).map { $0 / $1 }.sorted()
        let median = ratios.count.isMultiple(of: 2)
            ? (ratios[ratios.count / 2 - 1] + ratios[ratios.count / 2]) / 2 : ratios[ratios.count / 2]
        let total = Double(count * rounds)
        return Result(ratio: median, courier: total / courierTimes.reduce(0, +), raw: total / rawTimes.reduce(0, +))
    }

    /// Prints `name ratio=… courier=…/s raw=…/s`.
    static func report(_ name: String, _ result: Result) {
        print("\(name) ratio=\(String(format: "%.2f", result.ratio)) courier=\(Int(result.courier.rounded()))/s raw=\(Int(result.raw.rounded()))/s")
    }
}
