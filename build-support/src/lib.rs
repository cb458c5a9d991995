//! Build-script support for the doca-rs crates (NVIDIA DOCA DPA and DOCA RDMI bindings).
//!
//! Used by the build scripts of `doca-dpa-sys` and `doca-rdmi-sys` ([`sys::build`]), of
//! the safe crates ([`safe::emit_cfgs`]), of crates that build DPA applications
//! ([`dpa_app`]), by doca-sim's build script (the release a sim build claims,
//! [`sim_version`]), and by the `doca-regen-bindings` tool (its own package,
//! `build-support/regen`). Every environment read goes through [`env::EnvReader`], which
//! declares it to cargo; [`sys`] and [`safe`] are the complete flows of the -sys and safe
//! crates' build scripts, and [`dpa_app`] builds DPA applications; each module's page says
//! what it does.
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
pub mod sim_version;
pub mod sys;
pub mod version;

pub use version::DocaVersion;

use std::path::{Path, PathBuf};

/// `paths` shown one after another, separated by `sep` (`", "` in messages, `":"` in
/// search-path metadata).
pub(crate) fn join_paths(paths: &[PathBuf], sep: &str) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(sep)
}

/// The files of `dir` (not of its subdirectories) named `*.<ext>`, sorted by name.
pub(crate) fn files_in(dir: &Path, ext: &str) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = (std::fs::read_dir(dir)?.filter_map(Result::ok))
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == ext) && p.is_file())
        .collect();
    files.sort();
    Ok(files)
}

#[cfg(test)]
pub(crate) mod testutil;
