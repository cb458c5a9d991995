//! Compiles the generated host launchers ([`launcher_source`]) of an application and
//! writes its Rust declarations ([`rust_source`]), in every backend.

use std::path::PathBuf;

use super::error::DpaAppError;
use super::host_decls::{launcher_source, rust_source};
use super::parse::{DeviceFunction, StructDef};
use super::sim::host_compiler;
use super::{io_err, Resolved};
use crate::cfgs::Directives;
use crate::env::EnvReader;

/// The file `doca_dpa::include_app!(<app>)` includes from `OUT_DIR`.
pub fn rust_file_name(app: &str) -> String {
    format!("doca_dpa_app_{app}.rs")
}

/// Writes the Rust declarations into `OUT_DIR` and returns their path.
pub(crate) fn write_rust(
    r: &Resolved,
    kernels: &[DeviceFunction],
    structs: &[StructDef],
) -> Result<PathBuf, DpaAppError> {
    let path = r.out_dir.join(rust_file_name(&r.app_name));
    let text = rust_source(&r.app_name, kernels, structs)?;
    std::fs::write(&path, text).map_err(|e| io_err(&path, e))?;
    Ok(path)
}

/// Compiles the launchers against the host headers of the backend
/// (`DEP_DOCA_DPA_INCLUDE`: the installed DOCA, or the sim's reference headers) into
/// `OUT_DIR/lib<lib>_launchers.a` and links it.
pub(crate) fn build(
    env: &EnvReader,
    r: &Resolved,
    kernels: &[DeviceFunction],
    structs: &[StructDef],
    d: &mut Directives,
) -> Result<PathBuf, DpaAppError> {
    let host_include: Vec<PathBuf> = env
        .get_os("DEP_DOCA_DPA_INCLUDE")
        .map(|v| {
            std::env::split_paths(&v)
                .filter(|p| !p.as_os_str().is_empty())
                .collect()
        })
        .unwrap_or_default();
    if host_include.is_empty() {
        return Err(DpaAppError::MissingEnv {
            name: "DEP_DOCA_DPA_INCLUDE",
            hint: "it is links metadata of doca-dpa-sys; make doca-dpa-sys a direct \
                   dependency of the package whose build script builds the DPA app",
        });
    }
    let lib = format!("{}_launchers", r.lib_name);
    let source = r.out_dir.join(format!("{lib}.c"));
    let text = launcher_source(&r.app_name, kernels, structs)?;
    std::fs::write(&source, text).map_err(|e| io_err(&source, e))?;
    let mut b = host_compiler(env, r)?;
    b.file(&source)
        .includes(&host_include)
        .define("DOCA_ALLOW_EXPERIMENTAL_API", None);
    b.try_compile(&lib)
        .map_err(|e| DpaAppError::LauncherCompile {
            app: r.app_name.clone(),
            generated: source.clone(),
            message: e.to_string(),
        })?;
    d.link_search(&r.out_dir);
    d.push(format!("cargo::rustc-link-lib=static={lib}"));
    Ok(r.out_dir.join(format!("lib{lib}.a")))
}
