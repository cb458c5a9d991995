//! C programs of our own, host and device side, built the way C users build
//! against DOCA and run on the sim: compiled with `-Wall -Wextra -Werror`
//! against the reference headers (`include/`) and the device headers
//! (`device-include/`, then `include/`, as dpacc is given `-I<DOCA>/include`),
//! their device side turned into a sim application by the generator users'
//! build scripts run, then linked twice: statically against doca-sim built as
//! a static library, and through the fake DOCA install's shared libraries
//! (`scripts/lib/fake-doca.sh`, found with pkg-config). Each program checks
//! the calls it makes and prints what it observed; the test compares its
//! output with `expected.out` in both link modes.
//!
//! Each directory of `tests/c_programs/` (but `common/`) is one program:
//! `host.c`, optionally `device.c` (the application `<dir>_app`) and
//! `expected.out`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use doca_build_support::dpa_app::{parse_device_functions, parse_structs, sim_app_source};

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn root() -> PathBuf {
    manifest()
        .parent()
        .expect("doca-sim is in the workspace")
        .to_owned()
}

/// Where the programs are built.
fn work() -> PathBuf {
    root().join("target").join("c-programs")
}

/// doca-sim as the two kinds of library a C program links.
struct Libraries {
    /// `libdoca_sim.a`.
    static_lib: PathBuf,
    /// A fake DOCA install (headers, `.pc` files, shared libraries).
    prefix: PathBuf,
}

fn run_checked(cmd: &mut Command, what: &str) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run: {e}"));
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Builds the libraries once per test process, with the fake install's own
/// script and in the target directory scripts/fake-prefix-test.sh uses (with
/// its flags), so either reuses what the other built.
fn libraries() -> &'static Libraries {
    static LIBS: OnceLock<Libraries> = OnceLock::new();
    LIBS.get_or_init(|| {
        let root = root();
        let cargo_target = root.join("target").join("fake-prefix").join("cargo");
        let prefix = work().join("doca");
        let _ = std::fs::remove_dir_all(&prefix);
        let mut cmd = Command::new("bash");
        cmd.arg("-c")
            .arg(". \"$root/scripts/lib/fake-doca.sh\" && fake_doca_install \"$1\"")
            .arg("fake-doca")
            .arg(&prefix)
            .env("root", &root)
            .env("CARGO_TARGET_DIR", &cargo_target)
            .env("CARGO", env!("CARGO"))
            .env("RUSTFLAGS", "-D warnings")
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .env_remove("CARGO_MAKEFLAGS")
            .env_remove("MAKEFLAGS")
            .env_remove("MFLAGS");
        run_checked(&mut cmd, "building the fake DOCA install");
        Libraries {
            static_lib: cargo_target.join("debug").join("libdoca_sim.a"),
            prefix,
        }
    })
}

/// `cc` with the flags every program is built with.
fn cc() -> Command {
    let mut c = Command::new(std::env::var_os("CC").unwrap_or_else(|| "cc".into()));
    c.args([
        "-std=gnu11",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-g",
        "-DDOCA_ALLOW_EXPERIMENTAL_API",
    ]);
    c
}

fn pkg_config(prefix: &Path, args: &[&str]) -> Vec<String> {
    let out = Command::new("pkg-config")
        .args(args)
        .env("PKG_CONFIG_PATH", prefix.join("lib").join("pkgconfig"))
        .output()
        .expect("pkg-config runs");
    assert!(
        out.status.success(),
        "pkg-config {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .expect("pkg-config prints text")
        .split_whitespace()
        .map(str::to_owned)
        .collect()
}

/// Runs `exe` on `profile` (a profile file; the default profile when
/// `None`), killing it after a minute; returns (success, stdout, stderr).
fn run_program(exe: &Path, profile: Option<&Path>) -> (bool, String, String) {
    let mut command = Command::new(exe);
    command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env_remove("DOCA_SIM_PROFILE")
        .env_remove("DOCA_SIM_FAULTS");
    if let Some(file) = profile {
        command.env("DOCA_SIM_PROFILE", file);
    }
    let mut child = command
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if child.try_wait().expect("wait for the program").is_some() {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child
        .wait_with_output()
        .expect("collect the program's output");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Builds program `name` in both link modes and checks its output in each,
/// on the default profile.
fn check_program(name: &str) {
    check_program_on(name, None);
}

/// The DPU view of a BlueField-3 as a profile file (what the samples script
/// gives NVIDIA's samples; `devices.rs` checks it is `Profile::dpu_view()`).
fn dpu_profile() -> PathBuf {
    manifest()
        .join("tests")
        .join("fixtures")
        .join("dpu.profile")
}

/// Builds program `name` in both link modes and checks its output in each,
/// on `profile` (see [`run_program`]).
fn check_program_on(name: &str, profile: Option<&Path>) {
    let libs = libraries();
    let dir = manifest().join("tests").join("c_programs").join(name);
    let common = manifest().join("tests").join("c_programs").join("common");
    let include = manifest().join("include");
    let device_include = manifest().join("device-include");
    let out = work().join(name);
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();

    // Host side, against the reference headers.
    let host_obj = out.join("host.o");
    run_checked(
        cc().arg("-I")
            .arg(&include)
            .arg("-I")
            .arg(&common)
            .arg("-c")
            .arg(dir.join("host.c"))
            .arg("-o")
            .arg(&host_obj),
        &format!("{name}: compiling host.c"),
    );
    let mut objects = vec![host_obj];

    // Device side: the sources plus the generated application table.
    let device = dir.join("device.c");
    if device.exists() {
        // The scan reads the device source as the compiler sees it (`cc -E`).
        let prelude = doca_build_support::dpa_app::write_scan_prelude(&out).unwrap();
        let expanded = run_checked(
            cc().arg("-E")
                .arg("-include")
                .arg(&prelude)
                .arg("-I")
                .arg(&device_include)
                .arg("-I")
                .arg(&include)
                .arg("-I")
                .arg(&dir)
                .arg(&device),
            &format!("{name}: preprocessing device.c"),
        );
        let kernels = parse_device_functions(&device, &expanded).unwrap_or_else(|e| panic!("{e}"));
        // The program's own structs (not the headers').
        let structs: Vec<_> = parse_structs(&device, &expanded)
            .into_iter()
            .filter(|s| s.file.starts_with(&dir))
            .collect();
        let app = sim_app_source(
            &format!("{name}_app"),
            &[device.as_path()],
            &kernels,
            &structs,
        );
        let app_c = out.join("app.c");
        std::fs::write(&app_c, app).unwrap();
        let app_obj = out.join("app.o");
        run_checked(
            cc().arg("-I")
                .arg(&device_include)
                .arg("-I")
                .arg(&include)
                .arg("-I")
                .arg(&dir)
                .arg("-c")
                .arg(&app_c)
                .arg("-o")
                .arg(&app_obj),
            &format!("{name}: compiling the device side"),
        );
        objects.push(app_obj);
    }

    let expected = std::fs::read_to_string(dir.join("expected.out")).unwrap();
    let static_exe = out.join(format!("{name}-static"));
    run_checked(
        Command::new("cc")
            .args(&objects)
            .arg(&libs.static_lib)
            .args(["-lpthread", "-ldl", "-lm", "-lrt", "-lgcc_s", "-lutil"])
            .arg("-o")
            .arg(&static_exe),
        &format!("{name}: linking against libdoca_sim.a"),
    );
    let shared_exe = out.join(format!("{name}-shared"));
    let lib_dir = libs.prefix.join("lib");
    run_checked(
        Command::new("cc")
            .args(&objects)
            .args(pkg_config(&libs.prefix, &["--libs", "doca-dpa"]))
            .arg(format!("-Wl,-rpath,{}", lib_dir.display()))
            .arg("-o")
            .arg(&shared_exe),
        &format!("{name}: linking through the fake install (pkg-config doca-dpa)"),
    );
    for (mode, exe) in [("static", &static_exe), ("shared", &shared_exe)] {
        let (ok, stdout, stderr) = run_program(exe, profile);
        assert!(
            ok,
            "{name} ({mode} link) failed:\nstdout:\n{stdout}\nstderr:\n{stderr}"
        );
        assert_eq!(
            stdout, expected,
            "{name} ({mode} link): output differs from expected.out (stderr:\n{stderr})"
        );
    }
}

#[test]
fn a_parameterless_thread_finishes_for_good() {
    check_program("thread_finish");
}

#[test]
fn a_kernel_uses_the_buf_and_completion_accessors_on_an_extended_context() {
    // Extended contexts need the SF of the DPU view.
    check_program_on("kernel_accessors", Some(&dpu_profile()));
}

#[test]
fn the_samples_common_setup_exports_and_imports_events_and_mmaps() {
    check_program("common_setup");
}

#[test]
fn started_objects_are_destroyed_without_a_stop() {
    check_program("teardown_without_stop");
}

#[test]
fn host_side_device_selection_finds_an_sf_with_rdma() {
    check_program_on("device_selection", Some(&dpu_profile()));
}

#[test]
fn rpcs_and_kernels_take_structs_by_value_from_a_shared_header() {
    check_program("rpc_struct_by_value");
}

#[test]
fn two_dpa_threads_exchange_messages_over_comch_message_queues() {
    check_program("comch_msgq");
}

#[test]
fn verbs_queue_pairs_on_the_dpa_datapath_write_read_and_send() {
    check_program("dpa_verbs_traffic");
}
