//! The command line: `doca-doctor [--json] [--require WHAT]... [--help] [--version]`.

use std::ffi::OsString;
use std::fmt;

/// The usage text (printed by `--help`, and after a usage error).
pub(crate) const USAGE: &str = "\
usage: doca-doctor [--json] [--require dpa|rdmi|hardware]... [--help] [--version]

Checks that this machine is right for doca-rs: the backend, the DOCA versions
(pkg-config modules, doca_version.h, runtime library), dpacc, the devices and
their DPA limits, the symbol audit and RDMI availability.

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
pub(crate) struct Requirements {
    /// `--require dpa`.
    pub(crate) dpa: bool,
    /// `--require rdmi`.
    pub(crate) rdmi: bool,
    /// `--require hardware`.
    pub(crate) hardware: bool,
}

impl Requirements {
    /// The names given, in a fixed order (for the report).
    pub(crate) fn names(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        if self.hardware {
            v.push("hardware");
        }
        if self.dpa {
            v.push("dpa");
        }
        if self.rdmi {
            v.push("rdmi");
        }
        v
    }
}

/// A run of the checks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Options {
    /// `--json`.
    pub(crate) json: bool,
    /// The `--require` flags.
    pub(crate) require: Requirements,
}

/// What the command line asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Command {
    /// Run the checks.
    Run(Options),
    /// `--help`.
    Help,
    /// `--version`.
    Version,
}

/// A command line that cannot be understood (exit status 2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UsageError(pub(crate) String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn add_requirement(req: &mut Requirements, list: &str) -> Result<(), UsageError> {
    for name in list.split(',').map(str::trim) {
        match name {
            "dpa" => req.dpa = true,
            "rdmi" => req.rdmi = true,
            "hardware" => req.hardware = true,
            "" => {
                return Err(UsageError(
                    "--require needs a value: dpa, rdmi or hardware".into(),
                ))
            }
            other => {
                return Err(UsageError(format!(
                    "unknown requirement `{other}` (expected dpa, rdmi or hardware)"
                )))
            }
        }
    }
    Ok(())
}

/// Parses the arguments (without the program name).
pub(crate) fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Command, UsageError> {
    let mut opts = Options::default();
    let mut help = false;
    let mut version = false;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let Some(arg) = arg.to_str().map(str::to_owned) else {
            return Err(UsageError(format!(
                "argument `{}` is not valid UTF-8",
                arg.to_string_lossy()
            )));
        };
        match arg.as_str() {
            "--json" => opts.json = true,
            "-h" | "--help" => help = true,
            "-V" | "--version" => version = true,
            "--require" => {
                let value = args
                    .next()
                    .ok_or_else(|| {
                        UsageError("--require needs a value: dpa, rdmi or hardware".into())
                    })?
                    .to_string_lossy()
                    .into_owned();
                add_requirement(&mut opts.require, &value)?;
            }
            a if a.starts_with("--require=") => {
                add_requirement(&mut opts.require, &a["--require=".len()..])?;
            }
            a => return Err(UsageError(format!("unknown argument `{a}`"))),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Result<Command, UsageError> {
        parse(args.iter().map(OsString::from))
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
        let Ok(Command::Run(o)) = run(&["--require", "hardware,dpa"]) else {
            panic!("expected a run");
        };
        assert_eq!(o.require.names(), ["hardware", "dpa"]);
    }

    #[test]
    fn help_and_version_win() {
        assert_eq!(run(&["--json", "--help"]), Ok(Command::Help));
        assert_eq!(run(&["-V"]), Ok(Command::Version));
    }

    #[test]
    fn usage_errors() {
        assert!(run(&["--frobnicate"]).is_err());
        assert!(run(&["--require"]).is_err());
        assert!(run(&["--require", "gpu"]).is_err());
        assert!(run(&["--require="]).is_err());
        assert!(run(&["--require", "dpa,"]).is_err());
        assert!(run(&["json"]).is_err());
    }
}
