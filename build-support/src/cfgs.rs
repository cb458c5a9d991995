//! Cargo build-script directives, collected in a [`Directives`] list and printed at the
//! end. Uses the `cargo::` syntax (Rust 1.77+).
//!
//! The cfgs this project uses:
//!
//! * `doca_backend = "hardware" | "sim" | "docs"`;
//! * `doca_ge_X_Y` for every known release `X.Y` at or below the DOCA version;
//! * `doca_sym = "NAME"` for every DOCA function the build may call;
//! * `doca_hand_declared = "NAME"` for functions exported but absent from the headers;
//! * `doca_rdmi_absent` when the install has no RDMI, `doca_rdma_absent` when it has no
//!   DOCA RDMA, `doca_comch_absent` when it has no DOCA Comch, `doca_verbs_absent` when
//!   it has no DOCA Verbs.

use std::collections::BTreeSet;

use crate::audit::HAND_DECLARABLE;
use crate::backend::Backend;
use crate::version::{all_cfg_names, cumulative_cfgs, DocaVersion};

/// The `doca_backend` cfg name.
pub const BACKEND_CFG: &str = "doca_backend";
/// The `doca_sym` cfg name.
pub const SYM_CFG: &str = "doca_sym";
/// The `doca_hand_declared` cfg name.
pub const HAND_DECLARED_CFG: &str = "doca_hand_declared";
/// The `doca_rdmi_absent` cfg name.
pub const RDMI_ABSENT_CFG: &str = "doca_rdmi_absent";
/// The `doca_rdma_absent` cfg name.
pub const RDMA_ABSENT_CFG: &str = "doca_rdma_absent";
/// The `doca_comch_absent` cfg name.
pub const COMCH_ABSENT_CFG: &str = "doca_comch_absent";
/// The `doca_verbs_absent` cfg name.
pub const VERBS_ABSENT_CFG: &str = "doca_verbs_absent";

/// A list of cargo directives, one per line, without the trailing newline.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Directives {
    lines: Vec<String>,
}

/// Quotes a cfg value for cargo (`"name"`), escaping `\` and `"`.
fn quote(value: &str) -> String {
    format!("\"{}\"", value.replace('\\', "\\\\").replace('"', "\\\""))
}

/// Directive values must stay on one line.
fn one_line(text: &str) -> String {
    text.replace(['\n', '\r'], " ")
}

impl Directives {
    /// An empty list.
    pub fn new() -> Self {
        Directives::default()
    }

    /// Adds a raw line.
    pub fn push(&mut self, line: impl Into<String>) {
        self.lines.push(line.into());
    }

    /// `cargo::rustc-check-cfg=cfg(NAME)`.
    pub fn check_cfg(&mut self, name: &str) {
        self.push(format!("cargo::rustc-check-cfg=cfg({name})"));
    }

    /// `cargo::rustc-check-cfg=cfg(NAME, values("a", "b", …))`; with no values,
    /// `values(any())` (no check of the values).
    pub fn check_cfg_values<I, S>(&mut self, name: &str, values: I)
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let quoted: Vec<String> = values.into_iter().map(|v| quote(v.as_ref())).collect();
        let list = if quoted.is_empty() {
            "any()".to_owned()
        } else {
            quoted.join(", ")
        };
        self.push(format!(
            "cargo::rustc-check-cfg=cfg({name}, values({list}))"
        ));
    }

    /// `cargo::rustc-cfg=NAME`.
    pub fn cfg(&mut self, name: &str) {
        self.push(format!("cargo::rustc-cfg={name}"));
    }

    /// `cargo::rustc-cfg=NAME="VALUE"`.
    pub fn cfg_value(&mut self, name: &str, value: &str) {
        self.push(format!("cargo::rustc-cfg={name}={}", quote(value)));
    }

    /// `cargo::metadata=KEY=VALUE` (a dependant sees `DEP_<LINKS>_<KEY>`).
    pub fn metadata(&mut self, key: &str, value: &str) {
        self.push(format!("cargo::metadata={key}={}", one_line(value)));
    }

    /// `cargo::warning=MESSAGE` (newlines become spaces).
    pub fn warning(&mut self, message: &str) {
        self.push(format!("cargo::warning={}", one_line(message)));
    }

    /// `cargo::rustc-link-search=native=DIR`.
    pub fn link_search(&mut self, dir: &std::path::Path) {
        self.push(format!("cargo::rustc-link-search=native={}", dir.display()));
    }

    /// `cargo::rustc-link-lib=dylib=NAME`.
    pub fn link_dylib(&mut self, name: &str) {
        self.push(format!("cargo::rustc-link-lib=dylib={name}"));
    }

    /// `cargo::rerun-if-changed=PATH`.
    pub fn rerun_if_changed(&mut self, path: &std::path::Path) {
        self.push(format!("cargo::rerun-if-changed={}", path.display()));
    }

    /// Declares every cfg this project uses (`rustc-check-cfg`), with `sym_universe` as
    /// the allowed `doca_sym` values.
    pub fn declare_all<I, S>(&mut self, sym_universe: I)
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        self.check_cfg_values(BACKEND_CFG, Backend::ALL.iter().map(|b| b.as_str()));
        for name in all_cfg_names() {
            self.check_cfg(&name);
        }
        let universe: BTreeSet<String> = sym_universe
            .into_iter()
            .map(|s| s.as_ref().to_owned())
            .chain(HAND_DECLARABLE.iter().map(|s| (*s).to_owned()))
            .collect();
        self.check_cfg_values(SYM_CFG, &universe);
        self.check_cfg_values(HAND_DECLARED_CFG, HAND_DECLARABLE);
        self.check_cfg(RDMI_ABSENT_CFG);
        self.check_cfg(RDMA_ABSENT_CFG);
        self.check_cfg(COMCH_ABSENT_CFG);
        self.check_cfg(VERBS_ABSENT_CFG);
    }

    /// `doca_backend="…"`.
    pub fn backend(&mut self, backend: Backend) {
        self.cfg_value(BACKEND_CFG, backend.as_str());
    }

    /// The cumulative `doca_ge_X_Y` cfgs for `version`.
    pub fn version_cfgs(&mut self, version: DocaVersion) {
        for name in cumulative_cfgs(version) {
            self.cfg(&name);
        }
    }

    /// The directives, one per element.
    pub fn lines(&self) -> &[String] {
        &self.lines
    }

    /// Whether `line` is among the directives.
    pub fn contains(&self, line: &str) -> bool {
        self.lines.iter().any(|l| l == line)
    }

    /// Appends the lines of `other`.
    pub fn extend(&mut self, other: Directives) {
        self.lines.extend(other.lines);
    }

    /// Prints every directive to stdout, where cargo reads them.
    pub fn print(&self) {
        use std::io::Write;
        let stdout = std::io::stdout();
        let mut out = stdout.lock();
        for l in &self.lines {
            // A closed stdout cannot be reported anywhere better; ignore it.
            let _ = writeln!(out, "{l}");
        }
    }
}

#[cfg(test)]
mod tests;
