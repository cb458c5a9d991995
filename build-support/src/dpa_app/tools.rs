//! Finding and running the DOCA tools: `dpacc` and `dpa-app-attributes2blob`, and the
//! check of how dpacc pairs with the installed DOCA release.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use super::dpacc::{
    is_dpacc_of_prefix, pair_dpacc, parse_dpacc_version, prefix_dpacc, DpaccPairing,
};
use super::error::DpaAppError;
use crate::env::EnvReader;
use crate::version::DocaVersion;

/// Where DOCA installs dpacc.
pub const DEFAULT_DPACC: &str = "/opt/mellanox/doca/tools/dpacc";
/// Where DOCA installs the process-attributes tool (DOCA 3.2 and later).
pub const DEFAULT_ATTRS2BLOB: &str = "/opt/mellanox/doca/tools/dpa-app-attributes2blob";
/// The file name of the process-attributes tool.
pub const ATTRS2BLOB_NAME: &str = "dpa-app-attributes2blob";
/// The variable that names the DPA compiler.
pub const DPACC_ENV: &str = "DPACC";
/// The variable that names the process-attributes tool.
pub const ATTRS2BLOB_ENV: &str = "DOCA_DPA_ATTRS2BLOB";
/// The variable that turns a dpacc/DOCA mismatch (or unreadable dpacc version) into a
/// warning.
pub const SKIP_VERSION_CHECK_ENV: &str = "DOCA_DPACC_SKIP_VERSION_CHECK";

/// `name` in the directories of `PATH` (read through `env`).
fn search_path(env: &EnvReader, name: &OsStr) -> Option<PathBuf> {
    let path = env.get_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Resolves a tool named by an environment variable: a path (with a `/`) must exist, a
/// bare name is looked up in `PATH`.
fn from_env_value(env: &EnvReader, value: &OsStr) -> Option<PathBuf> {
    let p = Path::new(value);
    if p.components().count() > 1 || p.is_absolute() {
        p.is_file().then(|| p.to_owned())
    } else {
        search_path(env, value)
    }
}

/// Where a DOCA install under `prefix` puts dpacc: `tools/` (NVIDIA's layout,
/// `/opt/mellanox/doca/tools/dpacc`) and `bin/` (an install made with a plain prefix).
fn prefix_candidates(prefix: &Path) -> [PathBuf; 2] {
    [prefix_dpacc(prefix), prefix.join("bin").join("dpacc")]
}

/// The dpacc a kernel build uses, and how it was found (`"DPACC"`, `"install"`,
/// `"PATH"` or `"default"`): `$DPACC` (a path, or a name looked up in `PATH`), else
/// the dpacc of the DOCA install the build found (`prefix`: what pkg-config or
/// `DOCA_PREFIX` found; its `tools/` or `bin/`), else `dpacc` on `PATH`, else
/// `default` (normally [`DEFAULT_DPACC`]). The error lists every place tried.
/// doca-doctor asks the same function, so it reports the dpacc a build would use.
pub fn locate_dpacc(
    env: &EnvReader,
    prefix: Option<&Path>,
    default: &Path,
) -> Result<(PathBuf, &'static str), Vec<String>> {
    if let Some(v) = env.get_os(DPACC_ENV).filter(|v| !v.is_empty()) {
        return from_env_value(env, &v)
            .map(|p| (p, "DPACC"))
            .ok_or_else(|| {
                vec![format!(
                    "{DPACC_ENV}={} (no such file, or not on PATH)",
                    v.to_string_lossy()
                )]
            });
    }
    let in_prefix: Vec<PathBuf> = prefix
        .map(prefix_candidates)
        .into_iter()
        .flatten()
        .collect();
    if let Some(p) = in_prefix.iter().find(|p| p.is_file()) {
        return Ok((p.clone(), "install"));
    }
    if let Some(p) = search_path(env, OsStr::new("dpacc")) {
        return Ok((p, "PATH"));
    }
    if default.is_file() {
        return Ok((default.to_owned(), "default"));
    }
    let mut tried = vec![format!("{DPACC_ENV} (not set)")];
    tried.extend(
        in_prefix
            .iter()
            .map(|p| format!("{} (the DOCA install found)", p.display())),
    );
    tried.push("dpacc on PATH".to_owned());
    tried.push(default.display().to_string());
    Err(tried)
}

/// [`locate_dpacc`] for a kernel build: not found is [`DpaAppError::ToolNotFound`].
pub(crate) fn find_dpacc(
    env: &EnvReader,
    prefix: Option<&Path>,
    default: &Path,
) -> Result<PathBuf, DpaAppError> {
    locate_dpacc(env, prefix, default)
        .map(|(p, _)| p)
        .map_err(|tried| DpaAppError::ToolNotFound {
            tool: "dpacc",
            env_var: DPACC_ENV,
            tried,
        })
}

/// The name of the DPA compiler that dpacc drives, installed beside it (NVIDIA's layout:
/// `tools/dpacc` and `tools/dpa-clang`).
pub(crate) const DPA_CLANG_NAME: &str = "dpa-clang";

/// The include directories of the DPA toolchain that `dpacc` belongs to: the builtin
/// headers of the `dpa-clang` beside it (`dpaintrin.h` and the C headers of a
/// freestanding compile), which clang names through its documented
/// `-print-resource-dir` (`<resource dir>/include`). Empty when there is no dpa-clang
/// beside dpacc or it does not answer: the kernel scan then sees DOCA's headers only,
/// and a header of the toolchain is reported missing by the compiler.
pub(crate) fn toolchain_include_dirs(dpacc: &Path) -> Vec<PathBuf> {
    let Some(clang) = dpacc.parent().map(|d| d.join(DPA_CLANG_NAME)) else {
        return Vec::new();
    };
    if !clang.is_file() {
        return Vec::new();
    }
    match Command::new(&clang).arg("-print-resource-dir").output() {
        Ok(out) if out.status.success() => {
            let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()).join("include");
            if dir.is_dir() {
                vec![dir]
            } else {
                Vec::new()
            }
        }
        _ => Vec::new(),
    }
}

/// The process-attributes tool: `$DOCA_DPA_ATTRS2BLOB`, else next to `dpacc`, else in
/// the DOCA install's `tools/` (`prefix`, when known: a dpacc from elsewhere still
/// builds for this install), else `default` (normally [`DEFAULT_ATTRS2BLOB`]).
pub(crate) fn find_attrs2blob(
    env: &EnvReader,
    dpacc: &Path,
    prefix: Option<&Path>,
    default: &Path,
) -> Result<PathBuf, DpaAppError> {
    let not_found = |tried| DpaAppError::ToolNotFound {
        tool: ATTRS2BLOB_NAME,
        env_var: ATTRS2BLOB_ENV,
        tried,
    };
    if let Some(v) = env.get_os(ATTRS2BLOB_ENV).filter(|v| !v.is_empty()) {
        return from_env_value(env, &v).ok_or_else(|| {
            not_found(vec![format!(
                "{ATTRS2BLOB_ENV}={} (no such file, or not on PATH)",
                v.to_string_lossy()
            )])
        });
    }
    let beside = dpacc.parent().map(|d| d.join(ATTRS2BLOB_NAME));
    let in_prefix = prefix.map(|p| p.join("tools").join(ATTRS2BLOB_NAME));
    let found = [&beside, &in_prefix]
        .into_iter()
        .flatten()
        .find(|p| p.is_file());
    if let Some(p) = found {
        return Ok(p.clone());
    }
    if default.is_file() {
        return Ok(default.to_owned());
    }
    let mut tried = vec![format!("{ATTRS2BLOB_ENV} (not set)")];
    if let Some(b) = beside {
        tried.push(format!("{} (beside dpacc)", b.display()));
    }
    if let Some(p) = in_prefix {
        tried.push(format!("{} (the DOCA install's tools)", p.display()));
    }
    tried.push(default.display().to_string());
    Err(not_found(tried))
}

/// Runs `program args…`, returning its output; a failure to start or a non-zero exit is
/// a [`DpaAppError::ToolFailed`] with what the tool wrote.
pub(crate) fn run_tool(program: &Path, args: &[OsString]) -> Result<Output, DpaAppError> {
    let failed = |status: String, output: String| DpaAppError::ToolFailed {
        program: program.to_owned(),
        args: args.to_vec(),
        status,
        output,
    };
    let mut attempt = 0;
    let out = loop {
        match Command::new(program).args(args).output() {
            Ok(out) => break out,
            // "Text file busy": the program was just written and another thread's
            // fork still holds it open for a moment. Try again shortly.
            Err(e) if e.raw_os_error() == Some(26) && attempt < 10 => {
                attempt += 1;
                std::thread::sleep(std::time::Duration::from_millis(20 * attempt));
            }
            Err(e) => return Err(failed(format!("could not run it: {e}"), String::new())),
        }
    };
    if !out.status.success() {
        return Err(failed(out.status.to_string(), output_text(&out)));
    }
    Ok(out)
}

/// stderr, then stdout, as text.
pub(crate) fn output_text(out: &Output) -> String {
    let mut s = String::from_utf8_lossy(&out.stderr).into_owned();
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !s.is_empty() && !stdout.is_empty() && !s.ends_with('\n') {
        s.push('\n');
    }
    s.push_str(&stdout);
    s
}

/// Runs `dpacc --version` and checks how it pairs with DOCA `doca` ([`pair_dpacc`]),
/// `prefix` being the DOCA install's prefix when known. A certain mismatch and unreadable
/// output are errors; an unknown or uncertain pairing builds, with the returned warning. With
/// `DOCA_DPACC_SKIP_VERSION_CHECK` set the errors become warnings too.
pub(crate) fn check_dpacc_version(
    env: &EnvReader,
    dpacc: &Path,
    doca: DocaVersion,
    prefix: Option<&Path>,
) -> Result<Option<String>, DpaAppError> {
    let skip = env.flag(SKIP_VERSION_CHECK_ENV);
    let out = run_tool(dpacc, &["--version".into()])?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let Some(version) = parse_dpacc_version(&text) else {
        return refuse_unless(
            skip,
            DpaAppError::DpaccVersionUnparseable {
                dpacc: dpacc.to_owned(),
                output: text,
            },
        );
    };
    let same_install = prefix.is_some_and(|p| is_dpacc_of_prefix(dpacc, p));
    match pair_dpacc(doca, &version, same_install) {
        DpaccPairing::SameInstall | DpaccPairing::Known => Ok(None),
        DpaccPairing::Unknown { doca_ships } => {
            let shipped = match doca_ships {
                Some(d) => format!("DOCA {}.{} ships dpacc {d}", doca.major, doca.minor),
                None => format!("no dpacc is known for DOCA {}.{}", doca.major, doca.minor),
            };
            let own = match prefix {
                Some(p) => format!("the install's own {}", prefix_dpacc(p).display()),
                None => "the dpacc of the DOCA install (its tools/ directory)".to_owned(),
            };
            Ok(Some(format!(
                "dpacc {version} ({}) with DOCA {doca}: an unverified pairing ({shipped}); \
                 building anyway. If kernels fail to load or launch, check the DOCA \
                 Compatibility Policy, or use {own}",
                dpacc.display()
            )))
        }
        DpaccPairing::Uncertain {
            dpacc_seen_with: (ma, mi),
            evidence,
        } => Ok(Some(format!(
            "dpacc {version} ({}) with DOCA {doca}: this dpacc was seen with DOCA {ma}.{mi}, \
             but only on uncertain evidence ({evidence}); building anyway. If kernels fail to \
             load or launch, use the dpacc of DOCA {doca} (its install's tools/ directory)",
            dpacc.display()
        ))),
        DpaccPairing::Mismatch { dpacc_belongs_to } => refuse_unless(
            skip,
            DpaAppError::DpaccVersionMismatch {
                dpacc: dpacc.to_owned(),
                dpacc_version: version.text,
                dpacc_doca_release: format!("{}.{}", dpacc_belongs_to.0, dpacc_belongs_to.1),
                doca_version: doca.to_string(),
            },
        ),
    }
}

/// `problem` as an error, or as a warning when the version check is skipped.
fn refuse_unless(skip: bool, problem: DpaAppError) -> Result<Option<String>, DpaAppError> {
    if skip {
        Ok(Some(format!(
            "{problem} [continuing: {SKIP_VERSION_CHECK_ENV} is set]"
        )))
    } else {
        Err(problem)
    }
}
