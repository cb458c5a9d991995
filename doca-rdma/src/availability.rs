//! Whether this build has DOCA RDMA on the DPA datapath, and why not. Makes no
//! DOCA call: it reads what the build found ([`crate::build_info`]).

use crate::build_info::SYMBOLS;
use crate::requirements::{CONTEXT, PARTS};

/// Whether this build can use DOCA RDMA on the DPA datapath.
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
                "{name} is EXPERIMENTAL and the `experimental` feature of doca-rdma is off"
            )),
            Some(_) => Some(format!("{name} cannot be called by this build")),
        })
        .collect()
}

/// Says whether DOCA RDMA on the DPA datapath is usable in this build, and why
/// not: no `doca-rdma.pc` in the install, functions missing from its headers or
/// libraries, or the `experimental` feature off. Makes no DOCA call.
///
/// ```
/// match doca_rdma::availability() {
///     doca_rdma::Availability::Available => println!("DOCA RDMA is here"),
///     doca_rdma::Availability::Absent(why) => println!("no DOCA RDMA: {why}"),
///     _ => {}
/// }
/// ```
pub fn availability() -> Availability {
    let absent = doca_rdma_sys::build_info::RDMA_ABSENT_REASON;
    let mut reasons: Vec<String> = absent
        .iter()
        .map(|why| format!("no doca-rdma.pc: {why}"))
        .collect();
    for (part, symbols) in PARTS {
        // Without doca-rdma.pc the context's functions are missing for that reason.
        if absent.is_some() && *symbols == CONTEXT {
            continue;
        }
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
        let compiled = cfg!(all(
            doca_rdma_api,
            doca_rdma_remote_mmap,
            doca_rdma_remote_event
        ));
        assert_eq!(a.is_available(), compiled, "{a:?}");
        if let Availability::Absent(why) = a {
            assert!(!why.is_empty());
        }
    }

    #[test]
    fn a_missing_function_is_named() {
        let gaps = missing(&["doca_rdma_no_such_function"]);
        assert_eq!(
            gaps,
            ["doca_rdma_no_such_function is declared by no installed header"]
        );
    }
}
