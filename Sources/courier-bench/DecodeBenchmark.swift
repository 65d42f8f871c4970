import BenchWorkloads
import Courier
import CourierExamples
import Foundation

/// `courier-bench decode`: 10,000 seed-shaped users (seed 002's keys, `id` as a string, dates in
/// `yyyy/MM/dd HH:mm:ss`, a favourite pizza and two ordered pizzas) decoded by `ModelDecoder` and by
/// the usual Foundation ways, alternating rounds; MB/s and the median ratio.
struct DecodeBenchmark {
    let options: BenchOptions

    /// The model as JSONDecoder with `.convertFromSnakeCase` needs it.
    struct FoundationUser: Decodable {
        struct Pizza: Decodable {
            var pizzaId: Int
            var name: String
            var numberOfIngredients: Int?
        }
        var id: String
        var userName: String
        var email: String
        var isFirstLogin: Bool
        var registerDate: Date
        var favoritePizza: Pizza
        var orderedPizzas: [Pizza]

        enum CodingKeys: String, CodingKey {
            case id, userName, email, isFirstLogin, registerDate, favoritePizza
            case orderedPizzas = "OrderedPizzas"
        }
    }

    static func payload(count: Int) -> Data {
        var text = "["
        for index in 0..<count {
            if index > 0 { text += "," }
            text += """
            {"id":"\(index)","user_name":"fulana\(index)","email":"fulana\(index)@hotmail.com","is_first_login":\(index % 2 == 0),\
            "register_date":"2015/08/21 15:\(String(format: "%02d", index % 60)):45",\
            "favorite_pizza":{"pizza_id":5,"name":"Catuperoni","number_of_ingredients":null},\
            "OrderedPizzas":[{"pizza_id":5,"name":"Catuperoni","number_of_ingredients":null},{"pizza_id":10,"name":"Calabresa","number_of_ingredients":3}]}
            """
        }
        return Data((text + "]").utf8)
    }

    func run() throws {
        let data = Self.payload(count: options.scaled(10_000, minimum: 100))
        let megabytes = Double(data.count) / 1_000_000
        let courier = ModelDecoder()
        let formatterDecoder = JSONDecoder()
        formatterDecoder.keyDecodingStrategy = .convertFromSnakeCase
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        formatter.dateFormat = "yyyy/MM/dd HH:mm:ss"
        formatterDecoder.dateDecodingStrategy = .formatted(formatter)
        let fastDateDecoder = JSONDecoder()
        fastDateDecoder.keyDecodingStrategy = .convertFromSnakeCase
        let fixed = FixedDateFormat("yyyy/MM/dd HH:mm:ss")!
        fastDateDecoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let date = fixed.date(from: text, timeZone: TimeZone(secondsFromGMT: 0)!) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: text))
            }
            return date
        }
        let baselines: [(String, () throws -> Void)] = [
            ("decode.vs-jsondecoder", { _ = try formatterDecoder.decode([FoundationUser].self, from: data) }),
            ("decode.vs-jsondecoder-fastdate", { _ = try fastDateDecoder.decode([FoundationUser].self, from: data) }),
            ("decode.vs-jsonserialization", { _ = try JSONSerialization.jsonObject(with: data) }),
        ]
        // The model as Courier reads it: the examples' `User`, no CodingKeys.
        let ours = { _ = try courier.decode([User].self, from: data) }
        try ours()
        for (name, baseline) in baselines where options.selects(name) {
            try baseline()
            let (oursTimes, baselineTimes) = try PairedMeasurement.alternate(rounds: options.rounds, ours, baseline)
            let ratio = PairedMeasurement.median(zip(baselineTimes, oursTimes).map { $0 / $1 })
            let oursTotal = oursTimes.reduce(0, +)
            let baselineTotal = baselineTimes.reduce(0, +)
            let runs = Double(options.rounds)
            print("\(name) ratio=\(String(format: "%.2f", ratio)) courier=\(String(format: "%.1f", megabytes * runs / oursTotal))MB/s raw=\(String(format: "%.1f", megabytes * runs / baselineTotal))MB/s")
        }
    }
}
