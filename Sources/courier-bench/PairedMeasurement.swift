import BenchWorkloads

/// Times two ways of doing the same work in alternating rounds (A then B, then B then A, …) so
/// that drift of the machine hits both. Each round gives a ratio of adjacent runs; the reported
/// ratio is the median of those, which one disturbed round cannot move. Every operation's latency
/// is recorded too, for percentiles over all rounds.
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
        /// Latency percentiles over every operation of every round.
        var courierLatency: Percentiles
        var rawLatency: Percentiles
    }

    /// The 50th and 99th percentile of a set of latencies.
    struct Percentiles {
        var p50: Duration
        var p99: Duration

        init(_ latencies: [Duration]) {
            let sorted = latencies.sorted()
            func at(_ fraction: Double) -> Duration {
                sorted.isEmpty ? .zero : sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.down)))]
            }
            p50 = at(0.50)
            p99 = at(0.99)
        }
    }

    /// One transfer of `size` bytes each way, Courier against raw over 2 to `rounds` rounds (at
    /// most `most`), printed as `NAME ratio=… courier=…MiB/s raw=…MiB/s size=… EXTRA`.
    static func transfer(
        _ name: String, size: Int64, rounds: Int, most: Int, extra: String = "",
        courier: @escaping @Sendable () async throws -> Void, raw: @escaping @Sendable () async throws -> Void
    ) async throws {
        let measurement = PairedMeasurement(name: name, count: 1, concurrency: 1, rounds: max(2, min(rounds, most)))
        let result = try await measurement.run(courier: courier, raw: raw)
        let megabytes = Double(size) / 1_048_576
        let rates = "courier=\(Int(result.courier * megabytes))MiB/s raw=\(Int(result.raw * megabytes))MiB/s"
        print("\(name) ratio=\(String(format: "%.2f", result.ratio)) \(rates) size=\(size)\(extra)")
    }

    func run(
        courier: @escaping @Sendable () async throws -> Void, raw: @escaping @Sendable () async throws -> Void
    ) async throws -> Result {
        let warmup = max(concurrency * 2, count / 10)
        _ = try await LoadRunner.run(count: warmup, concurrency: concurrency, raw)
        _ = try await LoadRunner.run(count: warmup, concurrency: concurrency, courier)
        var courierTimes: [Double] = []
        var rawTimes: [Double] = []
        var courierLatencies: [Duration] = []
        var rawLatencies: [Duration] = []
        func measure(_ operation: @escaping @Sendable () async throws -> Void, _ times: inout [Double], _ latencies: inout [Duration]) async throws {
            let outcome = try await LoadRunner.run(count: count, concurrency: concurrency, recordingLatencies: true, operation)
            times.append(outcome.duration.seconds)
            latencies += outcome.latencies
        }
        for round in 0..<rounds {
            if round.isMultiple(of: 2) {
                try await measure(raw, &rawTimes, &rawLatencies)
                try await measure(courier, &courierTimes, &courierLatencies)
            } else {
                try await measure(courier, &courierTimes, &courierLatencies)
                try await measure(raw, &rawTimes, &rawLatencies)
            }
        }
        let ratios = zip(rawTimes, courierTimes).map { $0 / $1 }.sorted()
        let median = ratios.count.isMultiple(of: 2)
            ? (ratios[ratios.count / 2 - 1] + ratios[ratios.count / 2]) / 2 : ratios[ratios.count / 2]
        let total = Double(count * rounds)
        return Result(
            ratio: median, courier: total / courierTimes.reduce(0, +), raw: total / rawTimes.reduce(0, +),
            courierLatency: Percentiles(courierLatencies), rawLatency: Percentiles(rawLatencies))
    }

    /// Times `first` and `second` (synchronous work) in `rounds` alternating rounds, as ``run(courier:raw:)``
    /// does; the seconds of each round, per side.
    static func alternate(rounds: Int, _ first: () throws -> Void, _ second: () throws -> Void) rethrows -> (first: [Double], second: [Double]) {
        let clock = ContinuousClock()
        var times: (first: [Double], second: [Double]) = ([], [])
        for round in 0..<rounds {
            if round.isMultiple(of: 2) {
                times.first.append(try clock.measure(first).seconds)
                times.second.append(try clock.measure(second).seconds)
            } else {
                times.second.append(try clock.measure(second).seconds)
                times.first.append(try clock.measure(first).seconds)
            }
        }
        return times
    }

    /// The middle value of `values` (the upper middle one for an even count); 0 for none.
    static func median(_ values: [Double]) -> Double {
        values.isEmpty ? 0 : values.sorted()[values.count / 2]
    }

    /// Prints `name ratio=… courier=…/s raw=…/s p50=…/…µs p99=…/…µs` (courier/raw).
    static func report(_ name: String, _ result: Result) {
        func micros(_ duration: Duration) -> String { String((duration.nanoseconds + 500) / 1000) }
        print(
            "\(name) ratio=\(String(format: "%.2f", result.ratio)) courier=\(Int(result.courier.rounded()))/s raw=\(Int(result.raw.rounded()))/s"
                + " p50=\(micros(result.courierLatency.p50))/\(micros(result.rawLatency.p50))µs"
                + " p99=\(micros(result.courierLatency.p99))/\(micros(result.rawLatency.p99))µs")
    }
}
