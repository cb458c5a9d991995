//! For the build scripts of the safe crates (`doca-dpa`, `doca-rdmi`):
//!
//! (Compiled, not run: it is a build script, which needs the environment cargo gives one.)
//!
//! ```no_run
//! // The whole `fn main` of doca-dpa/build.rs (doca-dpa depends on doca-dpa-sys,
//! // `links = "doca_dpa"`):
//! doca_build_support::safe::emit_cfgs("DOCA_DPA");
//! ```
//!
//! Reads what the -sys crate published (`DEP_<KEY>_AUDIT`, `_BACKEND`, `_VERSION`,
//! `_UNIVERSE`, `_RDMI`, `_RDMA`, `_COMCH`, `_VERBS`) and the crate's own `experimental` feature, then emits:
//!
//! * the check-cfgs of every cfg the project uses;
//! * `doca_sym="NAME"` for each function that is declared, available, and STABLE or
//!   allowed by the `experimental` feature;
//! * `doca_hand_declared="NAME"` for exported-but-undeclared functions when the
//!   `experimental` feature is on (they carry no marker, so they never count as stable);
//! * `doca_backend`, the cumulative version cfgs, `doca_rdmi_absent`, `doca_rdma_absent`,
//!   `doca_comch_absent`, `doca_verbs_absent`;
//! * `OUT_DIR/audit.rs`: the full table with a `usable` column, to `include!` for
//!   run-time exposure.

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::audit::{Audit, AuditRow, Marker};
use crate::backend::Backend;
use crate::cfgs::{
    Directives, COMCH_ABSENT_CFG, HAND_DECLARED_CFG, RDMA_ABSENT_CFG, RDMI_ABSENT_CFG, SYM_CFG,
    VERBS_ABSENT_CFG,
};
use crate::env::EnvReader;
use crate::version::DocaVersion;

/// Why the safe crate's build script failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SafeError {
    /// A `DEP_*` variable is missing: the -sys crate is not a direct dependency, or its
    /// `links` key is different.
    #[error(
        "{var} is not set: the -sys crate that publishes it must be a direct dependency \
         with the matching `links` key, and must have built successfully"
    )]
    MissingMetadata {
        /// The variable.
        var: String,
    },
    /// A `DEP_*` value is not understood.
    #[error("{var}={value:?}: {message}")]
    BadMetadata {
        /// The variable.
        var: String,
        /// Its value.
        value: String,
        /// What is wrong.
        message: String,
    },
    /// The audit file could not be read or parsed.
    #[error("reading the symbol audit {}: {message}", .path.display())]
    Audit {
        /// Its path.
        path: PathBuf,
        /// The message.
        message: String,
    },
    /// `OUT_DIR` is not set or `audit.rs` could not be written.
    #[error("{0}")]
    OutDir(String),
}

/// The result of [`plan`]: directives and the text of `audit.rs`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SafePlan {
    /// What to print.
    pub directives: Directives,
    /// The text of `OUT_DIR/audit.rs`.
    pub audit_rs: String,
    /// The backend the -sys crate was built for.
    pub backend: Backend,
    /// The merged audit.
    pub audit: Audit,
}

/// Emits the cfgs for one -sys crate (`"DOCA_DPA"`, `"DOCA_RDMI"`, `"DOCA_RDMA"`,
/// `"DOCA_COMCH"`) and writes
/// `OUT_DIR/audit.rs`. On error prints the message and exits with status 1.
pub fn emit_cfgs(links_key: &str) {
    emit_cfgs_with(&[links_key], &[]);
}

/// Like [`emit_cfgs`], merging several -sys crates (`doca-comch` reads both `DOCA_DPA`
/// and `DOCA_COMCH`; the first key gives the backend and version), also emitting each
/// `(alias, symbols)` of `aliases` as the cfg `alias` when every one of its symbols is
/// usable (one name for a feature that needs several DOCA functions, declared with
/// `rustc-check-cfg` either way).
pub fn emit_cfgs_with(links_keys: &[&str], aliases: &[(&str, &[&str])]) {
    let env = EnvReader::from_process();
    let experimental = env.is_set("CARGO_FEATURE_EXPERIMENTAL");
    let result = plan(&env, links_keys).and_then(|p| {
        let out = env
            .get_os("OUT_DIR")
            .map(PathBuf::from)
            .ok_or_else(|| SafeError::OutDir("OUT_DIR is not set".to_owned()))?;
        let path = out.join("audit.rs");
        std::fs::write(&path, &p.audit_rs)
            .map_err(|e| SafeError::OutDir(format!("{}: {e}", path.display())))?;
        Ok(p)
    });
    match result {
        Ok(p) => {
            p.directives.print();
            for (alias, symbols) in aliases {
                println!("cargo::rustc-check-cfg=cfg({alias})");
                let ok = |s: &&str| p.audit.get(s).is_some_and(|r| usable(r, experimental));
                if symbols.iter().all(ok) {
                    println!("cargo::rustc-cfg={alias}");
                }
            }
        }
        Err(e) => {
            eprintln!("\nerror: {e}\n");
            std::process::exit(1);
        }
    }
}

fn required(env: &EnvReader, var: String) -> Result<String, SafeError> {
    env.get(&var).ok_or(SafeError::MissingMetadata { var })
}

/// Whether the safe crate may use `row`: available (declared and exported, or exported
/// and hand-declarable) and STABLE, or any marker when `experimental` is on.
pub fn usable(row: &AuditRow, experimental: bool) -> bool {
    (row.available() || row.hand_declarable()) && (row.marker == Marker::Stable || experimental)
}

/// Computes the directives and `audit.rs` without printing or writing.
pub fn plan(env: &EnvReader, links_keys: &[&str]) -> Result<SafePlan, SafeError> {
    let experimental = env.is_set("CARGO_FEATURE_EXPERIMENTAL");
    let mut audit = Audit::default();
    let mut universe: BTreeSet<String> = BTreeSet::new();
    let mut backend = None;
    let mut version = None;
    // The absence cfgs of the optional modules some -sys crate reported absent.
    let mut absent = BTreeSet::new();
    let mut d = Directives::new();
    for key in links_keys {
        let var = |suffix: &str| format!("DEP_{key}_{suffix}");
        let b_text = required(env, var("BACKEND"))?;
        let b = Backend::parse(&b_text).ok_or_else(|| SafeError::BadMetadata {
            var: var("BACKEND"),
            value: b_text.clone(),
            message: "expected hardware, sim or docs".to_owned(),
        })?;
        let v_text = required(env, var("VERSION"))?;
        let v = DocaVersion::parse(&v_text).map_err(|e| SafeError::BadMetadata {
            var: var("VERSION"),
            value: v_text.clone(),
            message: e.to_string(),
        })?;
        backend.get_or_insert(b);
        version.get_or_insert(v);
        let path = PathBuf::from(required(env, var("AUDIT"))?);
        d.rerun_if_changed(&path);
        let unreadable = |e: &dyn fmt::Display| SafeError::Audit {
            path: path.clone(),
            message: e.to_string(),
        };
        let text = std::fs::read_to_string(&path).map_err(|e| unreadable(&e))?;
        let a = Audit::parse_tsv(&text).map_err(|e| unreadable(&e))?;
        audit.merge(&a);
        if let Some(u) = env.get(&var("UNIVERSE")) {
            universe.extend(read_universe(Path::new(&u)));
        }
        for (module, cfg) in [
            ("RDMI", RDMI_ABSENT_CFG),
            ("RDMA", RDMA_ABSENT_CFG),
            ("COMCH", COMCH_ABSENT_CFG),
            ("VERBS", VERBS_ABSENT_CFG),
        ] {
            if env.get(&var(module)).as_deref() == Some("absent") {
                absent.insert(cfg);
            }
        }
    }
    let (Some(backend), Some(version)) = (backend, version) else {
        return Err(SafeError::MissingMetadata {
            var: "DEP_<KEY>_BACKEND (no links key given)".to_owned(),
        });
    };
    universe.extend(audit.rows.iter().map(|r| r.name.clone()));

    let mut out = Directives::new();
    out.declare_all(&universe);
    out.backend(backend);
    out.version_cfgs(version);
    for row in audit.rows.iter().filter(|r| usable(r, experimental)) {
        let cfg = if row.declared {
            SYM_CFG
        } else {
            HAND_DECLARED_CFG
        };
        out.cfg_value(cfg, &row.name);
    }
    for cfg in absent {
        out.cfg(cfg);
    }
    out.extend(d);
    let mut audit_rs = String::from("// generated by doca-build-support; do not edit\n\n");
    audit_rs.push_str(&audit.to_rust_table_with_usable(|r| usable(r, experimental)));
    Ok(SafePlan {
        directives: out,
        audit_rs,
        backend,
        audit,
    })
}

fn read_universe(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .map(|t| {
            t.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests;
