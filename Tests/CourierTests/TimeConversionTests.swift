import Courier
import Foundation
import Testing

/// The one place a `Duration` and a timeout become numbers a transport or a metrics backend takes:
/// every value converts, none crashes or wraps around.
struct TimeConversionTests {
    @Test func durationsBecomeNanosecondsHeldToInt64() {
        #expect(Duration.milliseconds(1500).nanoseconds == 1_500_000_000)
        #expect(Duration.nanoseconds(-7).nanoseconds == -7)
        #expect(Duration.seconds(Int64.max).nanoseconds == .max)
        #expect(Duration.seconds(Int64.min).nanoseconds == .min)
        #expect(Duration.seconds(9_223_372_036).nanoseconds == 9_223_372_036_000_000_000)
        #expect(Duration.milliseconds(250).seconds == 0.25)
    }

    @Test(arguments: [
        (60.0, 60.0), (0.5, 0.5), (0, 0), (-1, 0), (.nan, 0), (.infinity, 1e9), (5e12, 1e9),
    ] as [(TimeInterval, TimeInterval)])
    func timeoutsAreBoundedOnce(timeout: TimeInterval, bounded: TimeInterval) {
        var request = TransportRequest(url: URL(string: "http://127.0.0.1/")!)
        request.timeout = timeout
        #expect(request.boundedTimeout == bounded)
        #expect(request.timeoutNanoseconds == Int64(bounded * 1e9))
    }
}
