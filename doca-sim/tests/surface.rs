//! The reference headers against the DOCA 3.0 surface: every function of
//! `tests/fixtures/doca-3.0-surface.txt` (names and markers from the facts
//! about the real 3.0 headers) must be declared by doca-sim's header of the
//! same name, with the same marker (host headers) or at all (device
//! headers). A missing function or a wrong marker fails the test with the
//! full list.

use std::collections::BTreeMap;
use std::path::PathBuf;

fn manifest() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// header name → [(marker, function)] of the fixture.
fn fixture() -> BTreeMap<String, Vec<(String, String)>> {
    let text = std::fs::read_to_string(manifest().join("tests/fixtures/doca-3.0-surface.txt"))
        .expect("the fixture is readable");
    let mut out: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    let mut header = None;
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(h) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            header = Some(h.to_owned());
            continue;
        }
        let (marker, name) = line
            .split_once(' ')
            .unwrap_or_else(|| panic!("fixture line {}: `MARKER name` expected", n + 1));
        assert!(
            ["STABLE", "EXPERIMENTAL", "inline"].contains(&marker),
            "fixture line {}: unknown marker {marker}",
            n + 1
        );
        let header = header
            .clone()
            .unwrap_or_else(|| panic!("fixture line {}: no [header] yet", n + 1));
        out.entry(header)
            .or_default()
            .push((marker.to_owned(), name.trim().to_owned()));
    }
    out
}

/// The header's text without comments, so a name mentioned in a doc comment
/// does not count as declared.
fn code_of(path: &std::path::Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    strip_comments(&text)
}

fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("/*") {
            let end = after.find("*/").map_or(after.len(), |i| i + 2);
            // Keep line breaks so lines stay where they were.
            out.extend(after[..end].chars().filter(|c| *c == '\n'));
            rest = &after[end.min(after.len())..];
        } else if let Some(after) = rest.strip_prefix("//") {
            rest = &after[after.find('\n').unwrap_or(after.len())..];
        } else {
            let c = rest.chars().next().unwrap_or_default();
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// The line declaring (or defining) `name` and the non-blank line before it.
fn declaration<'a>(code: &'a str, name: &str) -> Option<(&'a str, &'a str)> {
    let lines: Vec<&str> = code.lines().collect();
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    lines.iter().enumerate().find_map(|(i, line)| {
        let at = line.find(name)?;
        let before = line[..at].chars().next_back();
        let after = line[at + name.len()..].trim_start();
        let declares = !before.is_some_and(is_ident) && after.starts_with('(');
        declares.then(|| {
            let previous = lines[..i]
                .iter()
                .rev()
                .find(|l| !l.trim().is_empty())
                .copied()
                .unwrap_or("");
            (*line, previous)
        })
    })
}

/// Checks the headers of `dir` for the fixture's headers whose name matches
/// `device`; returns the problems.
fn check(dir: &str, device: bool) -> Vec<String> {
    let mut problems = Vec::new();
    let mut checked = 0;
    for (header, functions) in fixture() {
        if header.starts_with("doca_dpa_dev") != device {
            continue;
        }
        let code = code_of(&manifest().join(dir).join(&header));
        for (marker, name) in functions {
            checked += 1;
            let Some((line, previous)) = declaration(&code, &name) else {
                problems.push(format!("{header}: {name} is not declared"));
                continue;
            };
            let ok = match marker.as_str() {
                "inline" => line.contains("__forceinline"),
                _ if device => true,
                m => previous.trim() == format!("DOCA_{m}"),
            };
            if !ok {
                problems.push(format!(
                    "{header}: {name} should be {marker}, its declaration is `{}` after `{}`",
                    line.trim(),
                    previous.trim()
                ));
            }
        }
    }
    assert!(checked > 0, "the fixture lists no function for {dir}");
    problems
}

#[test]
fn host_headers_declare_the_3_0_surface_with_its_markers() {
    let problems = check("include", false);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn device_headers_declare_the_device_surface() {
    let problems = check("device-include", true);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_missing_function_is_reported() {
    // The checker itself: a name only a comment mentions is not a declaration.
    let code = strip_comments("/* doca_gone(void) */\nDOCA_STABLE\nint doca_here(void);\n");
    assert!(declaration(&code, "doca_gone").is_none());
    let (line, previous) = declaration(&code, "doca_here").expect("declared");
    assert_eq!((line, previous), ("int doca_here(void);", "DOCA_STABLE"));
}

/// `cc -fsyntax-only` of a kernel that only includes the DPA Verbs device
/// header, with `defines`: its success and its diagnostics.
fn compile_verbs_kernel(defines: &[&str]) -> (bool, String) {
    let dir = std::env::temp_dir().join(format!(
        "doca-sim-dev-verbs-{}-{}",
        std::process::id(),
        defines.len()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let kernel = dir.join("k.c");
    std::fs::write(&kernel, "#include <doca_dpa_dev_verbs.h>\n").unwrap();
    let out = std::process::Command::new("cc")
        .arg("-fsyntax-only")
        .args(defines)
        .arg("-I")
        .arg(manifest().join("device-include"))
        .arg("-I")
        .arg(manifest().join("include"))
        .arg(&kernel)
        .output()
        .expect("running cc");
    let _ = std::fs::remove_dir_all(&dir);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn dpa_verbs_builds_for_3_2_and_stops_an_older_build_with_the_reason() {
    let (built, stderr) = compile_verbs_kernel(&[]);
    assert!(built, "the DPA Verbs header does not build: {stderr}");
    // DPA Verbs is DOCA 3.2+: a build for an older device API is told why.
    let (built, stderr) = compile_verbs_kernel(&["-DDOCA_SIM_DEV_RELEASE=301"]);
    assert!(!built, "a 3.1 build took the DPA Verbs header");
    assert!(
        stderr.contains("DPA Verbs arrived with DOCA 3.2"),
        "no reason given: {stderr}"
    );
}
