//! Verdicts and checks: what each part of the report concluded.

use serde::Serialize;

/// The outcome of one check, ordered from best to worst (JSON: `"ok"`, `"warn"`,
/// `"fail"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Verdict {
    /// Nothing to do.
    Ok,
    /// Something is off, but nothing required depends on it.
    Warn,
    /// A required check did not pass: the exit status is 1.
    Fail,
}

impl Verdict {
    /// `ok`, `warn` or `fail`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Verdict::Ok => "ok",
            Verdict::Warn => "warn",
            Verdict::Fail => "fail",
        }
    }

    /// The verdict for a problem: `fail` when the check is required, `warn`
    /// otherwise.
    pub(crate) fn problem(required: bool) -> Verdict {
        if required {
            Verdict::Fail
        } else {
            Verdict::Warn
        }
    }
}

/// One line of the verdict table (JSON: an element of `checks`, these fields).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Check {
    /// Stable identifier: `backend`, `versions`, `dpacc`, `devices`, `dpa`,
    /// `symbols` or `rdmi`.
    pub(crate) id: &'static str,
    /// The outcome.
    pub(crate) verdict: Verdict,
    /// Whether a problem here fails the run.
    pub(crate) required: bool,
    /// What was found, in one line.
    pub(crate) summary: String,
    /// The fix in one sentence, when the verdict is not `ok`.
    pub(crate) fix: Option<String>,
}

impl Check {
    /// A passing check.
    pub(crate) fn ok(id: &'static str, required: bool, summary: impl Into<String>) -> Check {
        Check {
            id,
            verdict: Verdict::Ok,
            required,
            summary: summary.into(),
            fix: None,
        }
    }

    /// A check with a problem: [`Verdict::problem`] of `required`.
    pub(crate) fn problem(
        id: &'static str,
        required: bool,
        summary: impl Into<String>,
        fix: impl Into<String>,
    ) -> Check {
        Check::with(id, Verdict::problem(required), required, summary, fix)
    }

    /// A check with an explicit verdict and fix.
    pub(crate) fn with(
        id: &'static str,
        verdict: Verdict,
        required: bool,
        summary: impl Into<String>,
        fix: impl Into<String>,
    ) -> Check {
        Check {
            id,
            verdict,
            required,
            summary: summary.into(),
            fix: Some(fix.into()),
        }
    }
}

/// The exit status for a set of checks: 1 when one failed, 0 otherwise.
pub(crate) fn exit_code(checks: &[Check]) -> i32 {
    if checks.iter().any(|c| c.verdict == Verdict::Fail) {
        1
    } else {
        0
    }
}

/// The worst verdict of `checks` (`ok` for none).
pub(crate) fn worst(checks: &[Check]) -> Verdict {
    checks
        .iter()
        .map(|c| c.verdict)
        .max()
        .unwrap_or(Verdict::Ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problems_fail_only_when_required() {
        assert_eq!(Check::problem("dpa", true, "s", "f").verdict, Verdict::Fail);
        assert_eq!(
            Check::problem("dpa", false, "s", "f").verdict,
            Verdict::Warn
        );
        assert!(Check::ok("dpa", true, "s").fix.is_none());
    }

    #[test]
    fn exit_code_and_worst() {
        let ok = Check::ok("a", true, "");
        let warn = Check::problem("b", false, "", "");
        let fail = Check::problem("c", true, "", "");
        assert_eq!(exit_code(&[ok.clone(), warn.clone()]), 0);
        assert_eq!(worst(&[ok.clone(), warn.clone()]), Verdict::Warn);
        assert_eq!(exit_code(&[ok, warn, fail.clone()]), 1);
        assert_eq!(worst(&[fail]), Verdict::Fail);
        assert_eq!(worst(&[]), Verdict::Ok);
    }

    #[test]
    fn json_shape() {
        let c = Check::problem("rdmi", false, "absent: \"x\"", "install it");
        assert_eq!(
            serde_json::to_value(&c).unwrap(),
            serde_json::json!({
                "id": "rdmi", "verdict": "warn", "required": false,
                "summary": "absent: \"x\"", "fix": "install it"
            })
        );
        let ok = serde_json::to_value(Check::ok("rdmi", false, "")).unwrap();
        assert_eq!(ok["fix"], serde_json::Value::Null);
        assert_eq!(ok["verdict"], "ok");
        let verdicts = [Verdict::Ok, Verdict::Warn, Verdict::Fail];
        for v in verdicts {
            assert_eq!(serde_json::to_value(v).unwrap(), v.as_str());
        }
    }
}
