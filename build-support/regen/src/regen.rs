//! Regenerating the committed bindings (`doca-dpa-sys/bundled/dpa.rs`,
//! `doca-rdmi-sys/bundled/rdmi.rs`, `doca-rdma-sys/bundled/rdma.rs`,
//! `doca-comch-sys/bundled/comch.rs`) and their check
//! files from the reference headers (`doca-sim/include`), with the same configuration as
//! hardware builds ([`doca_build_support::bindgen_config`]). Used by
//! `cargo regen-bindings` and by the freshness test.

use std::fmt;
use std::path::{Path, PathBuf};

use doca_build_support::bindgen_config::{self, BindgenOptions, BindingSet};

/// The file names written in the output directory.
pub const DPA_FILE: &str = BindingSet::Dpa.committed_file();
/// See [`DPA_FILE`].
pub const RDMI_FILE: &str = BindingSet::Rdmi.committed_file();
/// See [`DPA_FILE`].
pub const RDMA_FILE: &str = BindingSet::Rdma.committed_file();

/// The workspace root: two levels above this package's manifest directory
/// (`build-support/regen`; `CARGO_MANIFEST_DIR` at run time when cargo sets it, else the
/// one this package was compiled in).
pub fn workspace_root() -> PathBuf {
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    manifest
        .ancestors()
        .nth(2)
        .map(Path::to_owned)
        .unwrap_or(manifest)
}

/// `<root>/doca-sim/include`.
pub fn default_headers_dir() -> PathBuf {
    workspace_root().join("doca-sim").join("include")
}

/// `set`'s -sys crate in the workspace: `<root>/doca-dpa-sys`, `<root>/doca-rdmi-sys`,
/// `<root>/doca-rdma-sys`.
pub fn default_sys_dir(set: BindingSet) -> PathBuf {
    workspace_root().join(set.sys_crate_dir())
}

/// Where `set`'s committed bindings are in the workspace: `<root>/doca-dpa-sys/bundled/dpa.rs`,
/// `<root>/doca-rdmi-sys/bundled/rdmi.rs`, `<root>/doca-rdma-sys/bundled/rdma.rs`
/// ([`BindingSet::committed_path`]).
pub fn default_committed_path(set: BindingSet) -> PathBuf {
    set.committed_path(&default_sys_dir(set))
}

/// Every committed file, `(path, text)`: each set's bindings and its check file
/// ([`doca_build_support::check`]), in its -sys crate's bundled directory
/// ([`BindingSet::committed_path`], [`BindingSet::check_path`]), or all in `out` when
/// given (so a `--out` elsewhere writes nothing in the workspace).
pub fn committed_files(
    include_dir: &Path,
    out: Option<&Path>,
) -> Result<Vec<(PathBuf, String)>, RegenError> {
    let mut files = Vec::new();
    for (set, text) in generate_all(include_dir).map_err(RegenError::Generate)? {
        let check = crate::check_gen::render(set, &text, &[include_dir.to_owned()])
            .map_err(|e| RegenError::Check(e.to_string()))?;
        let (bindings_path, check_path) = match out {
            Some(dir) => (dir.join(set.committed_file()), dir.join(set.check_file())),
            None => (
                default_committed_path(set),
                set.check_path(&default_sys_dir(set)),
            ),
        };
        files.push((bindings_path, text));
        files.push((check_path, check));
    }
    Ok(files)
}

/// The committed-copy text of every set, in [`BindingSet::ALL`]'s order.
pub fn generate_all(
    include_dir: &Path,
) -> Result<Vec<(BindingSet, String)>, bindgen_config::Error> {
    let dirs = [include_dir.to_owned()];
    BindingSet::ALL
        .into_iter()
        .map(|set| {
            bindgen_config::generate(set, &dirs, &BindgenOptions::for_committed(set))
                .map(|text| (set, text))
        })
        .collect()
}

/// Command-line arguments of `doca-regen-bindings`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Args {
    /// `--check`: compare, write nothing, fail when different.
    pub check: bool,
    /// `--headers DIR` (default [`default_headers_dir`]).
    pub headers: Option<PathBuf>,
    /// `--out DIR`: every file in DIR (default: each set's in its -sys crate,
    /// [`default_sys_dir`]).
    pub out: Option<PathBuf>,
}

/// The usage text.
pub const USAGE: &str = "usage: doca-regen-bindings [--check] [--headers DIR] [--out DIR]\n\
  Regenerates dpa.rs, verbs.rs, rdmi.rs, rdma.rs and comch.rs and their check files\n\
  (default: the bundled directory of each set's -sys crate, doca-dpa-sys/bundled…)\n\
  from the reference headers (default: doca-sim/include).\n\
  --check compares instead of writing and fails on a difference.";

impl Args {
    /// Parses the arguments (without the program name).
    pub fn parse<I: IntoIterator<Item = String>>(args: I) -> Result<Args, String> {
        let mut out = Args::default();
        let mut it = args.into_iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "--check" => out.check = true,
                "--headers" => {
                    out.headers = Some(it.next().ok_or("--headers needs a directory")?.into())
                }
                "--out" => out.out = Some(it.next().ok_or("--out needs a directory")?.into()),
                "-h" | "--help" => return Err(USAGE.to_owned()),
                other => {
                    if let Some(v) = other.strip_prefix("--headers=") {
                        out.headers = Some(v.into());
                    } else if let Some(v) = other.strip_prefix("--out=") {
                        out.out = Some(v.into());
                    } else {
                        return Err(format!("unknown argument `{other}`\n{USAGE}"));
                    }
                }
            }
        }
        Ok(out)
    }
}

/// Why regeneration failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum RegenError {
    /// Generation failed.
    Generate(bindgen_config::Error),
    /// The check file could not be made.
    Check(String),
    /// A file could not be written.
    Io {
        /// The path.
        path: PathBuf,
        /// The message.
        message: String,
    },
}

impl fmt::Display for RegenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegenError::Generate(e) => write!(f, "{e}"),
            RegenError::Check(m) => write!(f, "the check file: {m}"),
            RegenError::Io { path, message } => write!(f, "{}: {message}", path.display()),
        }
    }
}

// The message of the wrapped error is part of this one's Display too (a build
// script prints Display alone); source() gives it to code that walks the chain.
impl std::error::Error for RegenError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RegenError::Generate(e) => Some(e),
            RegenError::Check(_) | RegenError::Io { .. } => None,
        }
    }
}

/// One output file's state after [`run`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileOutcome {
    /// The file.
    pub path: PathBuf,
    /// `None` when identical to the fresh text (or written); otherwise a short summary
    /// of the difference (with `--check`).
    pub difference: Option<String>,
}

/// Regenerates (or, with `check`, compares) every file.
pub fn run(args: &Args) -> Result<Vec<FileOutcome>, RegenError> {
    let headers = args.headers.clone().unwrap_or_else(default_headers_dir);
    let files = committed_files(&headers, args.out.as_deref())?;
    let mut outcomes = Vec::new();
    for (path, text) in files {
        if args.check {
            let old = std::fs::read_to_string(&path).ok();
            let difference = match &old {
                None => Some("missing (run `cargo regen-bindings`)".to_owned()),
                Some(old) if *old == text => None,
                Some(old) => Some(diff_summary(old, &text)),
            };
            outcomes.push(FileOutcome { path, difference });
        } else {
            let dir = path.parent().map(Path::to_owned).unwrap_or_default();
            std::fs::create_dir_all(&dir).map_err(|e| RegenError::Io {
                path: dir.clone(),
                message: e.to_string(),
            })?;
            std::fs::write(&path, &text).map_err(|e| RegenError::Io {
                path: path.clone(),
                message: e.to_string(),
            })?;
            outcomes.push(FileOutcome {
                path,
                difference: None,
            });
        }
    }
    Ok(outcomes)
}

/// A short summary of how `new` differs from `old`: line counts, the number of differing
/// lines, and the first difference.
pub fn diff_summary(old: &str, new: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let differing = (0..a.len().max(b.len()))
        .filter(|&i| a.get(i) != b.get(i))
        .count();
    let first = (0..a.len().max(b.len())).find(|&i| a.get(i) != b.get(i));
    let mut s = format!(
        "committed {} lines, fresh {} lines, {differing} differ by position",
        a.len(),
        b.len()
    );
    if let Some(i) = first {
        s.push_str(&format!(
            "; first at line {}:\n  committed: {}\n  fresh:     {}",
            i + 1,
            a.get(i).copied().unwrap_or("<end of file>"),
            b.get(i).copied().unwrap_or("<end of file>")
        ));
    }
    s
}

#[cfg(test)]
mod tests;
