//! Choosing the backend: the installed DOCA (`hardware`), the software DPA (`sim`), or
//! nothing at all for documentation builds (`docs`).
//!
//! Rules ([`choose`]):
//!
//! | input | result |
//! |---|---|
//! | `DOCS_RS` set to a true value (`1`, as docs.rs does) | `docs`: no probing, no linking |
//! | `DOCA_BACKEND=hardware` | probe; any probe error is fatal |
//! | `DOCA_BACKEND=sim` | `sim` with the `sim` feature; without it an error saying to add the feature |
//! | `DOCA_BACKEND=auto` | `hardware` if the probe succeeds; `sim` when DOCA is simply not there and the `sim` feature is on (else the not-found error); an old, mismatched or broken install is still an error |
//! | unset (or empty) | `sim` if the `sim` cargo feature is on, else as `hardware` |
//! | anything else | an error listing the valid values |
//!
//! Values are case-insensitive and trimmed (`DOCA_BACKEND=Sim` is `sim`).
//!
//! The software DPA (`doca-sim`) is an optional dependency of doca-dpa-sys that only
//! its `sim` feature brings into the build, so a hardware build neither compiles nor
//! links it. The one switch a dependant uses to put the whole tree on the software DPA
//! is therefore the `sim` feature of the `doca` facade (which turns on the `sim`
//! features of both -sys crates); `DOCA_BACKEND` can choose the sim only where that
//! feature has put it in the build, and every "DOCA not found" message names the
//! feature ([`SIM_SWITCH`]). With the feature on, `DOCA_BACKEND=hardware` (or `auto`
//! finding DOCA) still builds for the installed DOCA: doca-sim is then compiled but
//! nothing references it, so nothing of it is linked.

use std::fmt;

use crate::discovery::{DiscoveryError, Install};
use crate::env::EnvReader;

/// Where the DOCA symbols come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Backend {
    /// The installed DOCA libraries, found through pkg-config.
    Hardware,
    /// The software DPA (`doca-sim`).
    Sim,
    /// A documentation build (`DOCS_RS`): committed bindings, nothing linked.
    Docs,
}

impl Backend {
    /// `"hardware"`, `"sim"` or `"docs"` (the values of the `doca_backend` cfg).
    pub fn as_str(self) -> &'static str {
        match self {
            Backend::Hardware => "hardware",
            Backend::Sim => "sim",
            Backend::Docs => "docs",
        }
    }

    /// The inverse of [`Backend::as_str`].
    pub fn parse(text: &str) -> Option<Backend> {
        Backend::ALL.into_iter().find(|b| b.as_str() == text)
    }

    /// Every value, for `rustc-check-cfg`.
    pub const ALL: [Backend; 3] = [Backend::Hardware, Backend::Sim, Backend::Docs];
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The text of [`SIM_SWITCH`], as a macro so `concat!` can use it.
macro_rules! sim_switch {
    () => {
        "enable the `sim` feature of `doca` (doca = { version = \"0.1\", features = [\"sim\"] }, \
         typically in [dev-dependencies]); DOCA_BACKEND=sim alone cannot add the software \
         DPA to a build"
    };
}
pub(crate) use sim_switch;

/// How a dependant switches the whole tree to the software DPA, as the error messages
/// say it.
pub const SIM_SWITCH: &str = sim_switch!();

/// The values `DOCA_BACKEND` accepts (in any case).
pub const VALID_VALUES: &[&str] = &["hardware", "sim", "auto"];

/// The outcome of [`choose`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// The backend.
    pub backend: Backend,
    /// The install, for [`Backend::Hardware`].
    pub install: Option<Install>,
}

impl Choice {
    /// The sim or docs backend, which use no install.
    fn no_install(backend: Backend) -> Result<Choice, BackendError> {
        Ok(Choice {
            backend,
            install: None,
        })
    }

    /// The hardware backend, on the install discovery found.
    fn hardware(install: Install) -> Choice {
        Choice {
            backend: Backend::Hardware,
            install: Some(install),
        }
    }
}

/// Why no backend could be chosen. The [`Display`](fmt::Display) text is the message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BackendError {
    /// `DOCA_BACKEND` has a value that is not one of [`VALID_VALUES`].
    #[error(
        "DOCA_BACKEND={value:?} is not valid; use one of: {} (hardware: the installed DOCA; \
         sim: the software DPA; auto: the installed DOCA when pkg-config finds it, the \
         software DPA otherwise)",
        VALID_VALUES.join(", ")
    )]
    InvalidValue {
        /// The value given.
        value: String,
    },
    /// The software DPA was asked for (`DOCA_BACKEND=sim`) but the `sim` feature that
    /// brings doca-sim into the build is off.
    #[error(
        "{requested} asks for the software DPA, but doca-sim is not in this build: it is an \
         optional dependency that only the `sim` feature adds. Add features = [\"sim\"] to \
         the `doca` dependency (or turn on `doca-dpa-sys/sim`), typically in \
         [dev-dependencies], or unset DOCA_BACKEND to build for the installed DOCA"
    )]
    SimNotBuilt {
        /// How the sim was requested.
        requested: String,
    },
    /// The hardware backend was required (or `auto` found a broken install) and
    /// discovery failed. Its message includes the discovery error's (a build script
    /// prints Display alone); `source()` gives it to code that walks the chain.
    #[error("doca-rs backend `hardware` ({requested}):\n{error}")]
    Discovery {
        /// How the backend was requested (`DOCA_BACKEND=hardware`, `default`…).
        requested: String,
        /// The discovery error.
        #[source]
        error: Box<DiscoveryError>,
    },
}

/// Chooses the backend from `DOCS_RS`, `DOCA_BACKEND` (read through `env`) and whether
/// the `sim` cargo feature is on; `probe` runs discovery and is called only when the
/// hardware backend is a candidate.
pub fn choose(
    env: &EnvReader,
    sim_feature: bool,
    probe: impl FnOnce() -> Result<Install, DiscoveryError>,
) -> Result<Choice, BackendError> {
    // docs.rs sets it to 1; `0`, empty or `false` is not a documentation build.
    if env.flag("DOCS_RS") {
        return Choice::no_install(Backend::Docs);
    }
    let requested = env
        .get("DOCA_BACKEND")
        .map(|v| v.trim().to_ascii_lowercase());
    match requested.as_deref() {
        Some("sim") if sim_feature => Choice::no_install(Backend::Sim),
        Some("sim") => Err(BackendError::SimNotBuilt {
            requested: "DOCA_BACKEND=sim".to_owned(),
        }),
        Some("hardware") => hardware(probe, "DOCA_BACKEND=hardware"),
        Some("auto") => match probe() {
            Ok(install) => Ok(Choice::hardware(install)),
            Err(error) if error.is_broken_install() => Err(BackendError::Discovery {
                requested: "DOCA_BACKEND=auto found an unusable DOCA install".to_owned(),
                error: Box::new(error),
            }),
            // DOCA is simply not there: the software DPA.
            Err(_) if sim_feature => Choice::no_install(Backend::Sim),
            Err(error) => Err(BackendError::Discovery {
                requested: concat!(
                    "DOCA_BACKEND=auto; DOCA is not installed and the software DPA is not in \
                     this build: ",
                    sim_switch!()
                )
                .to_owned(),
                error: Box::new(error),
            }),
        },
        None | Some("") if sim_feature => Choice::no_install(Backend::Sim),
        None | Some("") => hardware(
            probe,
            concat!(
                "the default for library consumers; for the software DPA, ",
                sim_switch!()
            ),
        ),
        Some(_) => Err(BackendError::InvalidValue {
            value: env.get("DOCA_BACKEND").unwrap_or_default(),
        }),
    }
}

fn hardware(
    probe: impl FnOnce() -> Result<Install, DiscoveryError>,
    requested: &str,
) -> Result<Choice, BackendError> {
    probe()
        .map(Choice::hardware)
        .map_err(|error| BackendError::Discovery {
            requested: requested.to_owned(),
            error: Box::new(error),
        })
}

#[cfg(test)]
mod tests;
