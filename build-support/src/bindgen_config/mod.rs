//! The one bindgen configuration, used by the -sys build scripts (hardware backend, over
//! the installed headers) and by `doca-regen-bindings` (over the reference headers, for
//! the committed bindings).
//!
//! * [`BindingSet::Dpa`]: DOCA Core + DPA ([`DPA_HEADERS`]); items defined in those files.
//! * [`BindingSet::Verbs`]: DOCA Verbs ([`VERBS_HEADERS`]); everything the Dpa set
//!   defines is blocklisted, so the Verbs bindings reuse the DPA ones through a `use`
//!   line given in [`BindgenOptions::raw_lines`] (`use doca_dpa_sys::*;` in -sys builds,
//!   `use super::dpa::*;` in the committed copy).
//! * [`BindingSet::Rdmi`]: DOCA RDMI ([`RDMI_HEADERS`]), reusing the Dpa and Verbs sets'
//!   items the same way (a `use` line for each).
//! * [`BindingSet::Rdma`]: DOCA RDMA's `doca_rdma.h` ([`RDMA_HEADERS`]), reusing the Dpa
//!   set's items as the Verbs set does.
//! * [`BindingSet::Comch`]: the DPA part of DOCA Comch ([`COMCH_HEADERS`]: message
//!   queues, consumers, producers), reusing the Dpa set's items as the Verbs set does.
//!
//! Settings: C enums as constants (never Rust enums), `-DDOCA_ALLOW_EXPERIMENTAL_API`
//! and `-DDOCA_ALLOW_DEPRECATED_API`, no doc comments (the -sys crates are raw
//! bindings; the safe crates document what each call does), no layout tests, `Default` derived, `size_t` as `usize`, enum constant
//! names not prefixed, Rust 1.85 / edition 2021, and the header line
//! [`GENERATED_HEADER`].

use std::path::PathBuf;

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use bindgen::callbacks::{
    DiscoveredItem, DiscoveredItemId, EnumVariantValue, IntKind, MacroParsingBehavior,
    ParseCallbacks, SourceLocation,
};

use crate::audit::BINDGEN_DEFINES;

pub use crate::binding_set::{
    resolve_headers, BindingSet, HeaderSelection, COMCH_HEADERS, DPA_HEADERS, GENERATED_HEADER,
    RDMA_HEADERS, RDMI_HEADERS, VERBS_HEADERS,
};

/// What differs between users of the configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BindgenOptions {
    /// Lines placed after [`GENERATED_HEADER`] (the `use` lines of the reused sets'
    /// bindings, [`BindingSet::use_lines`]).
    pub raw_lines: Vec<String>,
    /// Have bindgen run `rustfmt` (`$RUSTFMT` or `rustfmt` on `PATH`, edition 2021) on
    /// the output (the committed copies are formatted; a build script does not need it).
    /// Where rustfmt cannot run, bindgen warns and leaves the text unformatted, which the
    /// freshness test of the committed copies (`bindings_fresh`) then refuses.
    pub rustfmt: bool,
    /// Headers of the set to leave out even when present.
    pub skip_headers: Vec<String>,
    /// Extra clang arguments.
    pub clang_args: Vec<String>,
}

impl BindgenOptions {
    /// Options for a -sys build script (hardware backend).
    pub fn for_sys(set: BindingSet) -> Self {
        BindgenOptions {
            raw_lines: set.use_lines(true),
            ..BindgenOptions::default()
        }
    }

    /// Options for the committed copies (`doca-dpa-sys/bundled/`, `doca-rdmi-sys/bundled/`).
    pub fn for_committed(set: BindingSet) -> Self {
        BindgenOptions {
            raw_lines: set.use_lines(false),
            rustfmt: true,
            ..BindgenOptions::default()
        }
    }
}

/// A regex for a header file path ending in `name`.
fn file_regex(name: &str) -> String {
    format!(".*/{}", name.replace('.', "\\."))
}

/// The parse callbacks: only `DOCA_*` / `doca_*` macros.
#[derive(Debug, Default)]
pub struct Callbacks;

impl ParseCallbacks for Callbacks {
    fn will_parse_macro(&self, name: &str) -> MacroParsingBehavior {
        if name.starts_with("DOCA_") || name.starts_with("doca_") {
            MacroParsingBehavior::Default
        } else {
            MacroParsingBehavior::Ignore
        }
    }
}

/// Records the name of every item bindgen emits (and of every macro and enumerator it
/// reads).
#[derive(Debug, Default)]
struct ItemNames(Arc<Mutex<BTreeSet<String>>>);

impl ItemNames {
    fn add(&self, name: &str) {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(name.to_owned());
    }
}

impl ParseCallbacks for ItemNames {
    fn new_item_found(
        &self,
        _: DiscoveredItemId,
        item: DiscoveredItem,
        _: Option<&SourceLocation>,
    ) {
        match &item {
            DiscoveredItem::Struct { final_name, .. }
            | DiscoveredItem::Union { final_name, .. }
            | DiscoveredItem::Enum { final_name }
            | DiscoveredItem::Function { final_name }
            | DiscoveredItem::Constant { final_name }
            | DiscoveredItem::Variable { final_name } => self.add(final_name),
            DiscoveredItem::Alias { alias_name, .. } => self.add(alias_name),
            _ => {}
        }
    }

    fn int_macro(&self, name: &str, _: i64) -> Option<IntKind> {
        self.add(name);
        None
    }

    fn str_macro(&self, name: &str, _: &[u8]) {
        self.add(name);
    }

    fn enum_variant_name(
        &self,
        _: Option<&str>,
        name: &str,
        _: EnumVariantValue,
    ) -> Option<String> {
        self.add(name);
        None
    }
}

/// The names of the items `set`'s bindings define over `include_dirs` (bindgen's own
/// account, from a run over those headers): the sets that reuse it blocklist them,
/// reaching them through a `use` of its bindings instead. Empty when that run fails
/// (`set`'s bindings then fail too).
fn item_names(set: BindingSet, include_dirs: &[PathBuf]) -> BTreeSet<String> {
    let names = Arc::new(Mutex::new(BTreeSet::new()));
    let run = builder(set, include_dirs, &BindgenOptions::default())
        .parse_callbacks(Box::new(ItemNames(Arc::clone(&names))))
        .generate();
    if run.is_err() {
        return BTreeSet::new();
    }
    let names = names.lock().unwrap_or_else(|e| e.into_inner());
    names.clone()
}

/// The settings every generation shares (see the module documentation), without
/// headers or allow/block lists.
fn base_builder(include_dirs: &[PathBuf], opts: &BindgenOptions) -> bindgen::Builder {
    let target = bindgen::RustTarget::stable(85, 0).unwrap_or(bindgen::LATEST_STABLE_RUST);
    let b = bindgen::Builder::default()
        .rust_target(target)
        .rust_edition(bindgen::RustEdition::Edition2021)
        .disable_header_comment()
        .raw_line(GENERATED_HEADER)
        .formatter(if opts.rustfmt {
            bindgen::Formatter::Rustfmt
        } else {
            bindgen::Formatter::None
        })
        .default_enum_style(bindgen::EnumVariation::Consts)
        .prepend_enum_name(false)
        .layout_tests(false)
        .derive_default(true)
        .size_t_is_usize(true)
        .generate_comments(false)
        .merge_extern_blocks(true)
        .parse_callbacks(Box::new(Callbacks))
        .clang_args(BINDGEN_DEFINES.iter().map(|m| format!("-D{m}")))
        .clang_args(include_dirs.iter().map(|d| format!("-I{}", d.display())))
        .clang_args(&opts.clang_args);
    (opts.raw_lines.iter()).fold(b, |b, line| b.raw_line(line))
}

/// Leaves out everything the sets `lib` reuses ([`BindingSet::reused`]) define over
/// `include_dirs`, which its bindings reach through `use` lines instead.
fn reuse_sets(
    mut b: bindgen::Builder,
    lib: BindingSet,
    include_dirs: &[PathBuf],
) -> bindgen::Builder {
    for &reused in lib.reused() {
        for h in reused.headers() {
            b = b.blocklist_file(file_regex(h));
        }
        for n in item_names(reused, include_dirs) {
            b = b.blocklist_item(n);
        }
    }
    b
}

/// The configured builder for `lib` over `include_dirs`. Headers of the set that are not
/// found are skipped ([`resolve_headers`] tells which).
pub fn builder(
    lib: BindingSet,
    include_dirs: &[PathBuf],
    opts: &BindgenOptions,
) -> bindgen::Builder {
    let selection = resolve_headers(lib, include_dirs, &opts.skip_headers);
    let mut b = base_builder(include_dirs, opts);
    for h in lib.headers() {
        b = b.allowlist_file(file_regex(h));
    }
    b = reuse_sets(b, lib, include_dirs);
    for h in &selection.used {
        b = b.header(h.display().to_string());
    }
    b
}

/// Why bindings could not be generated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// None of the set's headers is in the include directories.
    #[error(
        "none of the {} headers ({}) is in {}",
        .set.name(), .set.headers().join(", "), crate::join_paths(.include_dirs, ", ")
    )]
    NoHeaders {
        /// The set.
        set: BindingSet,
        /// The directories searched.
        include_dirs: Vec<PathBuf>,
    },
    /// libclang could not be loaded (bindgen loads it at run time), or it has no builtin
    /// headers.
    #[error(
        "bindgen could not use libclang ({0}); install libclang with its headers (e.g. the \
         libclang-dev package) or set LIBCLANG_PATH to the directory holding libclang.so"
    )]
    Libclang(String),
    /// bindgen (clang) failed on the headers.
    #[error("bindgen failed: {0}")]
    Bindgen(String),
}

impl Error {
    /// True when the failure is that libclang is not available on this machine.
    pub fn is_libclang_missing(&self) -> bool {
        matches!(self, Error::Libclang(_))
    }
}

fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "bindgen panicked".to_owned())
}

/// Runs bindgen, turning its panics (it panics when libclang cannot be loaded) into
/// errors. While it runs, the panic hook stays silent about libclang-loading panics (the
/// error carries the message) and reports every other panic as before. Runs are
/// serialised: libclang is not meant to be driven from several threads at once.
fn generate_quietly(
    b: bindgen::Builder,
) -> std::thread::Result<Result<bindgen::Bindings, bindgen::BindgenError>> {
    static RUNS: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _serial = RUNS.lock().unwrap_or_else(|e| e.into_inner());
    let previous = std::sync::Arc::new(std::panic::take_hook());
    let delegate = previous.clone();
    std::panic::set_hook(Box::new(move |info| {
        if !panic_text(info.payload()).contains("libclang") {
            delegate(info);
        }
    }));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || b.generate()));
    // Put the previous hook back (ours holds the only other reference to it).
    drop(std::panic::take_hook());
    match std::sync::Arc::try_unwrap(previous) {
        Ok(hook) => std::panic::set_hook(hook),
        Err(shared) => std::panic::set_hook(Box::new(move |info| shared(info))),
    }
    result
}

/// Generates the bindings of `lib` as text (formatted when `opts.rustfmt`).
pub fn generate(
    lib: BindingSet,
    include_dirs: &[PathBuf],
    opts: &BindgenOptions,
) -> Result<String, Error> {
    let selection = resolve_headers(lib, include_dirs, &opts.skip_headers);
    if selection.used.is_empty() {
        return Err(Error::NoHeaders {
            set: lib,
            include_dirs: include_dirs.to_vec(),
        });
    }
    run(builder(lib, include_dirs, opts))
}

/// Whether libclang lacks its own builtin headers (`stddef.h`…): a common half install
/// (Ubuntu's `libclang1` without `libclang-common-N-dev`), in which every header fails
/// to parse. Asked of libclang itself, after a failure, with a file that includes
/// nothing else: the headers' own errors are not this.
fn builtin_headers_missing() -> Option<Error> {
    let b = bindgen::Builder::default().header_contents("doca_rs_probe.h", "#include <stddef.h>\n");
    match generate_quietly(b) {
        Ok(Ok(_)) => None,
        Ok(Err(e)) => Some(Error::Libclang(format!(
            "it is installed without its builtin headers: {}",
            e.to_string().lines().next().unwrap_or_default().trim()
        ))),
        Err(payload) => Some(Error::Libclang(panic_text(payload.as_ref()))),
    }
}

/// Runs a configured builder: the bindings as text.
fn run(b: bindgen::Builder) -> Result<String, Error> {
    match generate_quietly(b) {
        Ok(Ok(bindings)) => Ok(bindings.to_string()),
        Ok(Err(e)) => Err(builtin_headers_missing().unwrap_or(Error::Bindgen(e.to_string()))),
        Err(payload) => match panic_text(payload.as_ref()) {
            text if text.contains("libclang") => Err(Error::Libclang(text)),
            text => Err(Error::Bindgen(text)),
        },
    }
}

#[cfg(test)]
mod tests;
