//! The DOCA release a sim build claims, and the copy of the sim's headers that says it.
//!
//! doca-sim models one DOCA surface, the newest ([`SIM_RELEASES`]'s last); a build may
//! make it claim an older release with `DOCA_SIM_VERSION=3.0` (or `3.1`, `3.2`, `3.3`).
//! doca-sim's build script ([`claimed_headers`]) then copies its reference headers into
//! `OUT_DIR` with the version lines set to the claim, and every consumer reads that copy:
//! the -sys crates' audit (a declaration newer than the claim is behind
//! `DOCA_VERSION_LTE_CURRENT` in the headers, so its function is absent and its wrapper
//! with it) and version cfgs, the kernels built for the sim, and the sim's own C and its
//! `doca_version_runtime()`. One value, read in one place, so the Rust cfgs, the C side
//! and the run-time answer cannot disagree.
//!
//! An unset or empty variable claims the newest release; any other value that is not a
//! modelled release is a build error that lists them (fail closed).

use std::path::{Path, PathBuf};

use crate::env::EnvReader;
use crate::version::DocaVersion;

/// The variable a sim build's claim is read from.
pub const SIM_VERSION_VAR: &str = "DOCA_SIM_VERSION";

/// The releases the sim can claim, oldest first; the last is the default. The patch
/// number is nominal (1), as in the committed `doca_version.h`.
pub const SIM_RELEASES: &[(u32, u32)] = &[(3, 0), (3, 1), (3, 2), (3, 3)];

/// The value of `DOCA_SIM_VERSION` is not a release the sim models.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{SIM_VERSION_VAR}={value:?} is not a DOCA release the software DPA models; use one of {} \
     (default, when unset: {})",
    list_releases(),
    default_release()
)]
pub struct BadClaim {
    /// The value found.
    pub value: String,
}

fn release_text((major, minor): (u32, u32)) -> String {
    format!("{major}.{minor}")
}

fn list_releases() -> String {
    SIM_RELEASES
        .iter()
        .map(|&r| release_text(r))
        .collect::<Vec<_>>()
        .join(", ")
}

fn default_release() -> String {
    SIM_RELEASES
        .last()
        .map_or_else(String::new, |&r| release_text(r))
}

/// The release `value` names (`3.0` … `3.3`; surrounding whitespace ignored; empty means
/// the newest). Anything else, `3.0.0058` included, is refused: a claim is a release, its
/// patch number is the sim's.
pub fn parse_claim(value: &str) -> Result<DocaVersion, BadClaim> {
    let text = value.trim();
    let release = if text.is_empty() {
        SIM_RELEASES.last().copied()
    } else {
        SIM_RELEASES
            .iter()
            .copied()
            .find(|&r| release_text(r) == text)
    };
    release
        .map(|(major, minor)| DocaVersion::new(major, minor, 1))
        .ok_or_else(|| BadClaim {
            value: value.to_owned(),
        })
}

/// The release this sim build claims, from `DOCA_SIM_VERSION` (declared to cargo by
/// `env`).
pub fn claim(env: &EnvReader) -> Result<DocaVersion, BadClaim> {
    parse_claim(&env.get(SIM_VERSION_VAR).unwrap_or_default())
}

/// What [`claimed_headers`] made.
#[derive(Debug, Clone)]
pub struct ClaimedHeaders {
    /// The host headers (`doca_version.h` says the claim).
    pub include: PathBuf,
    /// The device headers (`DOCA_SIM_DEV_RELEASE` defaults to the claim).
    pub device_include: PathBuf,
}

/// Copies the `*.h` of `include` and `device_include` into `out/include` and
/// `out/device-include`, with `doca_version.h`'s `DOCA_VERSION_MAJOR/MINOR/PATCH/STRING`
/// and `doca_dpa_dev.h`'s default `DOCA_SIM_DEV_RELEASE` set to `version`. Each of those
/// lines must be found exactly once (a header that no longer has them is an error, not a
/// copy that silently claims the committed release).
pub fn claimed_headers(
    include: &Path,
    device_include: &Path,
    out: &Path,
    version: DocaVersion,
) -> Result<ClaimedHeaders, String> {
    let string = version.to_string();
    let host = [
        ("#define DOCA_VERSION_MAJOR ", version.major.to_string()),
        ("#define DOCA_VERSION_MINOR ", version.minor.to_string()),
        ("#define DOCA_VERSION_PATCH ", version.patch.to_string()),
        ("#define DOCA_VERSION_STRING ", format!("{string:?}")),
    ];
    let device = [(
        "#define DOCA_SIM_DEV_RELEASE ",
        (version.major * 100 + version.minor).to_string(),
    )];
    let made = ClaimedHeaders {
        include: out.join("include"),
        device_include: out.join("device-include"),
    };
    copy_headers(include, &made.include, ("doca_version.h", &host))?;
    copy_headers(
        device_include,
        &made.device_include,
        ("doca_dpa_dev.h", &device),
    )?;
    Ok(made)
}

/// Copies every `*.h` of `from` into `to` (made afresh), setting in the file named
/// `edit.0` each line that starts with a prefix of `edit.1` to that prefix and its value.
fn copy_headers(from: &Path, to: &Path, edit: (&str, &[(&str, String)])) -> Result<(), String> {
    let failed = |path: &Path, e: std::io::Error| format!("{}: {e}", path.display());
    if to.exists() {
        std::fs::remove_dir_all(to).map_err(|e| failed(to, e))?;
    }
    std::fs::create_dir_all(to).map_err(|e| failed(to, e))?;
    let mut edited = false;
    for path in crate::files_in(from, "h").map_err(|e| failed(from, e))? {
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        let mut text = std::fs::read_to_string(&path).map_err(|e| failed(&path, e))?;
        if name == edit.0 {
            text = set_lines(&text, edit.1).map_err(|e| format!("{}: {e}", path.display()))?;
            edited = true;
        }
        let dest = to.join(name);
        std::fs::write(&dest, text).map_err(|e| failed(&dest, e))?;
    }
    if edited {
        Ok(())
    } else {
        Err(format!("{} has no {}", from.display(), edit.0))
    }
}

/// `text` with the one line starting with each prefix replaced by the prefix and value.
fn set_lines(text: &str, lines: &[(&str, String)]) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut found = vec![0usize; lines.len()];
    for line in text.split_inclusive('\n') {
        match lines
            .iter()
            .position(|(prefix, _)| line.starts_with(prefix))
        {
            Some(i) => {
                found[i] += 1;
                out.push_str(lines[i].0);
                out.push_str(&lines[i].1);
                out.push('\n');
            }
            None => out.push_str(line),
        }
    }
    match found.iter().position(|&n| n != 1) {
        Some(i) => Err(format!(
            "expected one line starting with `{}`, found {}",
            lines[i].0.trim_end(),
            found[i]
        )),
        None => Ok(out),
    }
}

#[cfg(test)]
mod tests;
