import BenchWorkloads
import Courier
import Foundation

/// `courier-bench errors`: how long reading the field errors of an error body takes, for a typical
/// body (FastAPI's 422 for three bad fields, as FastAPI writes it) and for a 1 MB one (a Django REST
/// framework field map with 10,000 fields). Each line gives the time per body of Courier's whole
/// path (`JSONValue.parse`, then `ValidationErrorParser.parse`) against `JSONSerialization` only
/// parsing the same bytes (ratio = JSONSerialization's time / Courier's; above 1 is faster), and
/// how much of Courier's time is the JSON parse alone.
struct ValidationErrorsBenchmark {
    let options: BenchOptions

    /// FastAPI 0.115's answer to a body with a missing, a too-short and a mistyped field.
    static let typical = Data(#"""
        {"detail":[{"type":"missing","loc":["body","email"],"msg":"Field required","input":{"name":"A","age":"x"}},\#
        {"type":"string_too_short","loc":["body","name"],"msg":"String should have at least 2 characters","input":"A","ctx":{"min_length":2}},\#
        {"type":"int_parsing","loc":["body","age"],"msg":"Input should be a valid integer, unable to parse string as an integer","input":"x"}]}
        """#.utf8)

    /// A Django REST framework field map of `count` fields, two messages each, one level nested.
    static func large(fields count: Int) -> Data {
        var text = "{"
        for index in 0..<count {
            if index > 0 { text += "," }
            text += #""field_\#(index)":{"street_name":["This field may not be blank.","Ensure this field has no more than 40 characters."]}"#
        }
        return Data((text + "}").utf8)
    }

    func run() throws {
        let bodies: [(String, Data, Int)] = [
            ("errors.parse.typical", Self.typical, options.scaled(20_000, minimum: 500)),
            ("errors.parse.1mb", Self.large(fields: 10_000), options.scaled(20, minimum: 3)),
        ]
        for (name, body, repetitions) in bodies where options.selects(name) {
            let courier = {
                for _ in 0..<repetitions {
                    guard let errors = try ValidationErrorParser.parse(JSONValue.parse(body)), !errors.fields.isEmpty else {
                        throw BenchError("\(name): no field errors read")
                    }
                }
            }
            let foundation = {
                for _ in 0..<repetitions { _ = try JSONSerialization.jsonObject(with: body) }
            }
            let jsonOnly = {
                for _ in 0..<repetitions { _ = try JSONValue.parse(body) }
            }
            try courier()
            try foundation()
            let (ours, theirs) = try PairedMeasurement.alternate(rounds: options.rounds, courier, foundation)
            let (parsing, _) = try PairedMeasurement.alternate(rounds: max(1, options.rounds / 2), jsonOnly, {})
            let ratio = PairedMeasurement.median(zip(theirs, ours).map { $0 / $1 })
            let perBody = PairedMeasurement.median(ours) / Double(repetitions)
            let baseline = PairedMeasurement.median(theirs) / Double(repetitions)
            let parse = PairedMeasurement.median(parsing) / Double(repetitions)
            print(String(
                format: "%@ ratio=%.2f courier=%.1fµs (JSON parse %.1fµs) jsonserialization=%.1fµs per body of %d bytes",
                name, ratio, perBody * 1e6, parse * 1e6, baseline * 1e6, body.count))
        }
    }
}
