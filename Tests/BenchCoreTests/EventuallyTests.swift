import TestSupport
import Testing

/// The wait every live test uses (`Tests/TestSupport/Eventually.swift`, shared by the test targets):
/// a bound that passes is a failure that names what never came.
struct EventuallyTests {
    @Test func aConditionThatComesEndsTheWaitAtOnce() async {
        var checks = 0
        let held = await eventually("the third check") {
            checks += 1
            return checks == 3
        }
        #expect(held && checks == 3)
    }

    @Test func aBoundThatPassesIsAnIssueNamingWhatNeverCame() async {
        var held = true
        await withKnownIssue {
            held = await eventually("the moon turning blue", within: 0.05) { false }
        } matching: { issue in
            issue.comments.contains { $0.rawValue == "the moon turning blue did not happen within 0.05 s" }
        }
        #expect(!held)
        #expect(await pollUntil(within: 0.05) { false } == false, "pollUntil only answers")
    }
}
