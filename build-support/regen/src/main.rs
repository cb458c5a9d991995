//! `doca-regen-bindings` (`cargo regen-bindings`): regenerates the committed bindings
//! `doca-dpa-sys/bundled/dpa.rs`, `doca-rdmi-sys/bundled/rdmi.rs`,
//! `doca-rdma-sys/bundled/rdma.rs` and `doca-comch-sys/bundled/comch.rs` (with their
//! check files) from the reference headers in `doca-sim/include`.
//!
//! `--check` compares instead of writing and exits with status 1 when a file differs;
//! `--headers DIR` and `--out DIR` change the input and output directories.

use std::process::ExitCode;

use doca_regen_bindings::regen::{run, Args};

fn main() -> ExitCode {
    let args = match Args::parse(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Err(e) => {
            eprintln!("doca-regen-bindings: {e}");
            ExitCode::FAILURE
        }
        Ok(outcomes) => {
            let mut stale = false;
            for o in &outcomes {
                match &o.difference {
                    None if args.check => println!("up to date: {}", o.path.display()),
                    None => println!("wrote {}", o.path.display()),
                    Some(d) => {
                        stale = true;
                        println!("STALE: {}: {d}", o.path.display());
                    }
                }
            }
            if stale {
                eprintln!("the committed bindings are stale: run `cargo regen-bindings`");
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            }
        }
    }
}
