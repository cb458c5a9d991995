//! Whether this build has RDMI, and why not. Makes no DOCA call: it reads
//! what the build found ([`crate::build_info`]).

use std::fmt;

use crate::build_info::SYMBOLS;
use crate::requirements::PARTS;

/// Whether this build can use RDMI.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Availability {
    /// The installed DOCA (or the sim) provides RDMI, and the wrappers are
    /// compiled.
    Available,
    /// RDMI is absent, with the reasons the build found (the [`Display`]
    /// text of each [`AbsentReason`], joined with `"; "`).
    ///
    /// [`Display`]: std::fmt::Display
    Absent(String),
}

impl Availability {
    /// Whether RDMI can be used.
    pub fn is_available(&self) -> bool {
        matches!(self, Availability::Available)
    }
}

/// One reason RDMI is absent from this build.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AbsentReason {
    /// The DOCA install has no `doca-rdmi.pc` (the build's message).
    NotInstalled(String),
    /// The `experimental` cargo feature is off; DOCA marks every RDMI and
    /// DOCA Verbs function EXPERIMENTAL.
    ExperimentalOff,
    /// Functions this crate calls are missing.
    MissingSymbols {
        /// Declared by no installed header.
        not_declared: Vec<&'static str>,
        /// Declared, but not exported by the installed libraries.
        not_exported: Vec<&'static str>,
    },
}

impl fmt::Display for AbsentReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AbsentReason::NotInstalled(why) => write!(f, "no doca-rdmi.pc: {why}"),
            AbsentReason::ExperimentalOff => write!(
                f,
                "the `experimental` feature of doca-rdmi is off, and every RDMI function is EXPERIMENTAL"
            ),
            AbsentReason::MissingSymbols {
                not_declared,
                not_exported,
            } => {
                let mut parts = Vec::new();
                if !not_declared.is_empty() {
                    parts.push(format!("not declared by the headers: {}", not_declared.join(", ")));
                }
                if !not_exported.is_empty() {
                    parts.push(format!(
                        "not exported by the libraries: {}",
                        not_exported.join(", ")
                    ));
                }
                write!(f, "RDMI functions are missing ({})", parts.join("; "))
            }
        }
    }
}

/// Every reason this build has no RDMI (empty when it has).
pub fn absent_reasons() -> Vec<AbsentReason> {
    let mut reasons = Vec::new();
    if let Some(why) = doca_rdmi_sys::build_info::RDMI_ABSENT_REASON {
        reasons.push(AbsentReason::NotInstalled(why.to_owned()));
    } else {
        let mut not_declared = Vec::new();
        let mut not_exported = Vec::new();
        for name in PARTS.iter().flat_map(|p| p.symbols.iter().copied()) {
            match SYMBOLS.iter().find(|s| s.name == name) {
                None => not_declared.push(name),
                Some(s) if s.declared && s.exported == Some(false) => not_exported.push(name),
                Some(s) if !s.declared && s.exported != Some(true) => not_declared.push(name),
                Some(_) => {}
            }
        }
        if !not_declared.is_empty() || !not_exported.is_empty() {
            reasons.push(AbsentReason::MissingSymbols {
                not_declared,
                not_exported,
            });
        }
    }
    if !cfg!(feature = "experimental") {
        reasons.push(AbsentReason::ExperimentalOff);
    }
    reasons
}

/// Says whether RDMI is present in the DOCA this build uses, and why not: no
/// `doca-rdmi.pc`, functions missing from the headers or the libraries, or
/// the `experimental` feature off. Makes no DOCA call.
pub fn availability() -> Availability {
    let compiled = cfg!(all(doca_rdmi_api = "connection", doca_rdmi_api = "poster"));
    let reasons = absent_reasons();
    if compiled && reasons.is_empty() {
        return Availability::Available;
    }
    if reasons.is_empty() {
        return Availability::Absent(
            "the RDMI wrappers are not compiled in this build (see build_info::SYMBOLS)".to_owned(),
        );
    }
    let text: Vec<String> = reasons.iter().map(ToString::to_string).collect();
    Availability::Absent(text.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_read_well() {
        let r = AbsentReason::MissingSymbols {
            not_declared: vec!["doca_rdmi_poster_as_ctx"],
            not_exported: vec!["doca_rdmi_connection_create"],
        };
        let t = r.to_string();
        assert!(t.contains("not declared by the headers: doca_rdmi_poster_as_ctx"));
        assert!(t.contains("not exported by the libraries: doca_rdmi_connection_create"));
        assert!(AbsentReason::ExperimentalOff
            .to_string()
            .contains("experimental"));
    }

    #[test]
    fn availability_matches_what_was_compiled() {
        let a = availability();
        assert_eq!(
            a.is_available(),
            cfg!(all(doca_rdmi_api = "connection", doca_rdmi_api = "poster"))
        );
        if let Availability::Absent(why) = a {
            assert!(!why.is_empty());
        }
    }
}
