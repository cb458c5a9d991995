//! The dpacc command line, per DOCA release, built as data ([`dpacc_command`]), the
//! reading of `dpacc --version` ([`parse_dpacc_version`]) and how a dpacc pairs with a
//! DOCA release ([`pair_dpacc`]).
//!
//! | DOCA | `-mcpu` | device libraries | `--dpa-proc-attr` |
//! |---|---|---|---|
//! | 2.9 | `nv-dpa-bf3` | `-ldoca_dpa_dev_comm` | no |
//! | 2.10 – 3.1 | `nv-dpa-bf3,nv-dpa-cx7,nv-dpa-cx8` | `-ldoca_dpa_dev -ldoca_dpa_dev_comm` | no |
//! | 3.2 and later | the above and `nv-dpa-cx9` | the above and `-ldoca_dpa_dev_verbs` | yes |

use std::borrow::Borrow;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use crate::version::DocaVersion;

/// The release from which dpacc takes `--dpa-proc-attr` (and the samples require it).
pub const PROC_ATTR_SINCE: (u32, u32) = (3, 2);

/// The `-mcpu` list for a DOCA release: every DPA generation that release targets.
pub fn mcpu_list(doca: DocaVersion) -> &'static str {
    match doca.release() {
        r if r < (2, 10) => "nv-dpa-bf3",
        r if r < (3, 2) => "nv-dpa-bf3,nv-dpa-cx7,nv-dpa-cx8",
        _ => "nv-dpa-bf3,nv-dpa-cx7,nv-dpa-cx8,nv-dpa-cx9",
    }
}

/// The DOCA device libraries a DPA application links, for a DOCA release.
pub fn device_libs(doca: DocaVersion) -> &'static [&'static str] {
    match doca.release() {
        r if r < (2, 10) => &["-ldoca_dpa_dev_comm"],
        r if r < (3, 2) => &["-ldoca_dpa_dev", "-ldoca_dpa_dev_comm"],
        _ => &[
            "-ldoca_dpa_dev",
            "-ldoca_dpa_dev_comm",
            "-ldoca_dpa_dev_verbs",
        ],
    }
}

/// Whether dpacc takes `--dpa-proc-attr` for this DOCA release.
pub fn takes_proc_attr(doca: DocaVersion) -> bool {
    doca.release() >= PROC_ATTR_SINCE
}

/// Host compiler options dpacc always gets: position-independent code (Rust links PIE
/// executables), no deprecation noise, and the experimental DOCA/FlexIO APIs allowed.
pub const HOST_OPTIONS: &[&str] = &[
    "-fPIC",
    "-Wno-deprecated-declarations",
    "-DDOCA_ALLOW_EXPERIMENTAL_API",
    "-DFLEXIO_ALLOW_EXPERIMENTAL_API",
];

/// Device compiler options dpacc always gets (before the user's defines and includes).
pub const DEVICE_OPTIONS: &[&str] = &[
    "-DDOCA_ALLOW_EXPERIMENTAL_API",
    "-DFLEXIO_DEV_ALLOW_EXPERIMENTAL_API",
    "-O2",
];

/// What goes into a dpacc command line. Start from [`Default`] and set the fields.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct DpaccOptions {
    /// `--app-name`.
    pub app_name: String,
    /// The DPA C sources.
    pub sources: Vec<PathBuf>,
    /// The archive to write (`-o`), `lib<name>.a`.
    pub output: PathBuf,
    /// `-hostcc`: the host C compiler (link-compatible with the one that links the
    /// program).
    pub host_cc: OsString,
    /// DOCA's include directories (`-I` each).
    pub doca_include_dirs: Vec<PathBuf>,
    /// doca-dpa's library directories, where the device libraries are (`-L` each, in
    /// `-device-libs`).
    pub dpa_lib_dirs: Vec<PathBuf>,
    /// The user's include directories (device options and top-level `-I`).
    pub include_dirs: Vec<PathBuf>,
    /// The user's defines (device options).
    pub defines: Vec<(String, Option<String>)>,
    /// The process-attributes blob (`--dpa-proc-attr`, DOCA 3.2 and later).
    pub proc_attr_blob: Option<PathBuf>,
}

/// `prefix` and `value` as one argument (a path stays as the system gives it).
fn arg(prefix: &str, value: impl AsRef<OsStr>) -> OsString {
    let mut a = OsString::from(prefix);
    a.push(value);
    a
}

/// `prefix` and `parts`, separated by spaces, as one argument.
fn joined<S: Borrow<str>>(prefix: &str, parts: impl IntoIterator<Item = S>) -> OsString {
    arg(prefix, parts.into_iter().collect::<Vec<S>>().join(" "))
}

/// The arguments of dpacc (without the program) for DOCA release `doca`:
///
/// ```text
/// SOURCES… -o OUTPUT -mcpu=LIST -hostcc=CC
/// -hostcc-options=-fPIC -Wno-deprecated-declarations -DDOCA_ALLOW_EXPERIMENTAL_API …
/// --devicecc-options=-DDOCA_ALLOW_EXPERIMENTAL_API -DFLEXIO_DEV_ALLOW_EXPERIMENTAL_API -O2 [-DX] [-IDIR]
/// --app-name=NAME [-IUSER_DIR]… -IDOCA_DIR… -device-libs=-LLIBDIR… -l…
/// [--dpa-proc-attr=BLOB]   (3.2 and later, when a blob is given)
/// ```
///
/// Each element is one argument: option strings that hold several options are single
/// arguments with spaces inside, as dpacc expects; no shell is involved.
pub fn dpacc_command(doca: DocaVersion, opts: &DpaccOptions) -> Vec<OsString> {
    let user_defines = opts.defines.iter().map(|(k, v)| match v {
        Some(v) => format!("-D{k}={v}"),
        None => format!("-D{k}"),
    });
    let user_includes = (opts.include_dirs.iter()).map(|d| format!("-I{}", d.display()));
    let device_options = (DEVICE_OPTIONS.iter().map(|s| s.to_string()))
        .chain(user_defines)
        .chain(user_includes);
    let lib_dirs = (opts.dpa_lib_dirs.iter()).map(|d| format!("-L{}", d.display()));
    let libs = lib_dirs.chain(device_libs(doca).iter().map(|s| s.to_string()));
    let mut args: Vec<OsString> = opts.sources.iter().map(|s| s.into()).collect();
    args.extend([
        "-o".into(),
        opts.output.clone().into(),
        format!("-mcpu={}", mcpu_list(doca)).into(),
        arg("-hostcc=", &opts.host_cc),
        joined("-hostcc-options=", HOST_OPTIONS.iter().copied()),
        joined("--devicecc-options=", device_options),
        format!("--app-name={}", opts.app_name).into(),
    ]);
    let includes = opts.include_dirs.iter().chain(&opts.doca_include_dirs);
    args.extend(includes.map(|d| arg("-I", d)));
    args.push(joined("-device-libs=", libs));
    if let (true, Some(blob)) = (takes_proc_attr(doca), &opts.proc_attr_blob) {
        args.push(arg("--dpa-proc-attr=", blob));
    }
    args
}

/// dpacc's own release number, as `dpacc --version` prints it: dpacc numbers its releases
/// independently of DOCA (a DOCA 3.1 install's dpacc is `1.12.0.26`), so this is never
/// compared with a DOCA version by arithmetic; see [`pair_dpacc`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DpaccVersion {
    /// The number as printed (`1.12.0.26`).
    pub text: String,
    /// Its dot-separated parts (`[1, 12, 0, 26]`), two to four of them.
    pub parts: Vec<u32>,
}

impl std::fmt::Display for DpaccVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// The most parts a dpacc version number has (`1.12.0.26`).
const MAX_VERSION_PARTS: usize = 4;

/// The first dotted number (two to [`MAX_VERSION_PARTS`] parts) of `line`. Numbers
/// glued to letters or other numbers (`v2`, `x86_64`) are not version numbers.
fn first_dotted_number(line: &str) -> Option<DpaccVersion> {
    // A number starts only after a character that is neither alphanumeric nor a dot.
    for word in line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '.')) {
        let (mut parts, mut len) = (Vec::new(), 0);
        for piece in word.split('.').take(MAX_VERSION_PARTS) {
            let digits = piece.len() - piece.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            let Ok(n) = piece[..digits].parse::<u32>() else {
                break;
            };
            len += digits + usize::from(!parts.is_empty());
            parts.push(n);
            if digits < piece.len() {
                break;
            }
        }
        if parts.len() >= 2 {
            let text = word[..len].to_owned();
            return Some(DpaccVersion { text, parts });
        }
    }
    None
}

/// dpacc's version in `output` (the text of `dpacc --version`). A real dpacc prints a
/// banner line, a copyright line and `dpacc version 1.12.0.26`; the number on a line
/// that says `version` wins, else the first dotted number of any other line. `None`
/// when there is no version number at all.
pub fn parse_dpacc_version(output: &str) -> Option<DpaccVersion> {
    let says_version = |l: &&str| l.to_ascii_lowercase().contains("version");
    output
        .lines()
        .filter(says_version)
        .find_map(first_dotted_number)
        .or_else(|| output.lines().find_map(first_dotted_number))
}

/// A dpacc seen with a DOCA release, with where that comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownPairing {
    /// The DOCA release (major, minor).
    pub release: (u32, u32),
    /// The dpacc's own version (`1.12.0.26`).
    pub dpacc: &'static str,
    /// The evidence, as the warnings and the doctor quote it.
    pub evidence: &'static str,
    /// Whether the evidence is firm enough to refuse this dpacc for another release.
    /// One uncertain source is not: the pairing then only warns.
    pub certain: bool,
}

/// dpacc releases seen with a DOCA release. Only one is known, from one uncertain
/// source (`shared/facts`: `dpacc version 1.12.0.26` on an install described only as
/// "DOCA 3.1+"), so it confirms that pairing but refuses nothing; every pairing not
/// listed is unknown rather than guessed from the numbers.
pub const KNOWN_DPACC_PAIRINGS: &[KnownPairing] = &[KnownPairing {
    release: (3, 1),
    dpacc: "1.12.0.26",
    evidence: "one report of `dpacc version 1.12.0.26` on an install described only as \
               \"DOCA 3.1+\"",
    certain: false,
}];

/// How a dpacc relates to the DOCA it would build kernels for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DpaccPairing {
    /// The dpacc is the one in the DOCA install's own `tools/` directory: they were
    /// installed together, whatever the numbers say.
    SameInstall,
    /// [`KNOWN_DPACC_PAIRINGS`] lists this dpacc for this DOCA release.
    Known,
    /// Nothing known either way: build, with a warning.
    Unknown {
        /// The dpacc that the table lists for this DOCA release, if any.
        doca_ships: Option<&'static str>,
    },
    /// [`KNOWN_DPACC_PAIRINGS`] lists this dpacc for another DOCA release, on evidence
    /// that is not certain: build, with a warning that quotes it.
    Uncertain {
        /// The DOCA release (major, minor) this dpacc was seen with.
        dpacc_seen_with: (u32, u32),
        /// [`KnownPairing::evidence`].
        evidence: &'static str,
    },
    /// [`KNOWN_DPACC_PAIRINGS`] lists this dpacc, for certain, for another DOCA
    /// release: refused.
    Mismatch {
        /// The DOCA release (major, minor) that this dpacc belongs to.
        dpacc_belongs_to: (u32, u32),
    },
}

impl DpaccPairing {
    /// `"same-install"`, `"known"`, `"unknown"`, `"uncertain"` or `"mismatch"`
    /// (doca-doctor's JSON).
    pub fn as_str(self) -> &'static str {
        match self {
            DpaccPairing::SameInstall => "same-install",
            DpaccPairing::Known => "known",
            DpaccPairing::Unknown { .. } => "unknown",
            DpaccPairing::Uncertain { .. } => "uncertain",
            DpaccPairing::Mismatch { .. } => "mismatch",
        }
    }
}

/// How `dpacc` pairs with DOCA `doca`. `same_install` ([`is_dpacc_of_prefix`]) is
/// better evidence than the table, so it decides first: the install's own dpacc is
/// always accepted. Only a dpacc that the table gives, for certain, to another DOCA
/// release is a mismatch; one it gives to another release on uncertain evidence is
/// [`DpaccPairing::Uncertain`]. A DOCA release may well accept a dpacc other than the
/// one it shipped with (the DOCA Compatibility Policy says which), so an unlisted
/// pairing is unknown, not wrong.
pub fn pair_dpacc(doca: DocaVersion, dpacc: &DpaccVersion, same_install: bool) -> DpaccPairing {
    pair_dpacc_in(KNOWN_DPACC_PAIRINGS, doca, dpacc, same_install)
}

/// [`pair_dpacc`] with the table `known`.
pub fn pair_dpacc_in(
    known: &[KnownPairing],
    doca: DocaVersion,
    dpacc: &DpaccVersion,
    same_install: bool,
) -> DpaccPairing {
    if same_install {
        return DpaccPairing::SameInstall;
    }
    let same_number =
        |listed: &str| parse_dpacc_version(listed).is_some_and(|v| v.parts == dpacc.parts);
    match known.iter().find(|k| same_number(k.dpacc)) {
        None => DpaccPairing::Unknown {
            doca_ships: known
                .iter()
                .find(|k| k.release == doca.release())
                .map(|k| k.dpacc),
        },
        Some(row) if row.release == doca.release() => DpaccPairing::Known,
        Some(row) if row.certain => DpaccPairing::Mismatch {
            dpacc_belongs_to: row.release,
        },
        Some(row) => DpaccPairing::Uncertain {
            dpacc_seen_with: row.release,
            evidence: row.evidence,
        },
    }
}

/// The dpacc that a DOCA install under `prefix` ships: `PREFIX/tools/dpacc`.
pub fn prefix_dpacc(prefix: &Path) -> PathBuf {
    prefix.join("tools").join("dpacc")
}

/// Whether `dpacc` is [`prefix_dpacc`] of `prefix`, through any symbolic links (a
/// `dpacc` on `PATH` is often a link into the install).
pub fn is_dpacc_of_prefix(dpacc: &Path, prefix: &Path) -> bool {
    let own = std::fs::canonicalize(prefix_dpacc(prefix));
    std::fs::canonicalize(dpacc).is_ok_and(|a| own.is_ok_and(|b| a == b))
}

#[cfg(test)]
mod tests;
