//! Build-script support for the doca-rs crates (NVIDIA DOCA DPA and DOCA RDMI bindings).
//!
//! Used by the build scripts of `doca-dpa-sys` and `doca-rdmi-sys` ([`sys::build`]), of
//! the safe crates ([`safe::emit_cfgs`]), of crates that build DPA applications
//! ([`dpa_app`]), and by the `doca-regen-bindings` tool (its own package,
//! `build-support/regen`). The pieces:
//!
//! * [`env`](mod@env): every environment read goes through [`env::EnvReader`], which declares it
//!   to cargo (`rerun-if-env-changed`).
//! * [`version`]: DOCA version numbers, the minimum supported release, cumulative
//!   `doca_ge_X_Y` cfgs.
//! * [`discovery`]: pkg-config probing of an installed DOCA, the four-way version match,
//!   refusal of pre-2.9 installs, and the "not found" message.
//! * [`audit`]: the functions the headers declare and their EXPERIMENTAL/STABLE
//!   markers (from the C preprocessor's output), and exported symbols from the libraries.
//! * [`backend`]: hardware / sim / docs choice from `DOCA_BACKEND`, `DOCS_RS` and the
//!   `sim` feature.
//! * [`cfgs`]: cargo directives (`rustc-check-cfg`, `rustc-cfg`, `metadata`…).
//! * [`binding_set`]: the two header sets the -sys crates bind and where they are.
//! * [`check`]: whether the installed headers declare every bound item as the
//!   reference headers do, judged by the C compiler (a committed check file of
//!   `_Static_assert`s, no libclang), and [`bundled`]: the committed bindings made fit
//!   for an install that passed, which hardware builds use unless the -sys crate's
//!   `bindgen` feature is on.
//! * `bindgen_config` (the `bindgen` feature): the one bindgen configuration, shared by
//!   hardware builds with that feature and by `cargo regen-bindings`, which makes the
//!   committed bindings and check files.
//! * [`sys`], [`safe`]: the complete flows of the -sys and safe crates' build scripts.
//! * [`dpa_app`]: building DPA applications (kernels) from a build script, with dpacc on
//!   hardware or for the software DPA in sim builds.
//!
//! ```
//! use doca_build_support::DocaVersion;
//! let v = DocaVersion::parse("3.0.0058").unwrap();
//! assert_eq!((v.major, v.minor, v.patch), (3, 0, 58));
//! assert!(v.is_supported());
//! assert!(!DocaVersion::parse("2.5.0108").unwrap().is_supported());
//! ```

pub mod audit;
pub mod backend;
#[cfg(feature = "bindgen")]
pub mod bindgen_config;
pub mod binding_set;
pub mod bundled;
pub mod cfgs;
pub mod check;
pub mod discovery;
pub mod dpa_app;
pub mod env;
pub mod safe;
pub mod sys;
pub mod version;

pub use version::DocaVersion;

/// `paths` shown one after another, separated by `sep` (`", "` in messages, `":"` in
/// search-path metadata).
pub(crate) fn join_paths(paths: &[std::path::PathBuf], sep: &str) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(sep)
}

#[cfg(test)]
pub(crate) mod testutil;
