//! `doca-doctor`: is this machine right for doca-rs?
//!
//! ```text
//! cargo install --path doca-doctor                    # from a doca-rs checkout
//! doca-doctor                                         # human report
//! doca-doctor --json                                  # JSON, schema_version 3
//! doca-doctor --require hardware --require dpa        # what a BlueField CI job asks
//! cargo run -p doca-doctor -- --json                  # in the doca-rs repository
//! ```
//!
//! Reports on the machine and the installed DOCA. The default build links no
//! DOCA: it loads DOCA's libraries at run time (module `loaded`: pkg-config's
//! libdirs, `DOCA_PREFIX`, `LD_LIBRARY_PATH`, the standard locations), so it
//! builds and starts without DOCA and says which libraries it found, which are
//! missing and where it looked. The `sim` feature builds it with `doca` on the
//! software DPA instead (module `linked`). It reports the DOCA versions (every
//! pkg-config module, `doca_version.h`, the runtime library) and
//! whether they match; the `dpacc` found and whether its release is DOCA's;
//! every device with its PCI address, name, DPA and DPA limits; the symbol
//! audit; RDMI availability; whether a hardware build will accept the installed
//! headers (the bindings check of the -sys builds, run on them: module
//! `bindings`); on the sim, where its device profile came from and
//! why its environment configuration was refused, if it was. Each check gets a
//! verdict (`ok`, `warn`, `fail`) and, when not ok, the fix in one sentence.
//!
//! `--require dpa` makes "a device with a DPA whose limits can be read"
//! required, `--require rdmi` "RDMI available", `--require hardware` "built
//! for real DOCA, not the sim". Exit status: 0 when every required check
//! passed, 1 when one failed, 2 for a usage error.
//!
//! It is its own package so that the libraries carry none of it: `doca`
//! depends on neither this program nor `doca-build-support` at run time.
//!
//! The checks, one small module each, and the output:
//!
//! | module | what |
//! |---|---|
//! | (this file) | the command line (lexopt) |
//! | `check` | verdicts (`ok` / `warn` / `fail`) and the exit status |
//! | `backend` | the backend, the sim's configuration, RDMI availability |
//! | `versions` | the four-way version match |
//! | `dpacc` | the DPA compiler and its version |
//! | `devices` | the device list and DPA limits |
//! | `symbols` | the symbol audit |
//! | `bindings` | the bindings check a hardware build runs, on the installed headers |
//! | `report` | gathering everything; the JSON document (serde) |
//! | `human` | the text report |
//!
//! # Verdicts and exit status
//!
//! Every check ends `ok`, `warn` or `fail`, with a one-sentence fix when it
//! is not `ok`. Only a *required* check can fail; a problem in a check that is
//! not required is a `warn`. `backend`, `versions`, `dpacc` (hardware only),
//! `devices` and `symbols` are always required; `dpa` and `rdmi` only with
//! `--require dpa` / `--require rdmi`; `bindings` in the default build, and a
//! sim build fails `backend` and `bindings` only with `--require hardware`. The exit status is 0 when no check failed, 1
//! when one did, 2 for a usage error.
//!
//! # JSON schema, version 3 (`--json`)
//!
//! One object, pretty-printed. Fields are never removed or changed in meaning
//! without raising `schema_version`; new fields may be added.
//!
//! ```text
//! {
//!   "schema_version": 3,
//!   "tool": "doca-doctor",
//!   "tool_version": "0.1.0",                 // the doca-doctor package version
//!   "backend": "sim",                        // "hardware" | "sim" | "docs"
//!   "bindings": {                            // how each -sys crate's bindings were
//!     "dpa": "committed (…)",                //   made (build_info::BINDINGS): bundled
//!     "rdmi": "committed (…)"                //   and checked, bindgen, or committed
//!   },
//!   "sim_profile": null,                     // DOCA_SIM_PROFILE on the sim, else null
//!   "sim": {                                 // null unless on the sim
//!     "profile_source": "the default profile", // doca_sim::profile_source()
//!     "config_error": null                   // doca_sim::config_error(): why the sim's
//!   },                                       //   environment was refused
//!   "libraries": null,                       // default build: loaded, missing,
//!                                            //   optional_missing, searched, errors,
//!                                            //   pkg_config_error (see the README)
//!   "required": ["dpa"],                     // the --require names given
//!   "verdict": "ok",                         // worst verdict of all checks
//!   "exit_code": 0,                          // 0 or 1, as the process exits
//!   "checks": [                              // always these ids, in this order:
//!     {                                      //   backend, versions, dpacc, devices,
//!       "id": "versions",                    //   dpa, symbols, rdmi, bindings
//!       "verdict": "ok",                     // "ok" | "warn" | "fail"
//!       "required": true,
//!       "summary": "…",                      // one line
//!       "fix": null                          // one sentence when verdict != "ok"
//!     }
//!   ],
//!   "versions": {
//!     "doca_version_h": "3.3.0001",          // DOCA_VERSION_STRING of the bindings
//!     "build": [{"crate": "doca-dpa-sys", "version": "3.3.0001"}],
//!     "pkg_config": [{"module": "doca-dpa", "version": "3.3.0001"}],  // [] on the sim
//!     "runtime": "3.3.0001",                 // doca_version_runtime(), or null
//!     "match": true                          // null: something unreadable
//!   },
//!   "dpacc": {
//!     "needed": false,                       // false on the sim
//!     "path": null, "found_by": null,        // found_by: "DPACC" | "PATH" | "default"
//!     "version": null,                       // dpacc's own number, e.g. "1.12.0.26"
//!     "doca_version": "3.3.0001", "doca_release": "3.3",
//!     "pairing": null,                       // "same-install" | "known" | "unknown" | "uncertain" | "mismatch"
//!     "known_dpacc": null,                   // the dpacc known to ship with this DOCA
//!     "install_dpacc": null,                 // PREFIX/tools/dpacc, when the prefix is known
//!     "error": null
//!   },
//!   "devices": [{
//!     "pci_addr": "0000:03:00.0", "ibdev_name": "mlx5_0", "iface_name": "p0",
//!     "has_dpa": true,
//!     "limits": {                            // null without a DPA or on error
//!       "max_threads_per_kernel": 190, "kernel_max_run_time_s": 12,
//!       "cores": 12, "eus_per_core": 16, "eus_available": 190
//!     },
//!     "limits_error": null
//!   }],
//!   "devices_error": null,                   // why the list could not be made
//!   "symbols": {
//!     "total": 219, "declared": 218, "exported": 219, "experimental": 176,
//!     "stable": 42, "usable": 219,
//!     "missing": [],                         // declared but not exported
//!     "unchecked": [],                       // exports not checked at build time
//!     "rows": [{"crate": "doca-dpa", "name": "doca_dpa_create",
//!               "header": "doca_dpa.h", "marker": "EXPERIMENTAL",
//!               "declared": true, "exported": true, "usable": true}]
//!   },
//!   "rdmi": {"available": true, "reason": null},
//!   "bindings_check": {                      // what a hardware build will say of
//!     "include_dirs": ["/opt/mellanox/doca/include"], // the installed headers
//!     "install_error": null,                 // no install, or one the build refuses
//!     "sets": [{"set": "dpa", "result": "accepted", "checked": 456, "message": null}]
//!   }                                        // result: accepted | refused | absent | unchecked
//! }
//! ```
//!
//! `README.md` of this package describes each field in full; a test checks that it
//! names every key the program writes.

mod backend;
mod bindings;
mod check;
mod devices;
mod dpacc;
mod facts;
mod human;
#[cfg(feature = "sim")]
mod linked;
#[cfg(not(feature = "sim"))]
mod loaded;
mod report;
mod symbols;
mod versions;

use std::ffi::OsString;
use std::io::Write;

use report::Report;

/// The usage text (printed by `--help`, and after a usage error).
const USAGE: &str = "\
usage: doca-doctor [--json] [--require dpa|rdmi|hardware]... [--help] [--version]

Checks that this machine is right for doca-rs: the backend, the DOCA versions
(pkg-config modules, doca_version.h, runtime library), dpacc, the devices and
their DPA limits, the symbol audit, RDMI availability, and whether a hardware
build will accept the installed headers (the bindings check).

options:
  --json             print the report as JSON (schema_version 3, see the README of doca-doctor)
  --require WHAT     make a check required (repeatable; WHAT may be a comma list):
                       dpa       a device with a DPA whose limits can be read
                       rdmi      RDMI available in this build
                       hardware  the crates built for real DOCA, not the sim
  -h, --help         print this help
  -V, --version      print the version

exit status: 0 every required check passed, 1 a required check failed,
             2 usage error";

/// What `--require` can name.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Requirements {
    /// `--require dpa`.
    dpa: bool,
    /// `--require rdmi`.
    rdmi: bool,
    /// `--require hardware`.
    hardware: bool,
}

impl Requirements {
    /// The names given, in a fixed order (for the report).
    fn names(&self) -> Vec<&'static str> {
        [
            (self.hardware, "hardware"),
            (self.dpa, "dpa"),
            (self.rdmi, "rdmi"),
        ]
        .into_iter()
        .filter_map(|(given, name)| given.then_some(name))
        .collect()
    }

    /// Adds the comma list `list` (the value of one `--require`).
    fn add(&mut self, list: &str) -> Result<(), lexopt::Error> {
        for name in list.split(',').map(str::trim) {
            match name {
                "dpa" => self.dpa = true,
                "rdmi" => self.rdmi = true,
                "hardware" => self.hardware = true,
                "" => return Err("--require needs a value: dpa, rdmi or hardware".into()),
                other => {
                    return Err(format!(
                        "unknown requirement `{other}` (expected dpa, rdmi or hardware)"
                    )
                    .into())
                }
            }
        }
        Ok(())
    }
}

/// A run of the checks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Options {
    /// `--json`.
    json: bool,
    /// The `--require` flags.
    require: Requirements,
}

/// What the command line asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Command {
    /// Run the checks.
    Run(Options),
    /// `--help`.
    Help,
    /// `--version`.
    Version,
}

/// Parses the arguments (without the program name). `--help` and `--version` win
/// over the other options; the first argument not understood is the error.
fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Command, lexopt::Error> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_args(args);
    let (mut opts, mut help, mut version) = (Options::default(), false, false);
    while let Some(arg) = parser.next()? {
        match arg {
            Long("json") => opts.json = true,
            Short('h') | Long("help") => help = true,
            Short('V') | Long("version") => version = true,
            Long("require") => opts.require.add(&parser.value()?.string()?)?,
            _ => return Err(arg.unexpected()),
        }
    }
    Ok(if help {
        Command::Help
    } else if version {
        Command::Version
    } else {
        Command::Run(opts)
    })
}

/// Writes `text` to stdout; a closed or broken stdout is not worth a panic.
fn write_stdout(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// Writes `text` to stderr, ignoring failures.
fn write_stderr(text: &str) {
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

fn main() {
    std::process::exit(run(std::env::args_os().skip(1)));
}

/// Runs doca-doctor with `args` (without the program name); returns the exit
/// status.
fn run(args: impl IntoIterator<Item = OsString>) -> i32 {
    match parse(args) {
        Err(e) => {
            write_stderr(&format!("doca-doctor: {e}\n\n{USAGE}\n"));
            2
        }
        Ok(Command::Help) => {
            write_stdout(&format!("{USAGE}\n"));
            0
        }
        Ok(Command::Version) => {
            write_stdout(&format!(
                "doca-doctor {} (JSON schema_version {})\n",
                env!("CARGO_PKG_VERSION"),
                report::SCHEMA_VERSION
            ));
            0
        }
        Ok(Command::Run(opts)) => {
            let report = Report::collect(&opts);
            let text = if opts.json {
                match serde_json::to_string_pretty(&report) {
                    Ok(json) => json + "\n",
                    // The document has no map with non-string keys and no type that
                    // refuses to serialize, so this is not expected; still no panic.
                    Err(e) => {
                        write_stderr(&format!("doca-doctor: writing the JSON report: {e}\n"));
                        return 1;
                    }
                }
            } else {
                human::render(&report)
            };
            write_stdout(&text);
            report.exit_code()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Result<Command, String> {
        parse(args.iter().map(OsString::from)).map_err(|e| e.to_string())
    }

    #[test]
    fn defaults() {
        assert_eq!(run(&[]), Ok(Command::Run(Options::default())));
    }

    #[test]
    fn json_and_requirements() {
        let Ok(Command::Run(o)) = run(&["--require", "dpa", "--json", "--require=rdmi"]) else {
            panic!("expected a run");
        };
        assert!(o.json && o.require.dpa && o.require.rdmi && !o.require.hardware);
        let Ok(Command::Run(o)) = run(&["--require", "hardware, dpa"]) else {
            panic!("expected a run");
        };
        assert_eq!(o.require.names(), ["hardware", "dpa"]);
    }

    #[test]
    fn help_and_version_win() {
        assert_eq!(run(&["--json", "--help"]), Ok(Command::Help));
        assert_eq!(run(&["-h"]), Ok(Command::Help));
        assert_eq!(run(&["-V"]), Ok(Command::Version));
        assert_eq!(run(&["--version", "--json"]), Ok(Command::Version));
    }

    #[test]
    fn usage_errors_say_what_is_wrong() {
        for (args, says) in [
            (&["--frobnicate"][..], "--frobnicate"),
            (&["--require"], "--require"),
            (&["--require", "gpu"], "unknown requirement `gpu`"),
            (&["--require="], "needs a value"),
            (&["--require", "dpa,"], "needs a value"),
            (&["json"], "json"),
            (&["--json=yes"], "--json"),
        ] {
            match run(args) {
                Err(e) => assert!(e.contains(says), "{args:?}: {e}"),
                Ok(c) => panic!("{args:?} accepted: {c:?}"),
            }
        }
    }
}
