//! The functions a set of headers declares, and their EXPERIMENTAL / STABLE / DEPRECATED
//! markers, as the C compiler for the target sees them.
//!
//! The headers are preprocessed (`cc -E`, bindgen's defines, the target's compiler) with
//! a prelude that includes `doca_compat.h` (where DOCA defines the markers) and then
//! redefines every marker as itself, so the markers survive expansion while every
//! `#if` is decided by the preprocessor (a function DOCA declares only under `_WIN32`
//! is not declared on Linux). The output is split into file-scope statements; one whose
//! first bracket group follows a name, and that is not a `typedef` or `static`,
//! declares that function, in the header the linemarkers name.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::check::compiler;
use crate::dpa_app::parse::{is_type_keyword, lex, Lexed, Token};
use crate::env::EnvReader;

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
        [
            Marker::Experimental,
            Marker::Stable,
            Marker::Deprecated,
            Marker::Unmarked,
        ]
        .into_iter()
        .find(|m| m.as_str().eq_ignore_ascii_case(text.trim()))
    }

    /// The marker a header token stands for, if it is one.
    pub fn from_token(token: &str) -> Option<Marker> {
        MARKERS.iter().find(|(t, _)| *t == token).map(|(_, m)| *m)
    }
}

impl fmt::Display for Marker {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The marker macros, current and older spellings.
const MARKERS: &[(&str, Marker)] = &[
    ("DOCA_EXPERIMENTAL", Marker::Experimental),
    ("__DOCA_EXPERIMENTAL", Marker::Experimental),
    ("DOCA_STABLE", Marker::Stable),
    ("DOCA_EXPORTED", Marker::Stable),
    ("DOCA_DEPRECATED", Marker::Deprecated),
];

/// Words before a `(` that are not a function's name, besides the type keywords
/// ([`is_type_keyword`]).
const NOT_NAMES: &[&str] = &[
    "__attribute__",
    "__attribute",
    "__declspec",
    "__asm__",
    "asm",
];

/// One function declaration found in a header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declaration {
    /// The function name.
    pub name: String,
    /// Its marker.
    pub marker: Marker,
    /// The header's file name (`doca_dpa.h`).
    pub header: String,
}

/// The declarations of `tokens` (preprocessor output with the markers kept), in order,
/// with the file name of each from `files`.
pub(crate) fn declarations_in(tokens: &[Token], files: &[PathBuf]) -> Vec<Declaration> {
    let mut out = Vec::new();
    let mut statement: Vec<&Token> = Vec::new();
    let mut depth = 0i32;
    for t in tokens {
        match t.text.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth -= 1,
            _ => {}
        }
        statement.push(t);
        let ends = depth == 0 && (t.is(";") || t.is("}"));
        if !ends {
            continue;
        }
        let words = || statement.iter().map(|t| t.text.as_str());
        let skipped = words().any(|w| matches!(w, "typedef" | "static"));
        // The name before the statement's first file-scope `(` (an attribute's skipped).
        let mut name = None;
        let (mut level, mut i) = (0i32, 0);
        while i + 1 < statement.len() {
            let (w, next) = (statement[i], statement[i + 1]);
            level += i32::from(w.is("{") || w.is("(")) - i32::from(w.is("}") || w.is(")"));
            // An attribute's group is skipped: its parentheses count up from here.
            if level == 0
                && next.is("(")
                && !NOT_NAMES.contains(&w.text.as_str())
                && !is_type_keyword(&w.text)
            {
                name = w.is_ident().then_some((i, w));
                break;
            }
            i += 1;
        }
        if let (false, Some((i, n))) = (skipped, name) {
            let marker = statement[..i]
                .iter()
                .find_map(|t| Marker::from_token(&t.text))
                .unwrap_or(Marker::Unmarked);
            out.push(Declaration {
                name: n.text.clone(),
                marker,
                header: files[n.file]
                    .file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            });
        }
        statement.clear();
    }
    out
}

/// Every function `headers` (and the DOCA headers they include) declare for the target
/// of `env`, as the compiler given `include_dirs` sees them; `work` holds the generated
/// files. A function declared twice keeps its first declaration.
pub fn declarations(
    env: &EnvReader,
    headers: &[PathBuf],
    include_dirs: &[PathBuf],
    work: &Path,
) -> Result<Vec<Declaration>, String> {
    let tool = compiler(env, include_dirs).map_err(|e| e.to_string())?;
    let mut prelude =
        String::from("#if __has_include(<doca_compat.h>)\n#include <doca_compat.h>\n#endif\n");
    for (m, _) in MARKERS {
        prelude.push_str(&format!("#undef {m}\n#define {m} {m}\n"));
    }
    for h in headers {
        prelude.push_str(&format!("#include \"{}\"\n", h.display()));
    }
    let source = work.join("doca_rs_audit.c");
    std::fs::write(&source, prelude).map_err(|e| format!("{}: {e}", source.display()))?;
    let out = tool
        .to_command()
        .arg("-E")
        .arg(&source)
        .output()
        .map_err(|e| format!("{}: {e}", tool.path().display()))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let Lexed { tokens, files, .. } = lex(&source, &String::from_utf8_lossy(&out.stdout));
    let mut decls: Vec<Declaration> = Vec::new();
    for d in declarations_in(&tokens, &files) {
        if !decls.iter().any(|e| e.name == d.name) {
            decls.push(d);
        }
    }
    Ok(decls)
}

#[cfg(test)]
mod tests;
