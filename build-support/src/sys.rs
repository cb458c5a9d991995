//! The complete build-script flow of `doca-dpa-sys` and `doca-rdmi-sys`:
//!
//! (Compiled, not run: it is a build script, which needs the environment cargo gives one.)
//!
//! ```no_run
//! // The whole `fn main` of doca-dpa-sys/build.rs:
//! doca_build_support::sys::build(doca_build_support::sys::SysCrate::Dpa);
//! ```
//!
//! 1. Reads the environment through [`EnvReader`]: `DOCA_BACKEND`, `DOCS_RS`,
//!    `DOCA_PREFIX`, `PKG_CONFIG_PATH`, `DOCA_ALLOW_VERSION_MISMATCH`,
//!    `CARGO_FEATURE_SIM`, `CARGO_FEATURE_BINDGEN`, `OUT_DIR`, `DEP_DOCA_SIM_ABI`, and
//!    `DEP_DOCA_SIM_INCLUDE` (the reference headers
//!    exported by `doca-sim`; `<CARGO_MANIFEST_DIR>/../doca-sim/include` when absent).
//! 2. Chooses the backend ([`crate::backend::choose`]); on error prints the message and
//!    exits with failure.
//! 3. Hardware: the bindings for `OUT_DIR/bindings.rs`, link directives from pkg-config,
//!    and the audit of the installed headers against the exports of the libraries
//!    pkg-config names. The bindings are, with the -sys crate's `bindgen` feature
//!    (`CARGO_FEATURE_BINDGEN`), bindgen's over the installed headers; without it, the
//!    bundled ones ([`crate::bundled`]: the committed bindings of the reference headers,
//!    `DEP_DOCA_SIM_ABI`) once [`crate::check`] (the C compiler, with the set's
//!    committed check file in `<CARGO_MANIFEST_DIR>/bundled/`) finds every item of them
//!    declared by the installed headers as by the reference headers, and a build failure that
//!    lists each difference otherwise. Sim / docs: no bindings file and no link
//!    directives; the audit comes from the reference headers, every declared function
//!    counted as exported (the sim implements them all), plus the sim-only extra exports.
//! 4. Emits the check-cfgs and cfgs, writes `OUT_DIR/audit.tsv`,
//!    `OUT_DIR/universe.txt` and `OUT_DIR/build_info.rs`, and the `links` metadata
//!    `backend`, `version`, `audit`, `universe`, `include`, `rdmi`, `libdir` (hardware:
//!    doca-dpa's library directories, where dpacc finds the device libraries) and
//!    `sim_device_include`.
//!
//! Without `doca-rdmi.pc`, [`SysCrate::Rdmi`] still succeeds: `bindings.rs` holds no
//! items, nothing is linked, `doca_rdmi_absent` is set and the reason recorded.

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::audit::{
    blank_inactive, exports::system_library_dirs, Audit, Conditions, Exports, HeaderText,
    HAND_DECLARABLE, SIM_EXTRA_EXPORTS,
};
use crate::backend::{choose, Backend, BackendError};
use crate::binding_set::{resolve_headers, BindingSet, GENERATED_HEADER};
use crate::bundled;
use crate::cfgs::{Directives, HAND_DECLARED_CFG, RDMI_ABSENT_CFG, SYM_CFG};
use crate::check::{self, CheckError};
use crate::discovery::{self, DiscoveryError, Install, ProbeInputs};
use crate::env::EnvReader;
use crate::version::{release_warning, DocaVersion};

/// Which -sys crate is building.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SysCrate {
    /// `doca-dpa-sys` (`links = "doca_dpa"`): DOCA Core + DPA.
    Dpa,
    /// `doca-rdmi-sys` (`links = "doca_rdmi"`): DOCA Verbs + RDMI.
    Rdmi,
}

impl SysCrate {
    /// The bindgen header set.
    pub fn binding_set(self) -> BindingSet {
        match self {
            SysCrate::Dpa => BindingSet::Dpa,
            SysCrate::Rdmi => BindingSet::Rdmi,
        }
    }

    /// The `links` key as it appears in `DEP_<KEY>_*` (`DOCA_DPA`, `DOCA_RDMI`).
    pub fn links_key(self) -> &'static str {
        match self {
            SysCrate::Dpa => "DOCA_DPA",
            SysCrate::Rdmi => "DOCA_RDMI",
        }
    }

    /// The pkg-config modules whose libraries this crate links, in link order.
    pub fn link_modules(self) -> &'static [&'static str] {
        match self {
            SysCrate::Dpa => &["doca-dpa", "doca-common", "libflexio"],
            SysCrate::Rdmi => &["doca-rdmi", "doca-verbs"],
        }
    }

    /// Names asked about in the audit even when no header declares them.
    pub fn extra_names(self) -> &'static [&'static str] {
        match self {
            SysCrate::Dpa => &[],
            SysCrate::Rdmi => HAND_DECLARABLE,
        }
    }
}

/// Why the build script failed. The [`Display`](fmt::Display) text is the message.
#[derive(Debug)]
pub enum SysError {
    /// No backend could be chosen (DOCA missing in hardware mode, old install…).
    Backend(BackendError),
    /// A variable cargo always sets is missing (not running under cargo?).
    MissingEnv(&'static str),
    /// The reference headers (needed for the sim and docs backends) are not there.
    ReferenceHeaders {
        /// The directory looked at.
        dir: PathBuf,
        /// What is missing.
        what: String,
    },
    /// Generating bindings failed (hardware backend, `bindgen` feature).
    #[cfg(feature = "bindgen")]
    Bindgen(crate::bindgen_config::Error),
    /// The `bindgen` feature of the -sys crate is on but doca-build-support was built
    /// without its own `bindgen` feature (the -sys crate's feature turns both on).
    BindgenNotBuilt,
    /// The installed headers declare items of the bundled bindings differently from the
    /// reference headers they were made from (hardware backend, no `bindgen` feature).
    NotConforming {
        /// The set checked.
        set: BindingSet,
        /// Where the installed headers are.
        include_dirs: Vec<PathBuf>,
        /// The differences, one a line.
        report: String,
    },
    /// The bundled bindings could not be made (a stale committed file, an unusable
    /// `doca_version.h`, an item the check does not cover).
    Bundled(String),
    /// A file could not be written.
    Io {
        /// The path.
        path: PathBuf,
        /// The message.
        message: String,
    },
}

impl fmt::Display for SysError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SysError::Backend(e) => write!(f, "{e}"),
            SysError::MissingEnv(name) => write!(
                f,
                "{name} is not set; this function is meant to run from a cargo build script"
            ),
            SysError::ReferenceHeaders { dir, what } => write!(
                f,
                "the reference headers of doca-sim are incomplete: {what} (looked in {}); \
                 they ship with the doca-sim crate (DEP_DOCA_SIM_INCLUDE)",
                dir.display()
            ),
            #[cfg(feature = "bindgen")]
            SysError::Bindgen(e) => write!(
                f,
                "generating the DOCA bindings failed: {e}\n(to build without the installed DOCA, \
                 use the software DPA: DOCA_BACKEND=sim)"
            ),
            SysError::BindgenNotBuilt => write!(
                f,
                "the `bindgen` feature is on but doca-build-support was built without bindgen; \
                 turn the feature on through the -sys crate (`doca-dpa-sys/bindgen` or \
                 `doca-rdmi-sys/bindgen`), which enables both"
            ),
            SysError::NotConforming {
                set,
                include_dirs,
                report,
            } => write!(
                f,
                "the installed DOCA headers ({}) declare items of the {} bindings differently \
                 from the reference headers doca-rs bundles its bindings from:\n{report}\n\
                 The bundled bindings would not match this DOCA, so the build stops. Turn on \
                 the `bindgen` feature (`features = [\"bindgen\"]` on the `doca` dependency, \
                 or `{}/bindgen`) to generate the bindings from these headers (needs \
                 libclang), and report the difference to doca-rs.",
                crate::join_paths(include_dirs, ", "),
                set.name(),
                match set {
                    BindingSet::Dpa => "doca-dpa-sys",
                    BindingSet::Rdmi => "doca-rdmi-sys",
                },
            ),
            SysError::Bundled(m) => write!(f, "the bundled DOCA bindings: {m}"),
            SysError::Io { path, message } => write!(f, "{}: {message}", path.display()),
        }
    }
}

impl std::error::Error for SysError {}

impl From<BackendError> for SysError {
    fn from(e: BackendError) -> Self {
        SysError::Backend(e)
    }
}

/// What [`run`] produced: the directives to print, and a summary for tests and logs.
#[derive(Debug)]
pub struct SysOutput {
    /// The cargo directives (printed by [`build`]).
    pub directives: Directives,
    /// The backend chosen.
    pub backend: Backend,
    /// The DOCA version the bindings are for.
    pub version: DocaVersion,
    /// The audit.
    pub audit: Audit,
    /// Why RDMI is absent, when it is.
    pub rdmi_absent_reason: Option<String>,
    /// Files written in `OUT_DIR`.
    pub files: Vec<PathBuf>,
}

/// Runs the whole flow for `krate` and prints the directives. On failure, prints the
/// message to stderr and exits with status 1 (cargo shows it as the build failure).
pub fn build(krate: SysCrate) {
    let env = EnvReader::from_process();
    match run(krate, &env, discovery::probe) {
        Ok(out) => out.directives.print(),
        Err(e) => {
            eprintln!("\nerror: {e}\n");
            std::process::exit(1);
        }
    }
}

fn io_err(path: &Path, e: std::io::Error) -> SysError {
    SysError::Io {
        path: path.to_owned(),
        message: e.to_string(),
    }
}

fn write(path: &Path, contents: &str) -> Result<(), SysError> {
    std::fs::write(path, contents).map_err(|e| io_err(path, e))
}

/// Every `*.h` in `dir`, sorted by file name, with its text.
fn read_headers(dir: &Path) -> Vec<HeaderText> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        let mut paths: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "h"))
            .collect();
        paths.sort();
        for p in paths {
            if let Ok(text) = std::fs::read_to_string(&p) {
                out.push(HeaderText {
                    file_name: file_name(&p),
                    text,
                });
            }
        }
    }
    out
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn read_texts(paths: &[PathBuf]) -> Vec<HeaderText> {
    paths
        .iter()
        .filter_map(|p| {
            std::fs::read_to_string(p).ok().map(|text| HeaderText {
                file_name: file_name(p),
                text,
            })
        })
        .collect()
}

/// Every function declared in the reference headers (the `doca_sym` universe).
pub fn reference_universe(reference_dir: &Path) -> BTreeSet<String> {
    read_headers(reference_dir)
        .iter()
        .flat_map(|h| crate::audit::scan_declarations(&h.text))
        .map(|d| d.name)
        .collect()
}

/// The flow without printing or exiting: `probe` stands for [`discovery::probe`] (tests
/// pass a fake one).
pub fn run(
    krate: SysCrate,
    env: &EnvReader,
    probe: impl FnOnce(&ProbeInputs) -> Result<Install, DiscoveryError>,
) -> Result<SysOutput, SysError> {
    // 1. Environment.
    let inputs = ProbeInputs::from_env(env);
    // doca-rdmi-sys follows doca-dpa-sys (its dependency) onto the sim, so the `sim`
    // feature of any crate that reaches doca-dpa-sys puts the whole tree there; DOCA
    // Core objects must come from the same library in both.
    let sim_feature = env.is_set("CARGO_FEATURE_SIM")
        || (krate == SysCrate::Rdmi
            && env
                .get("DEP_DOCA_DPA_BACKEND")
                .is_some_and(|b| b.trim() == Backend::Sim.as_str()));
    let out_dir = env
        .get_os("OUT_DIR")
        .map(PathBuf::from)
        .ok_or(SysError::MissingEnv("OUT_DIR"))?;
    let manifest_dir = env.get_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
    let sibling = |name: &str| {
        manifest_dir
            .as_ref()
            .map(|m| m.join("..").join("doca-sim").join(name))
    };
    let reference_dir = env
        .get_os("DEP_DOCA_SIM_INCLUDE")
        .map(PathBuf::from)
        .or_else(|| sibling("include"))
        .ok_or(SysError::MissingEnv("CARGO_MANIFEST_DIR"))?;
    let device_include = env
        .get_os("DEP_DOCA_SIM_DEVICE_INCLUDE")
        .map(PathBuf::from)
        .or_else(|| sibling("device-include"));

    // 2. Backend.
    let choice = choose(env, sim_feature, || probe(&inputs))?;

    let set = krate.binding_set();
    let mut d = Directives::new();
    let mut rdmi_absent_reason = None;
    let mut files = Vec::new();
    let mut pkg_versions: Vec<(String, String)> = Vec::new();
    // How the bindings were made, for build_info (the hardware branches say).
    let mut bindings_made = "committed (the reference headers of doca-sim)".to_owned();
    let universe_base = reference_universe(&reference_dir);
    // What the preprocessor knows when bindgen parses the headers for this target, so
    // the audit counts what the compiler sees (DOCA declares some functions for one
    // platform only).
    let cond = Conditions::for_target_os(
        &env.get("CARGO_CFG_TARGET_OS")
            .unwrap_or_else(|| std::env::consts::OS.to_owned()),
    );

    // 3. Per backend.
    let (version, audit, include_dirs) = match (&choice.backend, &choice.install) {
        (Backend::Hardware, Some(install)) => {
            for w in &install.warnings {
                d.warning(w);
            }
            pkg_versions = install.pkg_config_versions();
            let include_dirs = install.include_dirs(&[]);
            let rdmi_missing = krate == SysCrate::Rdmi && !install.has("doca-rdmi");
            let bindings_path = out_dir.join("bindings.rs");
            if rdmi_missing {
                let reason = format!(
                    "pkg-config found DOCA {} but no doca-rdmi module (PKG_CONFIG_PATH={}); \
                     this DOCA install has no RDMI",
                    install.version,
                    install.pkg_config_path.to_string_lossy()
                );
                write(
                    &bindings_path,
                    &format!("{}\n// No RDMI bindings: {reason}\n", GENERATED_HEADER),
                )?;
                let sel = resolve_headers(set, &include_dirs, &[]);
                let audit = Audit::build(
                    &read_texts(&sel.used),
                    krate.extra_names(),
                    Some(&Exports::known(Vec::<String>::new())),
                    &cond,
                );
                d.cfg(RDMI_ABSENT_CFG);
                rdmi_absent_reason = Some(reason);
                bindings_made = "none (this DOCA install has no RDMI)".to_owned();
                (install.version, audit, include_dirs)
            } else {
                let sel = resolve_headers(set, &include_dirs, &[]);
                let made = if env.is_set("CARGO_FEATURE_BINDGEN") {
                    generated_bindings(set, &include_dirs)?
                } else {
                    bundled_bindings(set, env, &sel.used, &include_dirs, &reference_dir)?
                };
                write(&bindings_path, &made.text)?;
                for h in sel.used.iter().chain(&made.read) {
                    d.rerun_if_changed(h);
                }
                bindings_made = made.how;
                // Link what pkg-config says, for this crate's modules.
                let link_dirs = install.link_dirs(krate.link_modules());
                let libs = install.libs(krate.link_modules());
                for dir in &link_dirs {
                    d.link_search(dir);
                }
                for lib in &libs {
                    d.link_dylib(lib);
                }
                // Exports: every library pkg-config names for the whole install (a symbol
                // may live in libdoca_common), found in the -L dirs or the system dirs.
                let mut search = install.link_dirs(&[]);
                search.extend(system_library_dirs(&inputs.arch));
                let exports = Exports::of_libraries(&install.libs(&[]), &search);
                if !exports.problems.is_empty() {
                    d.warning(&format!(
                        "could not check the exports of every DOCA library ({}); functions \
                         declared in the headers are assumed to be exported",
                        exports.problems.join("; ")
                    ));
                }
                let audit = Audit::build(
                    &read_texts(&sel.used),
                    krate.extra_names(),
                    Some(&exports),
                    &cond,
                );
                (install.version, audit, include_dirs)
            }
        }
        _ => {
            // Sim and docs (and, defensively, hardware without an install record).
            let version_h = reference_dir.join("doca_version.h");
            let text =
                std::fs::read_to_string(&version_h).map_err(|e| SysError::ReferenceHeaders {
                    dir: reference_dir.clone(),
                    what: format!("doca_version.h: {e}"),
                })?;
            let (version, _) = DocaVersion::from_version_header(&text).map_err(|e| {
                SysError::ReferenceHeaders {
                    dir: reference_dir.clone(),
                    what: format!("doca_version.h: {e}"),
                }
            })?;
            let dirs = vec![reference_dir.clone()];
            let sel = resolve_headers(set, &dirs, &[]);
            let headers = read_texts(&sel.used);
            // The sim implements what the reference headers declare for the target.
            let mut exported: BTreeSet<String> = headers
                .iter()
                .flat_map(|h| crate::audit::scan_declarations(&blank_inactive(&h.text, &cond)))
                .map(|d| d.name)
                .collect();
            exported.extend(SIM_EXTRA_EXPORTS.iter().map(|s| (*s).to_owned()));
            let audit = Audit::build(
                &headers,
                krate.extra_names(),
                Some(&Exports::known(exported)),
                &cond,
            );
            d.rerun_if_changed(&reference_dir);
            (version, audit, dirs)
        }
    };

    // A DOCA installed (or removed) later in a searched directory reruns this script.
    // Only existing directories: cargo reruns every time for a missing path.
    if choice.backend != Backend::Docs {
        for dir in inputs.dirs_tried() {
            if dir.is_dir() {
                d.rerun_if_changed(&dir);
            }
        }
    }

    // 4. Emit.
    let mut universe = universe_base;
    universe.extend(audit.rows.iter().map(|r| r.name.clone()));
    let mut head = Directives::new();
    head.declare_all(&universe);
    head.backend(choice.backend);
    head.version_cfgs(version);
    if let Some(w) = release_warning(version) {
        head.warning(&w);
    }
    for name in audit.available_names() {
        head.cfg_value(SYM_CFG, name);
    }
    for name in audit.hand_declared_names() {
        if HAND_DECLARABLE.contains(&name) {
            head.cfg_value(HAND_DECLARED_CFG, name);
        }
    }
    head.extend(d);
    let mut d = head;

    let audit_path = out_dir.join("audit.tsv");
    write(&audit_path, &audit.to_tsv())?;
    files.push(audit_path.clone());
    let universe_path = out_dir.join("universe.txt");
    let mut universe_text = universe.iter().cloned().collect::<Vec<_>>().join("\n");
    universe_text.push('\n');
    write(&universe_path, &universe_text)?;
    files.push(universe_path.clone());
    // The install's prefix (where its tools/dpacc is), hardware only.
    let doca_prefix = choice
        .install
        .as_ref()
        .filter(|_| choice.backend == Backend::Hardware)
        .and_then(|i| i.module("doca-dpa"))
        .and_then(|m| m.prefix.as_ref())
        .map(|p| p.display().to_string());
    let info_path = out_dir.join("build_info.rs");
    write(
        &info_path,
        &build_info(
            choice.backend,
            version,
            &pkg_versions,
            doca_prefix.as_deref(),
            rdmi_absent_reason.as_deref(),
            &bindings_made,
            &audit,
        ),
    )?;
    files.push(info_path);
    if choice.backend == Backend::Hardware {
        files.push(out_dir.join("bindings.rs"));
    }

    let rdmi_present = match (&choice.install, krate) {
        (_, SysCrate::Rdmi) => rdmi_absent_reason.is_none(),
        (Some(install), SysCrate::Dpa) => install.has("doca-rdmi"),
        (None, SysCrate::Dpa) => true,
    };
    d.metadata("backend", choice.backend.as_str());
    d.metadata("version", &version.to_string());
    d.metadata("audit", &audit_path.display().to_string());
    d.metadata("universe", &universe_path.display().to_string());
    d.metadata("include", &crate::join_paths(&include_dirs, ":"));
    d.metadata("rdmi", if rdmi_present { "present" } else { "absent" });
    // Where the DOCA device libraries are (dpacc's -device-libs -L), hardware only.
    if let Some(install) = choice
        .install
        .as_ref()
        .filter(|_| choice.backend == Backend::Hardware)
    {
        let dirs = install.link_dirs(&["doca-dpa"]);
        if !dirs.is_empty() {
            d.metadata("libdir", &crate::join_paths(&dirs, ":"));
        }
    }
    if let Some(p) = &doca_prefix {
        d.metadata("prefix", p);
    }
    if let Some(dev) = &device_include {
        d.metadata("sim_device_include", &dev.display().to_string());
    }

    Ok(SysOutput {
        directives: d,
        backend: choice.backend,
        version,
        audit,
        rdmi_absent_reason,
        files,
    })
}

/// The text of `build_info.rs`.
pub fn build_info(
    backend: Backend,
    version: DocaVersion,
    pkg_config_versions: &[(String, String)],
    doca_prefix: Option<&str>,
    rdmi_absent_reason: Option<&str>,
    bindings: &str,
    audit: &Audit,
) -> String {
    let mut s = String::new();
    s.push_str("// generated by doca-build-support; do not edit\n\n");
    s.push_str(
        "/// The backend these bindings were built for: `\"hardware\"`, `\"sim\"` or `\"docs\"`.\n",
    );
    s.push_str(&format!(
        "pub const BACKEND: &str = {:?};\n\n",
        backend.as_str()
    ));
    s.push_str("/// The DOCA version the bindings were built for.\n");
    s.push_str(&format!(
        "pub const DOCA_VERSION: &str = {:?};\n\n",
        version.to_string()
    ));
    s.push_str(
        "/// `(pkg-config module, version)` of the DOCA modules found (empty unless the\n\
         /// backend is hardware).\n",
    );
    s.push_str("pub const PKG_CONFIG_VERSIONS: &[(&str, &str)] = &[");
    for (m, v) in pkg_config_versions {
        s.push_str(&format!("({m:?}, {v:?}), "));
    }
    s.push_str("];\n\n");
    s.push_str(
        "/// The `prefix` of doca-dpa's pkg-config module (where the install's `tools/dpacc`\n\
         /// is), when the backend is hardware and the module has one.\n",
    );
    s.push_str(&format!(
        "pub const DOCA_PREFIX: Option<&str> = {:?};\n\n",
        doca_prefix
    ));
    s.push_str("/// Why this build has no RDMI, when it has none.\n");
    s.push_str(&format!(
        "pub const RDMI_ABSENT_REASON: Option<&str> = {:?};\n\n",
        rdmi_absent_reason
    ));
    s.push_str(
        "/// How the bindings were made: bindgen over the installed headers (the `bindgen`\n\
         /// feature), the bundled ones checked against the installed headers, or the committed\n\
         /// ones of the reference headers (sim and docs builds).\n",
    );
    s.push_str(&format!("pub const BINDINGS: &str = {bindings:?};\n\n"));
    s.push_str(&audit.to_rust_table());
    s
}

/// A hardware `bindings.rs`: its text, how it was made, and the files read beyond the
/// set's headers (for rerun-if-changed).
struct MadeBindings {
    text: String,
    how: String,
    read: Vec<PathBuf>,
}

/// bindgen over the installed headers (the -sys crate's `bindgen` feature).
#[cfg(feature = "bindgen")]
fn generated_bindings(set: BindingSet, include_dirs: &[PathBuf]) -> Result<MadeBindings, SysError> {
    use crate::bindgen_config::{self, BindgenOptions};
    let text = bindgen_config::generate(set, include_dirs, &BindgenOptions::for_sys(set))
        .map_err(SysError::Bindgen)?;
    Ok(MadeBindings {
        text,
        how: "bindgen over the installed headers".to_owned(),
        read: Vec::new(),
    })
}

#[cfg(not(feature = "bindgen"))]
fn generated_bindings(_: BindingSet, _: &[PathBuf]) -> Result<MadeBindings, SysError> {
    Err(SysError::BindgenNotBuilt)
}

/// The committed bindings of `set`, once the C compiler finds that the installed headers
/// (`set_headers`, and the DOCA headers they include from `include_dirs`) declare every
/// item of them as the reference headers do ([`crate::check`]).
fn bundled_bindings(
    set: BindingSet,
    env: &EnvReader,
    set_headers: &[PathBuf],
    include_dirs: &[PathBuf],
    reference_dir: &Path,
) -> Result<MadeBindings, SysError> {
    let abi_dir = env
        .get_os("DEP_DOCA_SIM_ABI")
        .map(PathBuf::from)
        .unwrap_or_else(|| reference_dir.join("../src/abi"));
    if set_headers.is_empty() {
        return Err(SysError::Bundled(format!(
            "none of the {} headers ({}) is in {}; the install is incomplete",
            set.name(),
            set.headers().join(", "),
            crate::join_paths(include_dirs, ", ")
        )));
    }
    let committed_path = abi_dir.join(set.committed_file());
    let committed =
        std::fs::read_to_string(&committed_path).map_err(|e| io_err(&committed_path, e))?;
    let manifest_dir = env
        .get_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .ok_or(SysError::MissingEnv("CARGO_MANIFEST_DIR"))?;
    let check_path = set.bundled_dir(&manifest_dir).join(set.check_file());
    let check_text = std::fs::read_to_string(&check_path).map_err(|e| io_err(&check_path, e))?;
    let out_dir = env
        .get_os("OUT_DIR")
        .map(PathBuf::from)
        .ok_or(SysError::MissingEnv("OUT_DIR"))?;
    let report = check::check(
        env,
        set,
        &committed,
        &check_text,
        set_headers,
        include_dirs,
        &out_dir,
    )
    .map_err(|e| match e {
        CheckError::Uncovered(_) => SysError::Bundled(format!("{}: {e}", committed_path.display())),
        other => SysError::NotConforming {
            set,
            include_dirs: include_dirs.to_vec(),
            report: other.to_string(),
        },
    })?;
    let version_header = match set {
        BindingSet::Dpa => Some(report.version_defines.as_str()),
        BindingSet::Rdmi => None,
    };
    let source = crate::join_paths(include_dirs, ", ");
    let text = bundled::render(
        set,
        &committed,
        &report.absent_functions,
        version_header,
        &source,
    )
    .map_err(|e| SysError::Bundled(e.to_string()))?;
    let mut how = format!(
        "bundled, {} items checked against the installed headers by the C compiler",
        report.checked
    );
    if !report.absent_functions.is_empty() {
        let n = report.absent_functions.len();
        how.push_str(&format!(
            "; {n} function{} this DOCA does not declare left out",
            if n == 1 { "" } else { "s" }
        ));
    }
    Ok(MadeBindings {
        text,
        how,
        read: vec![committed_path, check_path],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::TempDir;
    use std::collections::BTreeMap;

    const VERSION_H: &str = "#define DOCA_VERSION_MAJOR 3\n#define DOCA_VERSION_MINOR 0\n\
                             #define DOCA_VERSION_PATCH 58\n#define DOCA_VERSION_STRING \"3.0.0058\"\n";

    /// A small reference-header directory.
    fn reference() -> TempDir {
        let dir = TempDir::new("reference");
        dir.write("doca_version.h", VERSION_H);
        dir.write(
            "doca_error.h",
            "typedef enum doca_error { DOCA_SUCCESS = 0 } doca_error_t;\n\
             DOCA_STABLE const char *doca_error_get_name(doca_error_t error);\n",
        );
        dir.write(
            "doca_dpa.h",
            "struct doca_dev;\nstruct doca_dpa;\n\
             DOCA_EXPERIMENTAL\ndoca_error_t doca_dpa_create(struct doca_dev *dev, struct doca_dpa **dpa);\n",
        );
        dir.write(
            "doca_rdmi_connection.h",
            "struct doca_rdmi_connection;\n\
             DOCA_EXPERIMENTAL\ndoca_error_t doca_rdmi_connection_destroy(struct doca_rdmi_connection *c);\n",
        );
        dir
    }

    fn env(vars: &[(&str, &str)], out: &TempDir, reference: &TempDir) -> EnvReader {
        let mut all: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        all.push(("OUT_DIR".into(), out.path().display().to_string()));
        all.push((
            "DEP_DOCA_SIM_INCLUDE".into(),
            reference.path().display().to_string(),
        ));
        EnvReader::fixed(all)
    }

    fn no_probe(_: &ProbeInputs) -> Result<Install, DiscoveryError> {
        panic!("the probe must not run")
    }

    #[test]
    fn sim_dpa() {
        let (out, r) = (TempDir::new("out"), reference());
        let e = env(&[("DOCA_BACKEND", "sim")], &out, &r);
        let o = run(SysCrate::Dpa, &e, no_probe).unwrap();
        assert_eq!(o.backend, Backend::Sim);
        assert_eq!(o.version, DocaVersion::new(3, 0, 58));
        let d = &o.directives;
        assert!(d.contains("cargo::rustc-cfg=doca_backend=\"sim\""));
        assert!(d.contains("cargo::rustc-cfg=doca_ge_3_0"));
        assert!(!d.contains("cargo::rustc-cfg=doca_ge_3_1"));
        assert!(d.contains("cargo::rustc-cfg=doca_sym=\"doca_dpa_create\""));
        assert!(d.contains("cargo::rustc-cfg=doca_sym=\"doca_error_get_name\""));
        // Not in the Dpa set: only in the universe.
        assert!(!d.contains("cargo::rustc-cfg=doca_sym=\"doca_rdmi_connection_destroy\""));
        let check = d
            .lines()
            .iter()
            .find(|l| l.contains("cfg(doca_sym,"))
            .unwrap();
        assert!(check.contains("\"doca_rdmi_connection_destroy\""));
        assert!(!d.lines().iter().any(|l| l.contains("rustc-link")));
        assert!(d.contains("cargo::metadata=backend=sim"));
        assert!(d.contains("cargo::metadata=version=3.0.0058"));
        assert!(d.contains("cargo::metadata=rdmi=present"));
        assert!(!d
            .lines()
            .iter()
            .any(|l| l.starts_with("cargo::metadata=libdir=")
                || l.starts_with("cargo::metadata=prefix=")));
        assert!(d.contains(&format!("cargo::metadata=include={}", r.path().display())));
        assert!(d
            .lines()
            .iter()
            .any(|l| l.starts_with("cargo::metadata=audit=") && l.ends_with("audit.tsv")));
        // Files.
        let tsv = std::fs::read_to_string(out.path().join("audit.tsv")).unwrap();
        let audit = Audit::parse_tsv(&tsv).unwrap();
        assert_eq!(audit, o.audit);
        assert_eq!(audit.get("doca_dpa_create").unwrap().exported, Some(true));
        let info = std::fs::read_to_string(out.path().join("build_info.rs")).unwrap();
        assert!(info.contains("pub const BACKEND: &str = \"sim\";"));
        assert!(info.contains("pub const DOCA_VERSION: &str = \"3.0.0058\";"));
        assert!(info.contains("pub const PKG_CONFIG_VERSIONS: &[(&str, &str)] = &[];"));
        assert!(info.contains("pub const RDMI_ABSENT_REASON: Option<&str> = None;"));
        assert!(info.contains("pub static SYMBOLS: &[SymbolInfo]"));
        assert!(!out.path().join("bindings.rs").exists());
        for v in [
            "DOCA_BACKEND",
            "DOCS_RS",
            "DOCA_PREFIX",
            "PKG_CONFIG_PATH",
            "DOCA_ALLOW_VERSION_MISMATCH",
            "CARGO_FEATURE_SIM",
            "OUT_DIR",
            "DEP_DOCA_SIM_INCLUDE",
        ] {
            assert!(e.was_read(v), "{v} not read");
        }
    }

    #[test]
    fn sim_rdmi_hand_declares_as_ctx() {
        let (out, r) = (TempDir::new("out"), reference());
        // No DOCA_BACKEND, but the `sim` feature.
        let e = env(&[("CARGO_FEATURE_SIM", "1")], &out, &r);
        let o = run(SysCrate::Rdmi, &e, no_probe).unwrap();
        assert_eq!(o.backend, Backend::Sim);
        let d = &o.directives;
        assert!(d.contains("cargo::rustc-cfg=doca_sym=\"doca_rdmi_connection_destroy\""));
        assert!(d.contains("cargo::rustc-cfg=doca_hand_declared=\"doca_rdmi_connection_as_ctx\""));
        assert!(!d.contains("cargo::rustc-cfg=doca_hand_declared=\"doca_rdmi_poster_as_ctx\""));
        assert!(!d.contains("cargo::rustc-cfg=doca_rdmi_absent"));
        let row = o.audit.get("doca_rdmi_connection_as_ctx").unwrap();
        assert!(!row.declared && row.exported == Some(true));
    }

    #[test]
    fn rdmi_follows_the_dpa_sys_sim() {
        let (out, r) = (TempDir::new("out"), reference());
        // No DOCA_BACKEND, no `sim` feature of doca-rdmi-sys: doca-dpa-sys chose the sim.
        let e = env(&[("DEP_DOCA_DPA_BACKEND", "sim")], &out, &r);
        let o = run(SysCrate::Rdmi, &e, no_probe).unwrap();
        assert_eq!(o.backend, Backend::Sim);
        assert!(o
            .directives
            .contains("cargo::rustc-cfg=doca_backend=\"sim\""));
    }

    #[test]
    fn docs_rs_path() {
        let (out, r) = (TempDir::new("out"), reference());
        let e = env(&[("DOCS_RS", "1"), ("DOCA_BACKEND", "hardware")], &out, &r);
        let o = run(SysCrate::Dpa, &e, no_probe).unwrap();
        assert_eq!(o.backend, Backend::Docs);
        assert!(o
            .directives
            .contains("cargo::rustc-cfg=doca_backend=\"docs\""));
        assert!(!o
            .directives
            .lines()
            .iter()
            .any(|l| l.contains("rustc-link")));
        assert!(o.directives.contains("cargo::metadata=backend=docs"));
        assert!(std::fs::read_to_string(out.path().join("build_info.rs"))
            .unwrap()
            .contains("\"docs\""));
    }

    #[test]
    fn hardware_failure_is_the_discovery_message() {
        let (out, r) = (TempDir::new("out"), reference());
        let e = env(&[("DOCA_BACKEND", "hardware")], &out, &r);
        let err = run(SysCrate::Dpa, &e, |inputs| {
            Err(DiscoveryError::NotFound {
                searched: vec!["doca-common".into(), "doca-dpa".into()],
                missing: vec!["doca-common".into(), "doca-dpa".into()],
                pkg_config_path: None,
                dirs_tried: inputs.dirs_tried(),
                details: vec![],
            })
        })
        .unwrap_err();
        let text = err.to_string();
        assert!(text.contains("DOCA was not found"), "{text}");
        assert!(text.contains("/opt/mellanox/doca/lib/pkgconfig"), "{text}");
        assert!(text.contains("DOCA_BACKEND=sim"), "{text}");
    }

    #[test]
    fn missing_reference_headers_are_reported() {
        let out = TempDir::new("out");
        let empty = TempDir::new("noref");
        let e = env(&[("DOCA_BACKEND", "sim")], &out, &empty);
        let err = run(SysCrate::Dpa, &e, no_probe).unwrap_err();
        assert!(err.to_string().contains("doca_version.h"), "{err}");
        let e = EnvReader::fixed([("DOCA_BACKEND", "sim")]);
        assert!(matches!(
            run(SysCrate::Dpa, &e, no_probe),
            Err(SysError::MissingEnv("OUT_DIR"))
        ));
    }

    fn fake_install(prefix: &TempDir, with_rdmi: bool) -> Install {
        let module = |name: &str, libs: &[&str]| crate::discovery::Module {
            name: name.into(),
            version_text: "3.0.0058".into(),
            version: Some(DocaVersion::new(3, 0, 58)),
            pc_dir: None,
            prefix: Some(prefix.path().to_owned()),
            include_dirs: vec![prefix.path().join("include")],
            link_dirs: vec![prefix.path().join("lib")],
            libs: libs.iter().map(|s| (*s).to_owned()).collect(),
        };
        let mut modules = BTreeMap::new();
        modules.insert(
            "doca-common".into(),
            module("doca-common", &["doca_common"]),
        );
        modules.insert(
            "doca-dpa".into(),
            module("doca-dpa", &["doca_dpa", "doca_common"]),
        );
        modules.insert("doca-verbs".into(), module("doca-verbs", &["doca_verbs"]));
        if with_rdmi {
            modules.insert("doca-rdmi".into(), module("doca-rdmi", &["doca_rdmi"]));
        }
        Install {
            modules,
            version: DocaVersion::new(3, 0, 58),
            version_header: None,
            pkg_config_path: "/fake/pkgconfig".into(),
            warnings: vec!["a warning".into()],
        }
    }

    #[test]
    fn hardware_without_rdmi_module() {
        let (out, r) = (TempDir::new("out"), reference());
        let prefix = TempDir::new("hwprefix");
        prefix.write(
            "include/doca_verbs.h",
            "DOCA_EXPERIMENTAL int doca_verbs_x(void);\n",
        );
        let e = env(&[("DOCA_BACKEND", "hardware")], &out, &r);
        let o = run(SysCrate::Rdmi, &e, |_| Ok(fake_install(&prefix, false))).unwrap();
        assert_eq!(o.backend, Backend::Hardware);
        let reason = o.rdmi_absent_reason.clone().unwrap();
        assert!(reason.contains("doca-rdmi"));
        let d = &o.directives;
        assert!(d.contains("cargo::rustc-cfg=doca_rdmi_absent"));
        assert!(d.contains("cargo::metadata=rdmi=absent"));
        assert!(d.contains(&format!(
            "cargo::metadata=libdir={}",
            prefix.path().join("lib").display()
        )));
        // Where dpacc's install is, for the DPA app builds and doca-doctor.
        assert!(d.contains(&format!(
            "cargo::metadata=prefix={}",
            prefix.path().display()
        )));
        assert!(d.contains("cargo::warning=a warning"));
        assert!(!d.lines().iter().any(|l| l.contains("rustc-link")));
        assert!(!d
            .lines()
            .iter()
            .any(|l| l.starts_with("cargo::rustc-cfg=doca_sym=")));
        let bindings = std::fs::read_to_string(out.path().join("bindings.rs")).unwrap();
        assert!(bindings.contains("No RDMI bindings"));
        let info = std::fs::read_to_string(out.path().join("build_info.rs")).unwrap();
        assert!(info.contains("RDMI_ABSENT_REASON: Option<&str> = Some("));
        assert!(info.contains("BINDINGS: &str = \"none (this DOCA install has no RDMI)\""));
        assert!(info.contains("(\"doca-dpa\", \"3.0.0058\")"));
        assert!(info.contains(&format!(
            "DOCA_PREFIX: Option<&str> = Some({:?})",
            prefix.path().display().to_string()
        )));
        assert_eq!(o.audit.get("doca_verbs_x").unwrap().exported, Some(false));
    }

    /// Hardware with bindgen over a fake prefix (no libraries, so exports are unknown and
    /// assumed). Skipped where libclang is missing.
    #[cfg(feature = "bindgen")]
    #[test]
    fn hardware_dpa_bindgen_and_links() {
        let (out, r) = (TempDir::new("out"), reference());
        let prefix = TempDir::new("hwprefix");
        prefix.write(
            "include/doca_error.h",
            "#pragma once\ntypedef enum doca_error { DOCA_SUCCESS = 0 } doca_error_t;\n",
        );
        prefix.write(
            "include/doca_dpa.h",
            "#pragma once\n#include \"doca_error.h\"\n#define DOCA_EXPERIMENTAL\nstruct doca_dev; struct doca_dpa;\n\
             DOCA_EXPERIMENTAL\ndoca_error_t doca_dpa_create(struct doca_dev *dev, struct doca_dpa **dpa);\n",
        );
        let e = env(
            &[("DOCA_BACKEND", "hardware"), ("CARGO_FEATURE_BINDGEN", "1")],
            &out,
            &r,
        );
        let _env = crate::discovery::env_lock();
        match run(SysCrate::Dpa, &e, |_| Ok(fake_install(&prefix, true))) {
            Err(SysError::Bindgen(b)) if b.is_libclang_missing() => {
                eprintln!("skipping: {b}");
            }
            Err(other) => panic!("{other}"),
            Ok(o) => {
                let d = &o.directives;
                assert!(d.contains(&format!(
                    "cargo::rustc-link-search=native={}",
                    prefix.path().join("lib").display()
                )));
                assert!(d.contains("cargo::rustc-link-lib=dylib=doca_dpa"));
                assert!(d.contains("cargo::rustc-link-lib=dylib=doca_common"));
                assert!(d.contains("cargo::rustc-cfg=doca_sym=\"doca_dpa_create\""));
                assert!(d
                    .lines()
                    .iter()
                    .any(|l| l.starts_with("cargo::warning=could not check")));
                assert_eq!(o.audit.get("doca_dpa_create").unwrap().exported, None);
                let b = std::fs::read_to_string(out.path().join("bindings.rs")).unwrap();
                assert!(b.contains("doca_dpa_create"));
                assert!(d.contains("cargo::metadata=backend=hardware"));
                let info = std::fs::read_to_string(out.path().join("build_info.rs")).unwrap();
                assert!(info.contains("BINDINGS: &str = \"bindgen over the installed headers\""));
            }
        }
    }

    /// doca-sim's reference headers and committed bindings, as a -sys build sees them.
    fn shipped() -> (PathBuf, PathBuf) {
        let sim = Path::new(env!("CARGO_MANIFEST_DIR")).join("../doca-sim");
        (sim.join("include"), sim.join("src/abi"))
    }

    /// A fake install whose headers are the reference headers, edited by `edit`
    /// (file name, text) and with a DOCA 3.0.0058 doca_version.h.
    fn install_of_reference(edit: impl Fn(&str, String) -> String) -> TempDir {
        let prefix = TempDir::new("bundled");
        let (include, _) = shipped();
        for entry in std::fs::read_dir(&include).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|x| x == "h") {
                let name = file_name(&path);
                let text = std::fs::read_to_string(&path).unwrap();
                prefix.write(&format!("include/{name}"), &edit(&name, text));
            }
        }
        let version = std::fs::read_to_string(include.join("doca_version.h")).unwrap();
        let version = version
            .lines()
            .map(|l| match l.split_whitespace().nth(1) {
                Some("DOCA_VERSION_MINOR") => "#define DOCA_VERSION_MINOR 0".to_owned(),
                Some("DOCA_VERSION_PATCH") => "#define DOCA_VERSION_PATCH 58".to_owned(),
                Some("DOCA_VERSION_STRING") => {
                    "#define DOCA_VERSION_STRING \"3.0.0058\"".to_owned()
                }
                _ => l.to_owned(),
            })
            .collect::<Vec<_>>()
            .join("\n");
        prefix.write("include/doca_version.h", &version);
        prefix
    }

    fn run_bundled(
        krate: SysCrate,
        prefix: &TempDir,
        out: &TempDir,
    ) -> Result<SysOutput, SysError> {
        run_bundled_from(krate, prefix, out, &shipped().1)
    }

    /// [`run_bundled`] with the committed bindings read from `abi`.
    fn run_bundled_from(
        krate: SysCrate,
        prefix: &TempDir,
        out: &TempDir,
        abi: &Path,
    ) -> Result<SysOutput, SysError> {
        let (include, _) = shipped();
        let e = EnvReader::fixed([
            ("DOCA_BACKEND".to_owned(), "hardware".to_owned()),
            ("OUT_DIR".to_owned(), out.path().display().to_string()),
            (
                "DEP_DOCA_SIM_INCLUDE".to_owned(),
                include.display().to_string(),
            ),
            ("DEP_DOCA_SIM_ABI".to_owned(), abi.display().to_string()),
            (
                "CARGO_MANIFEST_DIR".to_owned(),
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("..")
                    .join(krate.binding_set().sys_crate())
                    .display()
                    .to_string(),
            ),
        ]);
        let _env = crate::discovery::env_lock();
        run(krate, &e, |_| Ok(fake_install(prefix, true)))
    }

    #[test]
    fn hardware_uses_the_bundled_bindings_of_a_conforming_install() {
        let prefix = install_of_reference(|_, t| t);
        for krate in [SysCrate::Dpa, SysCrate::Rdmi] {
            let out = TempDir::new("out");
            let o = run_bundled(krate, &prefix, &out).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(o.backend, Backend::Hardware);
            let b = std::fs::read_to_string(out.path().join("bindings.rs")).unwrap();
            let (_, abi) = shipped();
            let committed =
                std::fs::read_to_string(abi.join(krate.binding_set().committed_file())).unwrap();
            // Every function of the committed file, nothing left out.
            assert_eq!(
                b.matches("    pub fn ").count(),
                committed.matches("    pub fn ").count()
            );
            let info = std::fs::read_to_string(out.path().join("build_info.rs")).unwrap();
            assert!(info.contains("BINDINGS: &str = \"bundled, "), "{info}");
            assert!(!info.contains("left out"), "{info}");
            match krate {
                SysCrate::Dpa => {
                    assert!(b.contains("pub fn doca_dpa_create("));
                    // The installed release, not the reference headers' one.
                    assert!(
                        b.contains("pub const DOCA_VERSION_STRING: &[u8; 9] = b\"3.0.0058\\0\";")
                    );
                    assert!(b.contains("pub const DOCA_VERSION_MINOR: u32 = 0;"));
                }
                SysCrate::Rdmi => assert!(b.contains("\nuse doca_dpa_sys::*;\n")),
            }
            // The installed headers and the committed file rerun the build when changed.
            assert!(o.directives.contains(&format!(
                "cargo::rerun-if-changed={}",
                abi.join(krate.binding_set().committed_file()).display()
            )));
        }
    }

    #[test]
    fn hardware_refuses_an_install_that_declares_a_bound_item_differently() {
        let prefix = install_of_reference(|name, t| {
            if name == "doca_dpa.h" {
                let changed = t.replace(
                    "doca_error_t doca_dpa_destroy(struct doca_dpa *dpa);",
                    "doca_error_t doca_dpa_destroy(struct doca_dpa *dpa, uint32_t flags);",
                );
                assert_ne!(
                    changed, t,
                    "the reference prototype of doca_dpa_destroy moved"
                );
                changed
            } else {
                t
            }
        });
        let out = TempDir::new("out");
        let err = run_bundled(SysCrate::Dpa, &prefix, &out).unwrap_err();
        assert!(
            matches!(
                err,
                SysError::NotConforming {
                    set: BindingSet::Dpa,
                    ..
                }
            ),
            "{err:?}"
        );
        assert_refused(
            &err,
            &out,
            &[
                "doca-rs check: doca_dpa_destroy: its type is not the reference type \
                 doca_error_t (struct doca_dpa *)",
                "`bindgen` feature",
                "libclang",
            ],
        );
    }

    #[test]
    fn a_committed_item_the_check_does_not_cover_refuses_the_file() {
        let prefix = install_of_reference(|_, t| t);
        let (_, abi) = shipped();
        let stale = TempDir::new("stale-abi");
        for set in [BindingSet::Dpa, BindingSet::Rdmi] {
            let text = std::fs::read_to_string(abi.join(set.committed_file())).unwrap();
            stale.write(set.committed_file(), &text);
        }
        let dpa = stale.path().join(BindingSet::Dpa.committed_file());
        let mut text = std::fs::read_to_string(&dpa).unwrap();
        text.push_str("pub static DOCA_UNCHECKED: u32 = 1;\nunsafe extern \"C\" {\n    pub fn doca_nowhere(x: u32) -> u32;\n}\n");
        std::fs::write(&dpa, text).unwrap();
        let out = TempDir::new("out");
        let err = run_bundled_from(SysCrate::Dpa, &prefix, &out, stale.path()).unwrap_err();
        assert_refused(
            &err,
            &out,
            &[
                "pub static DOCA_UNCHECKED",
                "doca_nowhere",
                "cannot be checked",
            ],
        );
    }

    /// `err` names every needle and no bindings file was written.
    fn assert_refused(err: &SysError, out: &TempDir, needles: &[&str]) {
        let text = err.to_string();
        for needle in needles {
            assert!(text.contains(needle), "{needle} not in: {text}");
        }
        assert!(
            !out.path().join("bindings.rs").exists(),
            "nothing half-built"
        );
    }

    #[test]
    fn an_older_install_gets_the_bindings_without_the_functions_it_lacks() {
        let prefix = install_of_reference(|name, t| {
            if name == "doca_dpa.h" {
                t.lines()
                    .filter(|l| !l.contains("doca_dpa_get_kernel_max_run_time"))
                    .collect::<Vec<_>>()
                    .join("\n")
            } else {
                t
            }
        });
        let out = TempDir::new("out");
        let o = run_bundled(SysCrate::Dpa, &prefix, &out).unwrap_or_else(|e| panic!("{e}"));
        let b = std::fs::read_to_string(out.path().join("bindings.rs")).unwrap();
        assert!(!b.contains("doca_dpa_get_kernel_max_run_time"));
        assert!(b.contains("pub fn doca_dpa_create("));
        assert!(o
            .audit
            .get("doca_dpa_get_kernel_max_run_time")
            .is_none_or(|r| !r.declared));
        let info = std::fs::read_to_string(out.path().join("build_info.rs")).unwrap();
        assert!(
            info.contains("1 function this DOCA does not declare left out"),
            "{info}"
        );
    }

    /// Bindgen as the judge: each install below is the reference headers with one change;
    /// the bundled path must refuse it naming the item, or give bindgen's items exactly
    /// (docs aside). Each case was a way through the check once. Skipped where libclang
    /// is missing, unless `DOCA_REQUIRE_LIBCLANG` is set.
    #[cfg(feature = "bindgen")]
    mod against_bindgen {
        use super::*;
        use crate::bindgen_config::{self, BindgenOptions};

        /// Lines of a bindings text without docs, blank lines and comments, for comparing
        /// two outputs item by item.
        fn significant(text: &str) -> Vec<String> {
            text.lines()
                .map(str::trim_end)
                .filter(|l| {
                    let t = l.trim_start();
                    !t.is_empty() && !t.starts_with("#[doc") && !t.starts_with("//")
                })
                .map(str::to_owned)
                .collect()
        }

        /// What bindgen (formatted as the committed copy is) makes of the install.
        fn bindgen_of(set: BindingSet, prefix: &TempDir) -> Option<String> {
            let opts = BindgenOptions {
                rustfmt: true,
                ..BindgenOptions::for_sys(set)
            };
            match bindgen_config::generate(set, &[prefix.path().join("include")], &opts) {
                Ok(text) => Some(text),
                Err(e)
                    if e.is_libclang_missing()
                        && std::env::var_os("DOCA_REQUIRE_LIBCLANG").is_none() =>
                {
                    eprintln!("skipped: {e}");
                    None
                }
                Err(e) => panic!("bindgen over the mutated install: {e}"),
            }
        }

        /// The lines only one side has: (bundled only, bindgen only).
        fn line_difference(bundled: &str, bindgen: &str) -> (Vec<String>, Vec<String>) {
            let a = significant(bundled);
            let b = significant(bindgen);
            let only = |x: &[String], y: &[String]| {
                let mut rest: Vec<String> = y.to_vec();
                x.iter()
                    .filter(|l| match rest.iter().position(|r| r == *l) {
                        Some(i) => {
                            rest.remove(i);
                            false
                        }
                        None => true,
                    })
                    .cloned()
                    .collect::<Vec<_>>()
            };
            (only(&a, &b), only(&b, &a))
        }

        /// The claim for one mutated install: the bundled build either fails (the
        /// message naming `item`) or gives bindgen's lines exactly.
        fn check_claim(krate: SysCrate, prefix: &TempDir, item: &str, bindgen_must_contain: &str) {
            let Some(oracle) = bindgen_of(krate.binding_set(), prefix) else {
                return;
            };
            let squeezed: String = oracle.split_whitespace().collect();
            assert!(
                squeezed.contains(bindgen_must_contain),
                "precondition: bindgen's output lacks {bindgen_must_contain:?}:\n{oracle}"
            );
            let out = TempDir::new("vs-bindgen-out");
            match run_bundled(krate, prefix, &out) {
                Err(e) => {
                    let text = e.to_string();
                    assert!(text.contains(item), "refused without naming {item}: {text}");
                }
                Ok(_) => {
                    let bundled = std::fs::read_to_string(out.path().join("bindings.rs")).unwrap();
                    let (only_bundled, only_bindgen) = line_difference(&bundled, &oracle);
                    assert!(
                        only_bundled.is_empty() && only_bindgen.is_empty(),
                        "the bundled bindings were accepted but differ from bindgen's \
                         over the same install.\nonly in the bundled ones:\n{}\n\
                         only in bindgen's:\n{}",
                        only_bundled.join("\n"),
                        only_bindgen.join("\n")
                    );
                }
            }
        }

        /// The claim for an install whose doca_dpa_dev_sync_event_t is 32 bits wide.
        fn check_sync_event_handle_is_u32(prefix: &TempDir) {
            check_claim(
                SysCrate::Dpa,
                prefix,
                "doca_dpa_dev_sync_event_t",
                "pubtypedoca_dpa_dev_sync_event_t=u32;",
            );
        }

        /// The claim for an install whose doca_dpa_destroy the compiler sees renamed.
        fn check_destroy_renamed_to_v2(prefix: &TempDir) {
            check_claim(
                SysCrate::Dpa,
                prefix,
                "doca_dpa_destroy",
                "pubfndoca_dpa_destroy_v2(",
            );
        }

        /// The claim for an install whose doca_dpa_destroy is `ms_abi` (`extern "win64"`).
        fn check_destroy_is_win64(prefix: &TempDir) {
            check_claim(SysCrate::Dpa, prefix, "doca_dpa_destroy", "extern\"win64\"");
        }

        fn edit_one(
            file: &'static str,
            from: &'static str,
            to: &'static str,
        ) -> impl Fn(&str, String) -> String {
            move |name, text| {
                if name == file {
                    assert!(text.contains(from), "{file} lacks {from:?}");
                    text.replacen(from, to, 1)
                } else {
                    text
                }
            }
        }

        /// The oracle itself: over the unmodified reference headers, bindgen and the
        /// bundled bindings agree line for line (docs aside).
        #[test]
        fn vs_bindgen_control_unmodified_install_agrees_with_bindgen() {
            for krate in [SysCrate::Dpa, SysCrate::Rdmi] {
                let prefix = install_of_reference(|_, t| t);
                let Some(oracle) = bindgen_of(krate.binding_set(), &prefix) else {
                    return;
                };
                let out = TempDir::new("vs-bindgen-out");
                run_bundled(krate, &prefix, &out).unwrap_or_else(|e| panic!("{e}"));
                let bundled = std::fs::read_to_string(out.path().join("bindings.rs")).unwrap();
                let (a, b) = line_difference(&bundled, &oracle);
                assert!(a.is_empty() && b.is_empty(), "{krate:?}: {a:#?}\n{b:#?}");
            }
        }

        /// A `#pragma pack(push, 1)` left open at the end of doca_error.h (the first
        /// header bindgen reads) packs every struct of the later headers: refused.
        #[test]
        fn vs_bindgen_pragma_pack_left_open_in_an_earlier_header() {
            let prefix = install_of_reference(|name, text| {
                if name == "doca_error.h" {
                    format!("{text}\n#pragma pack(push, 1)\n")
                } else {
                    text
                }
            });
            check_claim(
                SysCrate::Dpa,
                &prefix,
                "doca_gather_list",
                "#[repr(C,packed)]",
            );
        }

        /// `__attribute__((packed))` on an enum makes its integer type `unsigned char`
        /// (bindgen: `c_uchar`): refused.
        #[test]
        fn vs_bindgen_packed_enum_changes_its_integer_type() {
            let prefix = install_of_reference(edit_one(
                "doca_dev.h",
                "enum doca_devinfo_rep_filter {",
                "enum __attribute__((packed)) doca_devinfo_rep_filter {",
            ));
            check_claim(
                SysCrate::Dpa,
                &prefix,
                "doca_devinfo_rep_filter",
                "pubtypedoca_devinfo_rep_filter=::std::os::raw::c_uchar;",
            );
        }

        /// A calling-convention attribute on a function: bindgen binds it
        /// `extern "win64"`: refused.
        #[test]
        fn vs_bindgen_calling_convention_attribute_on_a_function() {
            let prefix = install_of_reference(edit_one(
                "doca_dpa.h",
                "doca_error_t doca_dpa_destroy(struct doca_dpa *dpa);",
                "doca_error_t doca_dpa_destroy(struct doca_dpa *dpa) __attribute__((ms_abi));",
            ));
            check_destroy_is_win64(&prefix);
        }

        /// `__attribute__((noreturn))`: bindgen binds the function `-> !`.
        #[test]
        fn vs_bindgen_noreturn_attribute_on_a_function() {
            let prefix = install_of_reference(edit_one(
                "doca_pe.h",
                "void doca_task_free(struct doca_task *task);",
                "void doca_task_free(struct doca_task *task) __attribute__((noreturn));",
            ));
            check_claim(
                SysCrate::Dpa,
                &prefix,
                "doca_task_free",
                "pubfndoca_task_free(task:*mutdoca_task)->!;",
            );
        }

        /// `__attribute__((mode(SI)))` on a typedef makes it 32 bits wide (the functions
        /// taking `doca_dpa_dev_t *` would write 4 bytes where the bundled bindings have
        /// 8): refused.
        #[test]
        fn vs_bindgen_mode_attribute_narrows_a_typedef() {
            let prefix = install_of_reference(edit_one(
                "doca_dpa.h",
                "typedef uint64_t doca_dpa_dev_t;",
                "typedef uint64_t doca_dpa_dev_t __attribute__((mode(SI)));",
            ));
            check_claim(
                SysCrate::Dpa,
                &prefix,
                "doca_dpa_dev_t",
                "pubtypedoca_dpa_dev_t=",
            );
        }

        /// A bound typedef declared in a header whose name does not start with `doca_`
        /// (bindgen binds the installed `u32`): the check reads it too, and refuses.
        #[test]
        fn vs_bindgen_typedef_in_a_header_the_check_does_not_follow() {
            let prefix = install_of_reference(edit_one(
                "doca_sync_event.h",
                "typedef uint64_t doca_dpa_dev_sync_event_t;",
                "#include \"dpa_handle_types.h\"",
            ));
            prefix.write(
                "include/dpa_handle_types.h",
                "#include <stdint.h>\ntypedef uint32_t doca_dpa_dev_sync_event_t;\n",
            );
            check_sync_event_handle_is_u32(&prefix);
        }

        /// A bound typedef made by a macro with token pasting (the statement does not
        /// name it): refused, not taken as absent.
        #[test]
        fn vs_bindgen_typedef_made_by_a_token_pasting_macro() {
            let prefix = install_of_reference(edit_one(
                "doca_sync_event.h",
                "typedef uint64_t doca_dpa_dev_sync_event_t;",
                "#define DOCA_DEV_HANDLE(name) typedef uint32_t doca_dpa_dev_##name##_t\n\
                 DOCA_DEV_HANDLE(sync_event);",
            ));
            check_sync_event_handle_is_u32(&prefix);
        }

        /// An `#undef` of a macro bindgen defines (`-DDOCA_ALLOW_EXPERIMENTAL_API`) in an
        /// earlier header changes the headers after it: refused, naming the item the
        /// compiler then sees declared differently.
        #[test]
        fn vs_bindgen_undef_of_a_bindgen_define_in_an_earlier_header() {
            let prefix = install_of_reference(|name, text| match name {
                "doca_error.h" => format!("{text}\n#undef DOCA_ALLOW_EXPERIMENTAL_API\n"),
                "doca_sync_event.h" => {
                    let from = "typedef uint64_t doca_dpa_dev_sync_event_t;";
                    assert!(text.contains(from));
                    text.replacen(
                        from,
                        "#ifdef DOCA_ALLOW_EXPERIMENTAL_API\n\
                         typedef uint64_t doca_dpa_dev_sync_event_t;\n#else\n\
                         typedef uint32_t doca_dpa_dev_sync_event_t;\n#endif",
                        1,
                    )
                }
                _ => text,
            });
            check_sync_event_handle_is_u32(&prefix);
        }

        /// An `#undef` under a condition the check cannot decide, then a redefinition:
        /// refused (either value may be the compiler's).
        #[test]
        fn vs_bindgen_undef_under_an_undecidable_condition_macro_value() {
            let prefix = install_of_reference(edit_one(
                "doca_dev.h",
                "#define DOCA_DEVINFO_VUID_SIZE 128",
                "#define DOCA_DEVINFO_VUID_SIZE 256\n#ifdef DOCA_SOMETHING_NOT_DEFINED\n\
                 #undef DOCA_DEVINFO_VUID_SIZE\n#define DOCA_DEVINFO_VUID_SIZE 128\n#endif",
            ));
            check_claim(
                SysCrate::Dpa,
                &prefix,
                "DOCA_DEVINFO_VUID_SIZE",
                "pubconstDOCA_DEVINFO_VUID_SIZE:u32=256;",
            );
        }

        /// The same with a symbol-renaming macro: `#define doca_dpa_destroy
        /// doca_dpa_destroy_v2` may stay in force (bindgen binds doca_dpa_destroy_v2):
        /// refused.
        #[test]
        fn vs_bindgen_undef_under_an_undecidable_condition_symbol_rename() {
            let prefix = install_of_reference(edit_one(
                "doca_dpa.h",
                "doca_error_t doca_dpa_destroy(struct doca_dpa *dpa);",
                "#define doca_dpa_destroy doca_dpa_destroy_v2\n\
                 #ifdef DOCA_SOMETHING_NOT_DEFINED\n#undef doca_dpa_destroy\n#endif\n\
                 doca_error_t doca_dpa_destroy(struct doca_dpa *dpa);",
            ));
            check_destroy_renamed_to_v2(&prefix);
        }

        /// A bound macro whose installed value the evaluator does not model (a cast;
        /// bindgen binds no constant at all): refused, not kept at the reference's `24`.
        #[test]
        fn vs_bindgen_macro_with_an_unmodelled_value_keeps_the_reference_value() {
            let prefix = install_of_reference(edit_one(
                "doca_dpa.h",
                "#define DOCA_DPA_COMPLETION_LOG_MAX_USER_DATA (24)",
                "#define DOCA_DPA_COMPLETION_LOG_MAX_USER_DATA ((uint32_t)32)",
            ));
            check_claim(
                SysCrate::Dpa,
                &prefix,
                "DOCA_DPA_COMPLETION_LOG_MAX_USER_DATA",
                "pubtypedoca_dpa_dev_t=u64;",
            );
        }

        /// A function moved to another header that a set header includes: bindgen's
        /// allowlist (`allowlist_file` of the set's headers) does not bind it, and the
        /// bundled bindings leave it out too.
        #[test]
        fn vs_bindgen_function_moved_to_an_included_header() {
            let decl =
                "doca_error_t doca_dpa_get_uar_id(const struct doca_dpa *dpa, uint32_t *uar_id);";
            let prefix = install_of_reference(move |name, text| {
                if name == "doca_dpa.h" {
                    assert!(text.contains(decl));
                    text.replacen(decl, "", 1).replacen(
                        "#include <doca_error.h>",
                        "#include <doca_error.h>\n#include \"doca_dpa_extra.h\"",
                        1,
                    )
                } else {
                    text
                }
            });
            prefix.write(
                "include/doca_dpa_extra.h",
                &format!("#include <doca_types.h>\nstruct doca_dpa;\nDOCA_EXPERIMENTAL\n{decl}\n"),
            );
            check_claim(
                SysCrate::Dpa,
                &prefix,
                "doca_dpa_get_uar_id",
                "pubfndoca_dpa_create(",
            );
        }

        /// doca-rdmi.pc present but none of the RDMI headers installed: bindgen refuses
        /// (none of the set's headers found), and so does the bundled path.
        #[test]
        fn vs_bindgen_rdmi_module_without_its_headers() {
            let prefix = install_of_reference(|_, t| t);
            for h in crate::binding_set::RDMI_HEADERS {
                std::fs::remove_file(prefix.path().join("include").join(h)).unwrap();
            }
            let oracle = bindgen_config::generate(
                BindingSet::Rdmi,
                &[prefix.path().join("include")],
                &BindgenOptions::for_sys(BindingSet::Rdmi),
            );
            assert!(
                matches!(oracle, Err(bindgen_config::Error::NoHeaders { .. })),
                "precondition: {oracle:?}"
            );
            let out = TempDir::new("vs-bindgen-out");
            let result = run_bundled(SysCrate::Rdmi, &prefix, &out);
            let info =
                std::fs::read_to_string(out.path().join("build_info.rs")).unwrap_or_default();
            assert!(
                result.is_err(),
                "accepted an install with none of the RDMI headers; build_info: {}",
                info.lines()
                    .find(|l| l.contains("BINDINGS"))
                    .unwrap_or_default()
            );
        }

        /// A renaming macro in doca_compat.h, undone at the end of doca_dpa.h, renames
        /// the declarations between them for the compiler: refused.
        #[test]
        fn vs_bindgen_rename_macro_undefined_after_the_declaration() {
            let prefix = install_of_reference(|name, text| match name {
                "doca_error.h" => {
                    format!("{text}\n#define doca_dpa_destroy doca_dpa_destroy_v2\n")
                }
                "doca_dpa.h" => format!("{text}\n#undef doca_dpa_destroy\n"),
                _ => text,
            });
            check_destroy_renamed_to_v2(&prefix);
        }

        /// An asm label and a calling convention hidden behind a macro both make the
        /// statement unparseable: refused, naming the item.
        #[test]
        fn vs_bindgen_sound_asm_label_and_attribute_macro() {
            let prefix = install_of_reference(edit_one(
                "doca_dpa.h",
                "doca_error_t doca_dpa_destroy(struct doca_dpa *dpa);",
                "doca_error_t doca_dpa_destroy(struct doca_dpa *dpa) __asm__(\"doca_dpa_destroy_v2\");",
            ));
            check_claim(
                SysCrate::Dpa,
                &prefix,
                "doca_dpa_destroy",
                "doca_dpa_destroy_v2",
            );
            let prefix = install_of_reference(edit_one(
                "doca_dpa.h",
                "doca_error_t doca_dpa_destroy(struct doca_dpa *dpa);",
                "#define DOCA_MS __attribute__((ms_abi))\n\
                 DOCA_MS doca_error_t doca_dpa_destroy(struct doca_dpa *dpa);",
            ));
            check_destroy_is_win64(&prefix);
        }

        /// A `#define DOCA_VERSION_MINOR` under `#if 0` ahead of the real one: the
        /// version constants come from the lines the preprocessor keeps, as bindgen's.
        #[test]
        fn vs_bindgen_version_macro_taken_from_an_inactive_branch() {
            let prefix = install_of_reference(|_, t| t);
            let path = prefix.path().join("include/doca_version.h");
            let text = std::fs::read_to_string(&path).unwrap();
            let from = "#define DOCA_VERSION_MINOR 0";
            assert!(text.contains(from));
            let text = text.replacen(
                from,
                "#if 0 /* the next release */\n#define DOCA_VERSION_MINOR 9\n#endif\n\
                 #define DOCA_VERSION_MINOR 0",
                1,
            );
            std::fs::write(&path, text).unwrap();
            check_claim(
                SysCrate::Dpa,
                &prefix,
                "DOCA_VERSION_MINOR",
                "pubconstDOCA_VERSION_MINOR:u32=0;",
            );
        }

        /// `packed` on a forward declaration of a struct applies to its later definition.
        #[test]
        fn vs_bindgen_packed_on_a_forward_declaration() {
            let prefix = install_of_reference(edit_one(
                "doca_types.h",
                "struct doca_gather_list {",
                "struct __attribute__((packed)) doca_gather_list;\nstruct doca_gather_list {",
            ));
            check_claim(
                SysCrate::Dpa,
                &prefix,
                "doca_gather_list",
                "pubstructdoca_gather_list",
            );
        }
    }
}
