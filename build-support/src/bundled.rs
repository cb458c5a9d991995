//! The bundled bindings: the committed bindings of the reference headers
//! (`doca-dpa-sys/bundled/dpa.rs`, `doca-rdmi-sys/bundled/rdmi.rs`), used by a hardware
//! build without the `bindgen` feature once [`crate::check`] (the C compiler) has found
//! that the installed headers declare every item of them the way the reference headers do.
//!
//! Why that is enough: the committed files are bindgen's output over the reference
//! headers (the freshness test `bindings_fresh` pins it), and bindgen's output for an
//! item depends only on how the headers declare it. So where the installed declarations
//! equal the reference ones, bindgen over the installed headers would give the same
//! items, without a libclang on the build machine.
//!
//! [`render`] makes the file a -sys crate includes from the committed text:
//! - functions the installed headers do not declare (an older DOCA) are left out, so a
//!   call to one is a compile error, as it would be with bindgen;
//! - the `DOCA_VERSION_*` constants take the installed `doca_version.h` values;
//! - the RDMI file reaches the DPA items through `doca_dpa_sys` instead of its sibling
//!   module.
//!
//! [`committed_items`] lists what the committed text defines, so the build can insist
//! that the check covered every item (an item the scan missed is never assumed equal).

use std::collections::BTreeSet;

use crate::binding_set::BindingSet;

/// The `DOCA_VERSION_*` constants: integers taken from, and the string rebuilt from,
/// the installed `doca_version.h` (they are the one part of the bindings that names the
/// reference headers' release).
pub const VERSION_MACROS: &[&str] = &[
    "DOCA_VERSION_MAJOR",
    "DOCA_VERSION_MINOR",
    "DOCA_VERSION_PATCH",
    "DOCA_VERSION_STRING",
];

/// What kind of Rust item of the committed bindings a name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CommittedKind {
    /// `pub fn` inside the `extern "C"` block: a C function.
    Function,
    /// `pub const`: an enumerator or an object-like macro.
    Constant,
    /// `pub type`: a typedef, or the integer type of a C enum.
    Type,
    /// `pub use self::x as y`: a typedef naming another bound item.
    Alias,
    /// `pub struct` with fields: a struct whose layout is bound.
    Struct,
    /// `pub struct` with only `_unused: [u8; 0]`: an opaque struct (nothing to check).
    OpaqueStruct,
    /// `pub union`.
    Union,
    /// Any other top-level `pub` item (`pub static`, …): nothing in the reference
    /// headers stands for it, so the build refuses to use a file that has one.
    Other,
}

/// One item of the committed bindings.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CommittedItem {
    /// The kind.
    pub kind: CommittedKind,
    /// The C name (the Rust name bindgen kept); for [`CommittedKind::Other`], the line.
    pub name: String,
}

/// Why the bundled bindings could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BundledError {
    /// The committed text lacks something [`render`] must rewrite (a doca-rs bug or a
    /// stale file).
    #[error(
        "the committed bindings lack {0}; they are stale or damaged (regenerate them with \
         `cargo regen-bindings`)"
    )]
    Missing(String),
    /// The installed `doca_version.h` lacks a `DOCA_VERSION_*` macro, or its value is
    /// not what the constant needs.
    #[error("the installed doca_version.h {}", version_macro_problem(.name, .found.as_deref()))]
    VersionMacro {
        /// The macro.
        name: &'static str,
        /// What was found.
        found: Option<String>,
    },
}

fn version_macro_problem(name: &str, found: Option<&str>) -> String {
    let Some(v) = found else {
        return format!("does not define {name}");
    };
    let wanted = match name {
        "DOCA_VERSION_STRING" => "string literal",
        _ => "decimal integer",
    };
    format!("defines {name} as `{v}`, which is not a {wanted}")
}

/// The name after `prefix` up to the first character that cannot be in a C name.
fn name_after<'a>(line: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = line.strip_prefix(prefix)?;
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

/// The C function an `extern "C"` block line declares (`    pub fn NAME(`).
fn function_name(line: &str) -> Option<&str> {
    name_after(line, "    pub fn ")
}

/// Every item the committed text defines, in order. The text is bindgen's output after
/// rustfmt (one item per top-level `pub` line, functions indented once inside
/// `extern "C"`), which is what `cargo regen-bindings` writes.
pub fn committed_items(text: &str) -> Vec<CommittedItem> {
    let mut out = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let item = |kind, name: &str| CommittedItem {
            kind,
            name: name.to_owned(),
        };
        if let Some(n) = function_name(line) {
            out.push(item(CommittedKind::Function, n));
        } else if let Some(n) = name_after(line, "pub const ") {
            out.push(item(CommittedKind::Constant, n));
        } else if let Some(n) = name_after(line, "pub type ") {
            out.push(item(CommittedKind::Type, n));
        } else if let Some(rest) = line.strip_prefix("pub use self::") {
            if let Some(alias) = rest.split(" as ").nth(1) {
                out.push(item(CommittedKind::Alias, alias.trim_end_matches(';')));
            }
        } else if let Some(n) = name_after(line, "pub union ") {
            out.push(item(CommittedKind::Union, n));
        } else if let Some(n) = name_after(line, "pub struct ") {
            let opaque = lines
                .peek()
                .is_some_and(|next| next.trim() == "_unused: [u8; 0],");
            let kind = if opaque {
                CommittedKind::OpaqueStruct
            } else {
                CommittedKind::Struct
            };
            out.push(item(kind, n));
        } else if line.starts_with("pub ") {
            out.push(item(CommittedKind::Other, line.trim_end()));
        }
    }
    out
}

/// The value of `#define NAME` in the installed `doca_version.h` as the Rust constant's
/// right-hand side.
fn version_value(version_header: &str, name: &'static str) -> Result<String, BundledError> {
    let found = crate::version::define_value(version_header, name);
    let bad = |found: Option<String>| BundledError::VersionMacro { name, found };
    let v = found.clone().ok_or_else(|| bad(None))?;
    if name == "DOCA_VERSION_STRING" {
        let s = v
            .strip_prefix('"')
            .and_then(|s| s.strip_suffix('"'))
            .filter(|s| {
                s.chars()
                    .all(|c| c.is_ascii_graphic() && c != '"' && c != '\\')
            })
            .ok_or_else(|| bad(found.clone()))?;
        Ok(format!("&[u8; {}] = b\"{s}\\0\";", s.len() + 1))
    } else {
        let n: u32 = v.parse().map_err(|_| bad(found.clone()))?;
        Ok(format!("u32 = {n};"))
    }
}

/// The file a -sys crate includes on hardware without bindgen: `committed` (the set's
/// committed bindings) without the functions in `absent_functions`, with the version
/// constants of `version_header` (the installed `doca_version.h`; Dpa set only) and the
/// -sys crate's `use` lines of the items of the sets it reuses ([`BindingSet::use_lines`]). `source` names where the check read the
/// installed headers (written in the file's first comment).
pub fn render(
    set: BindingSet,
    committed: &str,
    absent_functions: &BTreeSet<String>,
    version_header: Option<&str>,
    source: &str,
) -> Result<String, BundledError> {
    let mut out = format!(
        "// The bundled bindings of doca-rs ({}), checked against the headers in {source}.\n",
        set.committed_file()
    );
    let mut rewritten: BTreeSet<&'static str> = BTreeSet::new();
    let (committed_uses, sys_uses) = (set.use_lines(false), set.use_lines(true));
    let mut uses_seen = vec![false; committed_uses.len()];
    // Attribute lines wait here until we know whether the item they belong to stays.
    let mut pending: Vec<&str> = Vec::new();
    let mut dropping = false;
    for line in committed.lines() {
        if dropping {
            dropping = !line.trim_end().ends_with(';');
            continue;
        }
        if line.starts_with("    #[") {
            pending.push(line);
            continue;
        }
        if let Some(name) = function_name(line) {
            if absent_functions.contains(name) {
                pending.clear();
                dropping = !line.trim_end().ends_with(';');
                continue;
            }
        }
        for attr in pending.drain(..) {
            out.push_str(attr);
            out.push('\n');
        }
        let mut replaced = None;
        if let Some(i) = committed_uses.iter().position(|u| line.trim() == u) {
            uses_seen[i] = true;
            replaced = Some(sys_uses[i].clone());
        }
        let constant = name_after(line, "pub const ");
        let version_macro = VERSION_MACROS.iter().find(|n| constant == Some(**n));
        if let (Some(name), Some(header)) = (version_macro, version_header) {
            let value = version_value(header, name)?;
            replaced = Some(format!("pub const {name}: {value}"));
            rewritten.insert(name);
        }
        out.push_str(replaced.as_deref().unwrap_or(line));
        out.push('\n');
    }
    if let Some(i) = uses_seen.iter().position(|seen| !seen) {
        let line = &committed_uses[i];
        return Err(BundledError::Missing(format!("the line `{line}`")));
    }
    if version_header.is_some() {
        if let Some(name) = VERSION_MACROS.iter().find(|n| !rewritten.contains(*n)) {
            return Err(BundledError::Missing(format!("the constant {name}")));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
