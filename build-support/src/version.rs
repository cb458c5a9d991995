//! DOCA version numbers: parsing (pkg-config strings, and `doca_version.h` through the
//! macros the C compiler defines for it), ordering, the minimum supported release and
//! the cumulative `doca_ge_X_Y` cfgs.

use std::fmt;
use std::path::Path;

use crate::env::EnvReader;

/// A DOCA release number such as `3.0.0058` (major 3, minor 0, patch 58).
///
/// Ordering is numeric, component by component. [`Display`](fmt::Display) zero-pads the
/// patch to four digits, as DOCA spells its versions (`3.0.0058`, `2.5.0108`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DocaVersion {
    /// Major number (`3` in `3.0.0058`).
    pub major: u32,
    /// Minor number (`0` in `3.0.0058`).
    pub minor: u32,
    /// Patch number (`58` in `3.0.0058`).
    pub patch: u32,
}

/// The oldest DOCA release with the modern DPA API shape (`doca_dpa_create(dev, &dpa)`,
/// `doca_dpa_set_app`, `doca_dpa_start`) that these bindings support.
pub const MINIMUM_SUPPORTED: DocaVersion = DocaVersion::new(2, 9, 0);

/// The known minor releases, oldest first. Each one gets a cumulative
/// `doca_ge_<major>_<minor>` cfg.
pub const KNOWN_RELEASES: &[(u32, u32)] = &[
    (2, 9),
    (2, 10),
    (3, 0),
    (3, 1),
    (3, 2),
    (3, 3),
    (3, 4),
    (3, 5),
];

/// A version string or header that could not be understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VersionError {
    /// The text is not `MAJOR.MINOR[.PATCH]` with decimal numbers.
    #[error("`{text}` is not a DOCA version (expected MAJOR.MINOR.PATCH, e.g. 3.0.0058)")]
    BadString {
        /// The text that was given.
        text: String,
    },
    /// The C compiler could not read a `doca_version.h`.
    #[error("the C compiler could not read {}: {message}", .path.display())]
    Compiler {
        /// The header.
        path: std::path::PathBuf,
        /// What went wrong (the compiler's message).
        message: String,
    },
    /// A `doca_version.h` without any recognised version macro.
    #[error(
        "no DOCA_VERSION_MAJOR/MINOR/PATCH, DOCA_VERSION_STRING, DOCA_VER_MAJOR/MINOR/PATCH \
         or DOCA_VER_STRING macro found in doca_version.h"
    )]
    NoVersionMacros,
}

impl DocaVersion {
    /// A version from its three numbers.
    pub const fn new(major: u32, minor: u32, patch: u32) -> Self {
        DocaVersion {
            major,
            minor,
            patch,
        }
    }

    /// Parses `3.0.0058`, `2.5.0108`, `3.3.0` or `3.3` (patch 0).
    ///
    /// Surrounding whitespace and quotes are ignored, and so is a suffix after `-` or `+`
    /// (`3.0.0058-1`), which packagers sometimes append.
    pub fn parse(text: &str) -> Result<Self, VersionError> {
        let core = text.trim().trim_matches('"').trim();
        let core = core.split(['-', '+']).next().unwrap_or_default();
        let digits = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
        let numbers: Option<Vec<u32>> = (core.split('.'))
            .map(|p| digits(p).then(|| p.parse().ok()).flatten())
            .collect();
        match numbers.as_deref() {
            Some(&[major, minor]) => Ok(DocaVersion::new(major, minor, 0)),
            Some(&[major, minor, patch]) => Ok(DocaVersion::new(major, minor, patch)),
            _ => Err(VersionError::BadString {
                text: text.to_owned(),
            }),
        }
    }

    /// Reads the version of the `doca_version.h` at `path`, from the macros the host C
    /// compiler defines for it (`cc -E -dM`): conditional definitions, comments and line
    /// continuations are the compiler's to read. See [`DocaVersion::from_version_header`].
    pub fn from_header_file(path: &Path) -> Result<Self, VersionError> {
        let failed = |message: String| VersionError::Compiler {
            path: path.to_owned(),
            message,
        };
        // The `cc` variables are declared to cargo where the build compiles for real
        // (the bindings check, the audit); this only asks what a header says.
        // The header includes its neighbours with `<…>` (doca_compat.h): its own
        // directory is an include directory, as it is for every DOCA compile.
        let dirs: Vec<std::path::PathBuf> = path.parent().map(Path::to_owned).into_iter().collect();
        let tool = crate::check::compiler(&EnvReader::from_process_deferred(), &dirs)
            .map_err(|e| failed(e.to_string()))?;
        let mut cmd = tool.to_command();
        let out = cmd.arg("-E").arg("-dM").arg(path).output();
        match out {
            Ok(out) if out.status.success() => {
                Self::from_version_header(&String::from_utf8_lossy(&out.stdout))
            }
            Ok(out) => Err(failed(String::from_utf8_lossy(&out.stderr).into_owned())),
            Err(e) => Err(failed(format!("{}: {e}", tool.path().display()))),
        }
    }

    /// Reads the version out of the `#define NAME VALUE` lines the C compiler prints for
    /// a `doca_version.h` (`cc -E -dM`, [`DocaVersion::from_header_file`]), in either
    /// spelling: `DOCA_VERSION_MAJOR/MINOR/PATCH` and `DOCA_VERSION_STRING` (DOCA 2.7 and
    /// later) or `DOCA_VER_*` (2.5 and older). The numeric MAJOR/MINOR/PATCH macros win; the
    /// STRING macro is used when they are incomplete.
    pub fn from_version_header(text: &str) -> Result<Self, VersionError> {
        for prefix in ["DOCA_VERSION_", "DOCA_VER_"] {
            let get = |suffix: &str| define_value(text, &format!("{prefix}{suffix}"));
            let num = |suffix: &str| get(suffix).and_then(|v| parse_c_integer(&v));
            if let (Some(ma), Some(mi), Some(pa)) = (num("MAJOR"), num("MINOR"), num("PATCH")) {
                return Ok(DocaVersion::new(ma, mi, pa));
            }
            if let Some(s) = get("STRING") {
                if let Ok(v) = DocaVersion::parse(&s) {
                    return Ok(v);
                }
            }
        }
        Err(VersionError::NoVersionMacros)
    }

    /// The `(major, minor)` pair.
    pub fn release(&self) -> (u32, u32) {
        (self.major, self.minor)
    }

    /// Whether this version is at least [`MINIMUM_SUPPORTED`].
    pub fn is_supported(&self) -> bool {
        *self >= MINIMUM_SUPPORTED
    }
}

impl fmt::Display for DocaVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{:04}", self.major, self.minor, self.patch)
    }
}

impl std::str::FromStr for DocaVersion {
    type Err = VersionError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        DocaVersion::parse(s)
    }
}

/// The cfg name for a release: `doca_ge_3_0`.
pub fn cfg_name(major: u32, minor: u32) -> String {
    format!("doca_ge_{major}_{minor}")
}

/// Every known-release cfg name (for `rustc-check-cfg`).
pub fn all_cfg_names() -> Vec<String> {
    KNOWN_RELEASES
        .iter()
        .map(|&(ma, mi)| cfg_name(ma, mi))
        .collect()
}

/// The cumulative cfgs for `v`: `doca_ge_X_Y` for every known release `X.Y <= v`.
///
/// A version newer than every known release gets all of them (see [`release_warning`]);
/// this is never an error.
pub fn cumulative_cfgs(v: DocaVersion) -> Vec<String> {
    KNOWN_RELEASES
        .iter()
        .filter(|&&r| r <= v.release())
        .map(|&(ma, mi)| cfg_name(ma, mi))
        .collect()
}

/// A warning for a release that is not in [`KNOWN_RELEASES`] (but is supported): the
/// bindings were never checked against it. `None` for known releases and for versions
/// below the minimum (those are refused elsewhere).
pub fn release_warning(v: DocaVersion) -> Option<String> {
    if !v.is_supported() || KNOWN_RELEASES.contains(&v.release()) {
        return None;
    }
    let newest = KNOWN_RELEASES.last().copied().unwrap_or((0, 0));
    if v.release() > newest {
        Some(format!(
            "DOCA {v} is newer than every release these bindings know ({}.{}); \
             enabling all version cfgs up to {}.{} — please report how it went",
            newest.0, newest.1, newest.0, newest.1
        ))
    } else {
        Some(format!(
            "DOCA {v} is not a release these bindings know; using the cfgs of the releases below it"
        ))
    }
}

/// The replacement text of the object-like macro `name` in `defines`, `#define NAME
/// VALUE` lines as the C compiler prints them (`cc -E -dM`, `-dD`).
pub(crate) fn define_value(defines: &str, name: &str) -> Option<String> {
    defines.lines().find_map(|line| {
        let value = line.strip_prefix("#define ")?.strip_prefix(name)?;
        value.strip_prefix(' ').map(|v| v.trim().to_owned())
    })
}

/// `58`, `(58)`, `58U`, `0x3a` → number.
fn parse_c_integer(value: &str) -> Option<u32> {
    let v = value
        .trim()
        .trim_start_matches('(')
        .trim_end_matches(')')
        .trim();
    let v = v.trim_end_matches(['u', 'U', 'l', 'L']);
    if let Some(hex) = v.strip_prefix("0x").or_else(|| v.strip_prefix("0X")) {
        u32::from_str_radix(hex, 16).ok()
    } else {
        v.parse().ok()
    }
}

#[cfg(test)]
mod tests;
