//! `doca-doctor` end to end: the built binary runs against sim device profiles
//! written here (`DOCA_SIM_PROFILE`), and its JSON (parsed with serde_json), human
//! output and exit status are checked. The profiles only shape the software DPA, so those tests run only in
//! a sim build of the doctor (`cargo test -p doca-doctor --features sim`). The
//! default build loads DOCA at run time; its tests (`loaded_*`) run it where no
//! DOCA is found and with a broken library, and check the report it still writes.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

// ---------------------------------------------------------------------------
// Running the binary

/// The backend the doctor was built for: doca's in a sim build, none (`loaded`)
/// otherwise.
#[cfg(feature = "sim")]
const BACKEND: &str = doca::dpa::build_info::BACKEND;
#[cfg(not(feature = "sim"))]
const BACKEND: &str = "loaded";

/// The DOCA version the sim build's crates were built for.
#[cfg(feature = "sim")]
const BUILT_VERSION: &str = doca::dpa::build_info::DOCA_VERSION;
#[cfg(not(feature = "sim"))]
const BUILT_VERSION: &str = "";

fn sim() -> bool {
    let backend = BACKEND;
    if backend != "sim" {
        eprintln!(
            "skipped: these tests shape the devices with sim profiles (DOCA_SIM_PROFILE), \
             and this build uses the {backend} backend"
        );
    }
    backend == "sim"
}

/// A profile file in a fresh directory, removed on drop.
struct Profile {
    dir: PathBuf,
    path: PathBuf,
}

impl Drop for Profile {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

impl std::ops::Deref for Profile {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.path
    }
}

/// Writes `text` as the profile file of `test`.
fn profile(test: &str, text: &str) -> Profile {
    let dir = std::env::temp_dir().join(format!("doca-doctor-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("creating a temp dir");
    let path = dir.join("profile.txt");
    std::fs::write(&path, text).expect("writing the profile");
    Profile { dir, path }
}

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn doctor(profile: Option<&Path>, args: &[&str]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_doca-doctor"));
    cmd.args(args);
    match profile {
        Some(p) => cmd.env("DOCA_SIM_PROFILE", p),
        None => cmd.env_remove("DOCA_SIM_PROFILE"),
    };
    let out = cmd.output().expect("running doca-doctor");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn doctor_json(profile: Option<&Path>, args: &[&str]) -> (i32, Value) {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let run = doctor(profile, &all);
    let value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("invalid JSON ({e}):\n{}\n{}", run.stdout, run.stderr));
    (run.code, value)
}

// ---------------------------------------------------------------------------
// Reading the JSON: accessors that panic with the document's path on a wrong shape.

/// What the tests ask of a JSON value.
trait Json {
    /// The member `key` of an object.
    fn field(&self, key: &str) -> &Value;
    fn has(&self, key: &str) -> bool;
    fn str(&self) -> &str;
    fn array(&self) -> &[Value];
    fn num(&self) -> f64;
    fn bool(&self) -> bool;
    /// Every object key in the tree.
    fn keys(&self, out: &mut Vec<String>);
    /// The check with id `id`.
    fn check(&self, id: &str) -> &Value;
}

impl Json for Value {
    fn field(&self, key: &str) -> &Value {
        match self {
            Value::Object(fields) => fields
                .get(key)
                .unwrap_or_else(|| panic!("no field `{key}` in {self}")),
            _ => panic!("`{key}` asked of a non-object {self}"),
        }
    }

    fn has(&self, key: &str) -> bool {
        self.as_object().is_some_and(|o| o.contains_key(key))
    }

    fn str(&self) -> &str {
        self.as_str()
            .unwrap_or_else(|| panic!("not a string: {self}"))
    }

    fn array(&self) -> &[Value] {
        self.as_array()
            .unwrap_or_else(|| panic!("not an array: {self}"))
    }

    fn num(&self) -> f64 {
        self.as_f64()
            .unwrap_or_else(|| panic!("not a number: {self}"))
    }

    fn bool(&self) -> bool {
        self.as_bool()
            .unwrap_or_else(|| panic!("not a bool: {self}"))
    }

    fn keys(&self, out: &mut Vec<String>) {
        match self {
            Value::Object(fields) => {
                for (k, v) in fields {
                    out.push(k.clone());
                    v.keys(out);
                }
            }
            Value::Array(items) => items.iter().for_each(|v| v.keys(out)),
            _ => {}
        }
    }

    fn check(&self, id: &str) -> &Value {
        self.field("checks")
            .array()
            .iter()
            .find(|c| c.field("id").str() == id)
            .unwrap_or_else(|| panic!("no check `{id}`"))
    }
}

// ---------------------------------------------------------------------------
// The checks

const CHECK_IDS: [&str; 8] = [
    "backend", "versions", "dpacc", "devices", "dpa", "symbols", "rdmi", "bindings",
];

/// The fields of schema version 3 that every sim report has.
fn assert_schema(v: &Value, code: i32) {
    assert_eq!(v.field("schema_version").num(), 3.0);
    // Only a loaded build (the default) reports the libraries it loaded.
    assert_eq!(v.field("libraries"), &Value::Null);
    assert_eq!(v.field("tool").str(), "doca-doctor");
    assert!(!v.field("tool_version").str().is_empty());
    assert_eq!(v.field("backend").str(), "sim");
    for set in ["dpa", "rdmi"] {
        // The sim's bindings are the committed ones (hardware's are checked by
        // scripts/fake-prefix-test.sh).
        assert!(
            v.field("bindings")
                .field(set)
                .str()
                .starts_with("committed"),
            "{set}: {:?}",
            v.field("bindings")
        );
    }
    assert!(matches!(
        v.field("sim_profile"),
        Value::Null | Value::String(_)
    ));
    v.field("required").array().iter().for_each(|r| {
        r.str();
    });
    assert_eq!(v.field("exit_code").num(), f64::from(code));
    let checks = v.field("checks").array();
    let ids: Vec<&str> = checks.iter().map(|c| c.field("id").str()).collect();
    assert_eq!(ids, CHECK_IDS);
    let mut worst = "ok";
    for c in checks {
        let verdict = c.field("verdict").str();
        assert!(["ok", "warn", "fail"].contains(&verdict), "{verdict}");
        c.field("required").bool();
        assert!(!c.field("summary").str().is_empty());
        match (verdict, c.field("fix")) {
            ("ok", Value::Null) => {}
            ("ok", f) => panic!("an ok check with a fix: {f:?}"),
            (_, Value::String(f)) => assert!(!f.is_empty()),
            (_, f) => panic!("a {verdict} check without a fix: {f:?}"),
        }
        if verdict == "fail" {
            assert!(c.field("required").bool(), "only required checks fail");
            worst = "fail";
        } else if verdict == "warn" && worst == "ok" {
            worst = "warn";
        }
    }
    assert_eq!(v.field("verdict").str(), worst);
    assert_eq!(code, i32::from(worst == "fail"));

    let versions = v.field("versions");
    assert!(!versions.field("doca_version_h").str().is_empty());
    for b in versions.field("build").array() {
        b.field("crate").str();
        b.field("version").str();
    }
    for m in versions.field("pkg_config").array() {
        m.field("module").str();
        m.field("version").str();
    }
    assert!(matches!(
        versions.field("runtime"),
        Value::Null | Value::String(_)
    ));
    assert!(matches!(
        versions.field("match"),
        Value::Null | Value::Bool(_)
    ));

    let dpacc = v.field("dpacc");
    assert!(!dpacc.field("needed").bool(), "the sim needs no dpacc");
    for key in [
        "path",
        "found_by",
        "version",
        "doca_release",
        "pairing",
        "known_dpacc",
        "install_dpacc",
        "error",
    ] {
        assert!(dpacc.has(key), "dpacc.{key}");
    }
    assert!(!dpacc.has("match"), "schema 1's dpacc.match is gone");
    assert_eq!(dpacc.field("doca_version").str(), BUILT_VERSION);
    // The sim checks no pairing.
    assert_eq!(dpacc.field("pairing"), &Value::Null);

    for d in v.field("devices").array() {
        d.field("pci_addr").str();
        d.field("ibdev_name").str();
        d.field("iface_name").str();
        let has_dpa = d.field("has_dpa").bool();
        match d.field("limits") {
            Value::Null => assert!(!has_dpa || !matches!(d.field("limits_error"), Value::Null)),
            l => {
                assert!(has_dpa);
                for key in [
                    "max_threads_per_kernel",
                    "kernel_max_run_time_s",
                    "cores",
                    "eus_per_core",
                    "eus_available",
                ] {
                    l.field(key).num();
                }
            }
        }
    }
    assert!(v.has("devices_error"));

    let symbols = v.field("symbols");
    for key in [
        "total",
        "declared",
        "exported",
        "experimental",
        "stable",
        "usable",
    ] {
        symbols.field(key).num();
    }
    symbols.field("missing").array();
    symbols.field("unchecked").array();
    let rows = symbols.field("rows").array();
    assert_eq!(rows.len() as f64, symbols.field("total").num());
    assert!(rows
        .iter()
        .any(|r| r.field("name").str() == "doca_dpa_create" && r.field("usable").bool()));
    for r in rows {
        r.field("crate").str();
        r.field("header").str();
        assert!(
            ["EXPERIMENTAL", "STABLE", "DEPRECATED", "UNMARKED"].contains(&r.field("marker").str())
        );
        r.field("declared").bool();
        assert!(matches!(r.field("exported"), Value::Null | Value::Bool(_)));
        r.field("usable").bool();
    }

    let rdmi = v.field("rdmi");
    let available = rdmi.field("available").bool();
    assert_eq!(available, matches!(rdmi.field("reason"), Value::Null));
}

#[test]
fn default_profile_passes() {
    if !sim() {
        return;
    }
    let (code, v) = doctor_json(None, &[]);
    assert_schema(&v, code);
    assert_eq!(code, 0);
    assert_eq!(v.field("sim_profile"), &Value::Null);
    assert_eq!(
        v.field("sim").field("profile_source").str(),
        "the default profile"
    );
    assert_eq!(v.field("sim").field("config_error"), &Value::Null);
    assert_eq!(v.field("versions").field("match"), &Value::Bool(true));
    assert_eq!(v.field("versions").field("runtime").str(), BUILT_VERSION);
    assert_eq!(
        v.check("dpacc").field("summary").str().get(..16),
        Some("not needed (sim)")
    );
    let devices = v.field("devices").array();
    // The default profile, a BlueField-3 as its host sees it: its PF and a
    // BlueField-2 (`Profile::host_view`).
    assert_eq!(devices.len(), 2);
    assert_eq!(devices[0].field("ibdev_name").str(), "mlx5_0");
    assert_eq!(devices[1].field("ibdev_name").str(), "mlx5_2");
    assert_eq!(
        devices[0]
            .field("limits")
            .field("max_threads_per_kernel")
            .num(),
        190.0
    );
    assert!(!devices[1].field("has_dpa").bool());
    assert_eq!(devices[1].field("limits"), &Value::Null);

    // The sim has a DPA and RDMI: requiring them still passes.
    let (code, v) = doctor_json(None, &["--require", "dpa", "--require=rdmi"]);
    assert_schema(&v, code);
    assert_eq!(code, 0);
    assert_eq!(v.check("dpa").field("required"), &Value::Bool(true));
    assert_eq!(v.check("rdmi").field("verdict").str(), "ok");

    let human = doctor(None, &[]);
    assert_eq!(human.code, 0);
    assert!(human.stdout.contains("Result: ok (exit status 0)"));
}

#[test]
fn human_output_names_every_device() {
    if !sim() {
        return;
    }
    let path = profile(
        "names",
        "# three devices\n\
         [device]\nibdev_name = mlx5_5\niface_name = eth5\npci_addr = 0000:0a:00.0\n\
         max_threads_per_kernel = 8\nkernel_max_run_time_ms = 2500\n\
         [device]\nibdev_name = mlx5_6\niface_name = eth6\npci_addr = 0000:0b:00.0\ndpa = false\n\
         [device]\nibdev_name = mlx5_7\niface_name = eth7\npci_addr = 0000:0c:00.1\n\
         cores = 4\neus_per_core = 8\neus_available = 30\n",
    );
    let run = doctor(Some(&path.path), &[]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    for name in [
        "mlx5_5",
        "0000:0a:00.0",
        "eth5",
        "mlx5_6",
        "0000:0b:00.0",
        "mlx5_7",
        "0000:0c:00.1",
    ] {
        assert!(run.stdout.contains(name), "{name} missing:\n{}", run.stdout);
    }
    assert!(run
        .stdout
        .contains(&format!("DOCA_SIM_PROFILE={}", path.display())));

    let (code, v) = doctor_json(Some(&path.path), &[]);
    assert_schema(&v, code);
    assert_eq!(v.field("sim_profile").str(), path.display().to_string());
    let devices = v.field("devices").array();
    assert_eq!(devices.len(), 3);
    let limits = devices[0].field("limits");
    assert_eq!(limits.field("max_threads_per_kernel").num(), 8.0);
    assert_eq!(limits.field("kernel_max_run_time_s").num(), 3.0); // 2.5 s, rounded up
    assert_eq!(devices[1].field("has_dpa"), &Value::Bool(false));
    let limits = devices[2].field("limits");
    assert_eq!(limits.field("cores").num(), 4.0);
    assert_eq!(limits.field("eus_per_core").num(), 8.0);
    assert_eq!(limits.field("eus_available").num(), 30.0);
}

#[test]
fn requiring_a_dpa_fails_without_one() {
    if !sim() {
        return;
    }
    let path = profile(
        "no-dpa",
        "[device]\nibdev_name = mlx5_2\npci_addr = 0000:81:00.0\ndpa = false\n",
    );
    // Not required: a warning, exit 0.
    let (code, v) = doctor_json(Some(&path.path), &[]);
    assert_schema(&v, code);
    assert_eq!(code, 0);
    assert_eq!(v.check("dpa").field("verdict").str(), "warn");
    assert_eq!(v.field("verdict").str(), "warn");
    assert_eq!(
        v.field("sim").field("profile_source").str(),
        format!("DOCA_SIM_PROFILE={}", path.path.display())
    );

    // Required: a failure, exit 1, with the fix.
    let (code, v) = doctor_json(Some(&path.path), &["--require", "dpa"]);
    assert_schema(&v, code);
    assert_eq!(code, 1);
    let dpa = v.check("dpa");
    assert_eq!(dpa.field("verdict").str(), "fail");
    assert!(dpa.field("fix").str().contains("dpa = true"));
    assert_eq!(v.field("required").array(), [Value::String("dpa".into())]);

    let human = doctor(Some(&path.path), &["--require", "dpa"]);
    assert_eq!(human.code, 1);
    assert!(human.stdout.contains("mlx5_2") && human.stdout.contains("0000:81:00.0"));
    assert!(human.stdout.contains("dpa (fail): "));
}

#[test]
fn a_runtime_version_mismatch_fails() {
    if !sim() {
        return;
    }
    let built = BUILT_VERSION;
    let other = if built == "2.9.0001" {
        "2.10.0001"
    } else {
        "2.9.0001"
    };
    let path = profile(
        "runtime",
        &format!("runtime_version = {other}\n[device]\nibdev_name = mlx5_0\n"),
    );
    let (code, v) = doctor_json(Some(&path.path), &[]);
    assert_schema(&v, code);
    assert_eq!(code, 1);
    let versions = v.field("versions");
    assert_eq!(versions.field("runtime").str(), other);
    assert_eq!(versions.field("doca_version_h").str(), built);
    assert_eq!(versions.field("match"), &Value::Bool(false));
    let check = v.check("versions");
    assert_eq!(check.field("verdict").str(), "fail");
    assert!(check.field("summary").str().contains(other));
    assert!(check
        .field("fix")
        .str()
        .contains(&format!("runtime_version = {built}")));

    let human = doctor(Some(&path.path), &[]);
    assert_eq!(human.code, 1);
    assert!(human
        .stdout
        .lines()
        .any(|l| l.trim_start().starts_with("four-way match") && l.ends_with(" NO")));
}

#[test]
fn requiring_hardware_fails_on_the_sim() {
    if !sim() {
        return;
    }
    let (code, v) = doctor_json(None, &["--require", "hardware"]);
    assert_schema(&v, code);
    assert_eq!(code, 1);
    assert_eq!(v.check("backend").field("verdict").str(), "fail");
}

#[test]
fn a_refused_sim_configuration_fails_the_backend_check() {
    if !sim() {
        return;
    }
    let path = profile(
        "malformed",
        "[device]\nibdev_name = mlx5_0\nno_such_key = 1\n",
    );
    let (code, v) = doctor_json(Some(&path.path), &[]);
    assert_eq!(code, 1);
    let error = v.field("sim").field("config_error").str();
    assert!(error.contains("no_such_key"), "{error}");
    assert!(v
        .field("sim")
        .field("profile_source")
        .str()
        .contains("is invalid"));
    let backend = v.check("backend");
    assert_eq!(backend.field("verdict").str(), "fail");
    assert!(backend.field("summary").str().contains("no_such_key"));
    assert!(backend.field("fix").str().contains("DOCA_SIM_PROFILE"));
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["--frobnicate"][..],
        &["--require"],
        &["--require", "gpu"],
        &["--json", "extra"],
    ] {
        let run = doctor(None, args);
        assert_eq!(run.code, 2, "{args:?}");
        assert!(run.stdout.is_empty(), "{args:?}: {}", run.stdout);
        assert!(run.stderr.contains("usage: doca-doctor"), "{args:?}");
    }
    let help = doctor(None, &["--help"]);
    assert_eq!(help.code, 0);
    assert!(help.stdout.contains("--require"));
    let version = doctor(None, &["--version"]);
    assert_eq!(version.code, 0);
    assert!(version.stdout.contains("schema_version 3"));
}

#[test]
fn every_json_key_is_documented() {
    let doc_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let doc = std::fs::read_to_string(&doc_path).expect("reading README.md");
    let (_, v) = doctor_json(None, &["--require", "dpa"]);
    let mut keys = Vec::new();
    v.keys(&mut keys);
    // With an install, the bindings check has sets.
    if pkg_config() {
        let dir = temp_dir("documented");
        let (_, v) = doctor_on_install(&fake_install(&dir.0, |h| h));
        v.keys(&mut keys);
        assert!(keys.iter().any(|k| k == "checked"), "{keys:?}");
    }
    keys.sort();
    keys.dedup();
    let undocumented: Vec<&String> = keys
        .iter()
        .filter(|k| !doc.contains(&format!("`{k}`")))
        .collect();
    assert!(
        undocumented.is_empty(),
        "keys missing from README.md: {undocumented:?}"
    );
}

// ---------------------------------------------------------------------------
// The default build: DOCA loaded at run time

/// Runs the loaded doctor with `--json` where pkg-config and `DOCA_PREFIX` point
/// at nothing and `LD_LIBRARY_PATH` is `ld_path`.
#[cfg(not(feature = "sim"))]
fn loaded_json(ld_path: &Path) -> (i32, Value, String) {
    let nowhere = std::env::temp_dir().join("doca-doctor-nowhere");
    let out = Command::new(env!("CARGO_BIN_EXE_doca-doctor"))
        .arg("--json")
        .env("PKG_CONFIG_PATH", &nowhere)
        .env("PKG_CONFIG_LIBDIR", &nowhere)
        .env("DOCA_PREFIX", &nowhere)
        .env("LD_LIBRARY_PATH", ld_path)
        .output()
        .expect("running doca-doctor");
    let code = out.status.code().unwrap_or(-1);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let v = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    (code, v, text)
}

/// Whether this machine has DOCA's libraries where the doctor looks anyway (then
/// the "not found" tests have nothing to show).
#[cfg(not(feature = "sim"))]
fn doca_installed(v: &Value) -> bool {
    let loaded = !v.field("libraries").field("loaded").array().is_empty();
    if loaded {
        eprintln!("skipped: DOCA's libraries are installed on this machine");
    }
    loaded
}

#[cfg(not(feature = "sim"))]
#[test]
fn loaded_without_doca_reports_where_it_looked_and_fails() {
    let dir = std::env::temp_dir().join(format!("doca-doctor-empty-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (code, v, text) = loaded_json(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    if doca_installed(&v) {
        return;
    }
    assert_eq!(code, 1, "{text}");
    assert_eq!(v.field("schema_version").num(), 3.0);
    assert_eq!(v.field("backend").str(), "hardware");
    assert_eq!(v.field("exit_code").num(), 1.0);
    assert_eq!(v.field("verdict").str(), "fail");
    let libs = v.field("libraries");
    let missing: Vec<&str> = libs
        .field("missing")
        .array()
        .iter()
        .map(|m| m.str())
        .collect();
    assert_eq!(missing, ["libdoca_common.so", "libdoca_dpa.so"]);
    let searched: Vec<(&str, &str)> = libs
        .field("searched")
        .array()
        .iter()
        .map(|s| (s.field("dir").str(), s.field("from").str()))
        .collect();
    let dir_text = dir.display().to_string();
    assert!(
        searched.contains(&(dir_text.as_str(), "LD_LIBRARY_PATH")),
        "{searched:?}"
    );
    assert!(
        searched.contains(&("/opt/mellanox/doca/lib", "standard location")),
        "{searched:?}"
    );
    assert!(
        searched.iter().any(|(_, from)| *from == "DOCA_PREFIX"),
        "{searched:?}"
    );
    assert!(!matches!(libs.field("pkg_config_error"), Value::Null));
    let backend = &v.field("checks").array()[0];
    assert_eq!(backend.field("id").str(), "backend");
    assert_eq!(backend.field("verdict").str(), "fail");
    let summary = backend.field("summary").str();
    assert!(
        summary.contains("not found") && summary.contains(&dir_text),
        "{summary}"
    );
    assert!(backend.field("fix").str().contains("LD_LIBRARY_PATH"));
    assert_eq!(v.field("versions").field("runtime"), &Value::Null);
    assert!(v.field("devices").array().is_empty());
    assert!(v.field("devices_error").str().contains("not loaded"));
}

#[cfg(not(feature = "sim"))]
#[test]
fn loaded_reports_a_broken_library_with_the_loaders_message() {
    let dir = std::env::temp_dir().join(format!("doca-doctor-broken-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let lib = dir.join("libdoca_common.so");
    std::fs::write(&lib, b"this is not a shared library").unwrap();
    let (code, v, text) = loaded_json(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    let errors: Vec<&str> = v
        .field("libraries")
        .field("errors")
        .array()
        .iter()
        .map(|e| e.str())
        .collect();
    let lib_text = lib.display().to_string();
    assert!(
        errors.iter().any(|e| e.starts_with(&lib_text)),
        "{errors:?}"
    );
    if doca_installed(&v) {
        return;
    }
    assert_eq!(code, 1, "{text}");
    let summary = v.field("checks").array()[0].field("summary").str();
    assert!(summary.contains(&lib_text), "{summary}");
}

// ---------------------------------------------------------------------------
// The bindings check: what a hardware build will say of the installed headers

/// A directory removed on drop.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn temp_dir(test: &str) -> TempDir {
    let dir = std::env::temp_dir().join(format!("doca-doctor-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("creating a temp dir");
    TempDir(dir)
}

/// Whether pkg-config can be run (the doctor finds installs with it).
fn pkg_config() -> bool {
    let found = ["pkg-config", "pkgconf"].iter().any(|exe| {
        std::process::Command::new(exe)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if !found {
        eprintln!("skipped: no pkg-config on this machine");
    }
    found
}

/// Lays out in `prefix` the install of scripts/lib/fake-doca.sh (the one
/// scripts/fake-prefix-test.sh builds against), without its libraries: the reference
/// headers of doca-sim, with `edit` applied to `doca_dpa.h`, and .pc files for the
/// four DOCA modules with its requirement lines, and the stand-ins they require.
/// Returns the pkgconfig directory.
fn fake_install(prefix: &Path, edit: impl FnOnce(String) -> String) -> PathBuf {
    let include = prefix.join("include");
    let pc = prefix.join("lib/pkgconfig");
    std::fs::create_dir_all(&include).unwrap();
    std::fs::create_dir_all(&pc).unwrap();
    let reference = Path::new(env!("CARGO_MANIFEST_DIR")).join("../doca-sim/include");
    for entry in std::fs::read_dir(&reference).expect("doca-sim's reference headers") {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|x| x == "h") {
            std::fs::copy(&path, include.join(path.file_name().unwrap())).unwrap();
        }
    }
    let dpa_h = include.join("doca_dpa.h");
    let text = std::fs::read_to_string(&dpa_h).unwrap();
    std::fs::write(&dpa_h, edit(text)).unwrap();
    let version = std::fs::read_to_string(include.join("doca_version.h"))
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("#define DOCA_VERSION_STRING "))
        .map(|v| v.trim().trim_matches('"').to_owned())
        .expect("DOCA_VERSION_STRING");
    let modules = [
        ("doca-common", "-ldoca_common", "", "libibverbs, libmlx5"),
        ("doca-dpa", "-ldoca_dpa", "doca-common", "libflexio"),
        (
            "doca-verbs",
            "-ldoca_verbs",
            "doca-common",
            "libibverbs, libmlx5",
        ),
        ("doca-rdmi", "-ldoca_rdmi", "doca-verbs, doca-dpa", ""),
        ("doca-rdma", "-ldoca_rdma", "doca-common", "libibverbs"),
        ("doca-comch", "-ldoca_comch", "doca-common", ""),
    ];
    for (module, libs, requires, private) in modules {
        std::fs::write(
            pc.join(format!("{module}.pc")),
            format!(
                "prefix={}\nincludedir=${{prefix}}/include\nlibdir=${{prefix}}/lib\n\n\
                 Name: {module}\nDescription: fake DOCA module for doca-rs tests\n\
                 Version: {version}\nRequires: {requires}\nRequires.private: {private}\n\
                 Libs: -L${{libdir}} {libs}\nCflags: -I${{includedir}}\n",
                prefix.display()
            ),
        )
        .unwrap();
    }
    for (module, version) in [
        ("libflexio", "25.04.0"),
        ("libibverbs", "50.0"),
        ("libmlx5", "50.0"),
    ] {
        std::fs::write(
            pc.join(format!("{module}.pc")),
            format!(
                "Name: {module}\nDescription: stand-in for doca-rs tests\nVersion: {version}\n\
                 Libs:\nCflags:\n"
            ),
        )
        .unwrap();
    }
    pc
}

/// The doctor's JSON with pkg-config looking only in `pkg_config_dir`.
fn doctor_on_install(pkg_config_dir: &Path) -> (i32, Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_doca-doctor"))
        .arg("--json")
        .env("PKG_CONFIG_PATH", pkg_config_dir)
        .env("PKG_CONFIG_LIBDIR", pkg_config_dir)
        .env_remove("DOCA_PREFIX")
        .env_remove("DOCA_SIM_PROFILE")
        .output()
        .expect("running doca-doctor");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let v = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    (out.status.code().unwrap_or(-1), v)
}

#[test]
fn the_bindings_check_accepts_the_fake_prefix() {
    if !pkg_config() {
        return;
    }
    let dir = temp_dir("accepted");
    let pc = fake_install(&dir.0, |h| h);
    let (_, v) = doctor_on_install(&pc);
    let check = v.check("bindings");
    assert_eq!(check.field("verdict").str(), "ok", "{check}");
    let summary = check.field("summary").str();
    assert!(summary.starts_with("accepted ("), "{summary}");
    let details = v.field("bindings_check");
    assert_eq!(details.field("install_error"), &Value::Null);
    let include = dir.0.join("include").display().to_string();
    assert_eq!(
        details.field("include_dirs").array(),
        [Value::from(include)]
    );
    let sets = details.field("sets").array();
    let names: Vec<&str> = sets.iter().map(|s| s.field("set").str()).collect();
    assert_eq!(names, ["dpa", "verbs", "rdmi", "rdma", "comch"]);
    for s in sets {
        assert_eq!(s.field("result").str(), "accepted", "{s}");
        assert!(s.field("checked").num() > 0.0, "{s}");
        assert_eq!(s.field("message"), &Value::Null);
    }
}

#[test]
fn the_bindings_check_refuses_a_changed_parameter_width_naming_the_function() {
    if !pkg_config() {
        return;
    }
    let dir = temp_dir("refused");
    // doca_dpa_mem_alloc's size: size_t (64 bits here) becomes 32 bits wide.
    let before = "doca_dpa_mem_alloc(struct doca_dpa *dpa, size_t size,";
    let pc = fake_install(&dir.0, |h| {
        assert!(
            h.contains(before),
            "doca_dpa.h no longer declares `{before}`"
        );
        h.replace(
            before,
            "doca_dpa_mem_alloc(struct doca_dpa *dpa, uint32_t size,",
        )
    });
    let (code, v) = doctor_on_install(&pc);
    let check = v.check("bindings");
    // A hardware doctor requires the check; the sim doctor only warns.
    let expected = if BACKEND == "sim" { "warn" } else { "fail" };
    assert_eq!(check.field("verdict").str(), expected, "{check}");
    if BACKEND != "sim" {
        assert_eq!(code, 1);
    }
    let summary = check.field("summary").str();
    assert!(
        summary.starts_with("will be refused: dpa: ") && summary.contains("doca_dpa_mem_alloc"),
        "{summary}"
    );
    assert!(check.field("fix").str().contains("`bindgen` feature"));
    let sets = v.field("bindings_check").field("sets").array();
    assert_eq!(sets[0].field("result").str(), "refused");
    assert!(sets[0]
        .field("message")
        .str()
        .contains("doca_dpa_mem_alloc"));
    assert_eq!(
        sets[1].field("result").str(),
        "accepted",
        "RDMI's items are unchanged"
    );
}

#[test]
fn a_doca_2_5_install_is_too_old() {
    if !pkg_config() {
        return;
    }
    let dir = temp_dir("doca-2.5");
    let old = &dir.0;
    let pc = old.join("lib/pkgconfig");
    std::fs::create_dir_all(old.join("include")).unwrap();
    std::fs::create_dir_all(&pc).unwrap();
    std::fs::write(
        old.join("include/doca_version.h"),
        "#define DOCA_VER_MAJOR 2\n#define DOCA_VER_MINOR 5\n#define DOCA_VER_PATCH 108\n\
         #define DOCA_VER_STRING \"2.5.0108\"\n",
    )
    .unwrap();
    // The umbrella module of a real 2.5 install, with its private requirements that
    // do not resolve here (as on many machines), as in scripts/fake-prefix-test.sh.
    std::fs::write(
        pc.join("doca.pc"),
        format!(
            "prefix={}\nincludedir=${{prefix}}/include\nlibdir=${{prefix}}/lib\n\
             Name: doca\nDescription: umbrella module of an old DOCA\nVersion: 2.5.0108\n\
             Requires: doca-libs\nRequires.private: libibverbs, libmlx5, json-c, libflexio, \
             libdpdk, glib-2.0, libcrypto, libzip\n\
             Libs: -L${{libdir}} -ldoca_dpa -ldoca_common\nCflags: -I${{includedir}}\n",
            old.display()
        ),
    )
    .unwrap();
    std::fs::write(
        pc.join("doca-libs.pc"),
        format!(
            "prefix={}\nlibdir=${{prefix}}/lib\nName: doca-libs\n\
             Description: the libraries of an old DOCA\nVersion: 2.5.0108\n\
             Libs: -L${{libdir}} -ldoca_dpa -ldoca_common\n\
             Cflags: -I${{prefix}}/include -DALLOW_EXPERIMENTAL_API\n",
            old.display()
        ),
    )
    .unwrap();
    let (_, v) = doctor_on_install(&pc);
    let bindings = v.check("bindings").field("summary").str();
    assert!(
        bindings.contains("too old") && bindings.contains("2.5.0108"),
        "{bindings}"
    );
    let install_error = v.field("bindings_check").field("install_error").str();
    assert!(install_error.contains("too old"), "{install_error}");
    // The loaded doctor's versions come from this install: "too old", as the build
    // says (the sim doctor's versions are its own build's).
    if BACKEND != "sim" {
        let versions = v.check("versions");
        assert_eq!(versions.field("verdict").str(), "fail");
        let summary = versions.field("summary").str();
        assert!(summary.contains("too old"), "{summary}");
        assert!(!summary.contains("no DOCA version could be read"));
        assert!(versions.field("fix").str().contains("2.9"));
    }
}
