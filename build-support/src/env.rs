//! Reading environment variables from a build script.
//!
//! Every variable a build script looks at must be declared to cargo with
//! `cargo::rerun-if-env-changed=NAME`, otherwise a change of that variable does not
//! rebuild the crate. [`EnvReader`] is the only way the rest of this crate reads the
//! environment: each read records the name, so tests can check which variables a
//! decision depended on, and prints the directive (once per name), or, for a reader made
//! with [`EnvReader::from_process_deferred`], leaves that to [`EnvReader::declarations`]
//! once the build script knows it succeeded.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;

use crate::cfgs::Directives;

/// Where the values come from.
#[derive(Debug, Clone)]
enum Source {
    /// The process environment; with `announce`, reads print `cargo::rerun-if-env-changed`.
    Process { announce: bool },
    /// A fixed map (tests, or callers that assemble the environment themselves).
    Fixed(BTreeMap<String, OsString>),
}

/// Reads environment variables and remembers (and, for the process environment, announces
/// to cargo) every name it was asked about.
#[derive(Debug)]
pub struct EnvReader {
    source: Source,
    read: RefCell<BTreeSet<String>>,
}

impl EnvReader {
    fn new(source: Source) -> Self {
        let read = RefCell::new(BTreeSet::new());
        EnvReader { source, read }
    }

    /// A reader over the process environment. Each newly read name prints
    /// `cargo::rerun-if-env-changed=NAME` to stdout.
    pub fn from_process() -> Self {
        EnvReader::new(Source::Process { announce: true })
    }

    /// A reader over the process environment that prints nothing: the build script
    /// prints [`declarations`](Self::declarations) once it has succeeded. A failed build
    /// script runs again on the next build whatever it declared, and anything it printed
    /// to stdout would stand above its error in cargo's report.
    pub fn from_process_deferred() -> Self {
        EnvReader::new(Source::Process { announce: false })
    }

    /// A reader over a fixed set of variables. Nothing is printed; names are recorded.
    pub fn fixed<I, K, V>(vars: I) -> Self
    where
        I: IntoIterator<Item = (K, V)>,
        K: Into<String>,
        V: Into<OsString>,
    {
        EnvReader::new(Source::Fixed(
            vars.into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        ))
    }

    /// Whether this reader prints cargo directives as it reads ([`EnvReader::from_process`]).
    pub fn prints_directives(&self) -> bool {
        matches!(self.source, Source::Process { announce: true })
    }

    /// `cargo::rerun-if-env-changed=NAME` for every name read so far.
    pub fn declarations(&self) -> Directives {
        let mut d = Directives::new();
        for name in self.read.borrow().iter() {
            d.push(format!("cargo::rerun-if-env-changed={name}"));
        }
        d
    }

    fn note(&self, name: &str) {
        let new = self.read.borrow_mut().insert(name.to_owned());
        if new && self.prints_directives() {
            println!("cargo::rerun-if-env-changed={name}");
        }
    }

    /// The raw value of `name`, if set.
    pub fn get_os(&self, name: &str) -> Option<OsString> {
        self.note(name);
        match &self.source {
            Source::Process { .. } => std::env::var_os(name),
            Source::Fixed(map) => map.get(name).cloned(),
        }
    }

    /// The value of `name` as text, if set. A value that is not valid UTF-8 is converted
    /// lossily rather than ignored, so that a typo is still visible in error messages.
    pub fn get(&self, name: &str) -> Option<String> {
        self.get_os(name).map(|v| v.to_string_lossy().into_owned())
    }

    /// Whether `name` is set at all (to any value, even empty).
    pub fn is_set(&self, name: &str) -> bool {
        self.get_os(name).is_some()
    }

    /// Whether `name` is set to a "true" value: `1`, `true`, `yes` or `on` (any case).
    pub fn flag(&self, name: &str) -> bool {
        self.get(name).is_some_and(|v| {
            matches!(
                v.trim().to_ascii_lowercase().as_str(),
                "1" | "true" | "yes" | "on"
            )
        })
    }
}

#[cfg(test)]
mod tests;
