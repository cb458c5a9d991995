//! The sim's configuration from the environment, which fails closed.
//!
//! `DOCA_SIM_PROFILE`, `DOCA_SIM_FAULTS` and `DOCA_SIM_MEMCHECK` are read once.
//! If any is malformed (or the profile file cannot be read), every fallible
//! DOCA call returns `DOCA_ERROR_BAD_CONFIG` and the first one prints why:
//! a test run on silently different settings would pass without testing what
//! its author asked for.
//!
//! Model choice: DOCA itself has no such variables; BAD_CONFIG is the DOCA
//! code for "Configuration is not valid".

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

/// Why the environment configuration was refused, if it was.
pub(crate) fn error() -> Option<&'static str> {
    static ERROR: OnceLock<Option<String>> = OnceLock::new();
    ERROR
        .get_or_init(|| {
            let mut problems = Vec::new();
            problems.extend(crate::profile::env_error());
            if let Err(e) = crate::hooks::env_faults() {
                problems.push(e.clone());
            }
            if let Err(e) = crate::memcheck::env_setting() {
                problems.push(e);
            }
            (!problems.is_empty()).then(|| problems.join("; "))
        })
        .as_deref()
}

/// Says once, on stderr, why calls fail.
pub(crate) fn announce(reason: &str) {
    static SAID: AtomicBool = AtomicBool::new(false);
    if !SAID.swap(true, Ordering::Relaxed) {
        eprintln!(
            "doca-sim: {reason}; every DOCA call fails with DOCA_ERROR_BAD_CONFIG until this is fixed"
        );
    }
}

/// Sim only: why the sim's environment configuration (`DOCA_SIM_PROFILE`,
/// `DOCA_SIM_FAULTS`, `DOCA_SIM_MEMCHECK`) was refused, or `None` when it is
/// valid. While it is refused every fallible DOCA call returns
/// `DOCA_ERROR_BAD_CONFIG`.
pub fn config_error() -> Option<String> {
    error().map(str::to_owned)
}
