//! The DOCA versions and the four-way match: every pkg-config module the build
//! saw, `doca_version.h` (the version the bindings were generated from), the
//! version each -sys crate was built for, and the runtime library
//! (`doca_version_runtime`). All must be one version; anything else is a
//! partial install (or, on the sim, a profile that says so).
//!
//! Versions are parsed by `doca-build-support` (used without its bindgen
//! feature), with the same rules as the build scripts.

use super::check::{Check, Verdict};
use serde::{Serialize, Serializer};

pub(crate) use doca_build_support::DocaVersion as Version;

/// Parses a DOCA version string (`3.0.0058`, `3.3`, `3.0.0058-1`); `None`
/// when it is not one.
pub(crate) fn parse_version(text: &str) -> Option<Version> {
    Version::parse(text).ok()
}

/// The text of a C string constant from the bindings (`b"3.3.0001\0"`), up to
/// its first NUL (linked builds read the bindings' `DOCA_VERSION_STRING`).
#[cfg(any(feature = "sim", test))]
pub(crate) fn c_constant(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

/// Everything the build and the runtime say about the DOCA version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Versions {
    /// `DOCA_VERSION_STRING` of the `doca_version.h` the bindings came from.
    pub(crate) header: String,
    /// `(crate, DOCA_VERSION)` of each -sys crate's build.
    pub(crate) build: Vec<(String, String)>,
    /// `(module, version)` of every DOCA pkg-config module the build saw
    /// (empty on the sim).
    pub(crate) pkg_config: Vec<(String, String)>,
    /// `doca_version_runtime()`, when it answered.
    pub(crate) runtime: Option<String>,
}

/// The four-way match of [`Versions`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct VersionsReport {
    /// The inputs.
    pub(crate) versions: Versions,
    /// `Some(true)` when all agree, `Some(false)` when two disagree, `None`
    /// when one could not be read or parsed (and none disagree).
    pub(crate) matched: Option<bool>,
}

/// The `versions` object of the JSON report.
impl Serialize for VersionsReport {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Build<'a> {
            #[serde(rename = "crate")]
            krate: &'a str,
            version: &'a str,
        }
        #[derive(Serialize)]
        struct Module<'a> {
            module: &'a str,
            version: &'a str,
        }
        #[derive(Serialize)]
        struct Versions<'a> {
            doca_version_h: &'a str,
            build: Vec<Build<'a>>,
            pkg_config: Vec<Module<'a>>,
            runtime: Option<&'a str>,
            #[serde(rename = "match")]
            matched: Option<bool>,
        }
        let v = &self.versions;
        Versions {
            doca_version_h: &v.header,
            build: v
                .build
                .iter()
                .map(|(krate, version)| Build { krate, version })
                .collect(),
            pkg_config: v
                .pkg_config
                .iter()
                .map(|(module, version)| Module { module, version })
                .collect(),
            runtime: v.runtime.as_deref(),
            matched: self.matched,
        }
        .serialize(s)
    }
}

/// Where a version came from, for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Header,
    Build,
    PkgConfig,
    Runtime,
}

struct Entry<'a> {
    label: String,
    kind: Kind,
    text: &'a str,
    parsed: Option<Version>,
}

fn entry(label: String, kind: Kind, text: &str) -> Entry<'_> {
    Entry {
        label,
        kind,
        text,
        parsed: parse_version(text),
    }
}

fn entries(v: &Versions) -> Vec<Entry<'_>> {
    let mut out = vec![entry("doca_version.h".to_owned(), Kind::Header, &v.header)];
    for (module, version) in &v.pkg_config {
        out.push(entry(module.clone(), Kind::PkgConfig, version));
    }
    for (krate, version) in &v.build {
        out.push(entry(format!("{krate} build"), Kind::Build, version));
    }
    if let Some(r) = &v.runtime {
        out.push(entry("runtime".to_owned(), Kind::Runtime, r));
    }
    out
}

fn listing(entries: &[&Entry<'_>]) -> String {
    entries
        .iter()
        .map(|e| format!("{} {}", e.label, e.text))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Runs the four-way match. `sim` words the fix for the software DPA, whose
/// runtime version comes from its device profile. `refusal` is what a hardware
/// build says of an install it refuses before reading its headers (too old,
/// versions that disagree, broken modules: the discovery's message), which is then
/// the verdict. The check is always required: a mismatch is a partial install.
pub(crate) fn evaluate(
    versions: Versions,
    sim: bool,
    refusal: Option<&str>,
) -> (VersionsReport, Check) {
    const ID: &str = "versions";
    if let Some(message) = refusal {
        let mut lines = message.lines().map(str::trim).filter(|l| !l.is_empty());
        let summary = lines.next().unwrap_or("the install is refused").to_owned();
        let rest: Vec<&str> = lines.collect();
        let check = Check::with(
            ID,
            Verdict::Fail,
            true,
            summary,
            if rest.is_empty() {
                "fix the install as the build's message says".to_owned()
            } else {
                rest.join(" ")
            },
        );
        return (
            VersionsReport {
                versions,
                matched: None,
            },
            check,
        );
    }
    let all = entries(&versions);
    let unparsed: Vec<&Entry<'_>> = all.iter().filter(|e| e.parsed.is_none()).collect();
    let parsed: Vec<&Entry<'_>> = all.iter().filter(|e| e.parsed.is_some()).collect();
    // The reference: the version the bindings were generated from, else the
    // first that parsed.
    let reference = parsed.first().and_then(|e| e.parsed);
    let disagreeing: Vec<&Entry<'_>> = parsed
        .iter()
        .copied()
        .filter(|e| e.parsed != reference)
        .collect();
    let sources = if versions.pkg_config.is_empty() && sim {
        "doca_version.h of the reference headers, the -sys builds and the sim's runtime_version"
    } else {
        "pkg-config modules, doca_version.h, the -sys builds and the runtime library"
    };

    if !disagreeing.is_empty() {
        let check = mismatch(&all, sim);
        let report = VersionsReport {
            versions,
            matched: Some(false),
        };
        return (report, check);
    }
    let Some(reference) = reference else {
        let check = Check::with(
            ID,
            Verdict::Fail,
            true,
            format!("no DOCA version could be read: {}", listing(&unparsed)),
            "rebuild the -sys crates against a DOCA install whose doca_version.h and pkg-config \
             files state a version (cargo clean -p doca-dpa-sys)",
        );
        let report = VersionsReport {
            versions,
            matched: None,
        };
        return (report, check);
    };
    let check = if !unparsed.is_empty() {
        Check::with(
            ID,
            Verdict::Warn,
            true,
            format!(
                "{reference} where readable; not understood: {}",
                listing(&unparsed)
            ),
            "check the DOCA install: every version should read like 3.0.0058",
        )
    } else if versions.runtime.is_none() {
        Check::with(
            ID,
            Verdict::Warn,
            true,
            format!("build-time versions agree on {reference}; the runtime version is unknown"),
            "doca_version_runtime gave no answer: check with `ldd` that the program loads \
             libdoca_common from the DOCA install the build found",
        )
    } else {
        Check::ok(ID, true, format!("all {reference} ({} agree)", sources))
    };
    let matched = if check.verdict == Verdict::Ok {
        Some(true)
    } else {
        None
    };
    (VersionsReport { versions, matched }, check)
}

/// The check for two versions that disagree, with the fix for the first kind
/// of disagreement found (pkg-config modules among themselves, the header
/// against pkg-config, the -sys builds, then the runtime).
fn mismatch(all: &[Entry<'_>], sim: bool) -> Check {
    let of = |kind| -> Vec<&Entry<'_>> {
        all.iter()
            .filter(|e| e.kind == kind && e.parsed.is_some())
            .collect()
    };
    // Group the sources by version, in order of first appearance.
    let mut groups: Vec<(Option<Version>, &str, Vec<&str>)> = Vec::new();
    for e in all {
        let same = |g: &&mut (Option<Version>, &str, Vec<&str>)| {
            g.0 == e.parsed && (e.parsed.is_some() || g.1 == e.text)
        };
        match groups.iter_mut().find(same) {
            Some(g) => g.2.push(&e.label),
            None => groups.push((e.parsed, e.text, vec![&e.label])),
        }
    }
    let summary = format!(
        "mismatch: {}",
        groups
            .iter()
            .map(|(_, text, labels)| format!("{text} ({})", labels.join(", ")))
            .collect::<Vec<_>>()
            .join(" vs ")
    );
    let first_pair = |entries: &[&Entry<'_>]| -> Option<(String, String)> {
        let a = entries.first()?;
        let b = entries.iter().find(|e| e.parsed != a.parsed)?;
        Some((a.label.clone(), b.label.clone()))
    };
    let pkg = of(Kind::PkgConfig);
    let header = of(Kind::Header);
    let build = of(Kind::Build);
    let runtime = of(Kind::Runtime);
    let fix = if let Some((a, b)) = first_pair(&pkg) {
        format!("partial install: reinstall DOCA so that {a} and {b} agree")
    } else if let (Some(h), Some(p)) = (header.first(), pkg.first()) {
        if h.parsed != p.parsed {
            format!(
                "partial install: reinstall DOCA so that doca_version.h ({}) and the pkg-config \
                 modules ({}) agree, then rebuild (cargo clean -p doca-dpa-sys -p doca-rdmi-sys)",
                h.text, p.text
            )
        } else {
            build_or_runtime_fix(&header, &build, &runtime, sim)
        }
    } else {
        build_or_runtime_fix(&header, &build, &runtime, sim)
    };
    Check::with("versions", Verdict::Fail, true, summary, fix)
}

fn build_or_runtime_fix(
    header: &[&Entry<'_>],
    build: &[&Entry<'_>],
    runtime: &[&Entry<'_>],
    sim: bool,
) -> String {
    let built = header.first().or(build.first());
    let stale_build = built.is_some_and(|h| build.iter().any(|b| b.parsed != h.parsed));
    if stale_build {
        return "the -sys crates were built at different times against different DOCA versions: \
                rebuild them (cargo clean -p doca-dpa-sys -p doca-rdmi-sys)"
            .to_owned();
    }
    match (built, runtime.first()) {
        (Some(b), Some(r)) if sim => format!(
            "the sim's device profile says runtime_version = {}, but the reference headers are {}: \
             set runtime_version = {} in the DOCA_SIM_PROFILE file, or remove the line",
            r.text, b.text, b.text
        ),
        (Some(b), Some(r)) => format!(
            "the runtime library is DOCA {} but the crates were built for {}: rebuild against the \
             installed DOCA (cargo clean -p doca-dpa-sys -p doca-rdmi-sys), or make the loader \
             find the matching libdoca_common (LD_LIBRARY_PATH)",
            r.text, b.text
        ),
        _ => "partial install: reinstall DOCA so that every module agrees".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: &str) -> Option<Version> {
        parse_version(text)
    }

    #[test]
    fn parses_doca_spellings() {
        assert_eq!(
            v("3.0.0058"),
            Some(Version {
                major: 3,
                minor: 0,
                patch: 58
            })
        );
        assert_eq!(v(" \"2.5.0108\" "), v("2.5.108"));
        assert_eq!(v("3.3"), v("3.3.0"));
        assert_eq!(v("3.0.0058-1"), v("3.0.0058"));
        assert_eq!(v("3.0.0058+ubuntu"), v("3.0.0058"));
        for bad in ["", "3", "3.", "a.b", "3.0.0.1", "3..1", "-3.0", "3.x"] {
            assert_eq!(v(bad), None, "{bad}");
        }
        assert_eq!(
            v("3.0.0058").map(|x| x.to_string()).as_deref(),
            Some("3.0.0058")
        );
    }

    #[test]
    fn c_constants() {
        assert_eq!(c_constant(b"3.3.0001\0"), "3.3.0001");
        assert_eq!(c_constant(b"3.3"), "3.3");
        assert_eq!(c_constant(b"\0junk"), "");
    }

    fn versions(header: &str, pkg: &[(&str, &str)], runtime: Option<&str>) -> Versions {
        Versions {
            header: header.into(),
            build: vec![
                ("doca-dpa-sys".into(), header.into()),
                ("doca-rdmi-sys".into(), header.into()),
            ],
            pkg_config: pkg
                .iter()
                .map(|(m, v)| ((*m).to_owned(), (*v).to_owned()))
                .collect(),
            runtime: runtime.map(str::to_owned),
        }
    }

    #[test]
    fn all_agree() {
        let (r, c) = evaluate(
            versions(
                "3.0.0058",
                &[("doca-common", "3.0.0058"), ("doca-dpa", "3.0.58")],
                Some("3.0.0058"),
            ),
            false,
            None,
        );
        assert_eq!(c.verdict, Verdict::Ok, "{c:?}");
        assert_eq!(r.matched, Some(true));
        let (_, c) = evaluate(versions("3.3.0001", &[], Some("3.3.0001")), true, None);
        assert_eq!(c.verdict, Verdict::Ok);
    }

    #[test]
    fn partial_install_names_the_modules() {
        let (r, c) = evaluate(
            versions(
                "3.0.0058",
                &[("doca-dpa", "3.0.0058"), ("doca-common", "2.10.0087")],
                Some("3.0.0058"),
            ),
            false,
            None,
        );
        assert_eq!(c.verdict, Verdict::Fail);
        assert_eq!(r.matched, Some(false));
        assert_eq!(
            c.fix.as_deref(),
            Some("partial install: reinstall DOCA so that doca-dpa and doca-common agree")
        );
        assert_eq!(
            c.summary,
            "mismatch: 3.0.0058 (doca_version.h, doca-dpa, doca-dpa-sys build, \
             doca-rdmi-sys build, runtime) vs 2.10.0087 (doca-common)"
        );
    }

    #[test]
    fn header_against_pkg_config() {
        let (_, c) = evaluate(
            versions("3.1.0001", &[("doca-dpa", "3.0.0058")], Some("3.0.0058")),
            false,
            None,
        );
        assert_eq!(c.verdict, Verdict::Fail);
        assert!(c
            .fix
            .unwrap_or_default()
            .contains("doca_version.h (3.1.0001)"));
    }

    #[test]
    fn runtime_skew() {
        let (r, c) = evaluate(
            versions("3.0.0058", &[("doca-dpa", "3.0.0058")], Some("3.2.0118")),
            false,
            None,
        );
        assert_eq!(c.verdict, Verdict::Fail);
        assert_eq!(r.matched, Some(false));
        assert!(c.fix.unwrap_or_default().contains("LD_LIBRARY_PATH"));
        let (_, c) = evaluate(versions("3.3.0001", &[], Some("3.2.0118")), true, None);
        assert_eq!(c.verdict, Verdict::Fail);
        assert!(c
            .fix
            .unwrap_or_default()
            .contains("runtime_version = 3.3.0001"));
    }

    #[test]
    fn stale_sys_build() {
        let mut vs = versions("3.0.0058", &[("doca-dpa", "3.0.0058")], Some("3.0.0058"));
        vs.build[1].1 = "2.10.0087".into();
        let (_, c) = evaluate(vs, false, None);
        assert_eq!(c.verdict, Verdict::Fail);
        assert!(c.fix.unwrap_or_default().contains("cargo clean"));
    }

    #[test]
    fn unknown_runtime_and_garbage_warn() {
        let (r, c) = evaluate(versions("3.0.0058", &[], None), false, None);
        assert_eq!(c.verdict, Verdict::Warn);
        assert_eq!(r.matched, None);
        let (_, c) = evaluate(versions("3.0.0058", &[], Some("banana")), false, None);
        assert_eq!(c.verdict, Verdict::Warn);
        assert!(c.summary.contains("banana"));
        let mut vs = versions("???", &[], Some("???"));
        vs.build.clear();
        let (r, c) = evaluate(vs, false, None);
        assert_eq!(c.verdict, Verdict::Fail);
        assert_eq!(r.matched, None);
    }

    #[test]
    fn an_install_the_build_refuses_is_the_verdict() {
        let mut vs = versions("not read", &[], None);
        vs.build.clear();
        let message = "DOCA install too old: found the umbrella module `doca` 2.5.0108 at /x.\n\
                       The minimum supported DOCA is 2.9.\n\
                       What to do: install DOCA 2.9 or newer.";
        let (r, c) = evaluate(vs, false, Some(message));
        assert_eq!(c.verdict, Verdict::Fail);
        assert_eq!(
            c.summary,
            "DOCA install too old: found the umbrella module `doca` 2.5.0108 at /x."
        );
        assert_eq!(
            c.fix.as_deref(),
            Some("The minimum supported DOCA is 2.9. What to do: install DOCA 2.9 or newer.")
        );
        assert_eq!(r.matched, None);
    }

    #[test]
    fn json_fields() {
        let (r, _) = evaluate(
            versions("3.3.0001", &[("doca-dpa", "3.3.0001")], None),
            false,
            None,
        );
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            serde_json::json!({
                "doca_version_h": "3.3.0001",
                "build": [
                    {"crate": "doca-dpa-sys", "version": "3.3.0001"},
                    {"crate": "doca-rdmi-sys", "version": "3.3.0001"}
                ],
                "pkg_config": [{"module": "doca-dpa", "version": "3.3.0001"}],
                "runtime": null,
                "match": null
            })
        );
    }
}
