//! The complete build-script flow of `doca-dpa-sys`, `doca-verbs-sys`, `doca-rdmi-sys`,
//! `doca-rdma-sys` and `doca-comch-sys`:
//!
//! (Compiled, not run: it is a build script, which needs the environment cargo gives one.)
//!
//! ```no_run
//! // The whole `fn main` of doca-dpa-sys/build.rs:
//! doca_build_support::sys::build(doca_build_support::sys::BindingSet::Dpa);
//! ```
//!
//! 1. Reads the environment through [`EnvReader`] (`DOCA_BACKEND`, `DOCS_RS`,
//!    `DOCA_PREFIX`, `PKG_CONFIG_PATH`, the crate's features…), each variable declared.
//! 2. Chooses the backend ([`crate::backend::choose`]); on error prints the message and
//!    exits with failure.
//! 3. Hardware: `OUT_DIR/bindings.rs` (bindgen's over the installed headers with the
//!    `bindgen` feature; otherwise the committed ones once [`crate::check`] has found
//!    the install declares them alike), link directives from pkg-config, and the audit
//!    of the installed headers against the libraries' exports. Sim / docs: no bindings
//!    file and no link directives; the audit comes from the reference headers.
//! 4. Emits the check-cfgs and cfgs, writes `OUT_DIR/audit.tsv`, `OUT_DIR/universe.txt`
//!    and `OUT_DIR/build_info.rs`, and the `links` metadata `backend`, `version`,
//!    `audit`, `universe`, `include`, `rdmi`, `rdma`, `comch`, `verbs`, `libdir` (hardware: where dpacc finds the
//!    device libraries) and, in sim and docs builds only, `sim_device_include`.
//!
//! Without `doca-rdmi.pc`, [`BindingSet::Rdmi`] still succeeds: `bindings.rs` holds no
//! items, nothing is linked, `doca_rdmi_absent` is set and the reason recorded. The same
//! for [`BindingSet::Rdma`] without `doca-rdma.pc` (`doca_rdma_absent`) and
//! [`BindingSet::Comch`] without `doca-comch.pc` (`doca_comch_absent`), and for
//! [`BindingSet::Verbs`] without `doca-verbs.pc` (`doca_verbs_absent`).

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::audit::{
    declarations, exports::system_library_dirs, Audit, Declaration, Exports, HAND_DECLARABLE,
    SIM_EXTRA_EXPORTS,
};
use crate::backend::{choose, Backend, BackendError};
pub use crate::binding_set::BindingSet;
use crate::binding_set::{resolve_headers, GENERATED_HEADER};
use crate::bundled;
use crate::cfgs::{
    Directives, COMCH_ABSENT_CFG, HAND_DECLARED_CFG, RDMA_ABSENT_CFG, RDMI_ABSENT_CFG, SYM_CFG,
    VERBS_ABSENT_CFG,
};
use crate::check::{self, CheckError};
use crate::discovery::{self, DiscoveryError, Install, ProbeInputs};
use crate::env::EnvReader;
use crate::version::{release_warning, DocaVersion};

/// A -sys crate's optional module, its absence cfg and its `build_info` constant.
type Optional = (&'static str, &'static str, &'static str);

/// Per -sys crate (named by its binding set), in the order of [`BindingSet`]'s variants:
/// the optional module without which it builds empty and says why (none for Dpa), and
/// the pkg-config modules whose libraries it links, in link order.
#[rustfmt::skip]
const CRATES: [(Option<Optional>, &[&str]); 5] = [
    (None, &["doca-dpa", "doca-common", "libflexio"]),
    // libdoca_verbs comes with doca-verbs-sys, a dependency of doca-rdmi-sys.
    (Some(("doca-rdmi", RDMI_ABSENT_CFG, "RDMI_ABSENT_REASON")), &["doca-rdmi"]),
    (Some(("doca-rdma", RDMA_ABSENT_CFG, "RDMA_ABSENT_REASON")), &["doca-rdma"]),
    (Some(("doca-comch", COMCH_ABSENT_CFG, "COMCH_ABSENT_REASON")), &["doca-comch"]),
    (Some(("doca-verbs", VERBS_ABSENT_CFG, "VERBS_ABSENT_REASON")), &["doca-verbs"]),
];

/// The optional module of the -sys crate of `set` ([`CRATES`]).
fn optional(set: BindingSet) -> Option<Optional> {
    CRATES[set as usize].0
}

/// Why the build script failed. The [`Display`](fmt::Display) text is the message; a
/// wrapped error's message is part of it too (a build script prints Display alone), and
/// `source()` gives it to code that walks the chain.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SysError {
    /// No backend could be chosen (DOCA missing in hardware mode, old install…).
    #[error("{0}")]
    Backend(#[from] BackendError),
    /// A variable cargo always sets is missing (not running under cargo?).
    #[error("{0} is not set; this function is meant to run from a cargo build script")]
    MissingEnv(&'static str),
    /// The reference headers (needed for the sim and docs backends) are not there.
    #[error(
        "the reference headers of doca-sim are incomplete: {what} (looked in {}); they ship \
         with the doca-sim crate (DEP_DOCA_SIM_INCLUDE)",
        .dir.display()
    )]
    ReferenceHeaders {
        /// The directory looked at.
        dir: PathBuf,
        /// What is missing.
        what: String,
    },
    /// Generating bindings failed (hardware backend, `bindgen` feature).
    #[cfg(feature = "bindgen")]
    #[error(
        "generating the DOCA bindings failed: {0}\n(to build without the installed DOCA, use \
         the software DPA: the `sim` feature of `doca`)"
    )]
    Bindgen(#[source] crate::bindgen_config::Error),
    /// The `bindgen` feature of the -sys crate is on but doca-build-support was built
    /// without its own `bindgen` feature (the -sys crate's feature turns both on).
    #[error(
        "the `bindgen` feature is on but doca-build-support was built without bindgen; turn \
         the feature on through the -sys crate (`doca-dpa-sys/bindgen` or \
         `doca-rdmi-sys/bindgen`), which enables both"
    )]
    BindgenNotBuilt,
    /// The installed headers declare items of the bundled bindings differently from the
    /// reference headers they were made from (hardware backend, no `bindgen` feature).
    #[error(
        "the installed DOCA headers ({}) declare items of the {} bindings differently from \
         the reference headers doca-rs bundles its bindings from:\n{report}\nThe bundled \
         bindings would not match this DOCA, so the build stops. Turn on the `bindgen` \
         feature (`features = [\"bindgen\"]` on the `doca` dependency, or `{}/bindgen`) to \
         generate the bindings from these headers (needs libclang), and report the \
         difference to doca-rs.",
        crate::join_paths(.include_dirs, ", "),
        .set.name(),
        .set.sys_crate_dir()
    )]
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
    #[error("the bundled DOCA bindings: {0}")]
    Bundled(String),
    /// The C preprocessor could not read the headers (for the audit).
    #[error(
        "the C preprocessor could not read the DOCA headers in {}: {message}",
        crate::join_paths(.include_dirs, ", ")
    )]
    Headers {
        /// Where the headers are.
        include_dirs: Vec<PathBuf>,
        /// The compiler's message.
        message: String,
    },
    /// A file could not be written.
    #[error("{}: {message}", .path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The message.
        message: String,
    },
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
    /// Why the crate's optional module (`doca-rdmi` and the like) is absent, when it is.
    pub absent_reason: Option<String>,
}

/// Runs the whole flow for the -sys crate of `set` and prints the directives. On failure, prints the
/// message to stderr and exits with status 1 (cargo shows it as the build failure).
pub fn build(set: BindingSet) {
    let env = EnvReader::from_process();
    match run(set, &env, discovery::probe) {
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

/// The functions `headers` declare in those files (not in headers they include), as the
/// C compiler for the target sees them with `include_dirs` ([`crate::audit::decls`]).
fn declared_in(
    env: &EnvReader,
    headers: &[PathBuf],
    include_dirs: &[PathBuf],
    work: &Path,
) -> Result<Vec<Declaration>, SysError> {
    let decls =
        declarations(env, headers, include_dirs, work).map_err(|message| SysError::Headers {
            include_dirs: include_dirs.to_vec(),
            message,
        })?;
    let in_headers = |d: &Declaration| {
        let mut names = headers.iter().filter_map(|h| h.file_name());
        names.any(|n| n.to_string_lossy() == d.header)
    };
    Ok(decls.into_iter().filter(in_headers).collect())
}

/// The flow without printing or exiting: `probe` stands for [`discovery::probe`] (tests
/// pass a fake one).
pub fn run(
    set: BindingSet,
    env: &EnvReader,
    probe: impl FnOnce(&ProbeInputs) -> Result<Install, DiscoveryError>,
) -> Result<SysOutput, SysError> {
    // 1. Environment.
    let inputs = ProbeInputs::from_env(env);
    // The other -sys crates follow doca-dpa-sys (their dependency) onto the sim, so the
    // `sim` feature of any crate that reaches doca-dpa-sys puts the whole tree there;
    // DOCA Core objects must come from the same library in all.
    let sim_feature = env.is_set("CARGO_FEATURE_SIM")
        || (set != BindingSet::Dpa
            && env
                .get("DEP_DOCA_DPA_BACKEND")
                .is_some_and(|b| b.trim() == Backend::Sim.as_str()));
    let out_dir = env
        .get_os("OUT_DIR")
        .map(PathBuf::from)
        .ok_or(SysError::MissingEnv("OUT_DIR"))?;
    let manifest_dir = env.get_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
    // The reference headers: doca-sim's own in sim builds; otherwise the -sys crate's
    // `reference/`, a symbolic link to doca-sim's `include/` in the repository that
    // `cargo package` turns into a copy, so a published -sys crate has them too.
    let reference_dir = env
        .get_os("DEP_DOCA_SIM_INCLUDE")
        .map(PathBuf::from)
        .or_else(|| manifest_dir.as_ref().map(|m| m.join("reference")))
        .ok_or(SysError::MissingEnv("CARGO_MANIFEST_DIR"))?;
    let device_include = env
        .get_os("DEP_DOCA_SIM_DEVICE_INCLUDE")
        .map(PathBuf::from)
        .or_else(|| Some(manifest_dir.as_ref()?.join("../doca-sim/device-include")));

    // 2. Backend.
    let choice = choose(env, sim_feature, || probe(&inputs))?;

    // Names asked about in the audit even when no header declares them.
    let extra_names: &[&str] = if set == BindingSet::Rdmi {
        HAND_DECLARABLE
    } else {
        &[]
    };
    let mut d = Directives::new();
    let mut absent_reason = None;
    let mut pkg_versions: Vec<(String, String)> = Vec::new();
    // How the bindings were made, for build_info (the hardware branches say).
    let mut bindings_made = "committed (the reference headers of doca-sim)".to_owned();
    // Every function the reference headers declare for the target (the `doca_sym`
    // check-cfg universe): the committed ones (`reference/`), which declare the newest
    // modelled release, not doca-sim's copy, which hides what is newer than the
    // release a sim build claims (crate::sim_version) and would make the cfgs of those
    // functions unexpected.
    let universe_dir = manifest_dir
        .as_ref()
        .map(|m| m.join("reference"))
        .filter(|d| d.join("doca_version.h").is_file())
        .unwrap_or_else(|| reference_dir.clone());
    let mut universe: BTreeSet<String> = declared_in(
        env,
        &crate::files_in(&universe_dir, "h").unwrap_or_default(),
        std::slice::from_ref(&universe_dir),
        &out_dir,
    )?
    .into_iter()
    .map(|d| d.name)
    .collect();

    // 3. Per backend.
    let (version, audit, include_dirs) = match (&choice.backend, &choice.install) {
        (Backend::Hardware, Some(install)) => {
            for w in &install.warnings {
                d.warning(w);
            }
            pkg_versions = install.pkg_config_versions();
            let include_dirs = install.include_dirs(&[]);
            let missing_module = optional(set).filter(|(m, ..)| !install.has(m));
            let bindings_path = out_dir.join("bindings.rs");
            let sel = resolve_headers(set, &include_dirs, &[]);
            let exports = if let Some((module, absent_cfg, _)) = missing_module {
                let what = set.display_name();
                let reason = format!(
                    "pkg-config found DOCA {} but no {module} module (PKG_CONFIG_PATH={}); \
                     this DOCA install has no {what}",
                    install.version,
                    install.pkg_config_path.to_string_lossy()
                );
                write(
                    &bindings_path,
                    &format!("{}\n// No {what} bindings: {reason}\n", GENERATED_HEADER),
                )?;
                d.cfg(absent_cfg);
                absent_reason = Some(reason);
                bindings_made = format!("none (this DOCA install has no {what})");
                Exports::known(Vec::<String>::new())
            } else {
                let made = if env.is_set("CARGO_FEATURE_BINDGEN") {
                    generated_bindings(set, &include_dirs)?
                } else {
                    let sys_manifest_dir = manifest_dir
                        .as_deref()
                        .ok_or(SysError::MissingEnv("CARGO_MANIFEST_DIR"))?;
                    let dirs = (sys_manifest_dir, out_dir.as_path());
                    bundled_bindings(set, env, dirs, &sel.used, &include_dirs)?
                };
                write(&bindings_path, &made.text)?;
                for h in sel.used.iter().chain(&made.read) {
                    d.rerun_if_changed(h);
                }
                bindings_made = made.how;
                // Link what pkg-config says, for this crate's modules.
                for dir in &install.link_dirs(CRATES[set as usize].1) {
                    d.link_search(dir);
                }
                for lib in &install.libs(CRATES[set as usize].1) {
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
                exports
            };
            // Without its module, the set's headers may not even compile (the real
            // doca_rdma.h includes rdma-core's <rdma/rdma_cma.h>): then nothing is declared.
            let declared = match declared_in(env, &sel.used, &include_dirs, &out_dir) {
                Err(_) if missing_module.is_some() => Vec::new(),
                declared => declared?,
            };
            let audit = Audit::build(&declared, extra_names, Some(&exports));
            (install.version, audit, include_dirs)
        }
        _ => {
            // Sim and docs (and, defensively, hardware without an install record).
            let unusable = |e: &dyn fmt::Display| SysError::ReferenceHeaders {
                dir: reference_dir.clone(),
                what: format!("doca_version.h: {e}"),
            };
            let text = std::fs::read_to_string(reference_dir.join("doca_version.h"))
                .map_err(|e| unusable(&e))?;
            let version = DocaVersion::from_version_header(&text).map_err(|e| unusable(&e))?;
            let dirs = vec![reference_dir.clone()];
            let sel = resolve_headers(set, &dirs, &[]);
            let decls = declared_in(env, &sel.used, &dirs, &out_dir)?;
            // The sim implements what the reference headers declare for the target.
            let mut exported: BTreeSet<String> = decls.iter().map(|d| d.name.clone()).collect();
            exported.extend(SIM_EXTRA_EXPORTS.iter().map(|s| (*s).to_owned()));
            let audit = Audit::build(&decls, extra_names, Some(&Exports::known(exported)));
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
        head.cfg_value(HAND_DECLARED_CFG, name);
    }
    head.extend(d);
    let mut d = head;

    let audit_path = out_dir.join("audit.tsv");
    write(&audit_path, &audit.to_tsv())?;
    let universe_path = out_dir.join("universe.txt");
    let universe_text: String = universe.iter().map(|name| format!("{name}\n")).collect();
    write(&universe_path, &universe_text)?;
    // The install's prefix (where its tools/dpacc is), hardware only.
    let hw_install = choice
        .install
        .as_ref()
        .filter(|_| choice.backend == Backend::Hardware);
    let doca_prefix = hw_install
        .and_then(|i| i.modules.get("doca-dpa"))
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
            (
                optional(set).map_or("RDMI_ABSENT_REASON", |o| o.2),
                absent_reason.as_deref(),
            ),
            &bindings_made,
            &audit,
        ),
    )?;

    // Whether the install has `module`: this crate's own answer for its optional
    // module, pkg-config's for another (sim and docs builds have every module).
    let present = |module: &str| match (&choice.install, optional(set)) {
        (_, Some((own, ..))) if own == module => absent_reason.is_none(),
        (Some(install), _) => install.has(module),
        (None, _) => true,
    };
    let presence = |module: &str| if present(module) { "present" } else { "absent" };
    d.metadata("backend", choice.backend.as_str());
    d.metadata("version", &version.to_string());
    d.metadata("audit", &audit_path.display().to_string());
    d.metadata("universe", &universe_path.display().to_string());
    d.metadata("include", &crate::join_paths(&include_dirs, ":"));
    for module in ["rdmi", "rdma", "comch", "verbs"] {
        d.metadata(module, presence(&format!("doca-{module}")));
    }
    // Where the DOCA device libraries are (dpacc's -device-libs -L), hardware only.
    if let Some(install) = hw_install {
        let dirs = install.link_dirs(&["doca-dpa"]);
        if !dirs.is_empty() {
            d.metadata("libdir", &crate::join_paths(&dirs, ":"));
        }
    }
    if let Some(p) = &doca_prefix {
        d.metadata("prefix", p);
    }
    // The sim's device headers are for sim (and docs) builds: a hardware build reads
    // no file of the simulator.
    if let Some(dev) = device_include.filter(|_| choice.backend != Backend::Hardware) {
        d.metadata("sim_device_include", &dev.display().to_string());
    }

    Ok(SysOutput {
        directives: d,
        backend: choice.backend,
        version,
        audit,
        absent_reason,
    })
}

/// The text of `build_info.rs`.
pub fn build_info(
    backend: Backend,
    version: DocaVersion,
    pkg_config_versions: &[(String, String)],
    doca_prefix: Option<&str>,
    (absent_reason_const, absent_reason): (&str, Option<&str>),
    bindings: &str,
    audit: &Audit,
) -> String {
    let pkg_config_versions: String = pkg_config_versions
        .iter()
        .map(|(m, v)| format!("({m:?}, {v:?}), "))
        .collect();
    format!(
        "// generated by doca-build-support; do not edit\n\n\
         /// The backend these bindings were built for: `\"hardware\"`, `\"sim\"` or `\"docs\"`.\n\
         pub const BACKEND: &str = {backend:?};\n\n\
         /// The DOCA version the bindings were built for.\n\
         pub const DOCA_VERSION: &str = {version:?};\n\n\
         /// `(pkg-config module, version)` of the DOCA modules found (empty unless the\n\
         /// backend is hardware).\n\
         pub const PKG_CONFIG_VERSIONS: &[(&str, &str)] = &[{pkg_config_versions}];\n\n\
         /// The `prefix` of doca-dpa's pkg-config module (where the install's `tools/dpacc`\n\
         /// is), when the backend is hardware and the module has one.\n\
         pub const DOCA_PREFIX: Option<&str> = {doca_prefix:?};\n\n\
         /// Why this build has no {absent_what}, when it has none.\n\
         pub const {absent_reason_const}: Option<&str> = {absent_reason:?};\n\n\
         /// How the bindings were made: bindgen over the installed headers (the `bindgen`\n\
         /// feature), the bundled ones checked against the installed headers, or the committed\n\
         /// ones of the reference headers (sim and docs builds).\n\
         pub const BINDINGS: &str = {bindings:?};\n\n{}",
        audit.to_rust_table(),
        backend = backend.as_str(),
        version = version.to_string(),
        absent_what = absent_reason_const
            .strip_suffix("_ABSENT_REASON")
            .unwrap_or(absent_reason_const),
    )
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
    (sys_manifest_dir, out_dir): (&Path, &Path),
    set_headers: &[PathBuf],
    include_dirs: &[PathBuf],
) -> Result<MadeBindings, SysError> {
    if set_headers.is_empty() {
        return Err(SysError::Bundled(format!(
            "none of the {} headers ({}) is in {}; the install is incomplete",
            set.name(),
            set.headers().join(", "),
            crate::join_paths(include_dirs, ", ")
        )));
    }
    let committed_path = set.committed_path(sys_manifest_dir);
    let committed =
        std::fs::read_to_string(&committed_path).map_err(|e| io_err(&committed_path, e))?;
    let check_path = set.check_path(sys_manifest_dir);
    let check_text = std::fs::read_to_string(&check_path).map_err(|e| io_err(&check_path, e))?;
    let report = check::check(
        env,
        set,
        &committed,
        &check_text,
        set_headers,
        include_dirs,
        out_dir,
    )
    .map_err(|e| match e {
        CheckError::Uncovered(_) => SysError::Bundled(format!("{}: {e}", committed_path.display())),
        other => SysError::NotConforming {
            set,
            include_dirs: include_dirs.to_vec(),
            report: other.to_string(),
        },
    })?;
    let version_header = (set == BindingSet::Dpa).then_some(report.version_defines.as_str());
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
mod tests;
