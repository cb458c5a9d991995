//! `doca-doctor`: is this machine right for doca-rs?
//!
//! ```text
//! cargo run --bin doca-doctor                         # human report
//! cargo run --bin doca-doctor -- --json               # JSON, schema_version 1
//! cargo run --bin doca-doctor -- --require dpa --require rdmi
//! ```
//!
//! Reports the backend the crates were built for; the DOCA versions (every
//! pkg-config module the build saw, `doca_version.h`, the runtime library)
//! and whether they match; the `dpacc` found and whether its release is
//! DOCA's; every device with its PCI address, name, DPA and DPA limits; the
//! symbol audit; RDMI availability. Each check gets a verdict (`ok`, `warn`,
//! `fail`) and, when not ok, the fix in one sentence.
//!
//! `--require dpa` makes "a device with a DPA whose limits can be read"
//! required, `--require rdmi` "RDMI available", `--require hardware` "built
//! for real DOCA, not the sim". Exit status: 0 when every required check
//! passed, 1 when one failed, 2 for a usage error.
//!
//! The checks and the JSON schema are documented in the `doctor` module
//! (`src/doctor/mod.rs`) and in `docs/doca-doctor.md`.

#[path = "../doctor/mod.rs"]
mod doctor;

fn main() {
    std::process::exit(doctor::main(std::env::args_os().skip(1)));
}
