//! The hardware backend: dpacc, after checking how it pairs with DOCA, and (DOCA 3.2
//! and later) `dpa-app-attributes2blob` for the process attributes.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::dpacc::{dpacc_command, takes_proc_attr, DpaccOptions};
use super::error::DpaAppError;
use super::tools::{
    check_dpacc_version, find_attrs2blob, find_dpacc, run_tool, toolchain_include_dirs,
};
use super::{io_err, Resolved};
use crate::cfgs::Directives;
use crate::env::EnvReader;
use crate::version::DocaVersion;

/// The content of the default process-attributes file: no optional feature.
pub const DEFAULT_PROC_ATTRIBUTES: &str = "Feature_list:\n";

/// Where the tools are looked for when the environment does not say (tests replace them).
#[derive(Debug, Clone)]
pub(crate) struct ToolDefaults {
    pub(crate) dpacc: PathBuf,
    pub(crate) attrs2blob: PathBuf,
}

/// The DOCA install's prefix that doca-dpa-sys found (where its `tools/` are).
fn install_prefix(env: &EnvReader) -> Option<PathBuf> {
    super::dep_metadata(env, "DEP_DOCA_DPA_PREFIX")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
}

/// The include directories of the DPA toolchain of the dpacc this build uses
/// ([`toolchain_include_dirs`]): the kernel scan and the declaration check see the
/// headers dpacc's own compiler sees, never the simulator's. None when dpacc is not
/// found: [`build`] reports that, after the checks that come first.
pub(crate) fn dpacc_include_dirs(env: &EnvReader, tools: &ToolDefaults) -> Vec<PathBuf> {
    find_dpacc(env, install_prefix(env).as_deref(), &tools.dpacc)
        .map(|dpacc| toolchain_include_dirs(&dpacc))
        .unwrap_or_default()
}

/// Runs `program args…`, which must write `output` (removed first, so that a stale
/// copy cannot pass for it).
fn run_for_output(program: &Path, args: &[OsString], output: &Path) -> Result<(), DpaAppError> {
    match std::fs::remove_file(output) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io_err(output, e)),
        _ => {}
    }
    run_tool(program, args)?;
    if !output.is_file() {
        return Err(DpaAppError::MissingOutput {
            program: program.to_owned(),
            path: output.to_owned(),
        });
    }
    Ok(())
}

/// Builds the application with dpacc into `OUT_DIR/lib<lib_name>.a`; returns the dpacc
/// that ran and its arguments.
pub(crate) fn build(
    env: &EnvReader,
    r: &Resolved,
    tools: &ToolDefaults,
    d: &mut Directives,
) -> Result<(PathBuf, Vec<OsString>), DpaAppError> {
    let version_text = super::dep_text(env, "DEP_DOCA_DPA_VERSION")?;
    let doca = DocaVersion::parse(&version_text).map_err(|_| DpaAppError::BadDocaVersion {
        value: version_text.clone(),
    })?;
    let doca_include_dirs = super::dep_paths(env, "DEP_DOCA_DPA_INCLUDE");
    let dpa_lib_dirs = super::dep_paths(env, "DEP_DOCA_DPA_LIBDIR");
    if dpa_lib_dirs.is_empty() {
        d.warning(
            "DEP_DOCA_DPA_LIBDIR is empty (pkg-config gave doca-dpa no -L directory): dpacc \
             looks for the DOCA device libraries in its default directories only",
        );
    }
    // Values that end up inside one of dpacc's space-separated option strings.
    let dirs = (r.include_dirs.iter().chain(&dpa_lib_dirs))
        .map(|dir| ("directory", dir.display().to_string()));
    let defines = r.defines.iter().map(|(k, v)| {
        let value = format!("{k}={}", v.as_deref().unwrap_or(""));
        ("define", value)
    });
    let mut values = dirs.chain(defines);
    if let Some((what, value)) = values.find(|(_, v)| v.contains(char::is_whitespace)) {
        return Err(DpaAppError::WhitespaceInOption { what, value });
    }

    let prefix = install_prefix(env);
    let dpacc = find_dpacc(env, prefix.as_deref(), &tools.dpacc)?;
    if let Some(w) = check_dpacc_version(env, &dpacc, doca, prefix.as_deref())? {
        d.warning(&w);
    }
    d.rerun_if_changed(&dpacc);

    let proc_attr_blob = if takes_proc_attr(doca) {
        let yaml = match &r.proc_attributes {
            Some(p) => p.clone(),
            None => {
                let p = r.out_dir.join(format!("{}.attrs.yaml", r.lib_name));
                std::fs::write(&p, DEFAULT_PROC_ATTRIBUTES).map_err(|e| io_err(&p, e))?;
                p
            }
        };
        let blob = r.out_dir.join(format!("{}.attrs.blob", r.lib_name));
        let tool = find_attrs2blob(env, &dpacc, prefix.as_deref(), &tools.attrs2blob)?;
        run_for_output(&tool, &[yaml.into(), blob.clone().into()], &blob)?;
        Some(blob)
    } else {
        if let Some(p) = &r.proc_attributes {
            d.warning(&format!(
                "DPA application `{}`: the process attributes {} are not used: dpacc takes \
                 them from DOCA 3.2 on, and DOCA is {doca}",
                r.app_name,
                p.display()
            ));
        }
        None
    };

    let host_cc = env
        .get_os("CC")
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| "gcc".into());
    let opts = DpaccOptions {
        app_name: r.app_name.clone(),
        sources: r.sources.clone(),
        output: r.archive(),
        host_cc,
        doca_include_dirs,
        dpa_lib_dirs,
        include_dirs: r.include_dirs.clone(),
        defines: r.defines.clone(),
        proc_attr_blob,
    };
    let args = dpacc_command(doca, &opts);
    run_for_output(&dpacc, &args, &opts.output)?;
    // Linked by the `#[link]` of the generated declarations, not by a directive.
    d.link_search(&r.out_dir);
    Ok((dpacc, args))
}
