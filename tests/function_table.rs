//! Keeps `docs/functions.md` true: every DOCA DPA/RDMI host function this
//! build knows (the symbol audit) is either called by `doca-dpa`/`doca-comch`/`doca-rdma`/`doca-verbs`/`doca-rdmi`
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

/// Where `line` uses `name` as a whole identifier (not inside a string, such
/// as a cfg value or an error's call name): the byte offsets.
fn uses<'a>(line: &'a str, name: &'a str) -> impl Iterator<Item = usize> + 'a {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let name_len = name.len();
    line.match_indices(name).map(|(i, _)| i).filter(move |&i| {
        let before = line[..i].chars().next_back();
        let after = line[i + name_len..].chars().next();
        let quoted = line[..i].matches('"').count() % 2 == 1;
        !quoted && !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

/// Whether `line` uses `name` as a whole identifier.
fn mentions(line: &str, name: &str) -> bool {
    uses(line, name).next().is_some()
}

/// The identifier after `keyword ` on a line (`fn launch`, `impl<'a> Launcher<'a>`).
fn item_name(line: &str, keyword: &str) -> Option<String> {
    let t = line.trim_start();
    let t = t
        .strip_prefix("pub(crate) ")
        .or_else(|| t.strip_prefix("pub "))
        .unwrap_or(t);
    let t = t.strip_prefix("const ").unwrap_or(t);
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

/// The block a function is defined in.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Owner {
    /// `impl Type`.
    Type(String),
    /// `impl Trait for Type`.
    TraitImpl { tr: String, ty: String },
    /// `trait Trait` (its provided methods).
    Trait(String),
}

/// The block a top-level line opens, if it opens an `impl` or a `trait`.
fn owner(line: &str) -> Option<Owner> {
    if let Some(tr) = item_name(line, "trait ") {
        return Some(Owner::Trait(tr));
    }
    let ty = item_name(line, "impl")?;
    Some(match line.split_once(" for ") {
        Some((head, _)) => Owner::TraitImpl {
            // The trait's last path segment (`RdmiObject` of `crate::ctx::RdmiObject`).
            tr: item_name(head, "impl")
                .and_then(|first| {
                    let path = &head[head.find(&first)?..];
                    let path: String = path
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
                        .collect();
                    path.rsplit("::").next().map(str::to_owned)
                })
                .unwrap_or_default(),
            ty,
        },
        None => Owner::Type(ty),
    })
}

/// The item a line of code belongs to.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Item {
    module: String,
    owner: Option<Owner>,
    func: Option<String>,
    /// The function is declared `pub` (not `pub(crate)`).
    pub_fn: bool,
}

impl Item {
    /// `module::Type::method`, `module::function`, or the module for macro
    /// and static code.
    fn path(&self) -> String {
        match (self.owner_name(), &self.func) {
            (Some(t), Some(f)) => format!("{}::{t}::{f}", self.module),
            (None, Some(f)) => format!("{}::{f}", self.module),
            _ => self.module.clone(),
        }
    }

    fn owner_name(&self) -> Option<&str> {
        match self.owner.as_ref()? {
            Owner::Type(t) | Owner::TraitImpl { ty: t, .. } | Owner::Trait(t) => Some(t),
        }
    }

    fn krate(&self) -> &str {
        self.module.split("::").next().unwrap_or_default()
    }
}

/// Every line of the crates' code outside unit tests, with its item.
fn scan(code: &[(String, String)]) -> Vec<(Item, &str)> {
    let mut lines = Vec::new();
    for (module, text) in code {
        let mut item = Item {
            module: module.clone(),
            owner: None,
            func: None,
            pub_fn: false,
        };
        let mut in_tests = false;
        let mut kind_next = false;
        for line in text.lines() {
            // Unit tests are not callers.
            if line.starts_with("mod tests") {
                in_tests = true;
            }
            if in_tests {
                in_tests = line != "}";
                continue;
            }
            // An item starts at a top-level line that opens one (not at the
            // `) -> T {` or `where` of a long signature).
            if line.starts_with(|c: char| c.is_ascii_alphabetic()) && !line.starts_with("where") {
                item.owner = owner(line);
                item.func = None;
                item.pub_fn = false;
                kind_next = line.ends_with("__doca_object!(");
                // The same on one line (as a macro expansion writes it).
                if let Some((_, args)) = line.split_once("__doca_object!(") {
                    let args = args.trim_start();
                    let args = args.strip_prefix("pub(crate) ").unwrap_or(args);
                    item.func = args
                        .split_once(':')
                        .map(|(kind, _)| kind.trim().to_owned())
                        .filter(|k| !k.is_empty());
                }
            } else if std::mem::take(&mut kind_next) {
                // `__doca_object!(Kind: sys::raw, destroy f, stop g)` declares a kind
                // of DOCA object whose stop and destroy calls the core layer's owned
                // handle makes: its lines are named after the kind.
                let t = line.trim_start();
                let t = t.strip_prefix("pub(crate) ").unwrap_or(t);
                item.func = t.split_once(':').map(|(kind, _)| kind.trim().to_owned());
            }
            if let Some(f) = item_name(line, "fn ") {
                item.pub_fn = line.trim_start().starts_with("pub ");
                item.func = Some(f);
            }
            lines.push((item.clone(), line));
        }
    }
    lines
}

/// A token of a macro's matcher or invocation.
#[derive(Clone, Debug, PartialEq)]
enum Tok {
    /// An identifier, keyword, literal or punctuation (`::` is one).
    Text(String),
    /// `$name:fragment`.
    Var(String, String),
    /// `$( ... )` with its repetition operator (`*`, `?`, `+`).
    Group(Vec<Tok>, char),
}

/// The tokens of `text` (a matcher, or a macro's arguments), or `None` for what
/// this reader does not follow.
fn tokens(text: &str) -> Option<Vec<Tok>> {
    fn read(chars: &[char], i: &mut usize, until: Option<char>) -> Option<Vec<Tok>> {
        let mut out = Vec::new();
        while *i < chars.len() {
            let c = chars[*i];
            if Some(c) == until {
                *i += 1;
                return Some(out);
            }
            if c.is_whitespace() {
                *i += 1;
            } else if c == '$' && chars.get(*i + 1) == Some(&'(') {
                *i += 2;
                let inner = read(chars, i, Some(')'))?;
                // A separator before the operator is not followed.
                let op = *chars.get(*i)?;
                if !matches!(op, '*' | '?' | '+') {
                    return None;
                }
                *i += 1;
                out.push(Tok::Group(inner, op));
            } else if c == '$' {
                *i += 1;
                let start = *i;
                while *i < chars.len() && (chars[*i].is_alphanumeric() || chars[*i] == '_') {
                    *i += 1;
                }
                let name: String = chars[start..*i].iter().collect();
                if chars.get(*i) == Some(&':') && chars.get(*i + 1) != Some(&':') {
                    *i += 1;
                    let start = *i;
                    while *i < chars.len() && chars[*i].is_alphanumeric() {
                        *i += 1;
                    }
                    out.push(Tok::Var(name, chars[start..*i].iter().collect()));
                } else {
                    out.push(Tok::Text(format!("${name}")));
                }
            } else if c == '"' {
                let start = *i;
                *i += 1;
                while *i < chars.len() && chars[*i] != '"' {
                    *i += if chars[*i] == '\\' { 2 } else { 1 };
                }
                *i += 1;
                out.push(Tok::Text(
                    chars[start..(*i).min(chars.len())].iter().collect(),
                ));
            } else if c.is_alphanumeric() || c == '_' {
                let start = *i;
                while *i < chars.len() && (chars[*i].is_alphanumeric() || chars[*i] == '_') {
                    *i += 1;
                }
                out.push(Tok::Text(chars[start..*i].iter().collect()));
            } else if c == ':' && chars.get(*i + 1) == Some(&':') {
                *i += 2;
                out.push(Tok::Text("::".to_owned()));
            } else {
                *i += 1;
                out.push(Tok::Text(c.to_string()));
            }
        }
        until.is_none().then_some(out)
    }
    let chars: Vec<char> = text.chars().collect();
    read(&chars, &mut 0, None)
}

/// Matches the invocation tokens `inv` from `*at` against `matcher`, recording
/// what each metavariable took (as text) in `caps`.
fn match_tokens(
    matcher: &[Tok],
    inv: &[Tok],
    at: &mut usize,
    caps: &mut BTreeMap<String, String>,
) -> bool {
    let text = |t: &Tok| match t {
        Tok::Text(s) => s.clone(),
        _ => String::new(),
    };
    for (k, m) in matcher.iter().enumerate() {
        match m {
            Tok::Text(want) => {
                if inv.get(*at).map(text).as_deref() != Some(want.as_str()) {
                    return false;
                }
                *at += 1;
            }
            Tok::Var(name, frag) if frag == "path" => {
                let mut path = String::new();
                loop {
                    let Some(Tok::Text(seg)) = inv.get(*at) else {
                        return false;
                    };
                    path.push_str(seg);
                    *at += 1;
                    if inv.get(*at).map(text).as_deref() != Some("::") {
                        break;
                    }
                    path.push_str("::");
                    *at += 1;
                }
                caps.insert(name.clone(), path);
            }
            Tok::Var(name, frag) if frag == "ty" || frag == "expr" => {
                // Up to the next literal token of the matcher, outside brackets.
                let stop = matcher[k + 1..].iter().find_map(|t| match t {
                    Tok::Text(s) => Some(s.clone()),
                    _ => None,
                });
                let (start, mut depth) = (*at, 0i32);
                while let Some(t) = inv.get(*at) {
                    let t = text(t);
                    if depth == 0 && Some(&t) == stop.as_ref() {
                        break;
                    }
                    depth += i32::from(matches!(t.as_str(), "(" | "[" | "<"))
                        - i32::from(matches!(t.as_str(), ")" | "]" | ">"));
                    *at += 1;
                }
                let taken: Vec<String> = inv[start..*at].iter().map(text).collect();
                caps.insert(name.clone(), taken.join(""));
            }
            Tok::Var(name, _) => {
                let Some(Tok::Text(t)) = inv.get(*at) else {
                    return false;
                };
                caps.insert(name.clone(), t.clone());
                *at += 1;
            }
            Tok::Group(inner, op) => {
                // `$(#[$m:meta])*`: attributes, skipped.
                if inner.first() == Some(&Tok::Text("#".to_owned())) {
                    while inv.get(*at).map(text).as_deref() == Some("#") {
                        let mut depth = 0;
                        *at += 1;
                        while let Some(t) = inv.get(*at) {
                            *at += 1;
                            match text(t).as_str() {
                                "[" => depth += 1,
                                "]" if depth == 1 => break,
                                "]" => depth -= 1,
                                _ => {}
                            }
                        }
                    }
                    continue;
                }
                loop {
                    let (back, saved) = (*at, caps.clone());
                    if !match_tokens(inner, inv, at, caps) || *at == back {
                        *at = back;
                        *caps = saved;
                        break;
                    }
                    if *op == '?' {
                        break;
                    }
                }
            }
        }
    }
    true
}

/// A `macro_rules!` of the crates with one arm that reads as text: its matcher
/// and its body.
struct Template {
    matcher: Vec<Tok>,
    body: Vec<String>,
}

/// The one-arm macros of `text` that [`expand_macros`] can expand, by name, and
/// the text without their definitions (templates, not code).
fn templates(text: &str) -> (BTreeMap<String, Template>, String) {
    let mut found = BTreeMap::new();
    let mut rest = String::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let Some(name) = lines[i]
            .strip_prefix("macro_rules! ")
            .and_then(|l| l.strip_suffix(" {"))
        else {
            rest.push_str(lines[i]);
            rest.push('\n');
            i += 1;
            continue;
        };
        let end = (i..lines.len())
            .find(|&j| lines[j] == "}")
            .unwrap_or(lines.len() - 1);
        let def = lines[i + 1..end].join("\n");
        let template = def.split_once("=> {").and_then(|(head, body)| {
            let matcher = head.trim().strip_prefix('(')?.strip_suffix(')')?;
            let body = body.trim_end().strip_suffix("};")?;
            // One arm only, and no repetition in the body but attributes.
            let body = body.replace("$(#[$m])*", "").replace("$crate", "crate");
            // Documentation attributes are not code (their strings span lines).
            let mut in_doc = false;
            let body: String = body
                .lines()
                .filter(|l| {
                    in_doc |= l.trim_start().starts_with("#[doc");
                    let keep = !in_doc;
                    in_doc &= !l.trim_end().ends_with(")]");
                    keep
                })
                .map(|l| format!("{l}\n"))
                .collect();
            (!body.contains("$(") && !body.contains("=> {")).then_some(())?;
            Some(Template {
                matcher: tokens(matcher)?,
                body: body.lines().map(str::to_owned).collect(),
            })
        });
        match template {
            Some(t) => {
                found.insert(name.to_owned(), t);
            }
            None => {
                for line in &lines[i..=end] {
                    rest.push_str(line);
                    rest.push('\n');
                }
            }
        }
        i = end + 1;
    }
    (found, rest)
}

/// The crates' code with their one-arm macros expanded where they are invoked
/// (`name!(...)` or `path::name!(...)`), so that the methods and trait impls they
/// write, and the DOCA functions their arguments name, are seen where they are:
/// the body's lines, with each `$metavariable` replaced by what it took, indented
/// as the invocation. An invocation this reader cannot match stays as it is.
fn expand_macros(code: Vec<(String, String)>) -> Vec<(String, String)> {
    let mut all = BTreeMap::new();
    let mut stripped = Vec::new();
    for (module, text) in code {
        let (found, rest) = templates(&text);
        all.extend(found);
        stripped.push((module, rest));
    }
    let var = |line: &str, caps: &BTreeMap<String, String>| {
        let mut out = String::new();
        let mut chars = line.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if c != '$' {
                out.push(c);
                continue;
            }
            let name: String = line[i + 1..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            match caps.get(&name) {
                Some(v) => {
                    out.push_str(v);
                    for _ in 0..name.chars().count() {
                        chars.next();
                    }
                }
                None => out.push(c),
            }
        }
        out
    };
    stripped
        .into_iter()
        .map(|(module, text)| {
            let lines: Vec<&str> = text.lines().collect();
            let mut out = String::new();
            let mut i = 0;
            while i < lines.len() {
                let line = lines[i];
                let trimmed = line.trim_start();
                let invoked = trimmed.split_once("!(").and_then(|(path, _)| {
                    let name = path.rsplit("::").next()?;
                    let plain = path
                        .chars()
                        .all(|c| c.is_alphanumeric() || c == '_' || c == ':');
                    (plain && all.contains_key(name)).then_some(name)
                });
                let Some(name) = invoked else {
                    out.push_str(line);
                    out.push('\n');
                    i += 1;
                    continue;
                };
                // The invocation, up to its closing parenthesis.
                let mut call = String::new();
                let mut depth = 0i32;
                let mut j = i;
                'lines: while j < lines.len() {
                    for c in lines[j].chars() {
                        call.push(c);
                        depth += i32::from(c == '(') - i32::from(c == ')');
                        if depth == 0 && c == ')' && call.contains("!(") {
                            break 'lines;
                        }
                    }
                    call.push('\n');
                    j += 1;
                }
                let template = &all[name];
                let args = call
                    .split_once("!(")
                    .and_then(|(_, a)| a.trim_end().strip_suffix(')'))
                    .and_then(tokens);
                let mut caps = BTreeMap::new();
                let mut at = 0;
                let matched = args.as_ref().is_some_and(|a| {
                    match_tokens(&template.matcher, a, &mut at, &mut caps) && at == a.len()
                });
                if !matched {
                    for line in &lines[i..=j.min(lines.len() - 1)] {
                        out.push_str(line);
                        out.push('\n');
                    }
                } else {
                    let indent = &line[..line.len() - trimmed.len()];
                    let strip = template
                        .body
                        .iter()
                        .filter(|l| !l.trim().is_empty())
                        .map(|l| l.len() - l.trim_start().len())
                        .min()
                        .unwrap_or(0);
                    for body in &template.body {
                        let body = body.get(strip..).unwrap_or(body.trim_start());
                        out.push_str(indent);
                        out.push_str(&var(body, &caps));
                        out.push('\n');
                    }
                }
                i = j + 1;
            }
            (module, out)
        })
        .collect()
}

/// The public API of the crates, as their roots declare it: the names each
/// re-exports (`pub use module::{A, B}`), its public modules (`pub mod m`),
/// and the traits it defines (a trait's impl is public only if it is).
#[derive(Default)]
struct Api {
    names: BTreeSet<String>,
    modules: BTreeSet<String>,
    traits: BTreeSet<String>,
}

impl Api {
    fn of(code: &[(String, String)], lines: &[(Item, &str)]) -> BTreeMap<String, Api> {
        let mut apis: BTreeMap<String, Api> = BTreeMap::new();
        for (module, text) in code.iter().filter(|(m, _)| !m.contains("::")) {
            let api = apis.entry(module.clone()).or_default();
            let mut statement = None::<String>;
            // `#[doc(hidden)]` on the item the attributes belong to.
            let mut hidden = false;
            for line in text.lines() {
                if let Some(m) = line.strip_prefix("pub mod ") {
                    let m: String = m.chars().take_while(|c| *c != ' ' && *c != ';').collect();
                    // A hidden module (the core layer) is not an API: its callers are.
                    if !hidden {
                        api.modules.insert(format!("{module}::{m}"));
                    }
                }
                if line.starts_with("#[doc(hidden)]") {
                    hidden = true;
                } else if !line.starts_with("#[") {
                    hidden = false;
                }
                if line.starts_with("pub use ") {
                    statement = Some(String::new());
                }
                let Some(s) = statement.as_mut() else {
                    continue;
                };
                s.push_str(line);
                if let Some(s) = s.strip_suffix(';') {
                    // The last name of each path, or its alias.
                    let list = s.split_once('{').map_or(s, |(_, l)| l);
                    for path in list.split(',') {
                        let last = path.trim_end_matches('}').split_whitespace().next_back();
                        if let Some(name) = last.and_then(|p| p.rsplit("::").next()) {
                            api.names.insert(name.to_owned());
                        }
                    }
                    statement = None;
                }
            }
        }
        for (item, _) in lines {
            if let Some(Owner::Trait(t)) = &item.owner {
                apis.entry(item.krate().to_owned())
                    .or_default()
                    .traits
                    .insert(t.clone());
            }
        }
        apis
    }

    /// Whether a user of the crate can call `item`: a `pub fn` of the crate
    /// root, of a public module, or re-exported; a `pub` method of a type
    /// reachable that way; a method of a reachable trait, or of its impl for
    /// a reachable type.
    fn reaches(apis: &BTreeMap<String, Api>, item: &Item) -> bool {
        let (Some(api), Some(func)) = (apis.get(item.krate()), &item.func) else {
            return false;
        };
        let reachable = |name: &str| {
            item.module == item.krate()
                || api
                    .modules
                    .iter()
                    .any(|m| item.module == *m || item.module.starts_with(&format!("{m}::")))
                || api.names.contains(name)
        };
        match &item.owner {
            None => item.pub_fn && reachable(func),
            Some(Owner::Type(ty)) => item.pub_fn && reachable(ty),
            Some(Owner::Trait(tr)) => reachable(tr),
            Some(Owner::TraitImpl { tr, ty }) => {
                reachable(ty) && (!api.traits.contains(tr) || reachable(tr))
            }
        }
    }
}

/// Whether `text` ends with `word` as a whole identifier path segment.
fn ends_with_word(text: &str, word: &str) -> bool {
    text.strip_suffix(word).is_some_and(|rest| {
        !rest
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// The last name of the value a method is called on (`before` ends with its
/// `.`), and whether it was indexed: `ctx` for `self.inner.ctx()?.`, `event`
/// for `self.event.`, `events` (indexed) for `self.events[i].`.
fn receiver(before: &str) -> (&str, bool) {
    let mut rest = before
        .strip_suffix('.')
        .unwrap_or(before)
        .trim_end_matches('?');
    let indexed = rest.ends_with(']');
    if let Some(close) = rest.chars().next_back().filter(|c| *c == ')' || *c == ']') {
        let open = if close == ')' { '(' } else { '[' };
        let mut depth = 0;
        for (i, c) in rest.char_indices().rev() {
            depth += i32::from(c == close) - i32::from(c == open);
            if depth == 0 {
                rest = &rest[..i];
                break;
            }
        }
    }
    let start = rest
        .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    (&rest[start..], indexed)
}

/// `RawCqAttr` as `raw_cq_attr`.
fn snake(ty: &str) -> String {
    let mut snake = String::new();
    for (i, c) in ty.char_indices() {
        if c.is_ascii_uppercase() && i > 0 {
            snake.push('_');
        }
        snake.push(c.to_ascii_lowercase());
    }
    snake
}

/// A function whose callers are sought, with what tells its calls from
/// those of namesakes.
struct Callee<'a> {
    item: &'a Item,
    /// Another function of the crate has the same name.
    shared: bool,
    /// The other types that define a method of that name.
    rivals: Vec<&'a str>,
    /// The modules whose code names the callee's type.
    knowing: BTreeSet<&'a str>,
    /// The functions that return a value of the callee's type (`lock` for a
    /// `Locked`): a method called on their result is called on that type.
    returners: BTreeSet<String>,
    /// The aliases of the callee's type (`ConnInner` for `Object<RawConnection>`).
    aliases: Vec<String>,
}

impl Callee<'_> {
    /// Whether a value called `value` is by its name one of the callee's
    /// type: `ctx` a `Ctx`, `events[i]` an `Event`; `attr` a `RawCqAttr` and
    /// `inner` a `DpaInner` too, unless a rival's name ends the same way.
    fn named_after(&self, (value, indexed): (&str, bool)) -> bool {
        let value = if indexed {
            value.strip_suffix('s').unwrap_or(value)
        } else {
            value
        };
        let ends = |ty: &str| snake(ty).ends_with(&format!("_{value}"));
        let ty = self.item.owner_name().unwrap_or_default();
        !value.is_empty()
            && (value == snake(ty)
                || ends(ty) && !self.rivals.iter().any(|r| ends(r))
                || self.returners.contains(value)
                || self.aliases.iter().any(|a| value == snake(a) || ends(a)))
    }

    /// Whether `line`, in `at`, calls (or names) this function.
    ///
    /// A method counts where it is named through its type (`Type::f`, or
    /// `Self::f` / `self.f(` in the type's own impl), or called (`.f(`) on a
    /// value named after its type, or on any value when no other function
    /// of the crate has its name and the calling module names its type (not
    /// a method of a std type that happens to share the name). A free
    /// function counts where it is named through its module (`module::f`)
    /// or called bare (`f(`): anywhere for a name of its own, in its own
    /// module for a shared one. A macro's `$metavariable(` is never a call.
    fn called_by(&self, line: &str, at: &Item) -> bool {
        let callee = self.item;
        let Some(f) = &callee.func else {
            return false;
        };
        let on_value = |before: &str, own_impl: bool| {
            if ends_with_word(before, "self.") {
                own_impl
            } else {
                self.named_after(receiver(before))
                    || !self.shared && self.knowing.contains(at.module.as_str())
            }
        };
        uses(line, f).any(|i| {
            let (before, after) = (&line[..i], &line[i + f.len()..]);
            let called = after.starts_with('(') || after.starts_with("::<");
            if before.ends_with('$') || !called && !before.ends_with("::") {
                return false;
            }
            match callee.owner_name() {
                Some(ty) => {
                    let own_impl = at.module == callee.module && at.owner_name() == Some(ty)
                        || at
                            .owner_name()
                            .is_some_and(|t| self.aliases.iter().any(|a| a == t));
                    ends_with_word(before, &format!("{ty}::"))
                        || own_impl && ends_with_word(before, "Self::")
                        || through_type_parameter(before, callee)
                        || called && before.ends_with('.') && on_value(before, own_impl)
                }
                None => {
                    let module = callee.module.rsplit("::").next().unwrap_or_default();
                    ends_with_word(before, &format!("{module}::"))
                        || called
                            && !before.ends_with('.')
                            && !before.ends_with("::")
                            && (!self.shared || at.module == callee.module)
                }
            }
        })
    }
}

/// Whether the code before a call, `before`, names the callee through a type
/// parameter (`R::create(` in a function generic over `R: Trait`): then it calls
/// the method of every impl of a trait, the callee's among them.
fn through_type_parameter(before: &str, callee: &Item) -> bool {
    let Some(Owner::TraitImpl { .. }) = &callee.owner else {
        return false;
    };
    let Some(path) = before.strip_suffix("::") else {
        return false;
    };
    let mut last = path.chars().rev();
    last.next().is_some_and(|c| c.is_ascii_uppercase())
        && !last
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether `item` is a method of an impl of a crate-private trait.
fn private_impl(apis: &BTreeMap<String, Api>, item: &Item) -> bool {
    match &item.owner {
        Some(Owner::TraitImpl { tr, .. }) => apis
            .get(item.krate())
            .is_some_and(|api| api.traits.contains(tr) && !api.names.contains(tr)),
        _ => false,
    }
}

/// The crates' code as a call graph, walked from each DOCA function up to
/// the public items (see [`Api::reaches`]) that reach it.
struct Calls<'a> {
    lines: &'a [(Item, &'a str)],
    apis: BTreeMap<String, Api>,
    /// The items whose code calls an item (filled as items are asked about).
    callers: BTreeMap<&'a Item, BTreeSet<&'a Item>>,
}

impl<'a> Calls<'a> {
    fn new(code: &[(String, String)], lines: &'a [(Item, &'a str)]) -> Calls<'a> {
        Calls {
            lines,
            apis: Api::of(code, lines),
            callers: BTreeMap::new(),
        }
    }

    /// The items whose code calls the function of `item` (none for module
    /// code, which is not called by name).
    fn callers_of(&mut self, item: &'a Item) -> &BTreeSet<&'a Item> {
        let lines = self.lines;
        self.callers.entry(item).or_insert_with(|| {
            let namesakes: BTreeSet<&Item> = lines
                .iter()
                .map(|(i, _)| i)
                .filter(|i| i.func.is_some() && i.krate() == item.krate() && i.func == item.func)
                .filter(|i| i.path() != item.path())
                .collect();
            let knowing = match item.owner_name() {
                Some(ty) if namesakes.is_empty() => lines
                    .iter()
                    .filter(|(_, line)| mentions(line, ty))
                    .map(|(i, _)| i.module.as_str())
                    .collect(),
                _ => BTreeSet::new(),
            };
            let returners = match item.owner_name() {
                Some(ty) => lines
                    .iter()
                    .filter(|(i, line)| {
                        i.krate() == item.krate()
                            && item_name(line, "fn ").is_some()
                            && line
                                .split_once("-> ")
                                .is_some_and(|(_, ret)| item_name(ret, "").as_deref() == Some(ty))
                    })
                    .filter_map(|(_, line)| item_name(line, "fn "))
                    .collect(),
                None => BTreeSet::new(),
            };
            let aliases = match item.owner_name() {
                Some(ty) => lines
                    .iter()
                    .filter_map(|(_, line)| {
                        let (alias, of) = line.split_once(" = ")?;
                        let alias = item_name(alias, "type ")?;
                        (item_name(of, "").as_deref() == Some(ty)).then_some(alias)
                    })
                    .collect(),
                None => Vec::new(),
            };
            let callee = Callee {
                item,
                shared: !namesakes.is_empty(),
                rivals: namesakes.iter().filter_map(|i| i.owner_name()).collect(),
                knowing,
                returners,
                aliases,
            };
            // The core layer (`doca_dpa::core`) is called from doca-rdmi too.
            let core = item.module.starts_with("doca_dpa::core");
            lines
                .iter()
                .filter(|(at, line)| {
                    (at.krate() == item.krate() || core) && at != item && callee.called_by(line, at)
                })
                .map(|(at, _)| at)
                .collect()
        })
    }

    /// The items to name as the callers of the DOCA function `name`: every
    /// public item that uses it, directly or through private functions of
    /// its crate only; when there is none, the items that use it directly
    /// (private ones, and the module, for macro and static code).
    ///
    /// A method of a crate-private trait's impl is called through a type parameter
    /// (`R::create(` in code generic over `R: RdmiObject`), which the walk cannot
    /// resolve: the public items it names for it are those of the impl's own
    /// module, where the type is chosen.
    fn naming(&mut self, name: &str) -> Vec<String> {
        let direct: BTreeSet<&'a Item> = self
            .lines
            .iter()
            .filter(|(_, l)| mentions(l, name))
            .map(|(item, _)| item)
            .collect();
        let mut public = BTreeSet::new();
        let mut seen: BTreeSet<(&'a Item, Option<&'a str>)> = BTreeSet::new();
        let mut pending: Vec<(&'a Item, Option<&'a str>)> = Vec::new();
        for item in &direct {
            seen.insert((*item, None));
            pending.push((*item, None));
        }
        while let Some((item, within)) = pending.pop() {
            let within = within.or(private_impl(&self.apis, item).then_some(item.module.as_str()));
            if Api::reaches(&self.apis, item) {
                if within.is_none_or(|m| m == item.module) {
                    public.insert(item.path());
                }
                continue;
            }
            let up: Vec<&'a Item> = self.callers_of(item).iter().copied().collect();
            pending.extend(
                up.into_iter()
                    .map(|i| (i, within))
                    .filter(|e| seen.insert(*e)),
            );
        }
        if public.is_empty() {
            public = direct.iter().map(|i| i.path()).collect();
        }
        public.into_iter().collect()
    }
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
    for s in doca::verbs::build_info::SYMBOLS {
        symbols.entry(s.name).or_insert((s.header, s.marker));
    }
    for s in doca::rdmi::build_info::SYMBOLS {
        symbols.entry(s.name).or_insert((s.header, s.marker));
    }
    for s in doca::rdma::build_info::SYMBOLS {
        symbols.entry(s.name).or_insert((s.header, s.marker));
    }
    for s in doca::comch::build_info::SYMBOLS {
        symbols.entry(s.name).or_insert((s.header, s.marker));
    }
    let mut code = sources(&root().join("doca-dpa/src"), "doca_dpa");
    code.extend(sources(&root().join("doca-verbs/src"), "doca_verbs"));
    code.extend(sources(&root().join("doca-rdmi/src"), "doca_rdmi"));
    code.extend(sources(&root().join("doca-rdma/src"), "doca_rdma"));
    code.extend(sources(&root().join("doca-comch/src"), "doca_comch"));
    let code = expand_macros(code);
    let lines = scan(&code);
    let mut calls = Calls::new(&code, &lines);
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
         `doca::sys`, `doca::comch::sys`, `doca::rdma::sys` and `doca::rdmi::sys`; `docs/unwrapped.tsv` says\n\
         why each is.\n\
         Callers are the public items (callable by users of the crate) that use a\n\
         function, directly or through private code; its private callers are named\n\
         only when no public item reaches them. A `Raw*` kind (`doca_rdmi::verbs::RawPd`)\n\
         is a DOCA object held by the core layer's owned handle (`doca_dpa::core::Owned`),\n\
         which makes its stop and destroy calls when its owner drops or is destroyed.\n\n\
         | function | header | status | called by / why raw |\n|---|---|---|---|\n",
    );
    let mut unexplained = Vec::new();
    let mut stale = BTreeSet::new();
    // The variadic calls are made by the C launchers doca-build-support generates
    // for each kernel and RPC (host_decls.rs writes them; safe code calls those).
    let launchers =
        std::fs::read_to_string(root().join("build-support/src/dpa_app/host_decls.rs")).unwrap();
    for (name, (header, marker)) in &symbols {
        let mut callers = calls.naming(name);
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

/// The caller rules on a small crate: `lib.rs` re-exports `Engine`, whose
/// public `progress` reaches the DOCA call through a private method.
fn sample(engine_code: &str) -> Vec<String> {
    let code = vec![
        (
            "k".to_owned(),
            "mod engine;\npub use engine::Engine;\n".to_owned(),
        ),
        ("k::engine".to_owned(), engine_code.to_owned()),
    ];
    let lines = scan(&code);
    Calls::new(&code, &lines).naming("doca_pe_progress")
}

#[test]
fn a_public_caller_is_named_before_the_private_code_it_reaches() {
    let code = "pub struct Engine;\n\
                impl Engine {\n    \
                    pub fn progress(&self) -> bool {\n        self.quietly()\n    }\n\n    \
                    fn quietly(&self) -> bool {\n        doca_pe_progress()\n    }\n\
                }\n";
    assert_eq!(sample(code), ["k::engine::Engine::progress"]);
}

#[test]
fn private_callers_are_named_when_no_public_item_reaches_them() {
    let code = "pub struct Engine;\n\
                impl Engine {\n    \
                    pub(crate) fn quietly(&self) -> bool {\n        doca_pe_progress()\n    }\n\
                }\n";
    assert_eq!(sample(code), ["k::engine::Engine::quietly"]);
}

#[test]
fn a_namesake_method_of_another_value_is_not_a_call() {
    // `Inner::get` shares its name with `Engine::get`; the public method calls
    // `get` on a map, not on an `Inner`.
    let code = "pub struct Engine;\n\
                struct Inner;\n\
                impl Engine {\n    \
                    pub fn get(&self) -> u8 {\n        self.map.get(&1)\n    }\n\
                }\n\
                impl Inner {\n    \
                    fn get(&self) -> bool {\n        doca_pe_progress()\n    }\n\
                }\n";
    assert_eq!(sample(code), ["k::engine::Inner::get"]);
}

/// The caller rules on a crate of several modules; `name` is the DOCA function.
fn sample_modules(modules: &[(&str, &str)], name: &str) -> Vec<String> {
    let code: Vec<(String, String)> = modules
        .iter()
        .map(|(m, c)| ((*m).to_owned(), (*c).to_owned()))
        .collect();
    let code = expand_macros(code);
    let lines = scan(&code);
    Calls::new(&code, &lines).naming(name)
}

#[test]
fn a_method_called_on_what_a_function_returns_is_called_on_its_type() {
    // `self.lock().look()`: `lock` returns a `Locked`, so the public `wait` reaches
    // `Locked::look` (not `Other::look`, whose name it shares).
    let launch = "pub struct Launcher;\n\
                  struct Locked;\n\
                  impl Launcher {\n    \
                      fn lock(&self) -> Locked {\n        Locked\n    }\n\n    \
                      pub fn wait(&self) -> bool {\n        self.lock().look()\n    }\n\
                  }\n\
                  impl Locked {\n    \
                      fn look(&self) -> bool {\n        doca_sync_event_get()\n    }\n\
                  }\n\
                  struct Other;\n\
                  impl Other {\n    \
                      fn look(&self) -> bool {\n        false\n    }\n\
                  }\n";
    let root = "mod launch;\npub use launch::Launcher;\n";
    assert_eq!(
        sample_modules(&[("k", root), ("k::launch", launch)], "doca_sync_event_get"),
        ["k::launch::Launcher::wait"]
    );
}

#[test]
fn a_private_trait_impl_reached_through_a_type_parameter_names_its_own_module() {
    // `Object<R>::start` calls `R::create`; both builders call `Object::start`, but
    // only the connection's module chooses `RawConnection`.
    let root = "mod ctx;\nmod connection;\nmod poster;\n\
                pub use connection::ConnectionBuilder;\npub use poster::PosterBuilder;\n";
    let ctx = "pub(crate) trait Kind {\n    fn create();\n}\n\
               pub(crate) struct Object;\n\
               impl Object {\n    \
                   pub(crate) fn start<R: Kind>() {\n        R::create();\n    }\n\
               }\n";
    let connection = "pub struct ConnectionBuilder;\n\
                      impl ConnectionBuilder {\n    \
                          pub fn start(self) {\n        Object::start::<RawConnection>();\n    }\n\
                      }\n\
                      impl Kind for RawConnection {\n    \
                          fn create() {\n        doca_rdmi_connection_create();\n    }\n\
                      }\n";
    let poster = "pub struct PosterBuilder;\n\
                  impl PosterBuilder {\n    \
                      pub fn start(self) {\n        Object::start::<RawPoster>();\n    }\n\
                  }\n";
    let modules = [
        ("k", root),
        ("k::connection", connection),
        ("k::ctx", ctx),
        ("k::poster", poster),
    ];
    assert_eq!(
        sample_modules(&modules, "doca_rdmi_connection_create"),
        ["k::connection::ConnectionBuilder::start"]
    );
}

#[test]
fn methods_a_macro_writes_are_the_methods_of_the_type_it_is_invoked_for() {
    // `facade!` writes `state` into `impl Poster` and `kind!` writes a trait impl
    // whose call names the DOCA function given as an argument: the public caller
    // is `Poster::state`, and the kind's call is found where the kind is declared.
    let root = "mod ctx;\nmod poster;\npub use poster::Poster;\n";
    let ctx = "macro_rules! facade {\n    \
                   ($what:literal) => {\n        \
                       #[doc = concat!(\n            \"the \", $what, \" state\"\n        )]\n        \
                       pub fn state(&self) -> u8 {\n            \
                           self.inner.query()\n        }\n    \
                   };\n\
               }\n\
               macro_rules! kind {\n    \
                   ($kind:ident, query $query:ident $(,)?) => {\n        \
                       impl Query for $kind {\n            \
                           fn query() -> u8 {\n                \
                               sys::$query()\n            }\n        }\n    \
                   };\n\
               }\n\
               pub(crate) trait Query {\n    fn query() -> u8;\n}\n\
               pub(crate) struct Object;\n\
               impl Object {\n    \
                   pub(crate) fn query<R: Query>(&self) -> u8 {\n        R::query()\n    }\n\
               }\n";
    let poster = "pub struct Poster {\n    inner: PosterInner,\n}\n\
                  type PosterInner = Object;\n\
                  crate::ctx::kind!(RawPoster, query doca_ctx_get_state,);\n\
                  impl Poster {\n    \
                      crate::ctx::facade!(\n        \"poster\"\n    );\n\
                  }\n";
    let modules = [("k", root), ("k::ctx", ctx), ("k::poster", poster)];
    assert_eq!(
        sample_modules(&modules, "doca_ctx_get_state"),
        ["k::poster::Poster::state"]
    );
}
