//! The DPA compiler: which `dpacc` a kernel build would use (`$DPACC`, then the
//! found install's `tools/dpacc`, then `dpacc` on `PATH`, then
//! `/opt/mellanox/doca/tools/dpacc`: `doca-build-support`'s own
//! [`locate_dpacc`]), its own version, and how it pairs with
//! DOCA by the same rules as the kernel builds (`pair_dpacc`: the install's
//! own `tools/dpacc`, a pairing known to be right, unknown, or known to be
//! wrong). The sim compiles kernels with the host compiler, so there dpacc is
//! not needed.

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use doca_build_support::dpa_app::{
    is_dpacc_of_prefix, locate_dpacc, pair_dpacc, parse_dpacc_version, prefix_dpacc, DpaccPairing,
};
use doca_build_support::env::EnvReader;

use super::check::{Check, Verdict};
use super::versions::parse_version;
use serde::Serialize;

/// Where DOCA installs dpacc.
pub(crate) const DEFAULT_DPACC: &str = "/opt/mellanox/doca/tools/dpacc";
/// How long `dpacc --version` may take.
const TIMEOUT: Duration = Duration::from_secs(20);

/// What looking for and running dpacc found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Probe {
    /// The sim: kernels are built with the host compiler.
    NotNeeded,
    /// No dpacc; the places tried.
    NotFound(Vec<String>),
    /// Found at `path` (by `source`: `DPACC`, `install`, `PATH` or `default`), and
    /// `--version` printed `output` — or could not be run (`Err`).
    Found {
        /// The program.
        path: PathBuf,
        /// How it was found.
        source: &'static str,
        /// What `dpacc --version` printed, or why it could not be run.
        output: Result<String, String>,
    },
}

/// The `dpacc` object of the JSON report (these fields).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct DpaccReport {
    /// False on the sim.
    pub(crate) needed: bool,
    /// The program found.
    pub(crate) path: Option<String>,
    /// `DPACC`, `install`, `PATH` or `default`.
    pub(crate) found_by: Option<&'static str>,
    /// Its own version, as printed (`1.12.0.26`).
    pub(crate) version: Option<String>,
    /// The DOCA version the build was made for.
    pub(crate) doca_version: String,
    /// DOCA's `major.minor`.
    pub(crate) doca_release: Option<String>,
    /// How dpacc pairs with DOCA ([`DpaccPairing::as_str`]); `None` when not
    /// checked.
    pub(crate) pairing: Option<&'static str>,
    /// The dpacc version known to ship with this DOCA release, if any.
    pub(crate) known_dpacc: Option<&'static str>,
    /// The install's own dpacc (`PREFIX/tools/dpacc`), when the prefix is known.
    pub(crate) install_dpacc: Option<String>,
    /// Why dpacc could not be found, run or understood.
    pub(crate) error: Option<String>,
}

/// Finds dpacc as a kernel build would ([`locate_dpacc`]): `dpacc_var` (a path, or
/// a bare name looked up in `path_var`), else the install's under `prefix`, else
/// `dpacc` in `path_var`, else `default`. `Err` lists what was tried.
pub(crate) fn find(
    dpacc_var: Option<&OsStr>,
    path_var: Option<&OsStr>,
    prefix: Option<&Path>,
    default: &Path,
) -> Result<(PathBuf, &'static str), Vec<String>> {
    let vars = [("DPACC", dpacc_var), ("PATH", path_var)]
        .into_iter()
        .filter_map(|(k, v)| Some((k, v?.to_owned())));
    locate_dpacc(&EnvReader::fixed(vars), prefix, default)
}

/// Runs `program --version`, giving up after `timeout`. Returns stdout then
/// stderr.
pub(crate) fn run_version(program: &Path, timeout: Duration) -> Result<String, String> {
    let mut child = Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("could not run it: {e}"))?;
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() < timeout => std::thread::sleep(Duration::from_millis(20)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!(
                    "`--version` did not finish in {} s",
                    timeout.as_secs()
                ));
            }
            Err(e) => return Err(format!("waiting for it failed: {e}")),
        }
    };
    let mut text = String::new();
    let mut bytes = Vec::new();
    if let Some(mut out) = child.stdout.take() {
        let _ = out.read_to_end(&mut bytes);
    }
    if let Some(mut err) = child.stderr.take() {
        let _ = err.read_to_end(&mut bytes);
    }
    text.push_str(&String::from_utf8_lossy(&bytes));
    if !status.success() {
        return Err(format!("`--version` exited with {status}: {}", text.trim()));
    }
    Ok(text)
}

/// Looks for dpacc (`prefix`: the install's, when known) and runs it (nothing on
/// the sim).
pub(crate) fn probe(sim: bool, prefix: Option<&str>) -> Probe {
    if sim {
        return Probe::NotNeeded;
    }
    let dpacc_var: Option<OsString> = std::env::var_os("DPACC");
    let path_var: Option<OsString> = std::env::var_os("PATH");
    match find(
        dpacc_var.as_deref(),
        path_var.as_deref(),
        prefix.map(Path::new),
        Path::new(DEFAULT_DPACC),
    ) {
        Err(tried) => Probe::NotFound(tried),
        Ok((path, source)) => {
            let output = run_version(&path, TIMEOUT);
            Probe::Found {
                path,
                source,
                output,
            }
        }
    }
}

/// Pairs what [`probe`] found with DOCA's version (`doca`, as the build
/// recorded it), `prefix` being the install's prefix when the build knew it.
/// On hardware the check is required: a dpacc known to belong to another DOCA
/// release builds kernels this DOCA may refuse at launch. An unknown pairing
/// only warns, as it only warns in kernel builds.
pub(crate) fn evaluate(probe: Probe, doca: &str, prefix: Option<&str>) -> (DpaccReport, Check) {
    const ID: &str = "dpacc";
    let doca_v = parse_version(doca);
    let install_dpacc = prefix.map(|p| prefix_dpacc(Path::new(p)));
    let mut report = DpaccReport {
        needed: true,
        path: None,
        found_by: None,
        version: None,
        doca_version: doca.to_owned(),
        doca_release: doca_v.map(|v| format!("{}.{}", v.major, v.minor)),
        pairing: None,
        known_dpacc: None,
        install_dpacc: install_dpacc.as_ref().map(|p| p.display().to_string()),
        error: None,
    };
    let use_own = match &install_dpacc {
        Some(p) => format!("set DPACC={}", p.display()),
        None => "point DPACC at the dpacc in the DOCA install's tools/ directory".to_owned(),
    };
    let check = match probe {
        Probe::NotNeeded => {
            report.needed = false;
            Check::ok(
                ID,
                false,
                "not needed (sim): kernels are built with the host compiler",
            )
        }
        Probe::NotFound(tried) => {
            let msg = format!("not found (tried {})", tried.join(", "));
            report.error = Some(msg.clone());
            Check::with(
                ID,
                Verdict::Warn,
                true,
                msg,
                "install dpacc with DOCA (it lives in /opt/mellanox/doca/tools) or set DPACC \
                 to its path; only needed to build DPA kernels",
            )
        }
        Probe::Found {
            path,
            source,
            output,
        } => {
            report.path = Some(path.display().to_string());
            report.found_by = Some(source);
            let shown = path.display();
            match output {
                Err(e) => {
                    report.error = Some(e.clone());
                    Check::with(
                        ID,
                        Verdict::Warn,
                        true,
                        format!("{shown} (from {source}): {e}"),
                        "make DPACC (or PATH) name a working dpacc of the installed DOCA",
                    )
                }
                Ok(text) => match (parse_dpacc_version(&text), doca_v) {
                    (None, _) => {
                        let first = text.lines().next().unwrap_or("").trim().to_owned();
                        report.error = Some(format!("no version in `--version` output: {first}"));
                        Check::with(
                            ID,
                            Verdict::Warn,
                            true,
                            format!("{shown} (from {source}): version not understood ({first})"),
                            "check that this is NVIDIA's dpacc: `dpacc --version` should print \
                             a line `dpacc version N.N.N.N`",
                        )
                    }
                    (Some(v), None) => {
                        report.version = Some(v.text.clone());
                        Check::with(
                            ID,
                            Verdict::Warn,
                            true,
                            format!("{shown} {v}; DOCA's version `{doca}` not understood"),
                            "rebuild against a DOCA install whose version reads like 3.0.0058",
                        )
                    }
                    (Some(v), Some(d)) => {
                        report.version = Some(v.text.clone());
                        let same = install_dpacc.is_some()
                            && prefix.is_some_and(|p| is_dpacc_of_prefix(&path, Path::new(p)));
                        let pairing = pair_dpacc(d, &v, same);
                        report.pairing = Some(pairing.as_str());
                        let found = format!("{shown} (from {source}), dpacc {v}, with DOCA {doca}");
                        match pairing {
                            DpaccPairing::SameInstall => {
                                Check::ok(ID, true, format!("{found}: the install's own dpacc"))
                            }
                            DpaccPairing::Known => {
                                Check::ok(ID, true, format!("{found}: a known pairing"))
                            }
                            DpaccPairing::Unknown { doca_ships } => {
                                report.known_dpacc = doca_ships;
                                let shipped = doca_ships
                                    .map(|k| {
                                        format!(" (DOCA {}.{} ships dpacc {k})", d.major, d.minor)
                                    })
                                    .unwrap_or_default();
                                Check::with(
                                    ID,
                                    Verdict::Warn,
                                    true,
                                    format!("{found}: pairing not verified{shipped}"),
                                    format!(
                                        "check the DOCA Compatibility Policy for DOCA {doca}, or \
                                         {use_own}; kernel builds go ahead with a warning"
                                    ),
                                )
                            }
                            DpaccPairing::Uncertain {
                                dpacc_seen_with: (ma, mi),
                                evidence,
                            } => Check::with(
                                ID,
                                Verdict::Warn,
                                true,
                                format!(
                                    "{found}: seen with DOCA {ma}.{mi}, on uncertain evidence \
                                     ({evidence})"
                                ),
                                format!(
                                    "{use_own} if kernels fail to load or launch; kernel builds \
                                     go ahead with a warning"
                                ),
                            ),
                            DpaccPairing::Mismatch {
                                dpacc_belongs_to: (ma, mi),
                            } => Check::problem(
                                ID,
                                true,
                                format!("{found}: this dpacc belongs to DOCA {ma}.{mi}"),
                                format!(
                                    "use the dpacc of DOCA {doca} ({use_own}) and rebuild the \
                                     DPA kernels"
                                ),
                            ),
                        }
                    }
                },
            }
        }
    };
    (report, check)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(output: Result<&str, &str>) -> Probe {
        Probe::Found {
            path: PathBuf::from("/opt/x/dpacc"),
            source: "PATH",
            output: output.map(str::to_owned).map_err(str::to_owned),
        }
    }

    #[test]
    fn sim_needs_none() {
        let (r, c) = evaluate(Probe::NotNeeded, "3.3.0001", None);
        assert_eq!(c.verdict, Verdict::Ok);
        assert!(c.summary.starts_with("not needed (sim)"));
        assert!(!r.needed);
    }

    const REAL: &str =
        "dpacc: NVIDIA (R)\nCopyright (c) 2021-2025 NVIDIA Corporation\ndpacc version 1.12.0.26\n";

    #[test]
    fn pairings() {
        let (r, c) = evaluate(found(Ok(REAL)), "3.1.0105", None);
        assert_eq!(c.verdict, Verdict::Ok, "{c:?}");
        assert_eq!(r.pairing, Some("known"));
        assert_eq!(r.version.as_deref(), Some("1.12.0.26"));
        assert_eq!(r.doca_release.as_deref(), Some("3.1"));
        assert!(c.summary.contains("1.12.0.26") && c.summary.contains("3.1.0105"));

        let (r, c) = evaluate(found(Ok(REAL)), "3.0.0058", Some("/opt/mellanox/doca"));
        // DOCA 3.1's dpacc on 3.0: the one source is uncertain, so a warning that
        // quotes it.
        assert_eq!(c.verdict, Verdict::Warn);
        assert!(c.required);
        assert_eq!(r.pairing, Some("uncertain"));
        assert!(
            c.summary.contains("seen with DOCA 3.1") && c.summary.contains("\"DOCA 3.1+\""),
            "{c:?}"
        );
        let fix = c.fix.unwrap_or_default();
        assert!(
            fix.contains("DPACC=/opt/mellanox/doca/tools/dpacc"),
            "{fix}"
        );
        assert_eq!(
            r.install_dpacc.as_deref(),
            Some("/opt/mellanox/doca/tools/dpacc")
        );

        let (r, c) = evaluate(found(Ok("dpacc version 1.12.0.30")), "3.1.0105", None);
        assert_eq!(c.verdict, Verdict::Warn);
        assert_eq!(r.pairing, Some("unknown"));
        assert_eq!(r.known_dpacc, Some("1.12.0.26"));
        assert!(c.summary.contains("1.12.0.30") && c.summary.contains("3.1.0105"));
        assert!(c.fix.unwrap_or_default().contains("Compatibility Policy"));
    }

    #[test]
    fn odd_dpaccs_warn() {
        let (r, c) = evaluate(found(Ok("hello\n")), "3.0.0058", None);
        assert_eq!(c.verdict, Verdict::Warn);
        assert_eq!(r.pairing, None);
        let (r, c) = evaluate(found(Err("could not run it: denied")), "3.0.0058", None);
        assert_eq!(c.verdict, Verdict::Warn);
        assert!(r.error.unwrap_or_default().contains("denied"));
        let (_, c) = evaluate(Probe::NotFound(vec!["a".into()]), "3.0.0058", None);
        assert_eq!(c.verdict, Verdict::Warn);
        assert!(c.fix.is_some());
    }

    #[test]
    fn discovery_order() {
        let dir = std::env::temp_dir().join(format!("doca-doctor-dpacc-{}", std::process::id()));
        let bin = dir.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let on_path = bin.join("dpacc");
        std::fs::write(&on_path, "").unwrap();
        let named = dir.join("mine");
        std::fs::write(&named, "").unwrap();
        let default = dir.join("default-dpacc");
        let path_var = std::env::join_paths([&bin]).unwrap();

        let (p, s) = find(Some(named.as_os_str()), Some(&path_var), None, &default).unwrap();
        assert_eq!((p, s), (named.clone(), "DPACC"));
        let (p, s) = find(Some(OsStr::new("dpacc")), Some(&path_var), None, &default).unwrap();
        assert_eq!((p, s), (on_path.clone(), "DPACC"));
        assert!(find(
            Some(OsStr::new("/nonexistent/dpacc")),
            Some(&path_var),
            None,
            &default
        )
        .is_err());
        let (p, s) = find(None, Some(&path_var), None, &default).unwrap();
        assert_eq!((p, s), (on_path.clone(), "PATH"));
        // The found install's own dpacc comes before PATH, as in a kernel build.
        let prefix = dir.join("doca");
        std::fs::create_dir_all(prefix.join("tools")).unwrap();
        std::fs::write(prefix.join("tools/dpacc"), "").unwrap();
        let (p, s) = find(None, Some(&path_var), Some(&prefix), &default).unwrap();
        assert_eq!((p, s), (prefix.join("tools/dpacc"), "install"));
        let tried = find(None, None, Some(&dir.join("elsewhere")), &default).unwrap_err();
        assert!(
            tried.iter().any(|t| t.contains("(the DOCA install found)")),
            "{tried:?}"
        );
        assert_eq!(find(None, None, None, &default).unwrap_err().len(), 3);
        std::fs::write(&default, "").unwrap();
        let (p, s) = find(Some(OsStr::new("")), None, None, &default).unwrap();
        assert_eq!((p, s), (default, "default"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn running_a_missing_program_is_an_error() {
        let e = run_version(Path::new("/nonexistent/dpacc"), Duration::from_secs(1)).unwrap_err();
        assert!(e.contains("could not run it"));
    }

    /// A fake dpacc: a shell script with `body`, in a fresh directory.
    #[cfg(unix)]
    fn script(name: &str, body: &str) -> (PathBuf, PathBuf) {
        use std::os::unix::fs::PermissionsExt;
        let dir =
            std::env::temp_dir().join(format!("doca-doctor-script-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("dpacc");
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        (dir, path)
    }

    #[cfg(unix)]
    #[test]
    fn running_fake_dpaccs() {
        let (dir, ok) = script(
            "ok",
            "echo 'dpacc: NVIDIA (R)'; echo 'dpacc version 1.12.0.26'; echo warning >&2",
        );
        let out = run_version(&ok, Duration::from_secs(20)).unwrap();
        assert!(out.contains("1.12.0.26") && out.contains("warning"));
        // On DOCA 3.3 this dpacc was seen with DOCA 3.1 (uncertain: a warning),
        // unless it is the install's own.
        let run = |prefix: Option<&Path>| {
            evaluate(
                Probe::Found {
                    path: ok.clone(),
                    source: "DPACC",
                    output: Ok(out.clone()),
                },
                "3.3.0001",
                prefix.map(|p| p.to_str().unwrap()),
            )
        };
        let (r, c) = run(None);
        assert_eq!(c.verdict, Verdict::Warn);
        assert_eq!(r.pairing, Some("uncertain"));
        assert_eq!(r.version.as_deref(), Some("1.12.0.26"));
        let prefix = dir.join("doca");
        std::fs::create_dir_all(prefix.join("tools")).unwrap();
        std::os::unix::fs::symlink(&ok, prefix.join("tools/dpacc")).unwrap();
        let (r, c) = run(Some(&prefix));
        assert_eq!(c.verdict, Verdict::Ok, "{c:?}");
        assert_eq!(r.pairing, Some("same-install"));
        let _ = std::fs::remove_dir_all(dir);

        let (dir, failing) = script("failing", "echo broken >&2; exit 3");
        let e = run_version(&failing, Duration::from_secs(20)).unwrap_err();
        assert!(e.contains("broken"), "{e}");
        let _ = std::fs::remove_dir_all(dir);

        let (dir, hanging) = script("hanging", "exec sleep 30");
        let start = Instant::now();
        let e = run_version(&hanging, Duration::from_millis(300)).unwrap_err();
        assert!(e.contains("did not finish"), "{e}");
        assert!(start.elapsed() < Duration::from_secs(20));
        let _ = std::fs::remove_dir_all(dir);
    }
}
