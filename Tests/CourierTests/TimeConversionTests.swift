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

    /// The seconds an error message names: any value, none crashes (an `Int` of a number past
    /// `Int.max` traps), and one second is singular.
    @Test(arguments: [
        (30.0, "30 seconds"), (1, "1 second"), (0.5, "0.5 seconds"), (-0.0, "0 seconds"), (1e300, "1e+300 seconds"),
        (.greatestFiniteMagnitude, "1.79769e+308 seconds"), (9.3e18, "9.3e+18 seconds"), (.infinity, "inf seconds"), (.nan, "nan seconds"),
    ] as [(TimeInterval, String)])
    func secondsInMessagesAreWrittenForAnyValue(seconds: TimeInterval, text: String) {
        #expect(seconds.secondsPhrase == text)
    }

    /// RFC 9110's example date in each of its three forms.
    @Test func httpDatesAreReadInEveryFormTheRFCNames() throws {
        let expected = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
        let now = Date(timeIntervalSince1970: 1_795_000_000)  // 2026
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT", now: now) == expected)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", now: now) == expected)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994", now: now) == expected)
        #expect(HTTPDate.format(expected) == "Sun, 06 Nov 1994 08:49:37 GMT")
        for unwritable in [Double.infinity, -.infinity, .nan, 1e300, -3e9, 253_402_300_800] {
            #expect(HTTPDate.format(Date(timeIntervalSince1970: unwritable)) == nil, "\(unwritable)")
        }
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 253_402_300_799)) == "Fri, 31 Dec 9999 23:59:59 GMT")
        #expect(HTTPDate.parse("Friday, 01-Jan-27 00:00:00 GMT", now: Date(timeIntervalSince1970: .infinity)) != nil)
        // A two-digit year more than 50 years ahead (2080) is in the past century; 2027 is not.
        let inEighties = try #require(HTTPDate.parse("Tuesday, 01-Jan-80 00:00:00 GMT", now: now))
        #expect(inEighties == Date(timeIntervalSince1970: 315_532_800))
        #expect(HTTPDate.parse("Friday, 01-Jan-27 00:00:00 GMT", now: now).flatMap { HTTPDate.format($0) } == "Fri, 01 Jan 2027 00:00:00 GMT")
        for wrong in ["", "Sun, 06 Nov 1994 08:49:37", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 32 Nov 1994 08:49:37 GMT",
                      "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 94 08:49:37 GMT", "Sun, 06 Nov 1994 8:49:37 GMT", "tomorrow"] {
            #expect(HTTPDate.parse(wrong, now: now) == nil, "\(wrong)")
        }
        #expect(RetryAfter.delay("Sun, 06 Nov 1994 08:50:37 GMT", now: expected) == .seconds(60))
        #expect(RetryAfter.delay("Sun Nov  6 08:49:37 1994", now: expected.addingTimeInterval(5)) == .zero)
    }
}
