import BenchCore

/// How a session whose app spoke no protocol is judged (`bench session`): the app said
/// nothing of its downloads' states, so only what the world saw can be judged. Two
/// properties are judged on it alone: `cellular-policy` (which interface each request of
/// a download came through, and the conditioner's count of cellular bytes) and
/// `crash-recovery` (what the harness read on disk at each announced kill against what
/// the origin served after it: nothing stored whole fetched again, what was partial
/// resumed by Range). The parts of theirs that need the app's states have nothing to
/// judge, and their summaries say so. Every other property needs the app's word: its
/// verdict is replaced by one saying so, never a pass, and never a failure drawn from
/// the silence.
public enum SessionVerdicts {
    /// The properties judged on the world alone in a session whose app speaks no protocol.
    public static let judgedOnTheWorld: Set<String> = ["cellular-policy", "crash-recovery"]

    /// `verdicts` as a session whose app spoke no protocol reports them.
    public static func withoutTheAppsWord(_ verdicts: [Verdict]) -> [Verdict] {
        verdicts.map { verdict in
            var judged = verdict
            if judgedOnTheWorld.contains(verdict.property) {
                judged.summary += " (Judged on what the world saw: the app reported no state, so the parts that need "
                    + "its states were not judged.)"
                return judged
            }
            judged.outcome = .notApplicable
            judged.summary = "Needs the app's word: the app spoke no protocol in this session, so what this property "
                + "judges (its downloads' states, progress or claims) was never said; not judged."
            judged.evidence = []
            return judged
        }
    }
}
