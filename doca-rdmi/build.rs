//! Turns the symbol audits of doca-dpa-sys (DOCA Core, DPA), doca-verbs-sys
//! (Verbs) and doca-rdmi-sys (RDMI) into `doca_sym` / `doca_hand_declared` cfgs filtered by the
//! `experimental` feature, writes the run-time audit table, and enables each
//! part of the crate (`doca_rdmi_api = "verbs" | "ctx" | "connection" |
//! "poster"`) whose functions are all usable.

#[path = "src/requirements.rs"]
#[allow(dead_code)]
mod requirements;

use std::collections::BTreeSet;

use doca_build_support::env::EnvReader;
use doca_build_support::safe::{plan, usable};

fn main() {
    let env = EnvReader::from_process();
    let p = match plan(&env, &["DOCA_DPA", "DOCA_VERBS", "DOCA_RDMI"]) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("\nerror: {e}\n");
            std::process::exit(1);
        }
    };
    let experimental = env.is_set("CARGO_FEATURE_EXPERIMENTAL");
    let Some(out) = env.get_os("OUT_DIR") else {
        eprintln!("\nerror: OUT_DIR is not set\n");
        std::process::exit(1);
    };
    let path = std::path::Path::new(&out).join("audit.rs");
    if let Err(e) = std::fs::write(&path, &p.audit_rs) {
        eprintln!("\nerror: {}: {e}\n", path.display());
        std::process::exit(1);
    }
    p.directives.print();

    let names: Vec<String> = requirements::PARTS
        .iter()
        .map(|part| format!("\"{}\"", part.name))
        .collect();
    println!(
        "cargo::rustc-check-cfg=cfg(doca_rdmi_api, values({}))",
        names.join(", ")
    );
    let ok = |name: &str| {
        p.audit
            .rows
            .iter()
            .any(|r| r.name == name && usable(r, experimental))
    };
    let mut enabled: BTreeSet<&str> = BTreeSet::new();
    for part in requirements::PARTS {
        if part.needs.iter().all(|n| enabled.contains(n)) && part.symbols.iter().all(|s| ok(s)) {
            enabled.insert(part.name);
            println!("cargo::rustc-cfg=doca_rdmi_api=\"{}\"", part.name);
        }
    }
}
