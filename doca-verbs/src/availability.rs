//! Whether this build has DOCA Verbs, and why not. Makes no DOCA call: it reads
//! what the build found ([`crate::build_info`]).

use crate::build_info::SYMBOLS;
use crate::requirements::PARTS;

/// Whether this build can use DOCA Verbs (every part of this crate, DPA Verbs'
/// queue pairs included).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Availability {
    /// The installed DOCA (or the sim) provides it, and every wrapper is compiled.
    Available,
    /// Some or all of it is absent: why, in a sentence or more (`"; "` between
    /// reasons).
    Absent(String),
}

impl Availability {
    /// Whether every part of the crate can be used.
    pub fn is_available(&self) -> bool {
        matches!(self, Availability::Available)
    }
}

/// Why the functions of a part cannot be called, one phrase each.
fn missing(symbols: &[&str]) -> Vec<String> {
    let experimental = cfg!(feature = "experimental");
    symbols
        .iter()
        .filter_map(|name| match SYMBOLS.iter().find(|s| s.name == *name) {
            None => Some(format!("{name} is declared by no installed header")),
            Some(s) if s.usable => None,
            Some(s) if !s.declared => Some(format!("{name} is declared by no installed header")),
            Some(s) if s.exported == Some(false) => {
                Some(format!("{name} is not exported by the installed libraries"))
            }
            Some(s) if s.marker == "EXPERIMENTAL" && !experimental => Some(format!(
                "{name} is EXPERIMENTAL and the `experimental` feature of doca-verbs is off"
            )),
            Some(_) => Some(format!("{name} cannot be called by this build")),
        })
        .collect()
}

/// Says whether DOCA Verbs is usable in this build, and why not: no
/// `doca-verbs.pc` in the install (DOCA 3.0 has none), functions missing from
/// its headers or libraries (the queue pairs of DPA Verbs need DOCA 3.2), or the
/// `experimental` feature off. Makes no DOCA call.
///
/// ```
/// match doca_verbs::availability() {
///     doca_verbs::Availability::Available => println!("DOCA Verbs is here"),
///     doca_verbs::Availability::Absent(why) => println!("no DOCA Verbs: {why}"),
///     _ => {}
/// }
/// ```
pub fn availability() -> Availability {
    if let Some(why) = doca_verbs_sys::build_info::VERBS_ABSENT_REASON {
        return Availability::Absent(format!("no doca-verbs.pc: {why}"));
    }
    let mut reasons = Vec::new();
    if !cfg!(doca_ge_3_2) {
        reasons.push(format!(
            "doca_verbs_dpa_qp: the queue pairs of DPA Verbs need DOCA 3.2 or newer, and this \
             build is for DOCA {}",
            crate::build_info::DOCA_VERSION
        ));
    }
    for (part, symbols) in PARTS {
        let gaps = missing(symbols);
        if !gaps.is_empty() {
            reasons.push(format!("{part}: {}", gaps.join(", ")));
        }
    }
    if reasons.is_empty() {
        Availability::Available
    } else {
        Availability::Absent(reasons.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn availability_matches_what_was_compiled() {
        let a = availability();
        let compiled = cfg!(all(doca_ge_3_2, doca_verbs_api, doca_verbs_dpa_qp));
        assert_eq!(a.is_available(), compiled, "{a:?}");
        if let Availability::Absent(why) = a {
            assert!(!why.is_empty());
        }
    }

    #[test]
    fn a_missing_function_is_named() {
        let gaps = missing(&["doca_verbs_no_such_function"]);
        assert_eq!(
            gaps,
            ["doca_verbs_no_such_function is declared by no installed header"]
        );
    }
}
