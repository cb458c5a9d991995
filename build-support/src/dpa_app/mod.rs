//! Building DPA applications (the device code of DPA kernels) from a build script.
//!
//! (Compiled, not run: it is a build script, which needs the environment cargo gives one.)
//!
//! ```no_run
//! // build.rs of a package that depends directly on doca-dpa-sys (so that its build
//! // script receives the DEP_DOCA_DPA_* metadata):
//! doca_build_support::dpa_app::DpaApp::new("doca_examples") // dpacc's --app-name
//!     .sources_in("examples/kernels")                          // every *.c, sorted
//!     .include("examples/kernels/include")                     // optional
//!     .define("FOO", Some("1"))                                // optional
//!     .build_or_exit();
//! ```
//!
//! What [`DpaApp::build`] does depends on the backend doca-dpa-sys was built for
//! (`DEP_DOCA_DPA_BACKEND`):
//!
//! * **hardware**: runs `dpacc` ([`locate_dpacc`]: `$DPACC`, else the found DOCA
//!   install's `tools/dpacc`, else `dpacc` on `PATH`, else
//!   `/opt/mellanox/doca/tools/dpacc`) after checking how it pairs with DOCA
//!   ([`pair_dpacc`]: the install's own dpacc is accepted as is, a pairing
//!   [`KNOWN_DPACC_PAIRINGS`] contradicts for certain is an error, anything else builds,
//!   with a warning where unconfirmed; `DOCA_DPACC_SKIP_VERSION_CHECK=1` turns the errors
//!   into warnings). The sources are scanned with the install's headers and the DPA
//!   toolchain's own (`dpaintrin.h`, found beside dpacc), never the simulator's. The
//!   command line per DOCA release is [`dpacc_command`]; from DOCA 3.2 the process
//!   attributes ([`DpaApp::proc_attributes`]) become a blob by `dpa-app-attributes2blob`.
//! * **sim**: the software DPA (doca-sim) runs kernels on host threads. The same C sources
//!   are compiled for the host against doca-sim's device headers
//!   (`DEP_DOCA_DPA_SIM_DEVICE_INCLUDE`) and, after them, the host headers
//!   (`DEP_DOCA_DPA_INCLUDE`, as dpacc is given `-I<DOCA>/include`), together with a generated file
//!   ([`sim_app_source`]) that describes every device function to the sim and defines
//!   the application symbol.
//! * **docs**: nothing is built (documentation builds run no kernel).
//!
//! Either way the result is the static library `OUT_DIR/lib<lib>.a`, which defines
//! `struct doca_dpa_app *<app name>` and one host symbol per device function, as the C
//! samples expect, and `OUT_DIR/lib<lib>_launchers.a`, the generated launchers. The
//! build script emits no `rustc-link-lib` for them: the generated Rust declarations
//! carry the `#[link]` attributes, so whichever crate includes them with
//! `doca_dpa::include_app!` links the archives — a binary that declares an app needs no
//! `extern crate` of the package that built it, and a program never links an app it
//! does not declare. The build script only adds `OUT_DIR` to the library search path,
//! which cargo passes on to every target of the package and to dependants.
//! `include_app!` of a name this build script did not build is a compile error that
//! lists the applications it did build ([`APP_INDEX_FILE`]). The build also sets the
//! `doca_backend` cfg (`"hardware"`, `"sim"` or `"docs"`) for the package, so its
//! sim-only tests can say `#![cfg(doca_backend = "sim")]`.
//!
//! Rules to know:
//!
//! * A hand-written declaration of the application (generated ones cannot differ) must list the same
//!   device functions, with the same parameter C types, as the sources: DOCA passes
//!   launch arguments through a C variadic call and reads them back by the kernel's
//!   declared types, so a mismatch is undefined behaviour on hardware and garbage in the
//!   sim. [`BuiltApp::kernels`] (sim) lists what the sources define.
//! * In the sim, the sources of one application form one translation unit: they share
//!   file scope, so two `static` helpers with the same name in two files collide (dpacc
//!   compiles the files separately). Device functions must be defined in the `.c`
//!   sources, not in headers, to be found.
//! * In the sim, parameters must be 4- or 8-byte integers, handles or pointers, at most
//!   32 of them; structs or unions by value, arrays, function pointers, floating point
//!   and narrower types are refused with an error naming the file, the function and the
//!   parameter. `__dpa_rpc__` functions return `uint64_t`.
//! * The application name is a global C symbol of the final program, in both backends.
//!   So are device function names on hardware (dpacc's host code): two applications
//!   linked into one program cannot define functions of the same name there. In the sim
//!   each function is called through a symbol of its application's own
//!   ([`sim_kernel_symbol`]), so two applications with functions of the same name each
//!   run their own. A device function declared `weak` is refused in both backends
//!   ([`DpaAppError::WeakDeviceFunction`]): another definition of its name could
//!   replace it at link time.
//!
//! Every variable is read through [`EnvReader`], so cargo reruns the build script when
//! one changes.

mod dpacc;
mod error;
mod expand;
mod hardware;
mod host_decls;
mod launchers;
pub(crate) mod parse;
pub(crate) mod sim;
mod sim_source;
mod tools;

#[cfg(test)]
mod tests;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

pub use dpacc::{
    device_libs, dpacc_command, is_dpacc_of_prefix, mcpu_list, pair_dpacc, pair_dpacc_in,
    parse_dpacc_version, prefix_dpacc, takes_proc_attr, DpaccOptions, DpaccPairing, DpaccVersion,
    KnownPairing, DEVICE_OPTIONS, HOST_OPTIONS, KNOWN_DPACC_PAIRINGS, PROC_ATTR_SINCE,
};
pub use error::{DpaAppError, ParamRefusal};
pub use expand::write_scan_prelude;
pub use hardware::DEFAULT_PROC_ATTRIBUTES;
pub use host_decls::{
    declaration_asserts, declared_structs, launcher_source, launcher_symbol, rust_param,
    rust_source, struct_layout, struct_layout_asserts, RustParam,
};
pub use launchers::{app_index_source, rust_file_name, APP_INDEX_FILE};
pub use parse::{
    parse_device_functions, parse_structs, DeviceFunction, Field, FunctionKind, Param, StructDef,
    MAX_KERNEL_ARGS,
};
pub use sim::{HOST_INCLUDE_ENV, SIM_DEVICE_INCLUDE_ENV};
pub use sim_source::{sim_app_source, sim_kernel_symbol};
pub use tools::{
    locate_dpacc, ATTRS2BLOB_ENV, ATTRS2BLOB_NAME, DEFAULT_ATTRS2BLOB, DEFAULT_DPACC, DPACC_ENV,
    SKIP_VERSION_CHECK_ENV,
};

use crate::backend::Backend;
use crate::cfgs::Directives;
use crate::env::EnvReader;

/// The variable (links metadata of doca-dpa-sys) that names the backend.
pub const BACKEND_ENV: &str = "DEP_DOCA_DPA_BACKEND";

/// The hint for metadata that doca-dpa-sys provides.
const DEP_HINT: &str = "it is links metadata of doca-dpa-sys, which the `doca` facade passes on: \
                        make `doca` (or doca-dpa-sys) a [dependencies] entry of the package whose \
                        build script builds the DPA app";

/// The links metadata `DEP_DOCA_DPA_<KEY>` (`name`) of doca-dpa-sys, or, when
/// doca-dpa-sys is not a direct dependency, the same value as the `doca` facade
/// (`links = "doca"`) passes it on: `DEP_DOCA_<KEY>`. So a user crate that depends on
/// `doca` alone can build DPA apps.
pub(crate) fn dep_metadata(env: &EnvReader, name: &str) -> Option<OsString> {
    env.get_os(name).or_else(|| {
        let key = name.strip_prefix("DEP_DOCA_DPA_")?;
        env.get_os(&format!("DEP_DOCA_{key}"))
    })
}

/// [`dep_metadata`] as a `:`-separated list of directories (empty ones dropped).
pub(crate) fn dep_paths(env: &EnvReader, name: &str) -> Vec<PathBuf> {
    let value = dep_metadata(env, name).unwrap_or_default();
    std::env::split_paths(&value)
        .filter(|p| !p.as_os_str().is_empty())
        .collect()
}

/// [`dep_metadata`] as text (lossy, so a typo stays visible), which must be set.
pub(crate) fn dep_text(env: &EnvReader, name: &'static str) -> Result<String, DpaAppError> {
    dep_metadata(env, name)
        .map(|v| v.to_string_lossy().into_owned())
        .ok_or_else(|| missing_dep(name))
}

/// [`DpaAppError::MissingEnv`] for the links metadata `name` of doca-dpa-sys.
pub(crate) fn missing_dep(name: &'static str) -> DpaAppError {
    DpaAppError::MissingEnv {
        name,
        hint: DEP_HINT,
    }
}

/// [`DpaAppError::Io`] for `path`, with `e` as its message.
pub(crate) fn io_err(path: &Path, e: impl std::fmt::Display) -> DpaAppError {
    DpaAppError::Io {
        path: path.to_owned(),
        message: e.to_string(),
    }
}

/// C keywords (C11, C23's and the common extensions), which cannot name an application.
const C_KEYWORDS: &str = "auto break case char const continue default do double else enum \
    extern float for goto if inline int long register restrict return short signed sizeof \
    static struct switch typedef union unsigned void volatile while _Alignas _Alignof _Atomic \
    _Bool _Complex _Generic _Imaginary _Noreturn _Static_assert _Thread_local asm typeof bool \
    true false alignas alignof nullptr static_assert thread_local";

/// Checks that `name` can be dpacc's `--app-name` and a C symbol.
pub fn validate_app_name(name: &str) -> Result<(), DpaAppError> {
    let reason = match name.chars().next() {
        None => "it is empty",
        Some(c) if !(c == '_' || c.is_ascii_alphabetic()) => "it must start with a letter or `_`",
        _ if !name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric()) => {
            "it may contain only ASCII letters, digits and `_`"
        }
        _ if C_KEYWORDS.split_whitespace().any(|k| k == name) => "it is a C keyword",
        _ if name.starts_with("doca_sim_gen_") => {
            "names starting with doca_sim_gen_ are used by the generated code"
        }
        _ => return Ok(()),
    };
    Err(DpaAppError::InvalidAppName {
        name: name.to_owned(),
        reason,
    })
}

/// Where the sources come from, in the order given.
#[derive(Debug, Clone, PartialEq, Eq)]
enum SourceSpec {
    File(PathBuf),
    Dir(PathBuf),
}

/// A DPA application to build from a build script. See the [module docs](self).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DpaApp {
    name: String,
    sources: Vec<SourceSpec>,
    include_dirs: Vec<PathBuf>,
    defines: Vec<(String, Option<String>)>,
    proc_attributes: Option<PathBuf>,
}

/// What [`DpaApp::build`] produced.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct BuiltApp {
    /// The application name (`--app-name`, and the C symbol).
    pub app_name: String,
    /// The backend it was built for.
    pub backend: Backend,
    /// The library name (`doca_dpa_app_<app name>`), linked by the `#[link]` of the
    /// generated declarations.
    pub lib_name: String,
    /// `OUT_DIR/lib<lib_name>.a` (none for the docs backend).
    pub archive: Option<PathBuf>,
    /// The sources, absolute, in build order.
    pub sources: Vec<PathBuf>,
    /// The device functions found in the sources.
    pub kernels: Vec<DeviceFunction>,
    /// The generated C file (sim backend).
    pub generated_c: Option<PathBuf>,
    /// The generated Rust declarations (`OUT_DIR/doca_dpa_app_<app>.rs`), which
    /// `doca_dpa::include_app!(<app>)` includes.
    pub rust_declarations: Option<PathBuf>,
    /// `OUT_DIR/lib<lib_name>_launchers.a`: the generated host launchers (not for the
    /// docs backend).
    pub launchers: Option<PathBuf>,
    /// The dpacc that ran (hardware backend).
    pub dpacc: Option<PathBuf>,
    /// Its arguments (hardware backend).
    pub dpacc_args: Vec<OsString>,
    /// The cargo directives (rerun-if-changed, link, warnings); [`DpaApp::build`] prints
    /// them, [`DpaApp::build_with_env`] leaves that to the caller.
    pub directives: Directives,
}

/// The application with its paths resolved, shared by the backends.
#[derive(Debug)]
pub(crate) struct Resolved {
    pub(crate) app_name: String,
    pub(crate) lib_name: String,
    pub(crate) out_dir: PathBuf,
    pub(crate) sources: Vec<PathBuf>,
    pub(crate) include_dirs: Vec<PathBuf>,
    pub(crate) defines: Vec<(String, Option<String>)>,
    pub(crate) proc_attributes: Option<PathBuf>,
    /// The DPA toolchain's own include directories (hardware: those of the dpacc the
    /// build uses; empty otherwise).
    pub(crate) toolchain_include_dirs: Vec<PathBuf>,
    /// The package's manifest directory, which generated docs name sources relative to.
    pub(crate) manifest_dir: Option<PathBuf>,
}

impl Resolved {
    /// The application's archive, `OUT_DIR/lib<lib_name>.a`.
    pub(crate) fn archive(&self) -> PathBuf {
        self.out_dir.join(format!("lib{}.a", self.lib_name))
    }

    /// `path` as generated documentation shows it: relative to the package when it is
    /// inside it (no build machine's absolute path in published docs).
    pub(crate) fn shown_path(&self, path: &Path) -> PathBuf {
        self.manifest_dir
            .as_deref()
            .and_then(|m| path.strip_prefix(m).ok())
            .map_or_else(|| path.to_owned(), Path::to_owned)
    }
}

impl DpaApp {
    /// An application named `app_name`: dpacc's `--app-name` and the C symbol
    /// `struct doca_dpa_app *<app_name>`. It must be a C identifier; that is checked
    /// when building.
    pub fn new(app_name: impl Into<String>) -> Self {
        DpaApp {
            name: app_name.into(),
            sources: Vec::new(),
            include_dirs: Vec::new(),
            defines: Vec::new(),
            proc_attributes: None,
        }
    }

    /// Adds one source file (relative paths are relative to the package's manifest
    /// directory).
    pub fn source(mut self, path: impl AsRef<Path>) -> Self {
        self.sources
            .push(SourceSpec::File(path.as_ref().to_owned()));
        self
    }

    /// Adds source files, in the order given.
    pub fn sources<I, P>(self, paths: I) -> Self
    where
        I: IntoIterator<Item = P>,
        P: AsRef<Path>,
    {
        paths.into_iter().fold(self, Self::source)
    }

    /// Adds every `*.c` file of `dir` (not its subdirectories), sorted by name. The
    /// directory is watched, so a new file reruns the build script.
    pub fn sources_in(mut self, dir: impl AsRef<Path>) -> Self {
        self.sources.push(SourceSpec::Dir(dir.as_ref().to_owned()));
        self
    }

    /// Adds an include directory for the device compilation.
    pub fn include(mut self, dir: impl AsRef<Path>) -> Self {
        self.include_dirs.push(dir.as_ref().to_owned());
        self
    }

    /// Defines a preprocessor macro for the device compilation (`-DNAME` or
    /// `-DNAME=VALUE`).
    pub fn define(mut self, name: &str, value: Option<&str>) -> Self {
        self.defines
            .push((name.to_owned(), value.map(str::to_owned)));
        self
    }

    /// The process-attributes YAML given to `dpa-app-attributes2blob` (hardware, DOCA 3.2
    /// and later; ignored with a warning before 3.2, unused by the sim). Without it a
    /// file listing no feature (`Feature_list:`) is used.
    pub fn proc_attributes(mut self, yaml: impl AsRef<Path>) -> Self {
        self.proc_attributes = Some(yaml.as_ref().to_owned());
        self
    }

    /// Builds the application, reading the process environment, and on success prints
    /// the cargo directives (the variables read, then [`BuiltApp::directives`]). On
    /// failure it prints none: cargo runs a build script that failed again on the next
    /// build whatever it declared, and anything printed to stdout would stand above the
    /// error in cargo's report.
    pub fn build(&self) -> Result<BuiltApp, DpaAppError> {
        let env = EnvReader::from_process_deferred();
        let built = self.build_with_env(&env)?;
        env.declarations().print();
        built.directives.print();
        Ok(built)
    }

    /// [`DpaApp::build`], but on failure prints [`DpaApp::failure_report`] to stderr and
    /// exits with status 1 (cargo then shows it as the build script's failure).
    pub fn build_or_exit(&self) -> BuiltApp {
        self.build().unwrap_or_else(|e| {
            eprintln!("\n{}\n", self.failure_report(&e));
            std::process::exit(1)
        })
    }

    /// What [`DpaApp::build_or_exit`] prints when the build failed with `e`: an `error:`
    /// line naming the application. A source the C compiler refused is reported as
    /// cargo reports rustc's errors: the compiler's message first, then that line.
    pub fn failure_report(&self, e: &DpaAppError) -> String {
        match e {
            DpaAppError::SourceCompile { file, message } => format!(
                "{}\nerror: DPA application `{}`: {} does not compile (the C compiler's \
                 message is above)",
                message.trim_end(),
                self.name,
                file.display()
            ),
            e => format!("error: DPA application `{}`: {e}", self.name),
        }
    }

    /// Builds the application with the variables of `env`, without printing the
    /// directives (they are in [`BuiltApp::directives`]).
    pub fn build_with_env(&self, env: &EnvReader) -> Result<BuiltApp, DpaAppError> {
        let tools = hardware::ToolDefaults {
            dpacc: DEFAULT_DPACC.into(),
            attrs2blob: DEFAULT_ATTRS2BLOB.into(),
        };
        self.build_inner(env, &tools)
    }

    pub(crate) fn build_inner(
        &self,
        env: &EnvReader,
        tools: &hardware::ToolDefaults,
    ) -> Result<BuiltApp, DpaAppError> {
        validate_app_name(&self.name)?;
        let backend_text = dep_text(env, BACKEND_ENV)?;
        let backend = Backend::parse(backend_text.trim()).ok_or(DpaAppError::UnknownBackend {
            value: backend_text.clone(),
        })?;
        let mut d = Directives::new();
        // The package can tell the backends apart (`#[cfg(doca_backend = "sim")]` on
        // tests that use `doca::sim`), as doca-rs's own crates do.
        d.check_cfg_values(
            crate::cfgs::BACKEND_CFG,
            Backend::ALL.iter().map(|b| b.as_str()),
        );
        d.backend(backend);
        let mut r = self.resolve(env, &mut d)?;
        if backend == Backend::Hardware {
            r.toolchain_include_dirs = hardware::dpacc_include_dirs(env, tools);
        }
        // Every backend (docs too) gets the Rust declarations, generated from the C.
        // The sources as the kernel compile sees them; the compiler then checks what
        // the scan understood (see `expand`).
        let scan = expand::scan(env, &r, backend)?;
        // A header a source includes gives struct layouts too: edit it, rebuild.
        // (The sources themselves are watched already; naming them again is harmless.)
        for file in &scan.read {
            d.rerun_if_changed(file);
        }
        host_decls::check_functions(&scan.kernels, &scan.structs)?;
        expand::check_declarations(env, &r, backend, &scan)?;
        let rust_declarations = Some(launchers::write_rust(&r, &scan, backend)?);
        let (generated_c, dpacc, dpacc_args) = match backend {
            Backend::Sim => (Some(sim::build(env, &r, &scan, &mut d)?), None, Vec::new()),
            Backend::Hardware => {
                let (dpacc, args) = hardware::build(env, &r, tools, &mut d)?;
                (None, Some(dpacc), args)
            }
            Backend::Docs => (None, None, Vec::new()),
        };
        // Every backend but docs builds the application's archive and its launchers'.
        let archives = backend != Backend::Docs;
        let launchers = archives
            .then(|| launchers::build(env, &r, &scan, backend, &mut d))
            .transpose()?;
        let archive = archives.then(|| r.archive());
        Ok(BuiltApp {
            app_name: r.app_name,
            backend,
            lib_name: r.lib_name,
            archive,
            sources: r.sources,
            kernels: scan.kernels,
            generated_c,
            rust_declarations,
            launchers,
            dpacc,
            dpacc_args,
            directives: d,
        })
    }

    /// Resolves paths, lists directories and declares every input to cargo.
    fn resolve(&self, env: &EnvReader, d: &mut Directives) -> Result<Resolved, DpaAppError> {
        let out_dir = env
            .get_os("OUT_DIR")
            .map(PathBuf::from)
            .ok_or(DpaAppError::MissingEnv {
                name: "OUT_DIR",
                hint: "cargo sets it for build scripts",
            })?;
        let base = env.get_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
        let abs = |p: &Path| match &base {
            Some(b) if p.is_relative() => b.join(p),
            _ => p.to_owned(),
        };
        let mut sources: Vec<PathBuf> = Vec::new();
        for spec in &self.sources {
            let files = match spec {
                SourceSpec::File(p) => vec![abs(p)],
                SourceSpec::Dir(dir) => {
                    let dir = abs(dir);
                    let files = crate::files_in(&dir, "c").map_err(|e| io_err(&dir, e))?;
                    if files.is_empty() {
                        return Err(DpaAppError::EmptySourceDir { dir });
                    }
                    d.rerun_if_changed(&dir);
                    files
                }
            };
            // Sources are kept by canonical path (what the generated C includes), once each.
            for p in files {
                let canonical = std::fs::canonicalize(&p).map_err(|e| io_err(&p, e))?;
                if !canonical.is_file() {
                    return Err(io_err(&p, "not a file"));
                }
                if !sources.contains(&canonical) {
                    d.rerun_if_changed(&canonical);
                    sources.push(canonical);
                }
            }
        }
        if sources.is_empty() {
            return Err(DpaAppError::NoSources {
                app: self.name.clone(),
            });
        }
        let include_dirs: Vec<PathBuf> = self.include_dirs.iter().map(|p| abs(p)).collect();
        for dir in &include_dirs {
            if !dir.is_dir() {
                return Err(io_err(dir, "include directory not found"));
            }
            d.rerun_if_changed(dir);
        }
        if let Some((name, _)) = self.defines.iter().find(|(n, _)| !parse::is_ident(n)) {
            return Err(DpaAppError::InvalidDefine { name: name.clone() });
        }
        let proc_attributes = self.proc_attributes.as_deref().map(abs);
        if let Some(p) = &proc_attributes {
            if !p.is_file() {
                return Err(io_err(p, "process-attributes file not found"));
            }
            d.rerun_if_changed(p);
        }
        Ok(Resolved {
            app_name: self.name.clone(),
            lib_name: format!("doca_dpa_app_{}", self.name),
            out_dir,
            sources,
            include_dirs,
            defines: self.defines.clone(),
            proc_attributes,
            toolchain_include_dirs: Vec::new(),
            manifest_dir: base.and_then(|b| std::fs::canonicalize(b).ok()),
        })
    }
}
