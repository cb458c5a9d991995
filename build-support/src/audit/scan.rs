//! Finding function declarations and their EXPERIMENTAL / STABLE / DEPRECATED markers in
//! the text of a C header.
//!
//! DOCA headers put a marker macro before the return type of every exported function,
//! usually on its own line:
//!
//! ```c
//! DOCA_EXPERIMENTAL
//! doca_error_t doca_dpa_create(struct doca_dev *dev, struct doca_dpa **dpa);
//! ```
//!
//! The scan works on the text, without a C preprocessor: comments and preprocessor lines
//! are blanked out first, then top-level statements are split at `;` (struct, enum and
//! union bodies and `extern "C"` blocks are handled), and every statement that declares a
//! function yields a [`Declaration`]. `static` functions (inline helpers such as
//! `doca_version()`) and typedefs are not declarations of exported symbols and are skipped.

use std::fmt;

/// The marker found before a function declaration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Marker {
    /// `DOCA_EXPERIMENTAL` (or the older `__DOCA_EXPERIMENTAL`).
    Experimental,
    /// `DOCA_STABLE` (or the older `DOCA_EXPORTED`).
    Stable,
    /// `DOCA_DEPRECATED`.
    Deprecated,
    /// No marker (or, in an audit row, a symbol that no scanned header declares).
    Unmarked,
}

impl Marker {
    /// The upper-case name used in audit files and generated tables.
    pub fn as_str(self) -> &'static str {
        match self {
            Marker::Experimental => "EXPERIMENTAL",
            Marker::Stable => "STABLE",
            Marker::Deprecated => "DEPRECATED",
            Marker::Unmarked => "UNMARKED",
        }
    }

    /// The inverse of [`Marker::as_str`] (case-insensitive).
    pub fn parse(text: &str) -> Option<Marker> {
        match text.trim().to_ascii_uppercase().as_str() {
            "EXPERIMENTAL" => Some(Marker::Experimental),
            "STABLE" => Some(Marker::Stable),
            "DEPRECATED" => Some(Marker::Deprecated),
            "UNMARKED" => Some(Marker::Unmarked),
            _ => None,
        }
    }

    /// The marker a header token stands for, if it is one.
    pub fn from_token(token: &str) -> Option<Marker> {
        match token {
            "DOCA_EXPERIMENTAL" | "__DOCA_EXPERIMENTAL" => Some(Marker::Experimental),
            "DOCA_STABLE" | "DOCA_EXPORTED" => Some(Marker::Stable),
            "DOCA_DEPRECATED" => Some(Marker::Deprecated),
            _ => None,
        }
    }
}

impl fmt::Display for Marker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One function declaration found in a header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declaration {
    /// The function name.
    pub name: String,
    /// Its marker.
    pub marker: Marker,
    /// The parameter list as written, without the outer parentheses, whitespace collapsed.
    pub params: String,
    /// 1-based line of the function name in the header.
    pub line: usize,
}

/// Every function declaration in `text`, in order of appearance.
pub fn scan_declarations(text: &str) -> Vec<Declaration> {
    let clean = blank_comments_and_preprocessor(text);
    split_statements(&clean)
        .into_iter()
        .filter_map(|(start, stmt)| analyse(&clean, start, &stmt))
        .collect()
}

/// Replaces comments and preprocessor lines with spaces (keeping newlines, so offsets and
/// line numbers stay valid). String and character literals are kept.
pub fn blank_comments_and_preprocessor(text: &str) -> String {
    blank(text, false)
}

/// Replaces comments with spaces, keeping preprocessor lines (and newlines).
pub(crate) fn blank_comments(text: &str) -> String {
    blank(text, true)
}

fn blank(text: &str, keep_directives: bool) -> String {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        Code,
        Line,
        Block { in_pp: bool },
        Str(char),
        Pp,
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut state = State::Code;
    let mut at_line_start = true;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match state {
            State::Code => {
                if c == '/' && next == Some('/') {
                    state = State::Line;
                    out.push_str("  ");
                    i += 2;
                    continue;
                }
                if c == '/' && next == Some('*') {
                    state = State::Block { in_pp: false };
                    out.push_str("  ");
                    i += 2;
                    continue;
                }
                if c == '#' && at_line_start && !keep_directives {
                    state = State::Pp;
                    out.push(' ');
                    i += 1;
                    continue;
                }
                if c == '"' || c == '\'' {
                    state = State::Str(c);
                }
                out.push(c);
            }
            State::Line => {
                if c == '\n' {
                    state = State::Code;
                    out.push('\n');
                } else {
                    out.push(' ');
                }
            }
            State::Block { in_pp } => {
                if c == '*' && next == Some('/') {
                    state = if in_pp { State::Pp } else { State::Code };
                    out.push_str("  ");
                    i += 2;
                    continue;
                }
                out.push(if c == '\n' { '\n' } else { ' ' });
            }
            State::Str(q) => {
                out.push(c);
                if c == '\\' {
                    if let Some(n) = next {
                        out.push(n);
                        i += 2;
                        continue;
                    }
                } else if c == q || c == '\n' {
                    state = State::Code;
                }
            }
            State::Pp => {
                if c == '\\' && next == Some('\n') {
                    out.push_str(" \n");
                    i += 2;
                    continue;
                }
                if c == '/' && next == Some('*') {
                    state = State::Block { in_pp: true };
                    out.push_str("  ");
                    i += 2;
                    continue;
                }
                if c == '/' && next == Some('/') {
                    state = State::Line;
                    out.push_str("  ");
                    i += 2;
                    continue;
                }
                if c == '\n' {
                    state = State::Code;
                    out.push('\n');
                } else {
                    out.push(' ');
                }
            }
        }
        if c == '\n' {
            at_line_start = true;
        } else if !c.is_whitespace() {
            at_line_start = false;
        }
        i += 1;
    }
    out
}

/// Splits cleaned text into top-level statements: `(byte offset of the start, text)`.
/// Bodies in braces are replaced by `{}`; function definitions are dropped.
fn split_statements(clean: &str) -> Vec<(usize, String)> {
    split(clean, false)
}

fn split(clean: &str, keep_bodies: bool) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut stmt = String::new();
    let mut start: Option<usize> = None;
    let mut extern_blocks = 0usize;
    let mut paren = 0usize;
    let mut iter = clean.char_indices().peekable();
    while let Some((i, c)) = iter.next() {
        match c {
            '(' => paren += 1,
            ')' => paren = paren.saturating_sub(1),
            _ => {}
        }
        if c == ';' && paren == 0 {
            if let Some(s) = start.take() {
                out.push((s, std::mem::take(&mut stmt)));
            }
            stmt.clear();
            continue;
        }
        if c == '{' && paren == 0 {
            let trimmed = stmt.split_whitespace().collect::<Vec<_>>();
            if trimmed == ["extern", "\"C\""] || trimmed == ["extern", "\"C++\""] {
                extern_blocks += 1;
                stmt.clear();
                start = None;
                continue;
            }
            // Skip the balanced body.
            let mut depth = 1usize;
            let mut body = String::from("{");
            for (_, b) in iter.by_ref() {
                if keep_bodies {
                    body.push(b);
                }
                match b {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
            }
            // `struct __attribute__((aligned(8))) x {` is no function definition.
            let is_function = if keep_bodies {
                strip_attributes(&stmt).contains('(')
            } else {
                stmt.contains('(')
            };
            if is_function {
                // A function definition (or something we do not model): drop it.
                stmt.clear();
                start = None;
            } else if keep_bodies {
                if start.is_none() {
                    start = Some(i);
                }
                stmt.push_str(&body);
            } else {
                stmt.push_str("{}");
            }
            continue;
        }
        if c == '}' && paren == 0 {
            extern_blocks = extern_blocks.saturating_sub(1);
            stmt.clear();
            start = None;
            continue;
        }
        if start.is_none() {
            if c.is_whitespace() {
                continue;
            }
            start = Some(i);
        }
        stmt.push(c);
    }
    out
}

const NOT_NAMES: &[&str] = &[
    "void", "char", "short", "int", "long", "float", "double", "signed", "unsigned", "const",
    "volatile", "struct", "union", "enum", "extern", "static", "inline", "return", "sizeof",
    "typedef", "if", "while", "for", "restrict", "_Bool", "bool",
];

/// Removes `__attribute__((...))`, `__declspec(...)` and `__asm__(...)` groups.
fn strip_attributes(stmt: &str) -> String {
    let mut s = stmt.to_owned();
    for kw in [
        "__attribute__",
        "__attribute",
        "__declspec",
        "__asm__",
        "__asm",
    ] {
        while let Some(pos) = find_token(&s, kw) {
            let after = pos + kw.len();
            let rest = &s[after..];
            let open = rest.len() - rest.trim_start().len();
            if !rest.trim_start().starts_with('(') {
                s.replace_range(pos..after, " ");
                continue;
            }
            let mut depth = 0usize;
            let mut end = None;
            for (j, ch) in rest[open..].char_indices() {
                match ch {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            end = Some(after + open + j + 1);
                            break;
                        }
                    }
                    _ => {}
                }
            }
            match end {
                Some(e) => s.replace_range(pos..e, " "),
                None => s.replace_range(pos..after, " "),
            }
        }
    }
    s
}

/// Byte offset of `token` as a whole identifier in `s`.
fn find_token(s: &str, token: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(rel) = s[from..].find(token) {
        let pos = from + rel;
        let before = s[..pos].chars().next_back();
        let after = s[pos + token.len()..].chars().next();
        let is_ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        if !is_ident(before) && !is_ident(after) {
            return Some(pos);
        }
        from = pos + token.len();
    }
    None
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn analyse(clean: &str, start: usize, stmt: &str) -> Option<Declaration> {
    let stmt = strip_attributes(stmt);
    let open = stmt.find('(')?;
    let prefix = &stmt[..open];
    let tokens: Vec<&str> = prefix
        .split(|c: char| c.is_whitespace() || c == '*')
        .filter(|t| !t.is_empty())
        .collect();
    let (&name, before) = tokens.split_last()?;
    if !is_identifier(name) || NOT_NAMES.contains(&name) || Marker::from_token(name).is_some() {
        return None;
    }
    if tokens.iter().any(|t| *t == "typedef" || *t == "static") {
        return None;
    }
    // `prefix` must end with the name (not `void (*fp)(...)`-like declarators).
    if !prefix.trim_end().ends_with(name) {
        return None;
    }
    let mut marker = Marker::Unmarked;
    let mut has_type = false;
    for t in before {
        match Marker::from_token(t) {
            Some(m) => {
                // Deprecated wins over experimental, which wins over stable.
                let rank = |m: Marker| match m {
                    Marker::Deprecated => 3,
                    Marker::Experimental => 2,
                    Marker::Stable => 1,
                    Marker::Unmarked => 0,
                };
                if rank(m) > rank(marker) {
                    marker = m;
                }
            }
            None if *t == "extern" || *t == "inline" => {}
            None => has_type = true,
        }
    }
    if !has_type || prefix.contains(['=', '{', '}', ',', '[']) {
        return None;
    }
    // The parameter list, balanced.
    let rest = &stmt[open..];
    let mut depth = 0usize;
    let mut close = None;
    for (j, ch) in rest.char_indices() {
        match ch {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(j);
                    break;
                }
            }
            _ => {}
        }
    }
    let close = close?;
    let inner = &rest[1..close];
    if inner.trim_start().starts_with(['*', '^']) {
        return None;
    }
    let params = inner.split_whitespace().collect::<Vec<_>>().join(" ");
    // Line number of the name: find it in the original statement region.
    let name_offset = find_name_before_paren(clean, start, name).unwrap_or(start);
    let line = clean[..name_offset].matches('\n').count() + 1;
    Some(Declaration {
        name: name.to_owned(),
        marker,
        params,
        line,
    })
}

/// Offset of `name` followed (after whitespace) by `(`, searching from `start`.
fn find_name_before_paren(clean: &str, start: usize, name: &str) -> Option<usize> {
    let mut from = start;
    while let Some(rel) = find_token(&clean[from..], name) {
        let pos = from + rel;
        if clean[pos + name.len()..].trim_start().starts_with('(') {
            return Some(pos);
        }
        from = pos + name.len();
    }
    None
}

/// Names that the bindings of this header's text would define: struct / union / enum tags
/// mentioned in its code, typedef names, declared function names and `#define`d macro
/// names. Used to blocklist, in a dependent binding set, everything a base set defines.
pub fn defined_names(text: &str) -> std::collections::BTreeSet<String> {
    let mut names = std::collections::BTreeSet::new();
    for line in text.lines() {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix('#') {
            if let Some(rest) = rest.trim_start().strip_prefix("define") {
                let rest = rest.trim_start();
                let end = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                if is_identifier(&rest[..end]) {
                    names.insert(rest[..end].to_owned());
                }
            }
        }
    }
    let clean = blank_comments_and_preprocessor(text);
    let words: Vec<&str> = clean
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    for pair in words.windows(2) {
        if matches!(pair[0], "struct" | "union" | "enum") && is_identifier(pair[1]) {
            names.insert(pair[1].to_owned());
        }
    }
    for (_, stmt) in split_statements(&clean) {
        let stmt = strip_attributes(&stmt);
        let trimmed = stmt.trim_start();
        if trimmed.starts_with("typedef") {
            let name = match (trimmed.find('('), trimmed.find('{')) {
                // `typedef ret (*name)(args)` / `typedef ret (name)(args)`: first group.
                (Some(open), None) => trimmed[open + 1..]
                    .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .find(|w| !w.is_empty()),
                _ => trimmed
                    .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .find(|w| !w.is_empty()),
            };
            if let Some(n) = name.filter(|n| is_identifier(n) && !NOT_NAMES.contains(n)) {
                names.insert(n.to_owned());
            }
        }
    }
    for d in scan_declarations(text) {
        names.insert(d.name);
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find<'a>(decls: &'a [Declaration], name: &str) -> &'a Declaration {
        decls
            .iter()
            .find(|d| d.name == name)
            .unwrap_or_else(|| panic!("{name} not found in {decls:#?}"))
    }

    #[test]
    fn fixture_header() {
        let text = include_str!("../../tests/fixtures/headers/markers.h");
        let decls = scan_declarations(text);
        let names: Vec<&str> = decls.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(
            names,
            vec![
                "doca_fx_create",
                "doca_fx_destroy",
                "doca_fx_get_name",
                "doca_fx_multi_line",
                "doca_fx_legacy",
                "doca_fx_old",
                "doca_fx_unmarked",
                "doca_fx_attr",
                "doca_fx_exported",
                "doca_fx_after_block",
                "doca_fx_cpp_ok",
            ]
        );
        assert_eq!(find(&decls, "doca_fx_create").marker, Marker::Experimental);
        assert_eq!(find(&decls, "doca_fx_destroy").marker, Marker::Stable);
        assert_eq!(find(&decls, "doca_fx_get_name").marker, Marker::Stable);
        let ml = find(&decls, "doca_fx_multi_line");
        assert_eq!(ml.marker, Marker::Experimental);
        assert_eq!(
            ml.params,
            "struct doca_fx *fx, uint32_t (*cb)(void *arg), void *user_data"
        );
        assert_eq!(find(&decls, "doca_fx_legacy").marker, Marker::Experimental);
        assert_eq!(find(&decls, "doca_fx_old").marker, Marker::Deprecated);
        assert_eq!(find(&decls, "doca_fx_unmarked").marker, Marker::Unmarked);
        assert_eq!(find(&decls, "doca_fx_attr").marker, Marker::Experimental);
        assert_eq!(find(&decls, "doca_fx_exported").marker, Marker::Stable);
        assert_eq!(
            find(&decls, "doca_fx_after_block").marker,
            Marker::Experimental
        );
        // Line numbers point at the name.
        let create_line = text
            .lines()
            .position(|l| l.contains("doca_fx_create(struct"))
            .unwrap()
            + 1;
        assert_eq!(find(&decls, "doca_fx_create").line, create_line);
    }

    #[test]
    fn comments_with_fake_markers_are_ignored() {
        let text = "/* DOCA_STABLE int doca_fake(void); */\n\
                    // DOCA_EXPERIMENTAL int doca_fake2(void);\n\
                    DOCA_STABLE /* DOCA_EXPERIMENTAL */ int doca_real(void);\n";
        let decls = scan_declarations(text);
        assert_eq!(decls.len(), 1);
        assert_eq!(decls[0].name, "doca_real");
        assert_eq!(decls[0].marker, Marker::Stable);
        assert_eq!(decls[0].line, 3);
    }

    #[test]
    fn odd_inputs_do_not_panic() {
        for text in [
            "",
            "(",
            ")",
            "}}}}",
            "{{{{",
            "/* unterminated",
            "\"unterminated",
            "#define X \\",
            "DOCA_STABLE",
            "DOCA_STABLE (",
            "int (*)(",
            ";;;;",
            "extern \"C\" { int f(void); }",
            "é ü ( ) ;",
            "int f(void",
            "typedef",
        ] {
            let _ = scan_declarations(text);
        }
        assert_eq!(
            scan_declarations("extern \"C\" { DOCA_STABLE int f(void); }")[0].name,
            "f"
        );
    }

    #[test]
    fn skips_typedefs_statics_and_macro_calls() {
        let text = "typedef void (doca_fn_t)(void);\n\
                    typedef int (*doca_cb_t)(int);\n\
                    static inline const char *doca_version(void) { return \"x\"; }\n\
                    DOCA_STATIC_ASSERT(sizeof(int) == 4);\n\
                    void (*doca_hook)(int);\n\
                    struct doca_s { int (*f)(int); };\n\
                    int doca_var;\n\
                    DOCA_EXPERIMENTAL doca_error_t doca_kept(struct doca_s *s);\n";
        let decls = scan_declarations(text);
        assert_eq!(decls.len(), 1, "{decls:#?}");
        assert_eq!(decls[0].name, "doca_kept");
    }

    #[test]
    fn marker_strings_round_trip() {
        for m in [
            Marker::Experimental,
            Marker::Stable,
            Marker::Deprecated,
            Marker::Unmarked,
        ] {
            assert_eq!(Marker::parse(m.as_str()), Some(m));
        }
        assert_eq!(Marker::parse("nonsense"), None);
    }

    #[test]
    fn defined_names_of_a_header() {
        let text = "#define DOCA_X 1\nstruct doca_dev;\n\
                    typedef enum doca_error { DOCA_SUCCESS = 0 } doca_error_t;\n\
                    typedef uint64_t doca_dpa_dev_t;\n\
                    typedef void (doca_dpa_func_t)(void);\n\
                    typedef int (*doca_cb_t)(union doca_data d);\n\
                    /* struct doca_in_comment */\n\
                    DOCA_STABLE doca_error_t doca_dev_open(struct doca_devinfo *i, struct doca_dev **d);\n";
        let names = defined_names(text);
        for n in [
            "DOCA_X",
            "doca_dev",
            "doca_error",
            "doca_error_t",
            "doca_dpa_dev_t",
            "doca_dpa_func_t",
            "doca_cb_t",
            "doca_data",
            "doca_devinfo",
            "doca_dev_open",
        ] {
            assert!(names.contains(n), "{n} missing from {names:?}");
        }
        assert!(!names.contains("doca_in_comment"));
        assert!(!names.contains("void"));
    }
}
