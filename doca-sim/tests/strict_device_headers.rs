//! The device headers (`device-include`) are as strict as DOCA 3.0's: every DPA
//! source of the repository compiles against them, and once more with only what
//! real DOCA 3.0 declares (`-DDOCA_SIM_DEV_RELEASE=300 -DDOCA_SIM_DEV_NO_SIM_EXTRAS`:
//! no post-3.0 declaration, nothing of doca-sim's own). The RDMI kernels and
//! doca-sim's own device-API programs are the exceptions of the second pass, and
//! the test checks that they do fail there, so the pass is known to be strict.
//! Also checked directly: the declarations that sit where DOCA 3.0 has them.
//!
//! The compiler answers (`cc -fsyntax-only`), as dpacc's front end would; each
//! source is compiled alone, as dpacc compiles it.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("doca-sim is in the workspace")
        .to_owned()
}

/// What real DOCA 3.0 declares, nothing more.
const REAL_3_0: &[&str] = &["-DDOCA_SIM_DEV_RELEASE=300", "-DDOCA_SIM_DEV_NO_SIM_EXTRAS"];

/// `cc -fsyntax-only` of `file` with the device and host reference headers (a DOCA
/// install has both in one include directory) and `defines`; the diagnostics on
/// failure.
fn compile(file: &Path, defines: &[&str]) -> Result<(), String> {
    let sim = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(std::env::var_os("CC").unwrap_or_else(|| "cc".into()))
        .args([
            "-fsyntax-only",
            "-std=gnu11",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-DDOCA_ALLOW_EXPERIMENTAL_API",
        ])
        .arg("-I")
        .arg(sim.join("device-include"))
        .arg("-I")
        .arg(sim.join("include"))
        .args(defines)
        .arg(file)
        .output()
        .unwrap_or_else(|e| panic!("running the C compiler: {e}"));
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// The `*.c` files of `dir` (relative to the repository), sorted.
fn sources_in(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|e| e.expect("reading a directory").path())
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    v.sort();
    v
}

/// Every DPA source of the repository: the kernels of the examples, the tests,
/// the user-crate and fake-prefix fixtures, and doca-sim's own test programs.
fn all_device_sources() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for dir in [
        "examples/kernels",
        "examples/kernels/rdmi",
        "examples/kernels/verbs",
        "tests/kernels",
        "tests/kernels/rdmi",
        "tests/kernels/verbs",
        "tests/user-crate/kernels",
        "tests/fake-prefix/kernels-probe/kernels",
        "doca-sim/tests/kernels",
    ] {
        v.extend(sources_in(dir));
    }
    let programs = root().join("doca-sim/tests/c_programs");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&programs)
        .expect("reading c_programs")
        .map(|e| e.expect("reading c_programs").path())
        .collect();
    dirs.sort();
    v.extend(
        dirs.into_iter()
            .map(|d| d.join("device.c"))
            .filter(|f| f.is_file()),
    );
    v
}

/// Sources that cannot compile with only what DOCA 3.0 declares, and why: they
/// are built only where what they need exists.
fn not_real_3_0(file: &Path) -> Option<&'static str> {
    let rel = file.strip_prefix(root()).unwrap_or(file);
    let rel = rel.to_string_lossy();
    if rel.contains("/rdmi/") {
        Some("takes RDMI device types: no DOCA release publishes them, so it is built only where RDMI is present")
    } else if rel.contains("/verbs/") || rel.contains("/dpa_verbs_") {
        Some("uses DPA Verbs (doca_dpa_dev_verbs.h), which arrived with DOCA 3.2")
    } else if rel == "doca-sim/tests/kernels/device_faults.c"
        || rel == "doca-sim/tests/c_programs/kernel_accessors/device.c"
    {
        Some("tests doca-sim's own device API (doca_sim_dev.h), on the sim only")
    } else {
        None
    }
}

#[test]
fn every_device_source_compiles_against_the_strict_headers() {
    let all = all_device_sources();
    assert!(
        all.len() >= 15,
        "only {} device sources found: {all:?}",
        all.len()
    );
    for must in [
        "tests/kernels/by_value.c",
        "tests/kernels/i4.c",
        "examples/kernels/kernel_launch.c",
    ] {
        assert!(all.contains(&root().join(must)), "{must} not found");
    }
    let failures: Vec<String> = all
        .iter()
        .filter_map(|f| {
            compile(f, &[])
                .err()
                .map(|e| format!("{}:\n{e}", f.display()))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_kernel_compiles_with_only_what_doca_3_0_declares() {
    let mut exceptions = 0;
    let mut failures = Vec::new();
    for f in all_device_sources() {
        match (not_real_3_0(&f), compile(&f, REAL_3_0)) {
            (None, Ok(())) => {}
            (None, Err(e)) => failures.push(format!("{}:\n{e}", f.display())),
            // An exception must still be one: proves the pass is strict.
            (Some(_), Err(_)) => exceptions += 1,
            (Some(why), Ok(())) => failures.push(format!(
                "{} compiles with only DOCA 3.0's declarations although it {why}: \
                 drop the exception",
                f.display()
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(
        exceptions, 9,
        "the RDMI kernels, the four DPA Verbs sources and the two sim-only programs"
    );
}

/// Writes `text` as a C file in a fresh directory and compiles it.
fn compile_text(name: &str, text: &str, defines: &[&str]) -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("doca-sim-strict-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("creating a temp dir");
    let file = dir.join(format!("{name}.c"));
    std::fs::write(&file, text).expect("writing the source");
    let result = compile(&file, defines);
    let _ = std::fs::remove_dir_all(&dir);
    result
}

#[test]
fn the_mmap_handle_type_is_only_in_the_buf_header() {
    let kernel = "__dpa_global__ void k(doca_dpa_dev_mmap_t m, doca_dpa_dev_uintptr_t out)\n\
                  { *(uint64_t *)out = m; }\n";
    let e = compile_text("mmap", &format!("#include <doca_dpa_dev.h>\n{kernel}"), &[])
        .expect_err("doca_dpa_dev_mmap_t without doca_dpa_dev_buf.h");
    assert!(e.contains("doca_dpa_dev_mmap_t"), "{e}");
    compile_text(
        "mmap_buf",
        &format!("#include <doca_dpa_dev.h>\n#include <doca_dpa_dev_buf.h>\n{kernel}"),
        REAL_3_0,
    )
    .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn host_and_device_headers_do_not_mix_in_one_translation_unit() {
    for order in [
        "#include <doca_dpa.h>\n#include <doca_dpa_dev.h>\n",
        "#include <doca_dpa_dev.h>\n#include <doca_dpa.h>\n",
    ] {
        let e = compile_text("mixed", &format!("{order}int x;\n"), &[])
            .expect_err("both define enum doca_dpa_dev_log_level, unguarded as in DOCA 3.0");
        assert!(e.contains("doca_dpa_dev_log_level"), "{e}");
    }
}

#[test]
fn post_3_0_accessors_need_a_release_that_has_them() {
    let kernel = "#include <doca_dpa_dev.h>\n\
                  __dpa_global__ void k(doca_dpa_dev_completion_element_t e, doca_dpa_dev_uintptr_t out)\n\
                  { *(uint64_t *)out = doca_dpa_dev_completion_element_get_qpn(e); }\n";
    compile_text("accessor", kernel, &[]).unwrap_or_else(|e| panic!("{e}"));
    compile_text("accessor32", kernel, &["-DDOCA_SIM_DEV_RELEASE=302"])
        .unwrap_or_else(|e| panic!("{e}"));
    let e = compile_text("accessor30", kernel, &["-DDOCA_SIM_DEV_RELEASE=300"])
        .expect_err("DOCA 3.0 has no completion-element accessors");
    assert!(e.contains("doca_dpa_dev_completion_element_get_qpn"), "{e}");
}

#[test]
fn sim_only_declarations_are_marked_and_refused_without_the_sim() {
    let uses_sim = "#include <doca_dpa_dev.h>\n#ifdef DOCA_SIM_DEVICE\n#include <doca_sim_dev.h>\n\
                    #endif\nint x;\n";
    compile_text("sim", uses_sim, REAL_3_0).unwrap_or_else(|e| panic!("{e}"));
    let e = compile_text("sim_bare", "#include <doca_sim_dev.h>\nint x;\n", REAL_3_0)
        .expect_err("doca_sim_dev.h is doca-sim's own");
    assert!(e.contains("doca-sim's own"), "{e}");
    let headers = Path::new(env!("CARGO_MANIFEST_DIR")).join("device-include");
    let intrinsics = std::fs::read_to_string(headers.join("dpaintrin.h")).expect("dpaintrin.h");
    let at = intrinsics
        .find("uint64_t doca_sim_dev_cycles(void);")
        .expect("doca_sim_dev_cycles is declared");
    let doc_start = intrinsics[..at]
        .rfind("/**")
        .expect("a doc comment before it");
    assert!(
        intrinsics[doc_start..at].contains("doca-sim only"),
        "doca_sim_dev_cycles is not documented as sim-only"
    );
}
