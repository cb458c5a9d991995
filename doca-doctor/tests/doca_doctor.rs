//! `doca-doctor` end to end: the built binary runs against sim device profiles
//! written here (`DOCA_SIM_PROFILE`), and its JSON (parsed by a small
//! validating parser below, no serde), human output and exit status are
//! checked. The profiles only shape the software DPA, so those tests run only in
//! a sim build of the doctor (`cargo test -p doca-doctor --features sim`). The
//! default build loads DOCA at run time; its tests (`loaded_*`) run it where no
//! DOCA is found and with a broken library, and check the report it still writes.

use std::path::{Path, PathBuf};
use std::process::Command;

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
    let value = parse_json(&run.stdout)
        .unwrap_or_else(|e| panic!("invalid JSON ({e}):\n{}\n{}", run.stdout, run.stderr));
    (run.code, value)
}

// ---------------------------------------------------------------------------
// A small validating JSON parser (RFC 8259), enough to check the output.

#[derive(Debug, Clone, PartialEq)]
enum Value {
    Null,
    Bool(bool),
    Number(f64),
    Str(String),
    Array(Vec<Value>),
    Object(Vec<(String, Value)>),
}

impl Value {
    /// The member `key` of an object.
    fn get(&self, key: &str) -> &Value {
        match self {
            Value::Object(fields) => fields
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v)
                .unwrap_or_else(|| panic!("no field `{key}` in {self:?}")),
            _ => panic!("`{key}` asked of a non-object {self:?}"),
        }
    }

    fn has(&self, key: &str) -> bool {
        matches!(self, Value::Object(f) if f.iter().any(|(k, _)| k == key))
    }

    fn str(&self) -> &str {
        match self {
            Value::Str(s) => s,
            _ => panic!("not a string: {self:?}"),
        }
    }

    fn array(&self) -> &[Value] {
        match self {
            Value::Array(a) => a,
            _ => panic!("not an array: {self:?}"),
        }
    }

    fn num(&self) -> f64 {
        match self {
            Value::Number(n) => *n,
            _ => panic!("not a number: {self:?}"),
        }
    }

    fn bool(&self) -> bool {
        match self {
            Value::Bool(b) => *b,
            _ => panic!("not a bool: {self:?}"),
        }
    }

    /// Every object key in the tree.
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

    /// The check with id `id`.
    fn check(&self, id: &str) -> &Value {
        self.get("checks")
            .array()
            .iter()
            .find(|c| c.get("id").str() == id)
            .unwrap_or_else(|| panic!("no check `{id}`"))
    }
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

fn parse_json(text: &str) -> Result<Value, String> {
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
    };
    let v = p.value(0)?;
    p.ws();
    if p.i != p.s.len() {
        return Err(format!("trailing data at byte {}", p.i));
    }
    Ok(v)
}

impl Parser<'_> {
    fn err<T>(&self, what: &str) -> Result<T, String> {
        Err(format!("{what} at byte {}", self.i))
    }

    fn ws(&mut self) {
        while matches!(self.s.get(self.i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn eat(&mut self, lit: &str) -> Result<(), String> {
        if self.s[self.i..].starts_with(lit.as_bytes()) {
            self.i += lit.len();
            Ok(())
        } else {
            self.err(&format!("expected `{lit}`"))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value, String> {
        if depth > 64 {
            return self.err("too deep");
        }
        self.ws();
        match self.s.get(self.i) {
            None => self.err("unexpected end"),
            Some(b'n') => self.eat("null").map(|_| Value::Null),
            Some(b't') => self.eat("true").map(|_| Value::Bool(true)),
            Some(b'f') => self.eat("false").map(|_| Value::Bool(false)),
            Some(b'"') => self.string().map(Value::Str),
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.s.get(self.i) == Some(&b']') {
                    self.i += 1;
                    return Ok(Value::Array(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            return Ok(Value::Array(items));
                        }
                        _ => return self.err("expected `,` or `]`"),
                    }
                }
            }
            Some(b'{') => {
                self.i += 1;
                let mut fields: Vec<(String, Value)> = Vec::new();
                self.ws();
                if self.s.get(self.i) == Some(&b'}') {
                    self.i += 1;
                    return Ok(Value::Object(fields));
                }
                loop {
                    self.ws();
                    if self.s.get(self.i) != Some(&b'"') {
                        return self.err("expected a key");
                    }
                    let key = self.string()?;
                    if fields.iter().any(|(k, _)| *k == key) {
                        return self.err(&format!("duplicate key `{key}`"));
                    }
                    self.ws();
                    self.eat(":")?;
                    let v = self.value(depth + 1)?;
                    fields.push((key, v));
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            return Ok(Value::Object(fields));
                        }
                        _ => return self.err("expected `,` or `}`"),
                    }
                }
            }
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => self.err("unexpected character"),
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while matches!(self.s.get(self.i), Some(b'0'..=b'9')) {
            self.i += 1;
        }
        self.i - start
    }

    fn number(&mut self) -> Result<Value, String> {
        let start = self.i;
        if self.s.get(self.i) == Some(&b'-') {
            self.i += 1;
        }
        match self.s.get(self.i) {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return self.err("bad number"),
        }
        if self.s.get(self.i) == Some(&b'.') {
            self.i += 1;
            if self.digits() == 0 {
                return self.err("bad fraction");
            }
        }
        if matches!(self.s.get(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.s.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return self.err("bad exponent");
            }
        }
        let text = std::str::from_utf8(&self.s[start..self.i]).map_err(|e| e.to_string())?;
        text.parse().map(Value::Number).map_err(|e| e.to_string())
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let h = self.s.get(self.i..self.i + 4).ok_or("short \\u escape")?;
        let h = std::str::from_utf8(h).map_err(|e| e.to_string())?;
        let n = u32::from_str_radix(h, 16).map_err(|e| format!("\\u{h}: {e}"))?;
        self.i += 4;
        Ok(n)
    }

    fn string(&mut self) -> Result<String, String> {
        self.eat("\"")?;
        let mut out = String::new();
        loop {
            let Some(&b) = self.s.get(self.i) else {
                return self.err("unterminated string");
            };
            match b {
                b'"' => {
                    self.i += 1;
                    return Ok(out);
                }
                b'\\' => {
                    self.i += 1;
                    let Some(&e) = self.s.get(self.i) else {
                        return self.err("unterminated escape");
                    };
                    self.i += 1;
                    match e {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{08}'),
                        b'f' => out.push('\u{0c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => {
                            let mut c = self.hex4()?;
                            if (0xd800..0xdc00).contains(&c) {
                                self.eat("\\u")?;
                                let low = self.hex4()?;
                                if !(0xdc00..0xe000).contains(&low) {
                                    return self.err("bad low surrogate");
                                }
                                c = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00);
                            }
                            out.push(char::from_u32(c).ok_or("lone surrogate")?);
                        }
                        _ => return self.err("bad escape"),
                    }
                }
                0x00..=0x1f => return self.err("unescaped control character"),
                _ => {
                    // Copy one UTF-8 sequence (the input is a &str, so valid).
                    let len = match b {
                        0x00..=0x7f => 1,
                        0xc0..=0xdf => 2,
                        0xe0..=0xef => 3,
                        _ => 4,
                    };
                    let chunk = self.s.get(self.i..self.i + len).ok_or("truncated UTF-8")?;
                    out.push_str(std::str::from_utf8(chunk).map_err(|e| e.to_string())?);
                    self.i += len;
                }
            }
        }
    }
}

#[test]
fn the_test_parser_accepts_json_and_refuses_the_rest() {
    let v =
        parse_json(r#" {"a": [1, -2.5e3, true, null, "x\"\\\/\n\u00e9\ud83d\ude00"], "b": {}} "#)
            .unwrap();
    assert_eq!(v.get("a").array()[1].num(), -2500.0);
    assert_eq!(v.get("a").array()[4].str(), "x\"\\/\né😀");
    for bad in [
        "",
        "{",
        "[1,]",
        "{\"a\" 1}",
        "{\"a\":1,}",
        "01",
        "1.",
        "\"\u{1}\"",
        "\"\\x\"",
        "nul",
        "{} {}",
        "{\"a\":1,\"a\":2}",
        "\"\\ud800\"",
    ] {
        assert!(parse_json(bad).is_err(), "accepted {bad:?}");
    }
}

// ---------------------------------------------------------------------------
// The checks

const CHECK_IDS: [&str; 7] = [
    "backend", "versions", "dpacc", "devices", "dpa", "symbols", "rdmi",
];

/// The fields of schema version 3 that every sim report has.
fn assert_schema(v: &Value, code: i32) {
    assert_eq!(v.get("schema_version").num(), 3.0);
    // Only a loaded build (the default) reports the libraries it loaded.
    assert_eq!(v.get("libraries"), &Value::Null);
    assert_eq!(v.get("tool").str(), "doca-doctor");
    assert!(!v.get("tool_version").str().is_empty());
    assert_eq!(v.get("backend").str(), "sim");
    for set in ["dpa", "rdmi"] {
        // The sim's bindings are the committed ones (hardware's are checked by
        // scripts/fake-prefix-test.sh).
        assert!(
            v.get("bindings").get(set).str().starts_with("committed"),
            "{set}: {:?}",
            v.get("bindings")
        );
    }
    assert!(matches!(v.get("sim_profile"), Value::Null | Value::Str(_)));
    v.get("required").array().iter().for_each(|r| {
        r.str();
    });
    assert_eq!(v.get("exit_code").num(), f64::from(code));
    let checks = v.get("checks").array();
    let ids: Vec<&str> = checks.iter().map(|c| c.get("id").str()).collect();
    assert_eq!(ids, CHECK_IDS);
    let mut worst = "ok";
    for c in checks {
        let verdict = c.get("verdict").str();
        assert!(["ok", "warn", "fail"].contains(&verdict), "{verdict}");
        c.get("required").bool();
        assert!(!c.get("summary").str().is_empty());
        match (verdict, c.get("fix")) {
            ("ok", Value::Null) => {}
            ("ok", f) => panic!("an ok check with a fix: {f:?}"),
            (_, Value::Str(f)) => assert!(!f.is_empty()),
            (_, f) => panic!("a {verdict} check without a fix: {f:?}"),
        }
        if verdict == "fail" {
            assert!(c.get("required").bool(), "only required checks fail");
            worst = "fail";
        } else if verdict == "warn" && worst == "ok" {
            worst = "warn";
        }
    }
    assert_eq!(v.get("verdict").str(), worst);
    assert_eq!(code, i32::from(worst == "fail"));

    let versions = v.get("versions");
    assert!(!versions.get("doca_version_h").str().is_empty());
    for b in versions.get("build").array() {
        b.get("crate").str();
        b.get("version").str();
    }
    for m in versions.get("pkg_config").array() {
        m.get("module").str();
        m.get("version").str();
    }
    assert!(matches!(
        versions.get("runtime"),
        Value::Null | Value::Str(_)
    ));
    assert!(matches!(
        versions.get("match"),
        Value::Null | Value::Bool(_)
    ));

    let dpacc = v.get("dpacc");
    assert!(!dpacc.get("needed").bool(), "the sim needs no dpacc");
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
    assert_eq!(dpacc.get("doca_version").str(), BUILT_VERSION);
    // The sim checks no pairing.
    assert_eq!(dpacc.get("pairing"), &Value::Null);

    for d in v.get("devices").array() {
        d.get("pci_addr").str();
        d.get("ibdev_name").str();
        d.get("iface_name").str();
        let has_dpa = d.get("has_dpa").bool();
        match d.get("limits") {
            Value::Null => assert!(!has_dpa || !matches!(d.get("limits_error"), Value::Null)),
            l => {
                assert!(has_dpa);
                for key in [
                    "max_threads_per_kernel",
                    "kernel_max_run_time_s",
                    "cores",
                    "eus_per_core",
                    "eus_available",
                ] {
                    l.get(key).num();
                }
            }
        }
    }
    assert!(v.has("devices_error"));

    let symbols = v.get("symbols");
    for key in [
        "total",
        "declared",
        "exported",
        "experimental",
        "stable",
        "usable",
    ] {
        symbols.get(key).num();
    }
    symbols.get("missing").array();
    symbols.get("unchecked").array();
    let rows = symbols.get("rows").array();
    assert_eq!(rows.len() as f64, symbols.get("total").num());
    assert!(rows
        .iter()
        .any(|r| r.get("name").str() == "doca_dpa_create" && r.get("usable").bool()));
    for r in rows {
        r.get("crate").str();
        r.get("header").str();
        assert!(
            ["EXPERIMENTAL", "STABLE", "DEPRECATED", "UNMARKED"].contains(&r.get("marker").str())
        );
        r.get("declared").bool();
        assert!(matches!(r.get("exported"), Value::Null | Value::Bool(_)));
        r.get("usable").bool();
    }

    let rdmi = v.get("rdmi");
    let available = rdmi.get("available").bool();
    assert_eq!(available, matches!(rdmi.get("reason"), Value::Null));
}

#[test]
fn default_profile_passes() {
    if !sim() {
        return;
    }
    let (code, v) = doctor_json(None, &[]);
    assert_schema(&v, code);
    assert_eq!(code, 0);
    assert_eq!(v.get("sim_profile"), &Value::Null);
    assert_eq!(
        v.get("sim").get("profile_source").str(),
        "the default profile"
    );
    assert_eq!(v.get("sim").get("config_error"), &Value::Null);
    assert_eq!(v.get("versions").get("match"), &Value::Bool(true));
    assert_eq!(v.get("versions").get("runtime").str(), BUILT_VERSION);
    assert_eq!(
        v.check("dpacc").get("summary").str().get(..16),
        Some("not needed (sim)")
    );
    let devices = v.get("devices").array();
    // The default profile, a BlueField-3 as its host sees it: its PF and a
    // BlueField-2 (`Profile::host_view`).
    assert_eq!(devices.len(), 2);
    assert_eq!(devices[0].get("ibdev_name").str(), "mlx5_0");
    assert_eq!(devices[1].get("ibdev_name").str(), "mlx5_2");
    assert_eq!(
        devices[0].get("limits").get("max_threads_per_kernel").num(),
        190.0
    );
    assert!(!devices[1].get("has_dpa").bool());
    assert_eq!(devices[1].get("limits"), &Value::Null);

    // The sim has a DPA and RDMI: requiring them still passes.
    let (code, v) = doctor_json(None, &["--require", "dpa", "--require=rdmi"]);
    assert_schema(&v, code);
    assert_eq!(code, 0);
    assert_eq!(v.check("dpa").get("required"), &Value::Bool(true));
    assert_eq!(v.check("rdmi").get("verdict").str(), "ok");

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
    assert_eq!(v.get("sim_profile").str(), path.display().to_string());
    let devices = v.get("devices").array();
    assert_eq!(devices.len(), 3);
    let limits = devices[0].get("limits");
    assert_eq!(limits.get("max_threads_per_kernel").num(), 8.0);
    assert_eq!(limits.get("kernel_max_run_time_s").num(), 3.0); // 2.5 s, rounded up
    assert_eq!(devices[1].get("has_dpa"), &Value::Bool(false));
    let limits = devices[2].get("limits");
    assert_eq!(limits.get("cores").num(), 4.0);
    assert_eq!(limits.get("eus_per_core").num(), 8.0);
    assert_eq!(limits.get("eus_available").num(), 30.0);
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
    assert_eq!(v.check("dpa").get("verdict").str(), "warn");
    assert_eq!(v.get("verdict").str(), "warn");
    assert_eq!(
        v.get("sim").get("profile_source").str(),
        format!("DOCA_SIM_PROFILE={}", path.path.display())
    );

    // Required: a failure, exit 1, with the fix.
    let (code, v) = doctor_json(Some(&path.path), &["--require", "dpa"]);
    assert_schema(&v, code);
    assert_eq!(code, 1);
    let dpa = v.check("dpa");
    assert_eq!(dpa.get("verdict").str(), "fail");
    assert!(dpa.get("fix").str().contains("dpa = true"));
    assert_eq!(v.get("required").array(), [Value::Str("dpa".into())]);

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
    let versions = v.get("versions");
    assert_eq!(versions.get("runtime").str(), other);
    assert_eq!(versions.get("doca_version_h").str(), built);
    assert_eq!(versions.get("match"), &Value::Bool(false));
    let check = v.check("versions");
    assert_eq!(check.get("verdict").str(), "fail");
    assert!(check.get("summary").str().contains(other));
    assert!(check
        .get("fix")
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
    assert_eq!(v.check("backend").get("verdict").str(), "fail");
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
    let error = v.get("sim").get("config_error").str();
    assert!(error.contains("no_such_key"), "{error}");
    assert!(v
        .get("sim")
        .get("profile_source")
        .str()
        .contains("is invalid"));
    let backend = v.check("backend");
    assert_eq!(backend.get("verdict").str(), "fail");
    assert!(backend.get("summary").str().contains("no_such_key"));
    assert!(backend.get("fix").str().contains("DOCA_SIM_PROFILE"));
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
    let v = parse_json(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    (code, v, text)
}

/// Whether this machine has DOCA's libraries where the doctor looks anyway (then
/// the "not found" tests have nothing to show).
#[cfg(not(feature = "sim"))]
fn doca_installed(v: &Value) -> bool {
    let loaded = !v.get("libraries").get("loaded").array().is_empty();
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
    assert_eq!(v.get("schema_version").num(), 3.0);
    assert_eq!(v.get("backend").str(), "hardware");
    assert_eq!(v.get("exit_code").num(), 1.0);
    assert_eq!(v.get("verdict").str(), "fail");
    let libs = v.get("libraries");
    let missing: Vec<&str> = libs
        .get("missing")
        .array()
        .iter()
        .map(|m| m.str())
        .collect();
    assert_eq!(missing, ["libdoca_common.so", "libdoca_dpa.so"]);
    let searched: Vec<(&str, &str)> = libs
        .get("searched")
        .array()
        .iter()
        .map(|s| (s.get("dir").str(), s.get("from").str()))
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
    assert!(!matches!(libs.get("pkg_config_error"), Value::Null));
    let backend = &v.get("checks").array()[0];
    assert_eq!(backend.get("id").str(), "backend");
    assert_eq!(backend.get("verdict").str(), "fail");
    let summary = backend.get("summary").str();
    assert!(
        summary.contains("not found") && summary.contains(&dir_text),
        "{summary}"
    );
    assert!(backend.get("fix").str().contains("LD_LIBRARY_PATH"));
    assert_eq!(v.get("versions").get("runtime"), &Value::Null);
    assert!(v.get("devices").array().is_empty());
    assert!(v.get("devices_error").str().contains("not loaded"));
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
        .get("libraries")
        .get("errors")
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
    let summary = v.get("checks").array()[0].get("summary").str();
    assert!(summary.contains(&lib_text), "{summary}");
}
