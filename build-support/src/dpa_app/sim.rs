//! The sim backend: the DPA sources compiled for the host against doca-sim's device
//! headers, plus the generated application table ([`sim_app_source`]).

use std::path::{Path, PathBuf};

use super::error::DpaAppError;
use super::expand::Scan;
use super::sim_source::sim_app_source;
use super::{io_err, Resolved};
use crate::cfgs::Directives;
use crate::env::EnvReader;

/// The variable (links metadata of doca-dpa-sys) naming doca-sim's device headers.
pub const SIM_DEVICE_INCLUDE_ENV: &str = "DEP_DOCA_DPA_SIM_DEVICE_INCLUDE";

/// The variable (links metadata of doca-dpa-sys) naming the host headers the
/// -sys crates were built against (in the sim, doca-sim's reference headers),
/// `:`-separated.
pub const HOST_INCLUDE_ENV: &str = "DEP_DOCA_DPA_INCLUDE";

pub(crate) fn includable(p: &Path) -> Result<(), DpaAppError> {
    let reason = match p.to_str() {
        None => "it is not valid UTF-8",
        Some(s) if s.contains(['"', '\n', '\r']) => {
            "it contains a quote or a line break, which #include cannot carry"
        }
        Some(_) => return Ok(()),
    };
    Err(DpaAppError::UnusablePath {
        path: p.to_owned(),
        reason,
    })
}

/// A `cc` build for host C code of application `r`: the target and profile cargo gives
/// the build script, the application's include directories and defines, and the
/// directories of its sources (for headers shared by host and device code).
pub(crate) fn host_compiler(env: &EnvReader, r: &Resolved) -> Result<cc::Build, DpaAppError> {
    let cargo_var = |name| {
        let hint = "cargo sets it for build scripts";
        env.get(name).ok_or(DpaAppError::MissingEnv { name, hint })
    };
    let (target, host) = (cargo_var("TARGET")?, cargo_var("HOST")?);
    let opt_level = env.get("OPT_LEVEL").unwrap_or_else(|| "0".to_owned());
    let debug = env
        .get("DEBUG")
        .is_some_and(|v| v != "false" && v != "0" && v != "none");
    declare_cc_env(env, &target);
    let mut b = cc::Build::new();
    b.includes(&r.include_dirs)
        .std("gnu11")
        .warnings(true)
        .extra_warnings(false)
        .cargo_metadata(false)
        .out_dir(&r.out_dir)
        .target(&target)
        .host(&host)
        .opt_level_str(&opt_level)
        .debug(debug);
    let mut source_dirs: Vec<&Path> = Vec::new();
    for dir in r.sources.iter().filter_map(|s| s.parent()) {
        if !source_dirs.contains(&dir) {
            source_dirs.push(dir);
        }
    }
    b.includes(&source_dirs);
    for (k, v) in &r.defines {
        b.define(k, v.as_deref());
    }
    Ok(b)
}

/// What the compiler wrote to stderr during a `cc` build, line by line.
#[derive(Default)]
struct CompilerOutput(std::sync::Mutex<Vec<String>>);

impl cc::BuildMessageLogger for CompilerOutput {
    fn log(&self, kind: cc::BuildMessageKind, msg: cc::BuildMessage<'_>, _: &dyn std::any::Any) {
        if matches!(kind, cc::BuildMessageKind::StderrForwarding) {
            if let Ok(mut lines) = self.0.lock() {
                lines.push(msg.to_string());
            }
        }
    }
}

/// Compiles `b` into `OUT_DIR/lib<lib>.a`. The compiler's diagnostics go where the
/// rest of the build's output goes instead of straight to stdout as `cc` would
/// print them: on success they become warnings in `d` (printed by
/// [`DpaApp::build`](super::DpaApp::build), returned by `build_with_env`), on
/// failure they are `Err`'s message after `cc`'s, so the error says what the
/// compiler said.
pub(crate) fn compile(b: &mut cc::Build, lib: &str, d: &mut Directives) -> Result<(), String> {
    let output = std::sync::Arc::new(CompilerOutput::default());
    b.cargo_warnings(false).message_logger(Some(output.clone()));
    let result = b.try_compile(lib);
    let lines = output.0.lock().map(|l| l.clone()).unwrap_or_default();
    match result {
        Ok(()) => {
            for line in &lines {
                d.warning(line);
            }
            Ok(())
        }
        Err(e) if lines.is_empty() => Err(e.to_string()),
        Err(e) => Err(format!("{e}; the compiler said:\n{}", lines.join("\n"))),
    }
}

/// The variables the `cc` crate reads for the C compiler and its flags; reading them
/// through the [`EnvReader`] declares them to cargo (cc's own declarations are off with
/// `cargo_metadata(false)`).
pub(crate) fn declare_cc_env(env: &EnvReader, target: &str) {
    let underscored = target.replace('-', "_");
    for tool in ["CC", "CFLAGS"] {
        for name in [
            tool.to_owned(),
            format!("{tool}_{target}"),
            format!("{tool}_{underscored}"),
            format!("TARGET_{tool}"),
        ] {
            let _ = env.get_os(&name);
        }
    }
    let _ = env.get_os("CRATE_CC_NO_DEFAULTS");
}

/// Builds the application for the software DPA into `OUT_DIR/lib<lib_name>.a`; returns
/// the generated C file.
pub(crate) fn build(
    env: &EnvReader,
    r: &Resolved,
    scan: &Scan,
    d: &mut Directives,
) -> Result<PathBuf, DpaAppError> {
    let device_include = super::dep_metadata(env, SIM_DEVICE_INCLUDE_ENV)
        .map(PathBuf::from)
        .ok_or_else(|| super::missing_dep(SIM_DEVICE_INCLUDE_ENV))?;
    let app_header = device_include.join("doca_sim_app.h");
    if !app_header.is_file() {
        return Err(io_err(
            &app_header,
            format!(
                "not found: {SIM_DEVICE_INCLUDE_ENV} should name doca-sim's device-include \
                 directory"
            ),
        ));
    }
    r.sources.iter().try_for_each(|s| includable(s))?;
    let mut text = sim_app_source(&r.app_name, &r.sources, &scan.kernels, &scan.structs);
    text.push_str("\n// The layouts the generated Rust declarations assume.\n");
    text.push_str(&super::host_decls::struct_layout_asserts(&scan.structs));
    let generated = r.out_dir.join(format!("{}.c", r.lib_name));
    std::fs::write(&generated, text).map_err(|e| io_err(&generated, e))?;

    // dpacc is given `-I<DOCA>/include`, and real kernels' shared headers
    // include host headers (doca_sync_event.h, doca_dpa.h): the sim's kernel
    // compile sees the host headers too, after the device headers.
    let mut b = super::expand::device_view(env, r, crate::backend::Backend::Sim)?;
    b.file(&generated);
    compile(&mut b, &r.lib_name, d).map_err(|message| DpaAppError::SimCompile {
        app: r.app_name.clone(),
        generated: generated.clone(),
        message,
    })?;
    // Linked by the `#[link]` of the generated declarations, not by a directive.
    d.link_search(&r.out_dir);
    Ok(generated)
}

#[cfg(test)]
mod tests;
