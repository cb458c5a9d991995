//! DOCA version numbers: parsing (pkg-config strings and `doca_version.h`), ordering,
//! the minimum supported release and the cumulative `doca_ge_X_Y` cfgs.

use std::fmt;

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
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum VersionError {
    /// The text is not `MAJOR.MINOR[.PATCH]` with decimal numbers.
    BadString {
        /// The text that was given.
        text: String,
    },
    /// A `doca_version.h` without any recognised version macro.
    NoVersionMacros,
}

impl fmt::Display for VersionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            VersionError::BadString { text } => write!(
                f,
                "`{text}` is not a DOCA version (expected MAJOR.MINOR.PATCH, e.g. 3.0.0058)"
            ),
            VersionError::NoVersionMacros => f.write_str(
                "no DOCA_VERSION_MAJOR/MINOR/PATCH, DOCA_VERSION_STRING, DOCA_VER_MAJOR/MINOR/PATCH \
                 or DOCA_VER_STRING macro found in doca_version.h",
            ),
        }
    }
}

impl std::error::Error for VersionError {}

/// Which macro family a `doca_version.h` uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderSpelling {
    /// `DOCA_VER_MAJOR/MINOR/PATCH`, `DOCA_VER_STRING` (DOCA 2.5 and older).
    Legacy,
    /// `DOCA_VERSION_MAJOR/MINOR/PATCH`, `DOCA_VERSION_STRING` (DOCA 2.7 and later).
    Modern,
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
        let bad = || VersionError::BadString {
            text: text.to_owned(),
        };
        let core = text.trim().trim_matches('"').trim();
        let core = core.split(['-', '+']).next().unwrap_or_default();
        let mut parts = core.split('.');
        let mut number = |required: bool| -> Result<Option<u32>, VersionError> {
            match parts.next() {
                None if !required => Ok(None),
                None => Err(bad()),
                Some(p) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => {
                    p.parse::<u32>().map(Some).map_err(|_| bad())
                }
                Some(_) => Err(bad()),
            }
        };
        let major = number(true)?.ok_or_else(bad)?;
        let minor = number(true)?.ok_or_else(bad)?;
        let patch = number(false)?.unwrap_or(0);
        if parts.next().is_some() {
            return Err(bad());
        }
        Ok(DocaVersion::new(major, minor, patch))
    }

    /// Reads the version out of the text of a `doca_version.h`, in either spelling
    /// (see [`HeaderSpelling`]). The numeric MAJOR/MINOR/PATCH macros win; the STRING
    /// macro is used when they are incomplete.
    pub fn from_version_header(text: &str) -> Result<(Self, HeaderSpelling), VersionError> {
        for (prefix, spelling) in [
            ("DOCA_VERSION_", HeaderSpelling::Modern),
            ("DOCA_VER_", HeaderSpelling::Legacy),
        ] {
            let get = |suffix: &str| define_value(text, &format!("{prefix}{suffix}"));
            let num = |suffix: &str| get(suffix).and_then(|v| parse_c_integer(&v));
            if let (Some(ma), Some(mi), Some(pa)) = (num("MAJOR"), num("MINOR"), num("PATCH")) {
                return Ok((DocaVersion::new(ma, mi, pa), spelling));
            }
            if let Some(s) = get("STRING") {
                if let Ok(v) = DocaVersion::parse(&s) {
                    return Ok((v, spelling));
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

/// The replacement text of `#define NAME value` in `text`, if present (first match).
/// Comments after the value are dropped.
pub(crate) fn define_value(text: &str, name: &str) -> Option<String> {
    for line in text.lines() {
        let line = line.trim_start();
        let Some(rest) = line.strip_prefix('#') else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix("define") else {
            continue;
        };
        if !rest.starts_with([' ', '\t']) {
            continue;
        }
        let rest = rest.trim_start();
        let Some(after) = rest.strip_prefix(name) else {
            continue;
        };
        // The name must end here (not DOCA_VERSION_MAJOR_X) and not be function-like.
        if !(after.is_empty() || after.starts_with([' ', '\t'])) {
            continue;
        }
        let mut value = after.trim();
        for marker in ["//", "/*"] {
            if let Some(i) = value.find(marker) {
                value = value[..i].trim_end();
            }
        }
        return Some(value.to_owned());
    }
    None
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
mod tests {
    use super::*;

    #[test]
    fn parses_pkg_config_strings() {
        assert_eq!(
            DocaVersion::parse("3.0.0058").unwrap(),
            DocaVersion::new(3, 0, 58)
        );
        assert_eq!(
            DocaVersion::parse("2.5.0108").unwrap(),
            DocaVersion::new(2, 5, 108)
        );
        assert_eq!(
            DocaVersion::parse("3.3.0").unwrap(),
            DocaVersion::new(3, 3, 0)
        );
        assert_eq!(
            DocaVersion::parse("2.10.0078").unwrap(),
            DocaVersion::new(2, 10, 78)
        );
        assert_eq!(
            DocaVersion::parse(" 3.2 ").unwrap(),
            DocaVersion::new(3, 2, 0)
        );
        assert_eq!(
            DocaVersion::parse("3.0.0058-1").unwrap(),
            DocaVersion::new(3, 0, 58)
        );
        assert_eq!(
            DocaVersion::parse("\"3.1.0105\"").unwrap(),
            DocaVersion::new(3, 1, 105)
        );
    }

    #[test]
    fn rejects_garbage() {
        for bad in [
            "",
            "3",
            "x.y.z",
            "3..1",
            "3.0.0058.1",
            "3.a",
            "-1.0",
            "99999999999.0",
        ] {
            assert!(DocaVersion::parse(bad).is_err(), "{bad:?} accepted");
        }
        let e = DocaVersion::parse("banana").unwrap_err();
        assert!(e.to_string().contains("banana"));
    }

    #[test]
    fn display_pads_patch() {
        assert_eq!(DocaVersion::new(3, 0, 58).to_string(), "3.0.0058");
        assert_eq!(DocaVersion::new(2, 5, 108).to_string(), "2.5.0108");
        assert_eq!(DocaVersion::new(3, 3, 0).to_string(), "3.3.0000");
        assert_eq!(DocaVersion::new(3, 2, 11025).to_string(), "3.2.11025");
    }

    #[test]
    fn ordering_is_numeric() {
        let v = |s| DocaVersion::parse(s).unwrap();
        assert!(v("2.10.0078") > v("2.9.0072"));
        assert!(v("3.0.0058") > v("2.10.0087"));
        assert!(v("3.0.0058") < v("3.0.0059"));
        assert!(v("2.9.0") >= MINIMUM_SUPPORTED);
        assert!(!v("2.5.0108").is_supported());
    }

    #[test]
    fn header_modern_spelling() {
        let text = include_str!("../tests/fixtures/headers/doca_version_3_0.h");
        let (v, s) = DocaVersion::from_version_header(text).unwrap();
        assert_eq!(v, DocaVersion::new(3, 0, 58));
        assert_eq!(s, HeaderSpelling::Modern);
    }

    #[test]
    fn header_legacy_spelling() {
        let text = include_str!("../tests/fixtures/prefix-2.5/include/doca_version.h");
        let (v, s) = DocaVersion::from_version_header(text).unwrap();
        assert_eq!(v, DocaVersion::new(2, 5, 108));
        assert_eq!(s, HeaderSpelling::Legacy);
    }

    #[test]
    fn header_string_only() {
        let text = "#define DOCA_VERSION_STRING \"3.2.0118\" /* release */\n";
        let (v, s) = DocaVersion::from_version_header(text).unwrap();
        assert_eq!(v, DocaVersion::new(3, 2, 118));
        assert_eq!(s, HeaderSpelling::Modern);
        let text = "#  define DOCA_VER_STRING \"2.5.0108\"\n";
        assert_eq!(
            DocaVersion::from_version_header(text).unwrap(),
            (DocaVersion::new(2, 5, 108), HeaderSpelling::Legacy)
        );
    }

    #[test]
    fn header_parenthesised_and_suffixed() {
        let text = "#define DOCA_VERSION_MAJOR (3)\n#define DOCA_VERSION_MINOR 1U\n\
                    #define DOCA_VERSION_PATCH 0x69 // hex\n#define DOCA_VERSION_MAJOR_X 9\n";
        assert_eq!(
            DocaVersion::from_version_header(text).unwrap().0,
            DocaVersion::new(3, 1, 105)
        );
    }

    #[test]
    fn header_without_macros() {
        assert_eq!(
            DocaVersion::from_version_header("int x;\n#define DOCA_VERSION_MAJORITY 3\n"),
            Err(VersionError::NoVersionMacros)
        );
    }

    #[test]
    fn cumulative_cfgs_cover_known_releases() {
        assert_eq!(
            cumulative_cfgs(DocaVersion::new(3, 0, 58)),
            vec!["doca_ge_2_9", "doca_ge_2_10", "doca_ge_3_0"]
        );
        assert_eq!(
            cumulative_cfgs(DocaVersion::new(2, 9, 72)),
            vec!["doca_ge_2_9"]
        );
        assert!(cumulative_cfgs(DocaVersion::new(2, 5, 108)).is_empty());
        assert_eq!(release_warning(DocaVersion::new(3, 0, 58)), None);
        assert_eq!(release_warning(DocaVersion::new(2, 5, 108)), None);
    }

    #[test]
    fn newer_unknown_release_gets_everything_and_a_warning() {
        let v = DocaVersion::new(4, 1, 0);
        assert_eq!(cumulative_cfgs(v), all_cfg_names());
        assert_eq!(all_cfg_names().len(), KNOWN_RELEASES.len());
        let w = release_warning(v).unwrap();
        assert!(w.contains("4.1.0000") && w.contains("newer"));
        assert!(release_warning(DocaVersion::new(2, 11, 0)).is_some());
    }
}
