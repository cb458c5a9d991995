//! What a hardware build will say of the installed headers: the -sys builds' bindings
//! check (`doca_build_support::check::check`: the C compiler judges whether the
//! installed headers declare every bound item as the reference headers the bundled
//! bindings were made from), run here the way `doca_build_support::sys` runs it, on
//! the install pkg-config finds, for each binding set, with the committed bindings and
//! check files of doca-dpa-sys, doca-verbs-sys, doca-rdmi-sys, doca-rdma-sys and doca-comch-sys (`bundled/`, links to
//! theirs). A
//! hardware build without the `bindgen` feature refuses the headers this check
//! refuses; with it, bindgen reads them instead (and needs libclang).
//!
//! Runs the host C compiler (`cc`, or `CC`) on files in a fresh directory under the
//! system's temporary directory, removed afterwards. Makes no DOCA call.

use std::path::{Path, PathBuf};

use doca_build_support::binding_set::{resolve_headers, BindingSet};
use doca_build_support::check;
use doca_build_support::discovery::{DiscoveryError, Install};
use doca_build_support::env::EnvReader;
use serde::Serialize;

use super::check::Check;

/// Each set with its committed bindings and check file, as the -sys crates have them.
const SETS: [(BindingSet, &str, &str); 5] = [
    (
        BindingSet::Dpa,
        include_str!("../bundled/dpa.rs"),
        include_str!("../bundled/dpa_check.c"),
    ),
    (
        BindingSet::Verbs,
        include_str!("../bundled/verbs.rs"),
        include_str!("../bundled/verbs_check.c"),
    ),
    (
        BindingSet::Rdmi,
        include_str!("../bundled/rdmi.rs"),
        include_str!("../bundled/rdmi_check.c"),
    ),
    (
        BindingSet::Rdma,
        include_str!("../bundled/rdma.rs"),
        include_str!("../bundled/rdma_check.c"),
    ),
    (
        BindingSet::Comch,
        include_str!("../bundled/comch.rs"),
        include_str!("../bundled/comch_check.c"),
    ),
];

/// The way out of a refusal, as the build names it.
const WAY_OUT: &str = "way out: the `bindgen` feature (features = [\"bindgen\"] on the `doca` \
                       dependency, or doca-dpa-sys/bindgen and doca-rdmi-sys/bindgen) generates \
                       the bindings from these headers (needs libclang); please report the \
                       difference to doca-rs";

/// What the check says of one set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Outcome {
    /// Every bound item is declared as the bundled bindings expect.
    Accepted,
    /// The build will stop: an item differs (or the set's headers are missing).
    Refused,
    /// The install has no such set (no `doca-rdmi` module): the build binds nothing.
    Absent,
    /// The check could not run (no C compiler, no temporary directory).
    Unchecked,
}

/// One set's result (JSON: an element of `bindings_check.sets`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct SetResult {
    /// `dpa` or `rdmi`.
    pub(crate) set: &'static str,
    /// The outcome.
    pub(crate) result: Outcome,
    /// Lines of the check the compiler passed, when accepted.
    pub(crate) checked: Option<usize>,
    /// Why, when not accepted: the check's own message (its leading `  - item: why`
    /// lines name the differing items; the compiler's output follows).
    pub(crate) message: Option<String>,
}

/// Why no set was checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NoInstall {
    /// pkg-config found no DOCA (the message's first line).
    NotFound(String),
    /// The build refuses the install before reading its headers (too old, mismatched
    /// versions, broken modules): the discovery's message.
    Refused(String),
}

/// The `bindings_check` object of the JSON report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BindingsCheck {
    /// The directories of the installed headers checked (empty without an install).
    pub(crate) include_dirs: Vec<String>,
    /// Why nothing was checked, when nothing was.
    pub(crate) no_install: Option<NoInstall>,
    /// Each set checked.
    pub(crate) sets: Vec<SetResult>,
}

impl Serialize for BindingsCheck {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Json<'a> {
            include_dirs: &'a [String],
            install_error: Option<&'a str>,
            sets: &'a [SetResult],
        }
        Json {
            include_dirs: &self.include_dirs,
            install_error: self.no_install.as_ref().map(|n| match n {
                NoInstall::NotFound(m) | NoInstall::Refused(m) => m.as_str(),
            }),
            sets: &self.sets,
        }
        .serialize(s)
    }
}

/// The first line of `text`.
fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default().trim()
}

/// What a refusal's message says in short: the differing items, one per leading
/// `  - item: why` line of the check's message (its Display), else its first line.
pub(crate) fn differences(message: &str) -> Vec<&str> {
    let items: Vec<&str> = message
        .lines()
        .map_while(|l| l.strip_prefix("  - "))
        .map(str::trim)
        .collect();
    if items.is_empty() {
        vec![first_line(message)]
    } else {
        items
    }
}

/// A fresh directory for one set's generated files, removed on drop.
struct WorkDir(PathBuf);

impl WorkDir {
    fn new(set: BindingSet) -> Result<WorkDir, String> {
        let dir = std::env::temp_dir().join(format!(
            "doca-doctor-check-{}-{}",
            std::process::id(),
            set.name()
        ));
        // A directory left by an earlier process of the same id is stale.
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)
            .map(|()| WorkDir(dir.clone()))
            .map_err(|e| format!("could not create {}: {e}", dir.display()))
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Checks `set` against the headers in `include_dirs` as a hardware build of its -sys
/// crate would (`bundled_bindings` of `doca_build_support::sys`).
fn check_set(
    env: &EnvReader,
    set: BindingSet,
    (committed, check_text): (&str, &str),
    include_dirs: &[PathBuf],
    work: &Path,
) -> SetResult {
    let result = |result, checked, message| SetResult {
        set: set.name(),
        result,
        checked,
        message,
    };
    let headers = resolve_headers(set, include_dirs, &[]).used;
    if headers.is_empty() {
        let dirs: Vec<String> = include_dirs
            .iter()
            .map(|d| d.display().to_string())
            .collect();
        let message = format!(
            "none of the {} headers ({}) is in {}; the install is incomplete",
            set.name(),
            set.headers().join(", "),
            dirs.join(", ")
        );
        return result(Outcome::Refused, None, Some(message));
    }
    match check::check(
        env,
        set,
        committed,
        check_text,
        &headers,
        include_dirs,
        work,
    ) {
        Ok(report) => result(Outcome::Accepted, Some(report.checked), None),
        Err(e @ check::CheckError::Compiler(_)) => {
            result(Outcome::Unchecked, None, Some(e.to_string()))
        }
        Err(e) => result(Outcome::Refused, None, Some(e.to_string())),
    }
}

/// Runs the check of every set against `install` (the discovery's answer), with the
/// process environment `env` (the C compiler: `CC`, `CFLAGS`…).
pub(crate) fn run(env: &EnvReader, install: Result<&Install, &DiscoveryError>) -> BindingsCheck {
    let install = match install {
        Ok(i) => i,
        Err(e) => {
            let text = e.to_string();
            let no_install = if e.is_broken_install() {
                NoInstall::Refused(text)
            } else {
                NoInstall::NotFound(first_line(&text).to_owned())
            };
            return BindingsCheck {
                include_dirs: Vec::new(),
                no_install: Some(no_install),
                sets: Vec::new(),
            };
        }
    };
    let include_dirs = install.include_dirs(&[]);
    let sets = SETS
        .iter()
        .map(|&(set, committed, check_text)| {
            // The optional modules: without one, its -sys crate binds nothing.
            let optional = match set {
                BindingSet::Rdmi => Some(("doca-rdmi", "RDMI")),
                BindingSet::Rdma => Some(("doca-rdma", "DOCA RDMA")),
                BindingSet::Comch => Some(("doca-comch", "DPA Comms")),
                BindingSet::Verbs => Some(("doca-verbs", "DOCA Verbs")),
                BindingSet::Dpa => None,
            };
            if let Some((module, what)) = optional.filter(|(m, _)| !install.has(m)) {
                return SetResult {
                    set: set.name(),
                    result: Outcome::Absent,
                    checked: None,
                    message: Some(format!(
                        "pkg-config finds no {module} module: the build binds no {what}"
                    )),
                };
            }
            match WorkDir::new(set) {
                Ok(work) => check_set(env, set, (committed, check_text), &include_dirs, &work.0),
                Err(e) => SetResult {
                    set: set.name(),
                    result: Outcome::Unchecked,
                    checked: None,
                    message: Some(e),
                },
            }
        })
        .collect();
    BindingsCheck {
        include_dirs: include_dirs
            .iter()
            .map(|d| d.display().to_string())
            .collect(),
        no_install: None,
        sets,
    }
}

impl BindingsCheck {
    /// The `bindings` check. `required`: a problem fails the run (the default build,
    /// which is for hardware; a sim build with `--require hardware`). `sim`: a sim
    /// build, which needs no install: none found is `ok` there unless required.
    pub(crate) fn evaluate(&self, required: bool, sim: bool) -> Check {
        const ID: &str = "bindings";
        match &self.no_install {
            Some(NoInstall::NotFound(why)) if sim && !required => {
                return Check::ok(
                    ID,
                    false,
                    format!("not checked: no DOCA install found (a sim build needs none): {why}"),
                )
            }
            Some(NoInstall::NotFound(why)) => {
                return Check::problem(
                    ID,
                    required,
                    format!("not checked: no DOCA install found: {why}"),
                    "install DOCA 2.9 or newer, or point PKG_CONFIG_PATH (or DOCA_PREFIX) at it",
                )
            }
            Some(NoInstall::Refused(message)) => {
                let rest: Vec<&str> = message.lines().skip(1).map(str::trim).collect();
                return Check::problem(
                    ID,
                    required,
                    format!(
                        "will be refused before the headers are read: {}",
                        first_line(message)
                    ),
                    if rest.is_empty() {
                        "fix the install as the message says".to_owned()
                    } else {
                        rest.join(" ")
                    },
                );
            }
            None => {}
        }
        let with = |outcome| {
            self.sets
                .iter()
                .filter(move |s| s.result == outcome)
                .map(|s| {
                    let message = s.message.as_deref().unwrap_or_default();
                    format!("{}: {}", s.set, differences(message).join("; "))
                })
                .collect::<Vec<_>>()
        };
        let refused = with(Outcome::Refused);
        if !refused.is_empty() {
            return Check::problem(
                ID,
                required,
                format!("will be refused: {}", refused.join("; ")),
                WAY_OUT,
            );
        }
        let unchecked = with(Outcome::Unchecked);
        if !unchecked.is_empty() {
            return Check::problem(
                ID,
                required,
                format!("not checked: {}", unchecked.join("; ")),
                "install a C compiler (or name one in CC): the hardware build runs this check \
                 with it too",
            );
        }
        let checked: usize = self.sets.iter().filter_map(|s| s.checked).sum();
        let per_set: Vec<String> = self
            .sets
            .iter()
            .map(|s| match s.checked {
                Some(n) => format!("{} {n}", s.set),
                None => format!("{} absent", s.set),
            })
            .collect();
        Check::ok(
            ID,
            required,
            format!("accepted ({checked} items checked: {})", per_set.join(", ")),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::check::Verdict;
    use super::*;

    fn set(set: &'static str, result: Outcome, checked: Option<usize>, m: &str) -> SetResult {
        SetResult {
            set,
            result,
            checked,
            message: (!m.is_empty()).then(|| m.to_owned()),
        }
    }

    fn with_sets(sets: Vec<SetResult>) -> BindingsCheck {
        BindingsCheck {
            include_dirs: vec!["/p/include".into()],
            no_install: None,
            sets,
        }
    }

    #[test]
    fn accepted_counts_every_set() {
        let c = with_sets(vec![
            set("dpa", Outcome::Accepted, Some(400), ""),
            set("rdmi", Outcome::Absent, None, "no doca-rdmi"),
        ])
        .evaluate(true, false);
        assert_eq!(c.verdict, Verdict::Ok);
        assert_eq!(
            c.summary,
            "accepted (400 items checked: dpa 400, rdmi absent)"
        );
    }

    #[test]
    fn a_refusal_names_the_items_and_the_way_out() {
        let c = with_sets(vec![
            set(
                "dpa",
                Outcome::Refused,
                None,
                "  - doca_x: its type differs\n  - doca_y: its value differs\n\
                 (the C compiler's output follows)\ncc said so",
            ),
            set("rdmi", Outcome::Accepted, Some(30), ""),
        ]);
        let check = c.evaluate(true, false);
        assert_eq!(check.verdict, Verdict::Fail);
        assert_eq!(
            check.summary,
            "will be refused: dpa: doca_x: its type differs; doca_y: its value differs"
        );
        // A message without item lines: its first line.
        assert_eq!(differences("no headers\nmore"), ["no headers"]);
        assert!(check.fix.unwrap_or_default().contains("`bindgen` feature"));
        // Not required (a sim build): a warning.
        assert_eq!(c.evaluate(false, true).verdict, Verdict::Warn);
    }

    #[test]
    fn no_install() {
        let none = BindingsCheck {
            include_dirs: Vec::new(),
            no_install: Some(NoInstall::NotFound("DOCA was not found".into())),
            sets: Vec::new(),
        };
        assert_eq!(none.evaluate(false, true).verdict, Verdict::Ok);
        assert_eq!(none.evaluate(true, true).verdict, Verdict::Fail);
        assert_eq!(none.evaluate(true, false).verdict, Verdict::Fail);
        let old = BindingsCheck {
            no_install: Some(NoInstall::Refused(
                "DOCA install too old: found 2.5.\nWhat to do: install 2.9.".into(),
            )),
            ..none
        };
        let c = old.evaluate(true, false);
        assert_eq!(c.verdict, Verdict::Fail);
        assert!(c.summary.contains("too old"), "{}", c.summary);
        assert_eq!(c.fix.as_deref(), Some("What to do: install 2.9."));
        let json = serde_json::to_value(&old).unwrap();
        assert_eq!(json["sets"], serde_json::json!([]));
        assert!(json["install_error"].as_str().unwrap().contains("too old"));
    }

    #[test]
    fn a_missing_compiler_is_not_a_verdict() {
        let c = with_sets(vec![set("dpa", Outcome::Unchecked, None, "no cc")]);
        let check = c.evaluate(true, false);
        assert_eq!(check.verdict, Verdict::Fail);
        assert!(check.summary.starts_with("not checked: dpa: no cc"));
    }
}
