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

/// A place a tool is looked for: the path (if there is one to try), how it was found
/// when it is there, and how the error lists it when it is not.
type Place = (Option<PathBuf>, &'static str, String);

/// `path`, found `how`, listed as `path (note)`.
fn place(path: PathBuf, how: &'static str, note: &str) -> Place {
    let listed = format!("{} ({note})", path.display());
    (Some(path), how, listed)
}

/// The tool `$var` names (a path, or a name looked up in `PATH`), else the first of
/// `places` that is a file (they are only computed until one is), else `default`, and
/// how it was found (`var` itself for the variable); else every place tried.
fn locate(
    env: &EnvReader,
    var: &'static str,
    places: impl IntoIterator<Item = Place>,
    default: &Path,
) -> Result<(PathBuf, &'static str), Vec<String>> {
    if let Some(v) = env.get_os(var).filter(|v| !v.is_empty()) {
        return from_env_value(env, &v).map(|p| (p, var)).ok_or_else(|| {
            vec![format!(
                "{var}={} (no such file, or not on PATH)",
                v.to_string_lossy()
            )]
        });
    }
    let mut tried = vec![format!("{var} (not set)")];
    let last = (
        Some(default.to_owned()),
        "default",
        default.display().to_string(),
    );
    for (path, how, listed) in places.into_iter().chain([last]) {
        match path.filter(|p| p.is_file()) {
            Some(p) => return Ok((p, how)),
            None => tried.push(listed),
        }
    }
    Err(tried)
}

/// [`DpaAppError::ToolNotFound`] for `tool`, named by `env_var`, after trying `tried`.
fn not_found(tool: &'static str, env_var: &'static str) -> impl Fn(Vec<String>) -> DpaAppError {
    move |tried| DpaAppError::ToolNotFound {
        tool,
        env_var,
        tried,
    }
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
    // A DOCA install puts dpacc in `tools/` (NVIDIA's layout,
    // `/opt/mellanox/doca/tools/dpacc`) or `bin/` (an install made with a plain prefix).
    let in_prefix = (prefix.into_iter())
        .flat_map(|p| [prefix_dpacc(p), p.join("bin").join("dpacc")])
        .map(|p| place(p, "install", "the DOCA install found"));
    let on_path = std::iter::once_with(|| {
        let found = search_path(env, OsStr::new("dpacc"));
        (found, "PATH", "dpacc on PATH".to_owned())
    });
    locate(env, DPACC_ENV, in_prefix.chain(on_path), default)
}

/// [`locate_dpacc`] for a kernel build: not found is [`DpaAppError::ToolNotFound`].
pub(crate) fn find_dpacc(
    env: &EnvReader,
    prefix: Option<&Path>,
    default: &Path,
) -> Result<PathBuf, DpaAppError> {
    locate_dpacc(env, prefix, default)
        .map(|(p, _)| p)
        .map_err(not_found("dpacc", DPACC_ENV))
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
    let clang = dpacc.with_file_name(DPA_CLANG_NAME);
    let resource_dir = || Command::new(&clang).arg("-print-resource-dir").output();
    match clang.is_file().then(resource_dir) {
        Some(Ok(out)) if out.status.success() => {
            let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()).join("include");
            dir.is_dir().then_some(dir).into_iter().collect()
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
    let beside = (dpacc.parent().map(|d| d.join(ATTRS2BLOB_NAME)))
        .map(|p| place(p, "beside dpacc", "beside dpacc"));
    let in_prefix = (prefix.map(|p| p.join("tools").join(ATTRS2BLOB_NAME)))
        .map(|p| place(p, "install", "the DOCA install's tools"));
    locate(
        env,
        ATTRS2BLOB_ENV,
        beside.into_iter().chain(in_prefix),
        default,
    )
    .map(|(p, _)| p)
    .map_err(not_found(ATTRS2BLOB_NAME, ATTRS2BLOB_ENV))
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
