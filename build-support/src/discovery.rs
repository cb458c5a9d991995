//! Finding an installed DOCA through pkg-config.
//!
//! Modules probed: `doca-common` and `doca-dpa` (required), `doca-verbs` and `doca-rdmi`
//! (optional; RDMI needs both), `doca-rdma` and `doca-comch` (optional) and
//! `libflexio` (optional, linked when present).
//!
//! Search order: `PKG_CONFIG_PATH` as set; then, when `DOCA_PREFIX` is set,
//! `$DOCA_PREFIX/lib/pkgconfig`, `$DOCA_PREFIX/lib/<arch>-linux-gnu/pkgconfig` and
//! `$DOCA_PREFIX/infrastructure/lib/pkgconfig`; then the same directories under
//! `/opt/mellanox/doca` (and `/opt/mellanox/flexio/lib/pkgconfig`) as the last resort;
//! then pkg-config's own default directories.
//!
//! Nothing is printed for cargo while probing (`cargo_metadata(false)`): the caller
//! decides what to link once the checks passed. Whether a module exists is asked with
//! `pkg-config --modversion`, which does not need the module's `Requires.private` to
//! resolve; only then are its flags asked for, which does. So a module whose
//! requirements are missing is never mistaken for a missing module. The checks, in
//! order:
//!
//! 1. required modules missing → [`DiscoveryError::NotFound`], unless an umbrella
//!    `doca.pc` (the 2.5 layout) is there, whatever its requirements →
//!    [`DiscoveryError::OldInstall`]; a module that exists but whose requirements
//!    pkg-config cannot find → [`DiscoveryError::UnresolvedRequirements`], naming them;
//! 2. the versions of the DOCA modules and of `doca_version.h` must agree (the four-way
//!    match) → [`DiscoveryError::VersionMismatch`], or a warning with
//!    `DOCA_ALLOW_VERSION_MISMATCH=1`;
//! 3. a version below [`MINIMUM_SUPPORTED`], or a `doca_dpa.h` whose `doca_dpa_create`
//!    takes a `struct doca_dpa_app *` → [`DiscoveryError::OldInstall`].

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::env::EnvReader;
use crate::version::{DocaVersion, MINIMUM_SUPPORTED};

/// The DOCA library modules whose versions must agree, in report order.
pub const DOCA_MODULES: &[&str] = &[
    "doca-common",
    "doca-dpa",
    "doca-verbs",
    "doca-rdmi",
    "doca-rdma",
    "doca-comch",
];
/// Modules without which there is no usable DOCA DPA install.
pub const REQUIRED_MODULES: &[&str] = &["doca-common", "doca-dpa"];
/// The FlexIO module, linked when present (its version is not a DOCA version).
pub const FLEXIO_MODULE: &str = "libflexio";
/// The umbrella module of DOCA 2.5 and older.
pub const UMBRELLA_MODULE: &str = "doca";
/// Where DOCA installs by default.
pub const DEFAULT_PREFIX: &str = "/opt/mellanox/doca";
/// Where FlexIO's pkg-config file lives on default installs.
pub const DEFAULT_FLEXIO_PKGCONFIG: &str = "/opt/mellanox/flexio/lib/pkgconfig";

/// Every module probed, in order.
pub fn all_modules() -> Vec<&'static str> {
    [DOCA_MODULES, &[FLEXIO_MODULE]].concat()
}

/// What the probe needs to know, read from the environment (or given by tests).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeInputs {
    /// `PKG_CONFIG_PATH` as set by the user, if set.
    pub pkg_config_path: Option<OsString>,
    /// `DOCA_PREFIX`, if set.
    pub doca_prefix: Option<PathBuf>,
    /// The last-resort prefix ([`DEFAULT_PREFIX`]); `None` skips it (tests).
    pub default_prefix: Option<PathBuf>,
    /// The target architecture for `lib/<arch>-linux-gnu` (`x86_64`, `aarch64`).
    pub arch: String,
    /// `DOCA_ALLOW_VERSION_MISMATCH=1`: a four-way mismatch is a warning, not an error.
    pub allow_version_mismatch: bool,
    /// Search only the directories above, not pkg-config's built-in defaults (sets
    /// `PKG_CONFIG_LIBDIR` to empty while probing). For tests and fake prefixes.
    pub isolated: bool,
}

impl ProbeInputs {
    /// Reads `PKG_CONFIG_PATH`, `DOCA_PREFIX`, `DOCA_ALLOW_VERSION_MISMATCH` and
    /// `CARGO_CFG_TARGET_ARCH` through `env`.
    ///
    /// With `DOCA_PREFIX` set, the default prefix is not searched: the prefix names
    /// the install, and one misspelt or removed must not build against another DOCA
    /// found in the default place (pkg-config's own defaults still apply, for the
    /// packages DOCA's `.pc` files require).
    pub fn from_env(env: &EnvReader) -> Self {
        let doca_prefix = env
            .get_os("DOCA_PREFIX")
            .filter(|p| !p.is_empty())
            .map(PathBuf::from);
        ProbeInputs {
            pkg_config_path: env.get_os("PKG_CONFIG_PATH"),
            default_prefix: doca_prefix.is_none().then(|| PathBuf::from(DEFAULT_PREFIX)),
            doca_prefix,
            arch: env
                .get("CARGO_CFG_TARGET_ARCH")
                .unwrap_or_else(|| std::env::consts::ARCH.to_owned()),
            allow_version_mismatch: env.flag("DOCA_ALLOW_VERSION_MISMATCH"),
            isolated: false,
        }
    }

    /// The pkgconfig directories under an install prefix.
    pub fn prefix_dirs(&self, prefix: &Path) -> Vec<PathBuf> {
        vec![
            prefix.join("lib").join("pkgconfig"),
            prefix
                .join("lib")
                .join(format!("{}-linux-gnu", self.arch))
                .join("pkgconfig"),
            prefix.join("infrastructure").join("lib").join("pkgconfig"),
        ]
    }

    /// Every directory searched, in order (pkg-config's built-in defaults come after).
    pub fn dirs_tried(&self) -> Vec<PathBuf> {
        let mut dirs: Vec<PathBuf> = self
            .pkg_config_path
            .iter()
            .flat_map(std::env::split_paths)
            .filter(|d| !d.as_os_str().is_empty())
            .collect();
        for prefix in self.doca_prefix.iter().chain(&self.default_prefix) {
            dirs.extend(self.prefix_dirs(prefix));
        }
        if self.default_prefix.as_deref() == Some(Path::new(DEFAULT_PREFIX)) {
            dirs.push(PathBuf::from(DEFAULT_FLEXIO_PKGCONFIG));
        }
        let mut seen = std::collections::BTreeSet::new();
        dirs.retain(|d| seen.insert(d.clone()));
        dirs
    }

    /// The `PKG_CONFIG_PATH` value used while probing.
    pub fn effective_pkg_config_path(&self) -> OsString {
        std::env::join_paths(self.dirs_tried()).unwrap_or_default()
    }
}

/// One pkg-config module that was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Module {
    /// The module name (`doca-dpa`).
    pub name: String,
    /// `Version:` as written in the `.pc` file.
    pub version_text: String,
    /// The parsed version (`None` for modules whose version is not a DOCA version, such as
    /// `libflexio`, when it does not parse).
    pub version: Option<DocaVersion>,
    /// The directory of the `.pc` file, when pkg-config reports it.
    pub pc_dir: Option<PathBuf>,
    /// The `prefix` variable of the `.pc` file (resolved), when it has one: where the
    /// install's `tools/` directory (dpacc) is.
    pub prefix: Option<PathBuf>,
    /// `-I` directories.
    pub include_dirs: Vec<PathBuf>,
    /// `-L` directories.
    pub link_dirs: Vec<PathBuf>,
    /// `-l` names.
    pub libs: Vec<String>,
}

impl Module {
    fn source(&self) -> String {
        match &self.pc_dir {
            Some(d) => format!(
                "pkg-config module {} ({})",
                self.name,
                d.join(format!("{}.pc", self.name)).display()
            ),
            None => format!("pkg-config module {}", self.name),
        }
    }
}

/// The `doca_version.h` that was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionHeader {
    /// Its path.
    pub path: PathBuf,
    /// The version it states.
    pub version: DocaVersion,
}

/// A DOCA install that passed the checks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Install {
    /// The modules found, by name.
    pub modules: BTreeMap<String, Module>,
    /// The install's version (that of `doca-dpa`).
    pub version: DocaVersion,
    /// The `doca_version.h` read, if one was found.
    pub version_header: Option<VersionHeader>,
    /// The `PKG_CONFIG_PATH` used while probing.
    pub pkg_config_path: OsString,
    /// Things worth a cargo warning (an allowed version mismatch, say).
    pub warnings: Vec<String>,
}

impl Install {
    /// Whether module `name` was found.
    pub fn has(&self, name: &str) -> bool {
        self.modules.contains_key(name)
    }

    /// The include directories of the given modules (all found modules when empty),
    /// in order, without duplicates.
    pub fn include_dirs(&self, modules: &[&str]) -> Vec<PathBuf> {
        union_of(&self.modules, modules, |m| &m.include_dirs)
    }

    /// The link directories of the given modules (all when empty), without duplicates.
    pub fn link_dirs(&self, modules: &[&str]) -> Vec<PathBuf> {
        union_of(&self.modules, modules, |m| &m.link_dirs)
    }

    /// The `-l` names of the given modules (all when empty), without duplicates.
    pub fn libs(&self, modules: &[&str]) -> Vec<String> {
        union_of(&self.modules, modules, |m| &m.libs)
    }

    /// `(module, version as written)` for every DOCA module found (not libflexio).
    pub fn pkg_config_versions(&self) -> Vec<(String, String)> {
        DOCA_MODULES
            .iter()
            .filter_map(|m| self.modules.get(*m))
            .map(|m| (m.name.clone(), m.version_text.clone()))
            .collect()
    }
}

/// `f`'s items over the found `modules` among `names` (every module probed when empty),
/// in order, without duplicates.
fn union_of<T: Clone + PartialEq>(
    found: &BTreeMap<String, Module>,
    names: &[&str],
    f: impl Fn(&Module) -> &Vec<T>,
) -> Vec<T> {
    let all = all_modules();
    let names = if names.is_empty() { &all } else { names };
    let mut out: Vec<T> = Vec::new();
    for item in names.iter().filter_map(|n| found.get(*n)).flat_map(f) {
        if !out.contains(item) {
            out.push(item.clone());
        }
    }
    out
}

/// Why no usable DOCA install was found. The [`Display`](std::fmt::Display) text is the
/// message a user sees: what was found, and what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DiscoveryError {
    /// Required modules are not found anywhere.
    #[error("{}", not_found(.searched, .missing, .pkg_config_path.as_deref(), .dirs_tried, .details))]
    NotFound {
        /// Every module searched for.
        searched: Vec<String>,
        /// The required modules that are missing.
        missing: Vec<String>,
        /// `PKG_CONFIG_PATH` as the user set it (`None`: unset).
        pkg_config_path: Option<String>,
        /// The directories searched, in order.
        dirs_tried: Vec<PathBuf>,
        /// What pkg-config said (or why it could not run).
        details: Vec<String>,
    },
    /// An install older than the supported API shape.
    #[error(
        "DOCA install too old: found {found}{} at {location}: {reason}.\nThe minimum \
         supported DOCA is {}.{} (the modern DPA API: doca_dpa_create(dev, &dpa), then \
         doca_dpa_set_app and doca_dpa_start).\n{}",
        .version.map(|v| format!(" {v}")).unwrap_or_default(),
        MINIMUM_SUPPORTED.major, MINIMUM_SUPPORTED.minor, WAYS_OUT_OLD
    )]
    OldInstall {
        /// What was found (`umbrella pkg-config module doca`, `doca-dpa 2.8.0000`…).
        found: String,
        /// Its version, when known.
        version: Option<DocaVersion>,
        /// Where it was found.
        location: String,
        /// Why it is too old.
        reason: String,
    },
    /// The DOCA modules and `doca_version.h` disagree (a partial install).
    #[error(
        "DOCA versions disagree (partial install: reinstall DOCA so that these agree):\n{}\
         Set DOCA_ALLOW_VERSION_MISMATCH=1 to build anyway (a warning instead of this \
         error), at your own risk.",
        .found.iter().map(|(source, v)| format!("  {v}  from {source}\n")).collect::<String>()
    )]
    VersionMismatch {
        /// `(source, version as written)` for everything that states a version.
        found: Vec<(String, String)>,
    },
    /// A module exists but pkg-config cannot resolve modules it requires (`Requires` or
    /// `Requires.private`), so it gives no flags for it.
    #[error("{}", unresolved(.module, .version, .missing, .message))]
    UnresolvedRequirements {
        /// The module.
        module: String,
        /// Its version, as `--modversion` gave it (empty when that failed too).
        version: String,
        /// The required modules pkg-config could not find.
        missing: Vec<String>,
        /// pkg-config's message.
        message: String,
    },
    /// A module exists but pkg-config failed on it (a broken `.pc` file).
    #[error(
        "pkg-config found {module} but could not use it:\n{}The DOCA install looks \
         incomplete: reinstall DOCA (with its dependencies, e.g. libflexio), or build with \
         the software DPA: {}.",
        indented(.message, "  "), crate::backend::SIM_SWITCH
    )]
    BrokenModule {
        /// The module.
        module: String,
        /// pkg-config's message.
        message: String,
    },
    /// A module's version is not a DOCA version.
    #[error(
        "{origin} states the version `{text}`, which is not a DOCA version \
         (MAJOR.MINOR.PATCH); reinstall DOCA or build with the software DPA: {}.",
        crate::backend::SIM_SWITCH
    )]
    BadVersion {
        /// Where the version came from.
        origin: String,
        /// The text.
        text: String,
    },
    /// `doca-rdmi` is installed without the `doca-verbs` it is built on.
    #[error(
        "doca-rdmi was found ({rdmi_source}) but doca-verbs, which it is built on, was not \
         (partial install: reinstall DOCA so that both are present), or build with the \
         software DPA: {}.",
        crate::backend::SIM_SWITCH
    )]
    PartialRdmi {
        /// Where `doca-rdmi` was found.
        rdmi_source: String,
    },
}

impl DiscoveryError {
    /// True when something that looks like a real DOCA install was found but is unusable
    /// (old, mismatched, broken). In `DOCA_BACKEND=auto` these stay hard errors: a broken
    /// real install is never silently replaced by the simulator.
    pub fn is_broken_install(&self) -> bool {
        !matches!(self, DiscoveryError::NotFound { .. })
    }
}

const WAYS_OUT_OLD: &str = concat!(
    "What to do: install DOCA 2.9 or newer and point PKG_CONFIG_PATH (or DOCA_PREFIX) \
     at its pkgconfig directory, or build with the software DPA instead: ",
    crate::backend::sim_switch!(),
    "."
);

/// The non-blank lines of `text`, trimmed, each after `prefix` and ending a line.
fn indented(text: &str, prefix: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| format!("{prefix}{l}\n"))
        .collect()
}

/// [`DiscoveryError::NotFound`]'s message.
fn not_found(
    searched: &[String],
    missing: &[String],
    pkg_config_path: Option<&str>,
    dirs_tried: &[PathBuf],
    details: &[String],
) -> String {
    let dirs: String = dirs_tried
        .iter()
        .map(|d| format!("    {}\n", d.display()))
        .collect();
    // The first line says it all ("Package X was not found in the pkg-config search
    // path."); the rest repeats the advice given below.
    let said: String = details
        .iter()
        .filter_map(|d| d.lines().map(str::trim).find(|l| !l.is_empty()))
        .map(|l| format!("  pkg-config: {l}\n"))
        .collect();
    format!(
        "DOCA was not found: pkg-config has no {} module.\n  modules searched: {}\n  \
         PKG_CONFIG_PATH: {}\n  directories tried, in order:\n{dirs}    (then \
         pkg-config's built-in default directories)\n{said}Three ways out:\n  1. install \
         DOCA {}.{} or newer (the DOCA SDK packages for DPA, with their development \
         files);\n  2. point PKG_CONFIG_PATH at the directory that holds doca-common.pc and \
         doca-dpa.pc (e.g. {DEFAULT_PREFIX}/lib/x86_64-linux-gnu/pkgconfig), or set \
         DOCA_PREFIX to the install prefix;\n  3. opt into the software DPA: {}.",
        missing.join(" / "),
        searched.join(", "),
        pkg_config_path.unwrap_or("(not set)"),
        MINIMUM_SUPPORTED.major,
        MINIMUM_SUPPORTED.minor,
        crate::backend::SIM_SWITCH
    )
}

/// [`DiscoveryError::UnresolvedRequirements`]'s message.
fn unresolved(module: &str, version: &str, missing: &[String], message: &str) -> String {
    let v = if version.is_empty() { "" } else { " " };
    let flexio = if missing.iter().any(|m| m == FLEXIO_MODULE) {
        format!(" (FlexIO comes with DOCA; its .pc file is usually in {DEFAULT_FLEXIO_PKGCONFIG})")
    } else {
        String::new()
    };
    let missing = missing.join(", ");
    format!(
        "pkg-config found {module}{v}{version}, but not the module(s) it requires: \
         {missing}.\npkg-config gives no flags for a module until everything its .pc file \
         requires (Requires and Requires.private) is found.\n{}What to do: install the \
         development files of {missing}{flexio} and add the directory that holds each \
         missing .pc file to PKG_CONFIG_PATH, or build with the software DPA: {}.",
        indented(message, "  pkg-config: "),
        crate::backend::SIM_SWITCH
    )
}

/// Serialises every use of the process-wide `PKG_CONFIG_PATH` (the `pkg-config` crate
/// reads it from the process environment).
pub(crate) static PKG_CONFIG_ENV: Mutex<()> = Mutex::new(());

/// Sets environment variables and restores (or removes) them on drop.
struct EnvOverride {
    saved: Vec<(&'static str, Option<OsString>)>,
}

impl EnvOverride {
    fn set(vars: &[(&'static str, OsString)]) -> Self {
        let saved = vars
            .iter()
            .map(|(k, _)| (*k, std::env::var_os(k)))
            .collect();
        for (k, v) in vars {
            std::env::set_var(k, v);
        }
        EnvOverride { saved }
    }
}

impl Drop for EnvOverride {
    fn drop(&mut self) {
        for (k, v) in self.saved.iter().rev() {
            match v {
                Some(v) => std::env::set_var(k, v),
                None => std::env::remove_var(k),
            }
        }
    }
}

/// The outcome of one module probe.
enum Probe {
    Found(Box<Module>),
    Missing(String),
    /// The module exists but pkg-config failed on it.
    Failed(DiscoveryError),
}

impl Probe {
    /// A module that exists (at `version`, empty when unknown) but on which pkg-config
    /// failed with `message`: unresolved requirements when it names any, else broken.
    fn failed(name: &str, version: String, message: String) -> Probe {
        let module = name.to_owned();
        Probe::Failed(match unresolved_requirements(&message, name) {
            missing if missing.is_empty() => DiscoveryError::BrokenModule { module, message },
            missing => DiscoveryError::UnresolvedRequirements {
                module,
                version,
                missing,
                message,
            },
        })
    }
}

fn pkg_config_message(e: &pkg_config::Error) -> String {
    let stderr = match e {
        pkg_config::Error::ProbeFailure { output, .. }
        | pkg_config::Error::Failure { output, .. } => String::from_utf8_lossy(&output.stderr),
        _ => "".into(),
    };
    match stderr.trim() {
        "" => e.to_string(),
        stderr => stderr.to_owned(),
    }
}

/// Whether pkg-config's message says that `module` itself (not one of its dependencies)
/// is missing.
fn says_module_missing(message: &str, module: &str) -> bool {
    message.contains(&format!("No package '{module}' found"))
        || message.contains(&format!("Package {module} was not found"))
        || message.contains(&format!(
            "Package '{module}', required by 'virtual:world', not found"
        ))
}

/// The modules that pkg-config's message says `module` (or one of its requirements)
/// requires and it could not find, in order: pkgconf writes "Package 'X', required by
/// 'Y', not found", pkg-config "Package 'X', required by 'Y', not found" too, or "No
/// package 'X' found" for a requirement.
fn unresolved_requirements(message: &str, module: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in message.lines().map(str::trim) {
        let name = if let Some(rest) = line.strip_prefix("Package '") {
            rest.split_once("', required by '")
                .filter(|(_, by)| !by.starts_with("virtual:world"))
                .map(|(x, _)| x)
        } else {
            line.strip_prefix("No package '")
                .and_then(|rest| rest.split_once("' found"))
                .map(|(x, _)| x)
        };
        if let Some(n) = name.filter(|n| *n != module && !out.iter().any(|o| o == n)) {
            out.push(n.to_owned());
        }
    }
    out
}

/// Why a pkg-config command gave no answer.
enum PcFailure {
    /// pkg-config itself could not be run (then nothing is installed as far as we can
    /// tell, which is "not found", never "broken").
    NotRun(String),
    /// It ran and failed; its stderr.
    Failed(String),
}

/// Runs pkg-config (`$PKG_CONFIG`, else `pkg-config`, as the `pkg-config` crate does)
/// with `args`: its trimmed stdout.
fn pkg_config_output(args: &[&str]) -> Result<String, PcFailure> {
    let program = std::env::var_os("PKG_CONFIG").unwrap_or_else(|| "pkg-config".into());
    match std::process::Command::new(&program).args(args).output() {
        Ok(out) if out.status.success() => {
            Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
        }
        Ok(out) => Err(PcFailure::Failed(
            String::from_utf8_lossy(&out.stderr).trim().to_owned(),
        )),
        Err(e) => Err(PcFailure::NotRun(format!(
            "could not run {}: {e}",
            Path::new(&program).display()
        ))),
    }
}

/// A path-valued variable of a module, resolved; `None` when unset or empty. Not
/// `pkg_config::get_variable`: it prints `cargo:rerun-if-env-changed` for some 20
/// variables per call (it has no quiet mode), some 200 lines per -sys build standing
/// above any later error, where the probe prints nothing.
fn path_variable(name: &str, var: &str) -> Option<PathBuf> {
    pkg_config_output(&[&format!("--variable={var}"), name])
        .ok()
        .filter(|s| !s.is_empty())
        .map(|s| resolved(s.into()))
}

/// `path` with `${pcfiledir}/../..`-style parts resolved, when it exists.
fn resolved(path: PathBuf) -> PathBuf {
    std::fs::canonicalize(&path).unwrap_or(path)
}

/// Whether `name` exists, asked without resolving its private requirements:
/// `Ok(version)`, or the probe outcome that explains why not.
fn presence(name: &str) -> Result<String, Probe> {
    pkg_config_output(&["--modversion", name]).map_err(|failure| match failure {
        PcFailure::NotRun(message) => Probe::Missing(message),
        PcFailure::Failed(message) if message.is_empty() || says_module_missing(&message, name) => {
            Probe::Missing(message)
        }
        PcFailure::Failed(message) => Probe::failed(name, String::new(), message),
    })
}

fn probe_module(name: &str) -> Probe {
    let version_text = match presence(name) {
        Ok(v) => v,
        Err(p) => return p,
    };
    let result = pkg_config::Config::new()
        .cargo_metadata(false)
        .env_metadata(false)
        .print_system_libs(false)
        .print_system_cflags(false)
        .statik(false)
        .probe(name);
    match result {
        Ok(lib) => {
            // `${pcfiledir}/../..`-style prefixes: show and use resolved paths.
            let tidy = |dirs: Vec<PathBuf>| dirs.into_iter().map(resolved).collect();
            Probe::Found(Box::new(Module {
                name: name.to_owned(),
                version: DocaVersion::parse(&version_text).ok(),
                version_text,
                pc_dir: path_variable(name, "pcfiledir"),
                prefix: path_variable(name, "prefix"),
                include_dirs: tidy(lib.include_paths),
                link_dirs: tidy(lib.link_paths),
                libs: lib.libs,
            }))
        }
        Err(e) => Probe::failed(name, version_text, pkg_config_message(&e)),
    }
}

/// The umbrella module, if its `.pc` file exists, whatever its requirements: a 2.5
/// `doca.pc` lists libraries in `Requires.private` that are often not resolvable, and
/// it must still be reported as too old rather than as no DOCA at all. No flags are
/// asked for; the version and include directory come from `--modversion` and
/// `--variable`, else from the `.pc` file itself.
fn probe_umbrella(dirs: &[PathBuf]) -> Option<Module> {
    let pc_file = find_in(dirs, &format!("{UMBRELLA_MODULE}.pc"));
    let version_text = match presence(UMBRELLA_MODULE) {
        Ok(v) => v,
        Err(Probe::Missing(_)) => return None,
        // Its public requirements are missing too: read the file pkg-config would read.
        Err(_) => pc_version_line(pc_file.as_deref()?)?,
    };
    let pc_dir = path_variable(UMBRELLA_MODULE, "pcfiledir")
        .or_else(|| Some(pc_file.as_deref()?.parent()?.to_owned()));
    Some(Module {
        name: UMBRELLA_MODULE.to_owned(),
        version: DocaVersion::parse(&version_text).ok(),
        version_text,
        pc_dir,
        prefix: path_variable(UMBRELLA_MODULE, "prefix"),
        include_dirs: Vec::from_iter(path_variable(UMBRELLA_MODULE, "includedir")),
        link_dirs: Vec::new(),
        libs: Vec::new(),
    })
}

/// The `Version:` field of a `.pc` file, as written.
fn pc_version_line(pc_file: &Path) -> Option<String> {
    let text = std::fs::read_to_string(pc_file).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("Version:"))
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())
}

/// Finds `file` in `dirs` (first match).
fn find_in(dirs: &[PathBuf], file: &str) -> Option<PathBuf> {
    dirs.iter().map(|d| d.join(file)).find(|p| p.is_file())
}

/// Reads `doca_version.h` from the first of `dirs` that has one, through the C compiler
/// ([`DocaVersion::from_header_file`]). Returns `None` when no directory has it or its
/// version cannot be read (without a C compiler the build stops at the bindings check).
pub fn read_version_header(dirs: &[PathBuf]) -> Option<VersionHeader> {
    let path = find_in(dirs, "doca_version.h")?;
    let version = DocaVersion::from_header_file(&path).ok()?;
    Some(VersionHeader { path, version })
}

/// Probes pkg-config as described in the [module documentation](self) and runs the checks.
pub fn probe(inputs: &ProbeInputs) -> Result<Install, DiscoveryError> {
    let effective = inputs.effective_pkg_config_path();
    let (found, umbrella) = {
        // A poisoned lock only means another probe panicked; the guard data is `()`.
        let _lock = PKG_CONFIG_ENV.lock().unwrap_or_else(|e| e.into_inner());
        let mut vars = vec![("PKG_CONFIG_PATH", effective.clone())];
        if inputs.isolated {
            vars.push(("PKG_CONFIG_LIBDIR", OsString::new()));
        }
        let _env = EnvOverride::set(&vars);
        let found: Vec<(&str, Probe)> = all_modules()
            .into_iter()
            .map(|m| (m, probe_module(m)))
            .collect();
        let required_missing = found
            .iter()
            .any(|(m, p)| REQUIRED_MODULES.contains(m) && matches!(p, Probe::Missing(_)));
        let umbrella = required_missing
            .then(|| probe_umbrella(&inputs.dirs_tried()))
            .flatten();
        (found, umbrella)
    };
    check(inputs, &effective, found, umbrella)
}

fn check(
    inputs: &ProbeInputs,
    effective: &OsString,
    found: Vec<(&str, Probe)>,
    umbrella: Option<Module>,
) -> Result<Install, DiscoveryError> {
    let mut modules = BTreeMap::new();
    let mut missing = Vec::new();
    let mut details = Vec::new();
    for (name, p) in found {
        match p {
            Probe::Found(m) => {
                modules.insert(name.to_owned(), *m);
            }
            Probe::Missing(msg) => {
                if REQUIRED_MODULES.contains(&name) {
                    missing.push(name.to_owned());
                    details.push(msg);
                }
            }
            // An optional module that is broken is still a broken install.
            Probe::Failed(e) => return Err(e),
        }
    }

    if !missing.is_empty() {
        if let Some(u) = umbrella {
            let header = read_version_header(&u.include_dirs);
            let version = u.version.or(header.as_ref().map(|h| h.version));
            let location = u
                .pc_dir
                .as_ref()
                .map(|d| d.join("doca.pc").display().to_string())
                .unwrap_or_else(|| "pkg-config module doca".to_owned());
            let said = header.map(|h| format!("; {} says {}", h.path.display(), h.version));
            let reason = format!(
                "only the umbrella pkg-config module `doca` exists (the DOCA 2.5 layout), without {}{}",
                missing.join(" / "),
                said.unwrap_or_default()
            );
            return Err(DiscoveryError::OldInstall {
                found: "the umbrella module `doca`".to_owned(),
                version,
                location,
                reason,
            });
        }
        return Err(DiscoveryError::NotFound {
            searched: all_modules().iter().map(|s| (*s).to_owned()).collect(),
            missing,
            pkg_config_path: inputs
                .pkg_config_path
                .as_ref()
                .map(|p| p.to_string_lossy().into_owned()),
            dirs_tried: inputs.dirs_tried(),
            details,
        });
    }

    // Versions of the DOCA modules: `((source, version as written), version)`.
    let mut found_versions: Vec<((String, String), DocaVersion)> = Vec::new();
    for name in DOCA_MODULES {
        if let Some(m) = modules.get(*name) {
            let v = m.version.ok_or_else(|| DiscoveryError::BadVersion {
                origin: m.source(),
                text: m.version_text.clone(),
            })?;
            found_versions.push(((m.source(), m.version_text.clone()), v));
        }
    }
    let include_dirs = union_of(&modules, &[], |m| &m.include_dirs);
    let version_header = read_version_header(&include_dirs);
    if let Some(h) = &version_header {
        let source = h.path.display().to_string();
        found_versions.push(((source, h.version.to_string()), h.version));
    }

    let mut warnings = Vec::new();
    let first = found_versions[0].1;
    if found_versions.iter().any(|(_, v)| *v != first) {
        let found = found_versions.iter().map(|(st, _)| st.clone()).collect();
        let err = DiscoveryError::VersionMismatch { found };
        if inputs.allow_version_mismatch {
            warnings.push(format!(
                "DOCA_ALLOW_VERSION_MISMATCH is set; continuing despite: {}",
                err.to_string().replace('\n', " ")
            ));
        } else {
            return Err(err);
        }
    }

    // Old installs.
    if let Some(((source, text), v)) = found_versions.iter().find(|(_, v)| !v.is_supported()) {
        return Err(DiscoveryError::OldInstall {
            found: "DOCA".to_owned(),
            version: Some(*v),
            location: source.clone(),
            reason: format!(
                "version {text} is older than {}.{}",
                MINIMUM_SUPPORTED.major, MINIMUM_SUPPORTED.minor
            ),
        });
    }
    // A doca_dpa.h of the pre-2.9 API under a newer version number is not read here:
    // the bindings check refuses its doca_dpa_create, naming both types.

    if let (Some(rdmi), None) = (modules.get("doca-rdmi"), modules.get("doca-verbs")) {
        let rdmi_source = rdmi.source();
        return Err(DiscoveryError::PartialRdmi { rdmi_source });
    }

    let version = modules
        .get("doca-dpa")
        .and_then(|m| m.version)
        .unwrap_or(first);
    Ok(Install {
        modules,
        version,
        version_header,
        pkg_config_path: effective.clone(),
        warnings,
    })
}

#[cfg(test)]
mod tests;
