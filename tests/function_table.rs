//! Keeps `docs/functions.md` true: every DOCA DPA/RDMI host function this
//! build knows (the symbol audit) is either called by `doca-dpa`/`doca-rdmi`
//! (found in their sources, outside comments) or listed in
//! `docs/unwrapped.tsv` with the reason it is left raw.
//!
//! `DOCA_UPDATE_DOCS=1 cargo test --test function_table` rewrites the table.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`, with its module path (`doca_dpa::launch`).
fn sources(dir: &Path, krate: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "rs") {
                let rel = p.strip_prefix(dir).unwrap().with_extension("");
                let mut module = krate.to_owned();
                for part in rel.iter().map(|c| c.to_string_lossy().into_owned()) {
                    if part != "lib" && part != "mod" {
                        module.push_str("::");
                        module.push_str(&part);
                    }
                }
                let code: String = std::fs::read_to_string(&p)
                    .unwrap()
                    .lines()
                    .filter(|l| !l.trim_start().starts_with("//"))
                    .map(|l| format!("{l}\n"))
                    .collect();
                out.push((module, code));
            }
        }
    }
    out.sort();
    out
}

/// Whether `line` uses `name` as a whole identifier (not inside a string,
/// such as a cfg value or an error's call name).
fn mentions(line: &str, name: &str) -> bool {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    line.match_indices(name).any(|(i, _)| {
        let before = line[..i].chars().next_back();
        let after = line[i + name.len()..].chars().next();
        let quoted = line[..i].matches('"').count() % 2 == 1;
        !quoted && !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

/// The identifier after `keyword ` on a line (`fn launch`, `impl<'a> Launcher<'a>`).
fn item_name(line: &str, keyword: &str) -> Option<String> {
    let t = line.trim_start();
    let t = t
        .strip_prefix("pub(crate) ")
        .or_else(|| t.strip_prefix("pub "))
        .unwrap_or(t);
    let t = t.strip_prefix("unsafe ").unwrap_or(t);
    let rest = t.strip_prefix(keyword)?;
    let rest = if keyword == "impl" {
        // `impl<..> Trait for Type<..>` names Type; `impl<..> Type<..>` too.
        let rest = rest.trim_start();
        let rest = if rest.starts_with('<') {
            let mut depth = 0;
            let end = rest
                .char_indices()
                .find(|(_, c)| {
                    depth += match c {
                        '<' => 1,
                        '>' => -1,
                        _ => 0,
                    };
                    depth == 0
                })
                .map_or(0, |(i, _)| i + 1);
            &rest[end..]
        } else {
            rest
        };
        rest.rsplit(" for ").next().unwrap_or(rest)
    } else {
        rest
    };
    let name: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// The Rust items (`module::Type::method`, `module::function`, or the module
/// for macro and static code) whose code uses `name`.
fn callers(code: &[(String, String)], name: &str) -> Vec<String> {
    let mut found = BTreeSet::new();
    for (module, text) in code {
        let (mut impl_of, mut func) = (None::<String>, None::<String>);
        let mut in_tests = false;
        for line in text.lines() {
            // Unit tests are not callers.
            if line.starts_with("mod tests") {
                in_tests = true;
            }
            if in_tests {
                in_tests = line != "}";
                continue;
            }
            if !line.is_empty()
                && !line.starts_with(' ')
                && !line.starts_with('}')
                && !line.starts_with('#')
            {
                impl_of = item_name(line, "impl");
                func = None;
            }
            if let Some(f) = item_name(line, "fn ") {
                func = Some(f);
            }
            if mentions(line, name) {
                let item = match (&impl_of, &func) {
                    (Some(t), Some(f)) => format!("{module}::{t}::{f}"),
                    (None, Some(f)) => format!("{module}::{f}"),
                    _ => module.clone(),
                };
                found.insert(item);
            }
        }
    }
    found.into_iter().collect()
}

#[test]
fn every_doca_function_is_wrapped_or_explained() {
    // The committed table describes the reference headers (the sim build); an
    // installed DOCA declares more functions than the crates use.
    if doca::dpa::build_info::BACKEND != "sim" {
        eprintln!("skipped: the table is generated from the reference headers (sim backend)");
        return;
    }
    let mut symbols: BTreeMap<&str, (&str, &str)> = BTreeMap::new();
    for s in doca::dpa::build_info::SYMBOLS {
        symbols.insert(s.name, (s.header, s.marker));
    }
    for s in doca::rdmi::build_info::SYMBOLS {
        symbols.entry(s.name).or_insert((s.header, s.marker));
    }
    let mut code = sources(&root().join("doca-dpa/src"), "doca_dpa");
    code.extend(sources(&root().join("doca-rdmi/src"), "doca_rdmi"));
    let raw_text = std::fs::read_to_string(root().join("docs/unwrapped.tsv")).unwrap();
    let reasons: BTreeMap<&str, &str> = raw_text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_once('\t'))
        .collect();

    let mut table = String::from(
        "# DOCA functions and the Rust code that calls them\n\n\
         Generated from the symbol audit of this build by `tests/function_table.rs`\n\
         (`DOCA_UPDATE_DOCS=1 cargo test --test function_table` rewrites it; the test\n\
         fails when it is stale). Functions left raw are reachable through\n\
         `doca::sys` and `doca::rdmi::sys`; `docs/unwrapped.tsv` says why each is.\n\n\
         | function | header | status | called by / why raw |\n|---|---|---|---|\n",
    );
    let mut unexplained = Vec::new();
    let mut stale = BTreeSet::new();
    // The variadic calls are made by the C launchers doca-build-support generates
    // for each kernel and RPC (host_decls.rs writes them; safe code calls those).
    let launchers =
        std::fs::read_to_string(root().join("build-support/src/dpa_app/host_decls.rs")).unwrap();
    for (name, (header, marker)) in &symbols {
        let mut callers = callers(&code, name);
        if *name != "doca_dpa_kernel_launch_update_set" && launchers.contains(&format!("{name}(")) {
            callers.push(format!(
                "generated C launcher (doca_build_support::dpa_app::host_decls), called by \
                 {}",
                if name.starts_with("doca_dpa_rpc") {
                    "`doca_dpa::Dpa::rpc`"
                } else {
                    "`doca_dpa::Launcher::launch`"
                }
            ));
        }
        let cell = if !callers.is_empty() {
            if reasons.contains_key(name) {
                stale.insert(*name);
            }
            callers
                .iter()
                .map(|m| {
                    if m.contains(' ') {
                        m.clone()
                    } else {
                        format!("`{m}`")
                    }
                })
                .collect::<Vec<_>>()
                .join(", ")
        } else if let Some(reason) = reasons.get(name) {
            format!("raw: {reason}")
        } else {
            unexplained.push(*name);
            continue;
        };
        let header = if header.is_empty() { "(none)" } else { header };
        table.push_str(&format!("| `{name}` | {header} | {marker} | {cell} |\n"));
    }
    assert!(
        unexplained.is_empty(),
        "neither wrapped nor explained in docs/unwrapped.tsv: {unexplained:?}"
    );
    assert!(
        stale.is_empty(),
        "wrapped now, remove from docs/unwrapped.tsv: {stale:?}"
    );
    let path = root().join("docs/functions.md");
    if std::env::var_os("DOCA_UPDATE_DOCS").is_some() {
        std::fs::write(&path, &table).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == table,
        "docs/functions.md is stale: run DOCA_UPDATE_DOCS=1 cargo test --test function_table"
    );
}
