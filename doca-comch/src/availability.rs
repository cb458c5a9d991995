//! Whether this build has DPA Comms, and why not. Makes no DOCA call: it reads what
//! the build found ([`crate::build_info`]).

use crate::build_info::SYMBOLS;
use crate::requirements::MSGQ;

/// Whether this build can use DPA Comms message queues.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Availability {
    /// The installed DOCA (or the sim) provides them, and every wrapper is compiled.
    Available,
    /// They are absent: why, in a sentence or more (`"; "` between reasons).
    Absent(String),
}

impl Availability {
    /// Whether the message-queue API can be used (no DOCA call).
    pub fn is_available(&self) -> bool {
        matches!(self, Availability::Available)
    }
}

/// Why the function `name` cannot be called by this build, if it cannot.
fn unusable(name: &str) -> Option<&'static str> {
    let Some(s) = SYMBOLS.iter().find(|s| s.name == name) else {
        return Some("declared by no installed header");
    };
    match () {
        () if s.usable => None,
        () if !s.declared => Some("declared by no installed header"),
        () if s.exported == Some(false) => Some("not exported by the installed libraries"),
        () if s.marker == "EXPERIMENTAL" && !cfg!(feature = "experimental") => {
            Some("EXPERIMENTAL, and the `experimental` feature of doca-comch is off")
        }
        () => Some("not callable by this build"),
    }
}

/// Says whether DPA Comms is usable in this build, and why not: no `doca-comch.pc`
/// in the install, functions missing from its headers or libraries, or the
/// `experimental` feature off. Makes no DOCA call.
///
/// ```
/// match doca_comch::availability() {
///     doca_comch::Availability::Available => println!("DPA Comms is here"),
///     doca_comch::Availability::Absent(why) => println!("no DPA Comms: {why}"),
///     _ => {}
/// }
/// ```
pub fn availability() -> Availability {
    if let Some(why) = doca_comch_sys::build_info::COMCH_ABSENT_REASON {
        // Every function is missing for that one reason.
        return Availability::Absent(format!("no doca-comch.pc: {why}"));
    }
    let gaps: Vec<String> = MSGQ
        .iter()
        .filter_map(|name| unusable(name).map(|why| format!("{name} is {why}")))
        .collect();
    if gaps.is_empty() {
        Availability::Available
    } else {
        Availability::Absent(gaps.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn availability_matches_what_was_compiled() {
        let a = availability();
        assert_eq!(a.is_available(), cfg!(doca_comch_api), "{a:?}");
        if let Availability::Absent(why) = a {
            assert!(!why.is_empty());
        }
    }

    #[test]
    fn a_missing_function_is_named() {
        assert_eq!(
            unusable("doca_comch_no_such_function"),
            Some("declared by no installed header")
        );
    }
}
