//! The whole flows: sim builds compiled for real, hardware builds against a fake dpacc.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::hardware::ToolDefaults;
use super::*;
use crate::testutil::TempDir;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/dpa_app")
}

fn device_include() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../doca-sim/device-include")
}

fn reference_include() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../doca-sim/include")
}

/// The host's target triple, as cargo would give it to a build script.
fn host_triple() -> String {
    format!(
        "{}-unknown-{}-gnu",
        std::env::consts::ARCH,
        std::env::consts::OS
    )
}

/// The host C compiler, or why there is none.
fn c_compiler() -> Result<cc::Tool, String> {
    let t = host_triple();
    let tool = cc::Build::new()
        .target(&t)
        .host(&t)
        .opt_level(0)
        .cargo_metadata(false)
        .try_get_compiler()
        .map_err(|e| format!("no C compiler: {e}"))?;
    match Command::new(tool.path()).arg("--version").output() {
        Ok(o) if o.status.success() => Ok(tool),
        Ok(o) => Err(format!(
            "{} --version failed: {}",
            tool.path().display(),
            o.status
        )),
        Err(e) => Err(format!("cannot run {}: {e}", tool.path().display())),
    }
}

/// Runs the test body only where a C compiler exists; otherwise says why it is skipped.
macro_rules! need_c_compiler {
    () => {
        match c_compiler() {
            Ok(t) => t,
            Err(why) => {
                eprintln!("skipping: {why}");
                return;
            }
        }
    };
}

fn sim_env(out: &TempDir, extra: &[(&str, &str)]) -> EnvReader {
    EnvReader::fixed(sim_vars(out, extra))
}

/// The variables cargo gives a sim build script of a package that depends on
/// doca-dpa-sys directly.
fn sim_vars(out: &TempDir, extra: &[(&str, &str)]) -> Vec<(String, OsString)> {
    let mut vars: Vec<(String, OsString)> = vec![
        ("DEP_DOCA_DPA_BACKEND".into(), "sim".into()),
        (
            "DEP_DOCA_DPA_SIM_DEVICE_INCLUDE".into(),
            device_include().into(),
        ),
        ("DEP_DOCA_DPA_INCLUDE".into(), reference_include().into()),
        ("OUT_DIR".into(), out.path().into()),
        ("CARGO_MANIFEST_DIR".into(), fixtures().into()),
        ("TARGET".into(), host_triple().into()),
        ("HOST".into(), host_triple().into()),
        ("OPT_LEVEL".into(), "0".into()),
    ];
    vars.extend(
        extra
            .iter()
            .map(|(k, v)| ((*k).to_owned(), OsString::from(*v))),
    );
    vars
}

// ---------------------------------------------------------------------------------
// Sim

#[test]
fn sim_build_of_realistic_sources() {
    let _cc = need_c_compiler!();
    let out = TempDir::new("dpa-sim");
    let env = sim_env(&out, &[]);
    let built = DpaApp::new("realistic_app")
        .sources_in("kernels")
        .include("kernels/include")
        .define("REALISTIC", Some("1"))
        .build_with_env(&env)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(built.backend, Backend::Sim);
    assert_eq!(built.lib_name, "doca_dpa_app_realistic_app");
    let archive = out.path().join("libdoca_dpa_app_realistic_app.a");
    assert_eq!(built.archive.as_deref(), Some(archive.as_path()));
    assert!(archive.is_file());
    let names: Vec<&str> = built.kernels.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "fill",
            "sum_into",
            "worker",
            "nothing",
            "old_style",
            "add",
            "read_state",
            "attributes",
            "qualified"
        ]
    );
    let generated = built.generated_c.clone().unwrap();
    let c = std::fs::read_to_string(&generated).unwrap();
    let source = std::fs::canonicalize(fixtures().join("kernels/realistic.c")).unwrap();
    assert!(c.contains(&format!("#include \"{}\"", source.display())));
    let d = &built.directives;
    assert!(d.contains(&format!("cargo::rerun-if-changed={}", source.display())));
    assert!(d.contains(&format!(
        "cargo::rerun-if-changed={}",
        fixtures().join("kernels").display()
    )));
    assert!(d.contains(&format!(
        "cargo::rerun-if-changed={}",
        fixtures().join("kernels/include").display()
    )));
    assert!(d.contains(&format!(
        "cargo::rustc-link-search=native={}",
        out.path().display()
    )));
    // The archives are linked by the declarations' `#[link]`, never by a directive that
    // would bind them to this package's library target.
    assert!(
        !d.lines().iter().any(|l| l.contains("rustc-link-lib")),
        "{d:?}"
    );
    let decls = std::fs::read_to_string(built.rust_declarations.as_ref().unwrap()).unwrap();
    for lib in [
        "doca_dpa_app_realistic_app_launchers",
        "doca_dpa_app_realistic_app",
    ] {
        assert!(
            decls.contains(&format!("#[link(name = \"{lib}\", kind = \"static\")]")),
            "{lib} not linked by\n{decls}"
        );
    }
    // Generated docs name sources relative to the package, never by this machine's path.
    assert!(decls.contains("/// Defined at `kernels/"), "{decls}");
    assert!(
        !decls.contains(&fixtures().display().to_string()),
        "an absolute path in:\n{decls}"
    );
    let index = std::fs::read_to_string(out.path().join(APP_INDEX_FILE)).unwrap();
    assert!(index.contains("(realistic_app) => {"), "{index}");
    for v in [
        "DEP_DOCA_DPA_BACKEND",
        "DEP_DOCA_DPA_SIM_DEVICE_INCLUDE",
        "OUT_DIR",
        "TARGET",
        "CC",
        "CFLAGS",
    ] {
        assert!(env.was_read(v), "{v} not read");
    }
    assert!(!env.was_read("DPACC"));
}

/// The generated C of a small application compiles with -Wall -Wextra -Werror, and a
/// driver that walks the table like the sim does gets every argument back intact.
#[test]
fn sim_kernels_see_the_host_headers_as_dpacc_kernels_do() {
    let _cc = need_c_compiler!();
    let src = TempDir::new("dpa-sim-host-headers-src");
    // A header shared by host and device code, as real samples write them.
    let kernel = src.write(
        "shared.c",
        "#include <doca_dpa_dev.h>\n#include <doca_sync_event.h>\n\
         __dpa_global__ void shared_kernel(doca_dpa_dev_sync_event_t ev) { (void)ev; }\n",
    );
    let out = TempDir::new("dpa-sim-host-headers");
    let built = DpaApp::new("host_headers_app")
        .source(&kernel)
        .build_with_env(&sim_env(&out, &[]));
    assert!(built.is_ok(), "{:?}", built.err().map(|e| e.to_string()));
    // The host directory is what makes it build: without it the include fails.
    let out = TempDir::new("dpa-sim-host-headers-missing");
    let mut vars = sim_vars(&out, &[]);
    vars.retain(|(k, _)| k != HOST_INCLUDE_ENV);
    let env = EnvReader::fixed(vars);
    let err = DpaApp::new("host_headers_app")
        .source(&kernel)
        .build_with_env(&env)
        .expect_err("built without the host headers");
    assert!(matches!(err, DpaAppError::Preprocess { .. }), "{err:?}");
    assert!(err.to_string().contains("shared.c"), "{err}");
}

#[test]
fn generated_c_is_valid_and_passes_arguments() {
    let cc = need_c_compiler!();
    let out = TempDir::new("dpa-gen");
    let src = std::fs::canonicalize(fixtures().join("small/mixed.c")).unwrap();
    let text = std::fs::read_to_string(&src).unwrap();
    let kernels = parse_device_functions(&src, &text).unwrap();
    let c = sim_app_source("small_app", &[src.as_path()], &kernels, &[]);
    let generated = out.write("small_app.c", &c);
    let exe = out.path().join("driver");
    let status = Command::new(cc.path())
        .args(["-std=gnu11", "-Wall", "-Wextra", "-Werror", "-O1", "-I"])
        .arg(device_include())
        .arg(&generated)
        .arg(fixtures().join("small/driver.c"))
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "compile failed:\n{}\n--- generated ---\n{c}",
        String::from_utf8_lossy(&status.stderr)
    );
    let run = Command::new(&exe).output().unwrap();
    assert!(
        run.status.success(),
        "driver failed:\n{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    // The same file through the cc crate, as the sim build does, with warnings as errors.
    let t = host_triple();
    cc::Build::new()
        .file(&generated)
        .include(device_include())
        .std("gnu11")
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true)
        .cargo_metadata(false)
        .cargo_warnings(false)
        .out_dir(out.path())
        .target(&t)
        .host(&t)
        .opt_level(2)
        .try_compile("small_app")
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn generated_size_assert_catches_narrow_typedefs() {
    let cc = need_c_compiler!();
    let out = TempDir::new("dpa-narrow");
    let src = out.write(
        "narrow.c",
        "#include <doca_dpa_dev.h>\ntypedef uint16_t port_t;\n\
         __dpa_global__ void k(port_t p) { (void)p; }\n",
    );
    let kernels = parse_device_functions(&src, &std::fs::read_to_string(&src).unwrap()).unwrap();
    let generated = out.write(
        "narrow_app.c",
        &sim_app_source("narrow_app", &[src.as_path()], &kernels, &[]),
    );
    let o = Command::new(cc.path())
        .args(["-std=gnu11", "-c", "-o"])
        .arg(out.path().join("narrow.o"))
        .arg("-I")
        .arg(device_include())
        .arg(&generated)
        .output()
        .unwrap();
    assert!(!o.status.success());
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("neither 4 nor 8 bytes"), "{stderr}");
}

/// The scan of `app`'s sources as the sim's kernel compile sees them, and its `Resolved`.
fn scan_for_sim(app: &DpaApp, out: &TempDir) -> (Resolved, Result<expand::Scan, DpaAppError>) {
    let env = sim_env(out, &[]);
    let r = app.resolve(&env, &mut Directives::new()).unwrap();
    let scan = expand::scan(&env, &r, Backend::Sim);
    (r, scan)
}

#[test]
fn realistic_kernels_are_read_from_the_preprocessor_output() {
    let _cc = need_c_compiler!();
    let out = TempDir::new("dpa-scan-realistic");
    let (r, scan) = scan_for_sim(&DpaApp::new("scan_app").source("kernels/realistic.c"), &out);
    let scan = scan.unwrap();
    let sigs: Vec<String> = scan.kernels.iter().map(parse::tests::sig).collect();
    assert_eq!(
        sigs,
        [
            "Global void fill(doca_dpa_dev_uintptr_t|out, uint64_t|scale, uint32_t|offset)",
            "Global void sum_into(const uint64_t *|values, uint64_t *|out, uint32_t|n, int64_t|bias, doca_dpa_dev_sync_event_t|done)",
            "Global void worker(uint64_t|arg)",
            "Global void nothing()",
            "Global void old_style()",
            "Rpc uint64_t add(uint64_t|a, uint64_t|b)",
            "Rpc uint64_t read_state(struct state *|s)",
            "Global void attributes(uint64_t|x)",
            "Global void qualified(uint64_t|a, const char *|p, unsigned long|u)",
        ]
    );
    // The linemarkers give the source's own lines.
    assert_eq!((scan.kernels[0].line, scan.kernels[1].line), (22, 28));
    assert_eq!(scan.kernels[0].file, r.sources[0]);
    // Its shared header is the application's (read, and its structs found).
    assert!(scan
        .read
        .iter()
        .any(|p| p.ends_with("include/realistic_shared.h")));
}

/// Root cause 6 of issue #23: the declaration follows the branch the compiler compiles,
/// comments and unused macros are not read, a struct inside an `extern "C"` block of a
/// shared header is found, and the compiler agrees with what the scan understood.
#[test]
fn the_compiled_branch_of_an_if_gives_the_declaration() {
    let _cc = need_c_compiler!();
    let src = TempDir::new("dpa-scan-branches");
    src.write(
        "shared.h",
        "#include <stdint.h>\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\
         struct ping { uint64_t seq; uint32_t who; };\n\
         #ifdef __cplusplus\n}\n#endif\n",
    );
    let kernel = src.write(
        "k.c",
        "#include <doca_dpa_dev.h>\n#include \"shared.h\"\n\
         /* __dpa_global__ void in_a_comment(struct s v) { */\n\
         #define UNUSED __dpa_global__ void in_a_macro(struct s v) {\n\
         static const char *msg = \"__dpa_global__ void in_a_string(struct s v) {\";\n\
         #ifndef PLAIN_OUT\n\
         __dpa_global__ void k(doca_dpa_dev_uintptr_t out, uint64_t n)\n\
         #else\n\
         __dpa_global__ void k(uint64_t out, uint32_t n)\n\
         #endif\n\
         { (void)out; (void)n; (void)msg; }\n\
         __dpa_rpc__ uint64_t pong(struct ping p) { return p.seq; }\n",
    );
    for (define, expected) in [
        (
            None,
            "Global void k(doca_dpa_dev_uintptr_t|out, uint64_t|n)",
        ),
        (Some("PLAIN_OUT"), "Global void k(uint64_t|out, uint32_t|n)"),
    ] {
        let out = TempDir::new("dpa-scan-branches-out");
        let mut app = DpaApp::new("branch_app").source(&kernel);
        if let Some(d) = define {
            app = app.define(d, None);
        }
        let (r, scan) = scan_for_sim(&app, &out);
        let scan = scan.unwrap();
        let sigs: Vec<String> = scan.kernels.iter().map(parse::tests::sig).collect();
        assert_eq!(sigs, [expected, "Rpc uint64_t pong(struct ping|p)"]);
        assert_eq!(scan.kernels[0].line, if define.is_some() { 9 } else { 7 });
        let ping = scan.structs.iter().find(|s| s.name == "ping").unwrap();
        assert!(
            ping.file.ends_with("shared.h") && ping.line == 5,
            "{ping:?}"
        );
        let env = sim_env(&out, &[]);
        expand::check_declarations(&env, &r, Backend::Sim, &scan).unwrap();
    }
}

/// A generated declaration that disagrees with the kernel (a scanner mistake) is a build
/// error from the compiler's assertion, naming the kernel or the struct.
#[test]
fn a_wrong_generated_declaration_is_a_compiler_error() {
    let _cc = need_c_compiler!();
    let out = TempDir::new("dpa-check-wrong");
    let app = DpaApp::new("check_app").source("kernels/realistic.c");
    let (r, scan) = scan_for_sim(&app, &out);
    let scan = scan.unwrap();
    let env = sim_env(&out, &[]);
    expand::check_declarations(&env, &r, Backend::Sim, &scan).unwrap();

    let mut wrong = scan.clone();
    wrong.kernels[0].params[2].c_type = "uint64_t".into();
    let e = expand::check_declarations(&env, &r, Backend::Sim, &wrong).unwrap_err();
    assert!(matches!(e, DpaAppError::DeclarationCheck { .. }), "{e:?}");
    let text = e.to_string();
    assert!(text.contains("kernel fill"), "{text}");
    assert!(text.contains("uint64_t scale, uint64_t offset"), "{text}");

    let mut wrong = scan.clone();
    let state = wrong
        .structs
        .iter_mut()
        .find(|s| s.name == "state")
        .unwrap();
    let name = state.name.clone();
    state.fields[0].c_type = "uint32_t".into();
    let e = expand::check_declarations(&env, &r, Backend::Sim, &wrong).unwrap_err();
    assert!(e.to_string().contains(&format!("struct {name}")), "{e}");
}

/// A C error in the application's own source is the application's: the compiler's
/// message, first in what `build_or_exit` prints, and no word of a
/// doca-build-support bug (issue #36: it was reported as the declarations' mismatch).
#[test]
fn a_c_error_in_a_kernel_is_reported_as_the_compilers() {
    let out = TempDir::new("dpa-c-error");
    let env = sim_env(&out, &[]);
    let tmp = TempDir::new("dpa-c-error-src");
    let bad = tmp.write(
        "broken.c",
        "#include <doca_dpa_dev.h>\n__dpa_global__ void k(uint64_t a)\n{\n\tint x = ;\n}\n",
    );
    let app = DpaApp::new("broken_app").source(&bad);
    let e = app.build_with_env(&env).unwrap_err();
    let DpaAppError::SourceCompile { file, message } = &e else {
        panic!("expected SourceCompile, got {e:?}");
    };
    assert_eq!(file, &std::fs::canonicalize(&bad).unwrap());
    assert!(message.contains("broken.c:4:"), "{message}");
    let report = app.failure_report(&e);
    assert!(
        report.starts_with(message.lines().next().unwrap()),
        "the compiler's message is not first:\n{report}"
    );
    let last = report.lines().last().unwrap();
    assert!(
        last.starts_with("error: DPA application `broken_app`: ")
            && last.contains("broken.c does not compile"),
        "{report}"
    );
    assert!(!report.contains("doca-build-support bug"), "{report}");
    // Other errors keep their one `error:` line first.
    let other = DpaAppError::NoSources { app: "a".into() };
    assert!(app
        .failure_report(&other)
        .starts_with("error: DPA application `broken_app`: DPA application `a` has no"));
}

#[test]
fn sim_errors() {
    let out = TempDir::new("dpa-sim-err");
    let env = sim_env(&out, &[]);
    // Duplicate across sources.
    let e = DpaApp::new("dup_app")
        .source("kernels/realistic.c")
        .source("second/other.c")
        .build_with_env(&env)
        .unwrap_err();
    match &e {
        DpaAppError::DuplicateKernel {
            name,
            first,
            second,
        } => {
            assert_eq!(name, "fill");
            assert!(first.ends_with("realistic.c") && second.ends_with("other.c"));
        }
        other => panic!("{other:?}"),
    }
    // A kernel with the application's name.
    let e = DpaApp::new("fill")
        .source("second/other.c")
        .build_with_env(&env)
        .unwrap_err();
    assert!(matches!(e, DpaAppError::KernelNamedLikeApp { .. }), "{e:?}");
    // No device function at all.
    let tmp = TempDir::new("dpa-nokernel");
    let host_only = tmp.write("host.c", "static int x;\n");
    let e = DpaApp::new("empty_app")
        .source(&host_only)
        .build_with_env(&env)
        .unwrap_err();
    assert!(matches!(e, DpaAppError::NoKernels { .. }), "{e:?}");
    assert!(e.to_string().contains("host.c"));
    // A refused parameter carries file, kernel and parameter.
    let bad = tmp.write(
        "bad.c",
        "struct s { long a[2]; }; __dpa_global__ void k(struct s v) {}\n",
    );
    let e = DpaApp::new("bad_app")
        .source(&bad)
        .build_with_env(&env)
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("bad.c:1: device function `k`, parameter 1 (`struct s v`)"),
        "{e}"
    );
    // Missing device headers.
    let env2 = EnvReader::fixed([
        ("DEP_DOCA_DPA_BACKEND", "sim"),
        ("OUT_DIR", out.path().to_str().unwrap()),
    ]);
    let good = out.path().join("good.c");
    std::fs::write(&good, "__dpa_global__ void k(uint64_t v) {}\n").unwrap();
    let e = DpaApp::new("x")
        .source(&good)
        .build_with_env(&env2)
        .unwrap_err();
    assert!(
        matches!(
            e,
            DpaAppError::MissingEnv {
                name: "DEP_DOCA_DPA_SIM_DEVICE_INCLUDE",
                ..
            }
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains("make `doca`"), "{e}");
}

#[test]
fn the_facade_metadata_is_enough() {
    // A user crate depends on `doca` alone: its build script sees the metadata as the
    // facade passes it on (DEP_DOCA_*), not doca-dpa-sys's own (DEP_DOCA_DPA_*).
    let _cc = need_c_compiler!();
    let out = TempDir::new("dpa-facade");
    let facade =
        sim_vars(&out, &[])
            .into_iter()
            .map(|(k, v)| match k.strip_prefix("DEP_DOCA_DPA_") {
                Some(key) => (format!("DEP_DOCA_{key}"), v),
                None => (k, v),
            });
    let env = EnvReader::fixed(facade);
    let built = DpaApp::new("facade_app")
        .source("second/other.c")
        .build_with_env(&env)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (built.backend, built.archive.is_some_and(|a| a.is_file())),
        (Backend::Sim, true)
    );
    assert!(env.was_read("DEP_DOCA_DPA_BACKEND") && env.was_read("DEP_DOCA_BACKEND"));
}

// ---------------------------------------------------------------------------------
// Common checks

#[test]
fn app_names() {
    for ok in ["doca_examples", "_x", "App2", "integer", "autos"] {
        assert!(validate_app_name(ok).is_ok(), "{ok}");
    }
    // C keywords, first, last and between of the list.
    for keyword in ["auto", "int", "_Static_assert", "thread_local"] {
        let e = validate_app_name(keyword).unwrap_err();
        assert!(
            e.to_string().contains("it is a C keyword"),
            "{keyword}: {e}"
        );
    }
    for bad in [
        "",
        "2app",
        "my-app",
        "my app",
        "static",
        "doca_sim_gen_x",
        "ü",
    ] {
        assert!(
            matches!(
                validate_app_name(bad),
                Err(DpaAppError::InvalidAppName { .. })
            ),
            "{bad}"
        );
    }
    // Checked before anything else, on every backend.
    let env = EnvReader::fixed([("DEP_DOCA_DPA_BACKEND", "docs")]);
    let e = DpaApp::new("my-app").build_with_env(&env).unwrap_err();
    assert!(e.to_string().contains("C identifier"), "{e}");
}

#[test]
fn docs_backend_generates_only_the_rust_declarations() {
    let out = TempDir::new("dpa-docs");
    // What cargo and doca-dpa-sys give a docs build script: the scan preprocesses the
    // sources as the sim would compile them.
    let mut vars = sim_vars(&out, &[]);
    vars.retain(|(k, _)| k != "DEP_DOCA_DPA_BACKEND");
    vars.push(("DEP_DOCA_DPA_BACKEND".into(), "docs".into()));
    let env = EnvReader::fixed(vars);
    let built = DpaApp::new("docs_app")
        .sources_in("kernels")
        .build_with_env(&env)
        .unwrap();
    assert_eq!(built.backend, Backend::Docs);
    assert!(built.archive.is_none() && built.launchers.is_none());
    assert!(!built
        .directives
        .lines()
        .iter()
        .any(|l| l.contains("rustc-link")));
    let rust = std::fs::read_to_string(out.path().join("doca_dpa_app_docs_app.rs")).unwrap();
    assert!(
        rust.contains("pub const fill: __dpa::Kernel<__sig::fill>"),
        "{rust}"
    );
}

#[test]
fn backend_and_source_errors() {
    let e = DpaApp::new("a").build_with_env(&EnvReader::fixed(Vec::<(String, String)>::new()));
    assert!(matches!(
        e,
        Err(DpaAppError::MissingEnv {
            name: "DEP_DOCA_DPA_BACKEND",
            ..
        })
    ));
    let e = DpaApp::new("a").build_with_env(&EnvReader::fixed([("DEP_DOCA_DPA_BACKEND", "gpu")]));
    assert!(matches!(e, Err(DpaAppError::UnknownBackend { .. })));

    let out = TempDir::new("dpa-src-err");
    let env = sim_env(&out, &[]);
    let e = DpaApp::new("a").build_with_env(&env).unwrap_err();
    assert!(matches!(e, DpaAppError::NoSources { .. }), "{e:?}");
    let empty = TempDir::new("dpa-empty-dir");
    let e = DpaApp::new("a")
        .sources_in(empty.path())
        .build_with_env(&env)
        .unwrap_err();
    assert!(matches!(e, DpaAppError::EmptySourceDir { .. }), "{e:?}");
    let e = DpaApp::new("a")
        .source("nope.c")
        .build_with_env(&env)
        .unwrap_err();
    assert!(matches!(e, DpaAppError::Io { .. }), "{e:?}");
    assert!(e.to_string().contains("nope.c"));
    let e = DpaApp::new("a")
        .source("small/mixed.c")
        .include("no/such/include")
        .build_with_env(&env)
        .unwrap_err();
    assert!(e.to_string().contains("include directory not found"), "{e}");
    let e = DpaApp::new("a")
        .source("small/mixed.c")
        .define("A=1", None)
        .build_with_env(&env)
        .unwrap_err();
    assert!(matches!(e, DpaAppError::InvalidDefine { .. }), "{e:?}");
}

// ---------------------------------------------------------------------------------
// Hardware, with a fake dpacc

#[cfg(unix)]
mod hardware_flow {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// A directory with a fake `dpacc` (and `dpa-app-attributes2blob`) that record
    /// their arguments, one per line, in `<name>.argv`.
    struct FakeTools {
        dir: TempDir,
    }

    impl FakeTools {
        fn new(version_output: &str, compile_fails: bool) -> FakeTools {
            let dir = TempDir::new("fake-dpacc");
            let log = dir.path().join("dpacc.argv");
            let compile = if compile_fails {
                "echo 'kernel.c:3: error: something is wrong' >&2\nexit 1\n".to_owned()
            } else {
                "prev=\nfor a in \"$@\"; do\n  if [ \"$prev\" = \"-o\" ]; then printf 'fake archive' > \"$a\"; fi\n  prev=\"$a\"\ndone\n".to_owned()
            };
            let script = format!(
                "#!/bin/sh\nif [ \"$1\" = \"--version\" ]; then\n  printf '%s\\n' '{version_output}'\n  exit 0\nfi\n\
                 printf '%s\\n' \"$@\" > '{}'\n{compile}",
                log.display()
            );
            write_script(&dir.path().join("dpacc"), &script);
            let attrs_log = dir.path().join("attrs.argv");
            write_script(
                &dir.path().join(ATTRS2BLOB_NAME),
                &format!(
                    "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{}'\ncp \"$1\" \"$2\"\n",
                    attrs_log.display()
                ),
            );
            FakeTools { dir }
        }

        fn dpacc(&self) -> PathBuf {
            self.dir.path().join("dpacc")
        }

        fn argv(&self, name: &str) -> Option<Vec<String>> {
            std::fs::read_to_string(self.dir.path().join(format!("{name}.argv")))
                .ok()
                .map(|s| s.lines().map(str::to_owned).collect())
        }
    }

    fn write_script(path: &Path, text: &str) {
        std::fs::write(path, text).unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// Tool defaults that exist nowhere, so the tests never find a real install.
    fn nowhere() -> ToolDefaults {
        ToolDefaults {
            dpacc: "/nonexistent/doca/tools/dpacc".into(),
            attrs2blob: "/nonexistent/doca/tools/dpa-app-attributes2blob".into(),
        }
    }

    fn hw_env(out: &TempDir, doca: &str, extra: &[(&str, OsString)]) -> EnvReader {
        let mut vars: Vec<(String, OsString)> = vec![
            ("DEP_DOCA_DPA_BACKEND".into(), "hardware".into()),
            ("DEP_DOCA_DPA_VERSION".into(), doca.into()),
            (
                // The reference headers stand in for DOCA's host headers, and the sim's
                // device headers for the device headers a DOCA install ships in the same
                // directory; a hardware build is given no sim directory of its own.
                "DEP_DOCA_DPA_INCLUDE".into(),
                std::env::join_paths([
                    PathBuf::from("/opt/doca/include"),
                    reference_include(),
                    device_include(),
                    PathBuf::from("/opt/doca/include/extra"),
                ])
                .unwrap(),
            ),
            ("TARGET".into(), host_triple().into()),
            ("HOST".into(), host_triple().into()),
            ("OPT_LEVEL".into(), "0".into()),
            // `CC` is dpacc's -hostcc here; the launchers use the target's compiler.
            (
                format!("CC_{}", host_triple().replace('-', "_")),
                "cc".into(),
            ),
            (
                "DEP_DOCA_DPA_LIBDIR".into(),
                "/opt/doca/lib/x86_64-linux-gnu".into(),
            ),
            ("OUT_DIR".into(), out.path().into()),
            ("CARGO_MANIFEST_DIR".into(), fixtures().into()),
            ("CC".into(), "my-gcc".into()),
        ];
        vars.extend(extra.iter().map(|(k, v)| ((*k).to_owned(), v.clone())));
        EnvReader::fixed(vars)
    }

    fn app() -> DpaApp {
        DpaApp::new("hw_app")
            .sources_in("kernels")
            .include("kernels/include")
            .define("FOO", Some("1"))
    }

    fn strings(v: &[OsString]) -> Vec<String> {
        v.iter().map(|a| a.to_string_lossy().into_owned()).collect()
    }

    fn run_version(doca: &str, dpacc_says: &str) -> (FakeTools, TempDir, BuiltApp) {
        let tools = FakeTools::new(dpacc_says, false);
        let out = TempDir::new("dpa-hw");
        let env = hw_env(&out, doca, &[("DPACC", tools.dpacc().into())]);
        let built = app()
            .build_inner(&env, &nowhere())
            .unwrap_or_else(|e| panic!("{e}"));
        for v in [
            "DPACC",
            "DOCA_DPACC_SKIP_VERSION_CHECK",
            "DEP_DOCA_DPA_PREFIX",
            "DEP_DOCA_DPA_VERSION",
            "DEP_DOCA_DPA_LIBDIR",
            "CC",
        ] {
            assert!(env.was_read(v), "{v} not read");
        }
        (tools, out, built)
    }

    fn common_checks(tools: &FakeTools, out: &TempDir, built: &BuiltApp) -> Vec<String> {
        let argv = tools.argv("dpacc").expect("dpacc did not run");
        assert_eq!(argv, strings(&built.dpacc_args));
        let source = std::fs::canonicalize(fixtures().join("kernels/realistic.c")).unwrap();
        let archive = out.path().join("libdoca_dpa_app_hw_app.a");
        assert_eq!(argv[0], source.display().to_string());
        assert_eq!(argv[1..3], ["-o".to_owned(), archive.display().to_string()]);
        assert!(archive.is_file());
        assert!(argv.contains(&"--app-name=hw_app".to_owned()));
        assert!(argv.contains(&"-hostcc=my-gcc".to_owned()));
        assert!(argv.iter().any(|a| a.starts_with("-hostcc-options=-fPIC ")));
        assert!(argv
            .iter()
            .any(|a| a.starts_with("--devicecc-options=") && a.contains(" -DFOO=1 ")));
        assert!(argv.contains(&"-I/opt/doca/include".to_owned()));
        assert!(argv.contains(&"-I/opt/doca/include/extra".to_owned()));
        let d = &built.directives;
        assert!(
            !d.lines().iter().any(|l| l.contains("rustc-link-lib")),
            "{d:?}"
        );
        assert!(d.contains(&format!(
            "cargo::rustc-link-search=native={}",
            out.path().display()
        )));
        assert!(d.contains(&format!("cargo::rerun-if-changed={}", source.display())));
        assert!(d.contains(&format!(
            "cargo::rerun-if-changed={}",
            tools.dpacc().display()
        )));
        // The prototypes were read for the Rust declarations and the launchers.
        assert!(built.kernels.iter().any(|k| k.name == "fill"));
        assert!(built.launchers.as_ref().is_some_and(|p| p.is_file()));
        argv
    }

    #[test]
    fn doca_2_9() {
        let (tools, out, built) = run_version("2.9.0072", "dpacc version 2.9.0072");
        let argv = common_checks(&tools, &out, &built);
        assert!(argv.contains(&"-mcpu=nv-dpa-bf3".to_owned()));
        assert!(argv.contains(
            &"-device-libs=-L/opt/doca/lib/x86_64-linux-gnu -ldoca_dpa_dev_comm".to_owned()
        ));
        assert!(!argv.iter().any(|a| a.starts_with("--dpa-proc-attr")));
        assert!(tools.argv("attrs").is_none());
    }

    #[test]
    fn doca_3_0_with_attributes_warns() {
        let tools = FakeTools::new("NVIDIA DPACC 3.0.0058", false);
        let out = TempDir::new("dpa-hw");
        let env = hw_env(&out, "3.0.0058", &[("DPACC", tools.dpacc().into())]);
        let built = app()
            .proc_attributes("attrs.yaml")
            .build_inner(&env, &nowhere())
            .unwrap_or_else(|e| panic!("{e}"));
        let argv = common_checks(&tools, &out, &built);
        assert!(argv.contains(&"-mcpu=nv-dpa-bf3,nv-dpa-cx7,nv-dpa-cx8".to_owned()));
        assert!(argv.contains(
            &"-device-libs=-L/opt/doca/lib/x86_64-linux-gnu -ldoca_dpa_dev -ldoca_dpa_dev_comm"
                .to_owned()
        ));
        assert!(!argv.iter().any(|a| a.starts_with("--dpa-proc-attr")));
        assert!(tools.argv("attrs").is_none());
        assert!(built
            .directives
            .lines()
            .iter()
            .any(|l| l.starts_with("cargo::warning=") && l.contains("from DOCA 3.2 on")));
    }

    #[test]
    fn doca_3_2_default_attributes() {
        let (tools, out, built) = run_version("3.2.0118", "dpacc 3.2.0118 (built 2025)");
        let argv = common_checks(&tools, &out, &built);
        assert!(argv.contains(&"-mcpu=nv-dpa-bf3,nv-dpa-cx7,nv-dpa-cx8,nv-dpa-cx9".to_owned()));
        assert!(argv.contains(
            &"-device-libs=-L/opt/doca/lib/x86_64-linux-gnu -ldoca_dpa_dev -ldoca_dpa_dev_comm -ldoca_dpa_dev_verbs"
                .to_owned()
        ));
        let blob = out.path().join("doca_dpa_app_hw_app.attrs.blob");
        let yaml = out.path().join("doca_dpa_app_hw_app.attrs.yaml");
        assert_eq!(
            argv.last(),
            Some(&format!("--dpa-proc-attr={}", blob.display()))
        );
        // The tool beside dpacc ran on the generated default YAML.
        assert_eq!(
            tools.argv("attrs").unwrap(),
            [yaml.display().to_string(), blob.display().to_string()]
        );
        assert_eq!(
            std::fs::read_to_string(&blob).unwrap(),
            DEFAULT_PROC_ATTRIBUTES
        );
    }

    #[test]
    fn doca_3_2_user_attributes_and_tool_from_env() {
        let tools = FakeTools::new("3.2.0118", false);
        // The attributes tool named by the environment, not the one beside dpacc.
        let other = TempDir::new("fake-attrs");
        let other_tool = other.path().join("my-attrs2blob");
        let other_log = other.path().join("argv");
        write_script(
            &other_tool,
            &format!(
                "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{}'\ncp \"$1\" \"$2\"\n",
                other_log.display()
            ),
        );
        let out = TempDir::new("dpa-hw");
        let env = hw_env(
            &out,
            "3.2.0118",
            &[
                ("DPACC", tools.dpacc().into()),
                ("DOCA_DPA_ATTRS2BLOB", other_tool.clone().into()),
            ],
        );
        let built = app()
            .proc_attributes("attrs.yaml")
            .build_inner(&env, &nowhere())
            .unwrap_or_else(|e| panic!("{e}"));
        common_checks(&tools, &out, &built);
        assert!(tools.argv("attrs").is_none());
        let logged = std::fs::read_to_string(&other_log).unwrap();
        assert!(logged.starts_with(&fixtures().join("attrs.yaml").display().to_string()));
        assert!(built.directives.contains(&format!(
            "cargo::rerun-if-changed={}",
            fixtures().join("attrs.yaml").display()
        )));
    }

    /// `hw_env` with `tools`' dpacc and the DOCA install's prefix.
    fn prefix_env(out: &TempDir, doca: &str, tools: &FakeTools, prefix: &Path) -> EnvReader {
        hw_env(
            out,
            doca,
            &[
                ("DPACC", tools.dpacc().into()),
                ("DEP_DOCA_DPA_PREFIX", prefix.into()),
            ],
        )
    }

    /// What a real dpacc prints, on a DOCA 3.1 install.
    const REAL_DPACC: &str =
        "dpacc: NVIDIA (R)\nCopyright (c) 2021-2025 NVIDIA Corporation\ndpacc version 1.12.0.26";

    fn warnings(built: &BuiltApp) -> Vec<String> {
        built
            .directives
            .lines()
            .iter()
            .filter(|l| l.starts_with("cargo::warning="))
            .cloned()
            .collect()
    }

    #[test]
    fn known_pairing_builds_without_warning() {
        let (tools, out, built) = run_version("3.1.0105", REAL_DPACC);
        common_checks(&tools, &out, &built);
        assert!(warnings(&built).is_empty(), "{:?}", warnings(&built));
    }

    #[test]
    fn an_uncertain_pairing_warns_with_the_evidence() {
        // DOCA 3.1's dpacc (as far as one uncertain source says) outside a DOCA 3.0
        // install: builds, and the warning quotes the evidence.
        let (tools, out, built) = run_version("3.0.0058", REAL_DPACC);
        common_checks(&tools, &out, &built);
        let w = warnings(&built);
        assert!(
            w.iter().any(|l| l.contains("1.12.0.26")
                && l.contains("DOCA 3.1")
                && l.contains("3.0.0058")
                && l.contains("\"DOCA 3.1+\"")
                && l.contains("uncertain evidence")),
            "{w:?}"
        );
    }

    #[test]
    fn the_install_s_own_dpacc_wins_over_the_table() {
        // The same dpacc, as DOCA 3.0's own PREFIX/tools/dpacc: installed together.
        let prefix = TempDir::new("doca-prefix");
        let tools = FakeTools::new(REAL_DPACC, false);
        std::fs::create_dir_all(prefix.path().join("tools")).unwrap();
        std::os::unix::fs::symlink(tools.dpacc(), prefix.path().join("tools/dpacc")).unwrap();
        let out = TempDir::new("dpa-hw");
        let env = prefix_env(&out, "3.0.0058", &tools, prefix.path());
        let built = app()
            .build_inner(&env, &nowhere())
            .unwrap_or_else(|e| panic!("{e}"));
        common_checks(&tools, &out, &built);
        assert!(warnings(&built).is_empty(), "{:?}", warnings(&built));
        // Another prefix is no evidence: the table decides again (an uncertain row: a
        // warning).
        let elsewhere = TempDir::new("other-prefix");
        let env = prefix_env(&out, "3.0.0058", &tools, elsewhere.path());
        let built = app()
            .build_inner(&env, &nowhere())
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(
            warnings(&built)
                .iter()
                .any(|l| l.contains("uncertain evidence")),
            "{:?}",
            warnings(&built)
        );
    }

    #[test]
    fn unknown_pairing_builds_and_warns() {
        let (tools, out, built) = run_version(
            "3.2.0118",
            "dpacc: NVIDIA (R)\nCopyright (c) 2021-2026 NVIDIA Corporation\ndpacc version 1.13.0.4",
        );
        common_checks(&tools, &out, &built);
        let w = warnings(&built);
        assert!(
            w.iter().any(|l| l.contains("1.13.0.4")
                && l.contains("3.2.0118")
                && l.contains("unverified pairing")),
            "{w:?}"
        );
        // On DOCA 3.1 the warning names the dpacc that 3.1 ships.
        let (_, _, built) = run_version("3.1.0105", "dpacc version 1.12.0.30");
        let w = warnings(&built);
        assert!(
            w.iter().any(|l| l.contains("ships dpacc 1.12.0.26")),
            "{w:?}"
        );
    }

    /// Builds with DOCA 3.0.0058, `tools`' dpacc and `DOCA_DPACC_SKIP_VERSION_CHECK=1`.
    fn build_skipping_check(out: &TempDir, tools: &FakeTools) -> BuiltApp {
        let env = hw_env(
            out,
            "3.0.0058",
            &[
                ("DPACC", tools.dpacc().into()),
                ("DOCA_DPACC_SKIP_VERSION_CHECK", "1".into()),
            ],
        );
        app()
            .build_inner(&env, &nowhere())
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn unparseable_version() {
        let tools = FakeTools::new("dpacc: NVIDIA (R)\ndpacc (development build)", false);
        let out = TempDir::new("dpa-hw");
        let env = hw_env(&out, "3.0.0058", &[("DPACC", tools.dpacc().into())]);
        let e = app().build_inner(&env, &nowhere()).unwrap_err();
        assert!(
            matches!(e, DpaAppError::DpaccVersionUnparseable { .. }),
            "{e:?}"
        );
        assert!(e.to_string().contains("dpacc (development build)"));
        assert!(tools.argv("dpacc").is_none());
        // Skipping the check builds, with the same text as a warning.
        let built = build_skipping_check(&out, &tools);
        assert!(warnings(&built)
            .iter()
            .any(|l| l.contains("development build") && l.contains("continuing")));
    }

    #[test]
    fn compiler_not_found() {
        let out = TempDir::new("dpa-hw");
        let empty_path = TempDir::new("empty-path");
        let env = hw_env(&out, "3.0.0058", &[("PATH", empty_path.path().into())]);
        let e = app().build_inner(&env, &nowhere()).unwrap_err();
        assert!(
            matches!(e, DpaAppError::ToolNotFound { tool: "dpacc", .. }),
            "{e:?}"
        );
        let text = e.to_string();
        for needle in [
            "DPACC",
            "PATH",
            "/nonexistent/doca/tools/dpacc",
            "the `sim` feature",
        ] {
            assert!(text.contains(needle), "{needle} not in {text}");
        }
        assert!(env.was_read("PATH"));
        // DPACC naming a missing file does not fall back to anything else.
        let env = hw_env(&out, "3.0.0058", &[("DPACC", "/nonexistent/dpacc".into())]);
        let e = app().build_inner(&env, &nowhere()).unwrap_err();
        assert!(e.to_string().contains("DPACC=/nonexistent/dpacc"), "{e}");
        // Found on PATH.
        let tools = FakeTools::new("3.0.0058", false);
        let env = hw_env(&out, "3.0.0058", &[("PATH", tools.dir.path().into())]);
        let built = app()
            .build_inner(&env, &nowhere())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(built.dpacc.as_deref(), Some(tools.dpacc().as_path()));
    }

    #[test]
    fn attributes_tool_not_found() {
        let tools = FakeTools::new("3.2.0118", false);
        std::fs::remove_file(tools.dir.path().join(ATTRS2BLOB_NAME)).unwrap();
        let out = TempDir::new("dpa-hw");
        let env = hw_env(&out, "3.2.0118", &[("DPACC", tools.dpacc().into())]);
        let e = app().build_inner(&env, &nowhere()).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("DOCA_DPA_ATTRS2BLOB"), "{text}");
        assert!(text.contains("beside dpacc"), "{text}");
        // A dpacc from elsewhere finds the tool in the DOCA install's tools/.
        let prefix = TempDir::new("doca-prefix");
        let env = prefix_env(&out, "3.2.0118", &tools, prefix.path());
        let e = app().build_inner(&env, &nowhere()).unwrap_err();
        assert!(e.to_string().contains("(the DOCA install's tools)"), "{e}");
        let tool = prefix.path().join("tools").join(ATTRS2BLOB_NAME);
        std::fs::create_dir_all(tool.parent().unwrap()).unwrap();
        write_script(&tool, "#!/bin/sh\ncp \"$1\" \"$2\"\n");
        let tools = FakeTools::new("dpacc version 1.13.0.4", false);
        std::fs::remove_file(tools.dir.path().join(ATTRS2BLOB_NAME)).unwrap();
        let env = prefix_env(&out, "3.2.0118", &tools, prefix.path());
        let built = app()
            .build_inner(&env, &nowhere())
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(built
            .dpacc_args
            .iter()
            .any(|a| a.to_string_lossy().starts_with("--dpa-proc-attr=")));
    }

    #[test]
    fn dpacc_failure_shows_its_output() {
        let tools = FakeTools::new("3.0.0058", true);
        let out = TempDir::new("dpa-hw");
        let env = hw_env(&out, "3.0.0058", &[("DPACC", tools.dpacc().into())]);
        let e = app().build_inner(&env, &nowhere()).unwrap_err();
        assert!(matches!(e, DpaAppError::ToolFailed { .. }), "{e:?}");
        let text = e.to_string();
        assert!(text.contains("something is wrong"), "{text}");
        assert!(text.contains("--app-name=hw_app"), "{text}");
    }

    #[test]
    fn option_values_with_spaces_are_refused() {
        let tools = FakeTools::new("3.0.0058", false);
        let out = TempDir::new("dpa-hw");
        let env = hw_env(&out, "3.0.0058", &[("DPACC", tools.dpacc().into())]);
        let e = app()
            .define("MSG", Some("two words"))
            .build_inner(&env, &nowhere())
            .unwrap_err();
        assert!(matches!(e, DpaAppError::WhitespaceInOption { .. }), "{e:?}");
    }

    #[test]
    fn missing_metadata() {
        let out = TempDir::new("dpa-hw");
        let env = EnvReader::fixed([
            ("DEP_DOCA_DPA_BACKEND", OsString::from("hardware")),
            ("OUT_DIR", out.path().into()),
            ("CARGO_MANIFEST_DIR", fixtures().into()),
        ]);
        let e = app().build_inner(&env, &nowhere()).unwrap_err();
        assert!(
            matches!(
                e,
                DpaAppError::MissingEnv {
                    name: "DEP_DOCA_DPA_INCLUDE",
                    ..
                }
            ),
            "{e:?}"
        );
        let env = hw_env(&out, "three", &[]);
        let e = app().build_inner(&env, &nowhere()).unwrap_err();
        assert!(matches!(e, DpaAppError::BadDocaVersion { .. }), "{e:?}");
    }

    /// A DOCA install at `prefix` with `tools/dpacc` (a copy of `tools`' fake).
    fn install_with_dpacc(tools: &FakeTools) -> TempDir {
        let prefix = TempDir::new("doca-prefix");
        std::fs::create_dir_all(prefix.path().join("tools")).unwrap();
        let script = std::fs::read_to_string(tools.dpacc()).unwrap();
        write_script(&prefix.path().join("tools/dpacc"), &script);
        prefix
    }

    #[test]
    fn the_dpacc_of_the_install_found_comes_before_path() {
        let tools = FakeTools::new("3.0.0058", false);
        let prefix = install_with_dpacc(&tools);
        let on_path = FakeTools::new("3.0.0058", false);
        let out = TempDir::new("dpa-hw");
        let env = hw_env(
            &out,
            "3.0.0058",
            &[
                ("DEP_DOCA_DPA_PREFIX", prefix.path().into()),
                ("PATH", on_path.dir.path().into()),
            ],
        );
        let built = app()
            .build_inner(&env, &nowhere())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(built.dpacc, Some(prefix.path().join("tools/dpacc")));
    }

    #[test]
    fn dpacc_not_found_lists_the_install_found() {
        let prefix = TempDir::new("doca-prefix");
        let out = TempDir::new("dpa-hw");
        let env = hw_env(
            &out,
            "3.0.0058",
            &[
                ("DEP_DOCA_DPA_PREFIX", prefix.path().into()),
                ("PATH", OsString::from("/nonexistent")),
            ],
        );
        let text = app().build_inner(&env, &nowhere()).unwrap_err().to_string();
        for tried in [
            "DPACC (not set)".to_owned(),
            format!(
                "{} (the DOCA install found)",
                prefix.path().join("tools/dpacc").display()
            ),
            "dpacc on PATH".to_owned(),
            "/nonexistent/doca/tools/dpacc".to_owned(),
        ] {
            assert!(text.contains(&tried), "{tried} not in: {text}");
        }
    }

    /// A kernel that includes `dpaintrin.h`, a header of dpacc's toolchain and not of
    /// DOCA: the scan finds it where the `dpa-clang` beside dpacc keeps its builtin
    /// headers, and nowhere else (no simulator directory is given to a hardware build).
    #[test]
    fn a_kernel_including_dpaintrin_is_scanned_with_the_toolchain_headers() {
        let tools = FakeTools::new("3.0.0058", false);
        let app_dir = TempDir::new("intrin-app");
        app_dir.write(
            "kernels/k.c",
            "#include <dpaintrin.h>\n__dpa_global__ void intrin_kernel(unsigned long x)\n\
             { (void)toolchain_probe(x); }\n",
        );
        let out = TempDir::new("dpa-hw");
        let only_doca = |extra: &[(&str, OsString)]| {
            let mut vars: Vec<(&str, OsString)> = vec![
                ("DPACC", tools.dpacc().into()),
                ("CARGO_MANIFEST_DIR", app_dir.path().into()),
                ("DEP_DOCA_DPA_INCLUDE", reference_include().into()),
            ];
            vars.extend(extra.iter().cloned());
            hw_env(&out, "3.0.0058", &vars)
        };
        let app = || DpaApp::new("intrin_app").sources_in("kernels");
        // Without a dpa-clang beside dpacc the header is nowhere: the scan fails.
        let e = app().build_inner(&only_doca(&[]), &nowhere()).unwrap_err();
        assert!(matches!(e, DpaAppError::Preprocess { .. }), "{e:?}");
        // With one: its resource directory's include/ holds the header.
        let resource = TempDir::new("dpa-clang-resource");
        resource.write(
            "include/dpaintrin.h",
            "static inline unsigned long toolchain_probe(unsigned long x) { return x; }\n",
        );
        write_script(
            &tools.dir.path().join("dpa-clang"),
            &format!(
                "#!/bin/sh\n[ \"$1\" = -print-resource-dir ] && echo '{}'\n",
                resource.path().display()
            ),
        );
        let built = app()
            .build_inner(&only_doca(&[]), &nowhere())
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(built.kernels.len(), 1);
        assert_eq!(built.kernels[0].name, "intrin_kernel");
    }
}
