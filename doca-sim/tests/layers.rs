//! The direction of doca-sim's modules: no module may reach, through its
//! imports, back to itself, and each module imports only modules of its own
//! layer or of layers below it, as the "Layers" list of `src/lib.rs` says.
//!
//! The imports are read from the sources (`src/**/*.rs`, comments and string
//! literals left out): every `crate::…` path (also `$crate::…` in macros),
//! `super::…` in a submodule, and the paths that start with a child module's
//! name. A path is charged to the deepest module it names; a name the crate
//! root re-exports is charged to the module it comes from.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The module path (`dpa::threads`, `ctx`; `""` for the root) of a source
/// file given relative to `src/`.
fn module_of(relative: &Path) -> String {
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let file = parts.pop().expect("a file name");
    let stem = file.strip_suffix(".rs").expect("a .rs file");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_owned());
    }
    parts.join("::")
}

fn sources() -> BTreeMap<String, String> {
    fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<String, String>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
            .map(|e| e.expect("a directory entry").path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, root, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path)
                    .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
                let module = module_of(path.strip_prefix(root).expect("under src"));
                out.insert(module, text);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(&src(), &src(), &mut out);
    out
}

/// `text` with comments, string literals and character literals blanked out
/// (so a doc link or a message naming a module is not an import).
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if c == 'r'
            && matches!(next, Some('"') | Some('#'))
            && !chars[..i]
                .last()
                .is_some_and(|p| p.is_alphanumeric() || *p == '_')
        {
            // A raw string: r"…", r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= chars.len() {
                    break;
                }
                if chars[j] == '"' && (0..hashes).all(|k| chars.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{..}') or a lifetime ('a).
            let end = if next == Some('\\') {
                chars[i + 3..]
                    .iter()
                    .position(|&d| d == '\'')
                    .map(|p| i + 3 + p)
            } else if chars.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match end {
                Some(end) => {
                    out.push_str("' '");
                    i = end + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The paths of a use tree starting at `text[at..]` (just after `crate::`),
/// each as its segments: `a::{b, c::d}` gives `[a, b]`, `[a, c, d]`.
fn use_paths(text: &[char], mut at: usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let mut path = prefix;
    loop {
        while text.get(at).is_some_and(|c| c.is_whitespace()) {
            at += 1;
        }
        if text.get(at) == Some(&'{') {
            at += 1;
            let mut depth = 0;
            let start = at;
            // Split the group at top-level commas.
            let mut item_start = start;
            while at < text.len() {
                match text[at] {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        use_paths(text, item_start, path.clone(), out);
                        return;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        use_paths(text, item_start, path.clone(), out);
                        item_start = at + 1;
                    }
                    _ => {}
                }
                at += 1;
            }
            return;
        }
        let start = at;
        while text.get(at).is_some_and(|&c| is_ident(c)) {
            at += 1;
        }
        if at == start {
            break;
        }
        path.push(text[start..at].iter().collect());
        let mut look = at;
        while text.get(look).is_some_and(|c| c.is_whitespace()) {
            look += 1;
        }
        if text.get(look) == Some(&':') && text.get(look + 1) == Some(&':') {
            at = look + 2;
        } else {
            break;
        }
    }
    if !path.is_empty() {
        out.push(path);
    }
}

/// The names the crate root re-exports (`pub use module::{name, …}`), with
/// the module each comes from.
fn root_reexports(lib: &str, modules: &BTreeSet<String>) -> BTreeMap<String, String> {
    let code: Vec<char> = code_only(lib).chars().collect();
    let text: String = code.iter().collect();
    let mut out = BTreeMap::new();
    for (at, _) in text.match_indices("pub use ") {
        let mut paths = Vec::new();
        use_paths(&code, at + "pub use ".len(), Vec::new(), &mut paths);
        for path in paths {
            if let Some(module) = deepest_module(&path, modules) {
                if let Some(name) = path.last() {
                    let name = name.clone();
                    out.insert(name, module);
                }
            }
        }
    }
    out
}

/// The deepest module `path` (segments from the crate root) names.
fn deepest_module(path: &[String], modules: &BTreeSet<String>) -> Option<String> {
    (1..=path.len())
        .rev()
        .map(|n| path[..n].join("::"))
        .find(|m| modules.contains(m))
}

/// module → the modules it imports (itself left out).
fn imports(sources: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let modules: BTreeSet<String> = sources.keys().filter(|m| !m.is_empty()).cloned().collect();
    let reexports = root_reexports(&sources[""], &modules);
    let mut graph = BTreeMap::new();
    for (module, text) in sources {
        if module.is_empty() {
            continue;
        }
        let code: Vec<char> = code_only(text).chars().collect();
        let parent: Vec<String> = {
            let mut p: Vec<String> = module.split("::").map(str::to_owned).collect();
            p.pop();
            p
        };
        let own: Vec<String> = module.split("::").map(str::to_owned).collect();
        let mut paths = Vec::new();
        // Brace depths at which inline modules (`mod tests { … }`) opened.
        let mut inline = Vec::new();
        let mut depth = 0usize;
        let mut last_word = String::new();
        let mut before_last = String::new();
        let mut i = 0;
        while i < code.len() {
            match code[i] {
                '{' => {
                    depth += 1;
                    if before_last == "mod" {
                        inline.push(depth);
                    }
                }
                '}' => {
                    if inline.last() == Some(&depth) {
                        inline.pop();
                    }
                    depth = depth.saturating_sub(1);
                }
                _ => {}
            }
            if !code[i].is_whitespace() && !is_ident(code[i]) {
                before_last.clear();
                last_word.clear();
            }
            let boundary = i == 0 || !(is_ident(code[i - 1]) || code[i - 1] == ':');
            if !boundary || !is_ident(code[i]) {
                i += 1;
                continue;
            }
            let start = i;
            while i < code.len() && is_ident(code[i]) {
                i += 1;
            }
            let word: String = code[start..i].iter().collect();
            before_last = std::mem::replace(&mut last_word, word.clone());
            if !(code.get(i) == Some(&':') && code.get(i + 1) == Some(&':')) {
                continue;
            }
            let after = i + 2;
            match word.as_str() {
                "crate" => use_paths(&code, after, Vec::new(), &mut paths),
                // `super::` at the top of a submodule names its parent; in a
                // file's inline `mod tests` it names the file itself (no
                // edge).
                "super" if !parent.is_empty() && inline.is_empty() => {
                    use_paths(&code, after, parent.clone(), &mut paths)
                }
                "self" => use_paths(&code, after, own.clone(), &mut paths),
                child if modules.contains(&format!("{module}::{child}")) => {
                    use_paths(&code, after, vec![child.to_owned()], &mut paths);
                    let last = paths.last_mut().expect("just pushed");
                    let mut full = own.clone();
                    full.append(last);
                    *last = full;
                }
                _ => {}
            }
        }
        let mut targets = BTreeSet::new();
        for path in paths {
            let target = match deepest_module(&path, &modules) {
                Some(m) => m,
                None => match path.first().and_then(|n| reexports.get(n)) {
                    Some(m) => m.clone(),
                    None => continue,
                },
            };
            if &target != module {
                targets.insert(target);
            }
        }
        graph.insert(module.clone(), targets);
    }
    graph
}

/// Every cycle of `graph`, one per strongly connected component with more
/// than one module, each written as a path `a → b → … → a`.
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    // Tarjan's algorithm, recursive: the crate has a few dozen modules.
    struct State<'g> {
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        components: Vec<Vec<&'g str>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.graph.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.push(w);
                if w == v {
                    break;
                }
            }
            s.components.push(component);
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        components: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    let mut out = Vec::new();
    for component in s.components.iter().filter(|c| c.len() > 1) {
        let members: BTreeSet<&str> = component.iter().copied().collect();
        // A shortest way back from the component's first module to itself.
        let start = *members.iter().next().expect("non-empty");
        let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start]);
        let mut closing = None;
        'search: while let Some(v) = queue.pop_front() {
            for w in graph.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !members.contains(w) {
                    continue;
                }
                if w == start {
                    closing = Some(v);
                    break 'search;
                }
                if !came_from.contains_key(w) {
                    came_from.insert(w, v);
                    queue.push_back(w);
                }
            }
        }
        let mut path = vec![start];
        let mut at = closing.expect("a strongly connected component has a cycle");
        while at != start {
            path.push(at);
            at = came_from[at];
        }
        path.push(start);
        let end = path.len() - 1;
        path[1..end].reverse();
        let edges: Vec<String> = members
            .iter()
            .map(|m| {
                let inside: Vec<&str> = graph[*m]
                    .iter()
                    .map(String::as_str)
                    .filter(|t| members.contains(t))
                    .collect();
                format!("{m} → {}", inside.join(", "))
            })
            .collect();
        out.push(format!(
            "{}\n    the whole loop, module → what it imports inside it:\n      {}",
            path.join(" → "),
            edges.join("\n      ")
        ));
    }
    out
}

/// The "Layers" list of `src/lib.rs`, bottom first, as module → layer
/// number. Each item is `N. Title: `module`, `module` (a note), …`, possibly
/// over several lines; the modules are the names in backticks after the
/// first colon, outside parentheses.
fn layers(lib: &str) -> BTreeMap<String, usize> {
    let mut items: Vec<(usize, String)> = Vec::new();
    let mut in_list = false;
    let mut in_item = false;
    for line in lib.lines() {
        let Some(doc) = line.strip_prefix("//!") else {
            continue;
        };
        let text = doc.trim();
        if text.starts_with("## ") {
            in_list = text == "## Layers";
            in_item = false;
            continue;
        }
        if !in_list {
            continue;
        }
        let numbered = text
            .split_once(". ")
            .and_then(|(n, rest)| Some((n.parse::<usize>().ok()?, rest)));
        if let Some((number, rest)) = numbered {
            items.push((number, rest.to_owned()));
            in_item = true;
        } else if in_item && doc.starts_with("    ") {
            let last = items.last_mut().expect("in an item");
            last.1.push(' ');
            last.1.push_str(text);
        } else {
            in_item = false;
        }
    }
    let mut out = BTreeMap::new();
    for (number, text) in items {
        let names = text.split_once(':').map_or("", |(_, names)| names);
        let mut outside = String::new();
        let mut depth = 0usize;
        for c in names.chars() {
            match c {
                '(' => depth += 1,
                ')' => depth = depth.saturating_sub(1),
                _ if depth == 0 => outside.push(c),
                _ => {}
            }
        }
        for name in outside.split('`').skip(1).step_by(2) {
            assert!(
                out.insert(name.to_owned(), number).is_none(),
                "src/lib.rs puts `{name}` in two layers"
            );
        }
    }
    out
}

/// The layer of `module`: its own entry, or its parent's.
fn layer_of(module: &str, layers: &BTreeMap<String, usize>) -> Option<usize> {
    let mut m = module;
    loop {
        if let Some(n) = layers.get(m) {
            return Some(*n);
        }
        m = m.rsplit_once("::")?.0;
    }
}

#[test]
fn no_module_imports_itself_through_others() {
    let graph = imports(&sources());
    let found = cycles(&graph);
    assert!(
        found.is_empty(),
        "doca-sim's modules import each other in a loop:\n  {}",
        found.join("\n  ")
    );
}

/// What breaks the layer order of `src/lib.rs` in `sources`.
fn layer_violations(sources: &BTreeMap<String, String>) -> Vec<String> {
    let layers = layers(&sources[""]);
    if layers.is_empty() {
        return vec!["src/lib.rs has no \"## Layers\" list of `module` names".to_owned()];
    }
    let graph = imports(sources);
    let mut wrong = Vec::new();
    for (module, targets) in &graph {
        let Some(own) = layer_of(module, &layers) else {
            wrong.push(format!("`{module}` is in no layer of src/lib.rs"));
            continue;
        };
        for target in targets {
            match layer_of(target, &layers) {
                Some(n) if n <= own => {}
                Some(n) => wrong.push(format!(
                    "`{module}` (layer {own}) imports `{target}` (layer {n}, above it)"
                )),
                None => {}
            }
        }
    }
    for name in layers.keys() {
        if !graph.contains_key(name) {
            wrong.push(format!("src/lib.rs lists `{name}`, which is no module"));
        }
    }
    wrong
}

#[test]
fn each_module_imports_only_its_layer_or_below() {
    let wrong = layer_violations(&sources());
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_reader_sees_real_imports() {
    // The parser itself: a comment, a string and a doc link are no imports;
    // a use tree, a `$crate::` path, `super::` and a child path are.
    let mut sources = BTreeMap::new();
    sources.insert(String::new(), "mod a; mod b; pub use b::Thing;".to_owned());
    sources.insert(
        "a".to_owned(),
        "//! see [`x`](crate::c::x)\nuse crate::{b::{self, y}, d};\n\
         fn f() { let _ = \"crate::e\"; $crate::f::g(); child::h(); crate::Thing; }"
            .to_owned(),
    );
    sources.insert(
        "a::child".to_owned(),
        "use super::z;\nmod tests { use super::*; }".to_owned(),
    );
    sources.insert(
        "b".to_owned(),
        "#[cfg(test)]\nmod tests { use super::*; }".to_owned(),
    );
    for m in ["c", "d", "e", "f"] {
        sources.insert(m.to_owned(), String::new());
    }
    let graph = imports(&sources);
    let of = |m: &str| graph[m].iter().cloned().collect::<Vec<_>>();
    assert_eq!(of("a"), ["a::child", "b", "d", "f"]);
    assert_eq!(of("a::child"), ["a"]);
    let found = cycles(&graph);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].starts_with("a → a::child → a"), "{found:?}");

    // The layer list: items over several lines, notes in parentheses left
    // out, a module above its layer found.
    let lib = "//! ## Layers\n//!\n//! 1. Low: `b`, `c` (not `x`),\n//!    `d`, `e`, `f`.\n\
               //! 2. High: `a`.\n//!\n//! Prose about `g`.\nmod a;";
    let parsed = layers(lib);
    assert_eq!(
        parsed
            .iter()
            .map(|(m, n)| format!("{m}{n}"))
            .collect::<Vec<_>>(),
        ["a2", "b1", "c1", "d1", "e1", "f1"]
    );
    assert_eq!(layer_of("a::child", &parsed), Some(2));
    sources.insert(String::new(), lib.to_owned());
    assert!(layer_violations(&sources).is_empty());
    sources.insert("f".to_owned(), "use crate::a::child::z;".to_owned());
    assert_eq!(
        layer_violations(&sources),
        ["`f` (layer 1) imports `a::child` (layer 2, above it)"]
    );
}
