//! Header conformance: whether the installed DOCA headers declare every item of the
//! committed bindings the way our reference headers do, checked without libclang.
//!
//! # Why this is enough (and its limits)
//!
//! The committed bindings (`doca-sim/src/abi/dpa.rs`, `rdmi.rs`) are bindgen's output
//! for our reference headers (`doca-sim/include`); a freshness test pins that. When the
//! installed headers declare each of those items *the same way* as the reference headers
//! (same ABI, same Rust shape as bindgen renders it), bindgen run on the installed
//! headers would give the same bindings for those items. So a hardware build can use
//! the committed bindings after [`compare`] finds no [`Difference`], and needs no
//! bindgen. Functions the installed release lacks ([`Conformance::absent_functions`],
//! an older DOCA) are left out of the bindings by the caller.
//!
//! # What is compared
//!
//! [`Items`] are read from header text, without a preprocessor but after
//! [`blank_inactive`] (lines the preprocessor would drop
//! for the target are gone):
//!
//! * **functions** (not `static` / `inline`): return and parameter types,
//!   `ret (p1, p2, …)`, variadic `...` kept;
//! * **typedefs**: the target type (function-pointer and function typedefs included);
//! * **struct and union bodies**: each field's type, name, array sizes (evaluated) and
//!   bit-field width, in order (names become Rust field names, order and types decide
//!   the layout), and the attributes written on the record (`packed`, `aligned`) or a
//!   `#pragma pack` in its header, which change the layout too; a `struct x;`
//!   declaration is not an item;
//! * **enumerators**: the evaluated value and the enum it belongs to (bindgen types each
//!   constant with its enum); **enums**: the integer type C gives them (`u32`, or `i32`
//!   once one enumerator is negative, 64-bit when a value needs it), which bindgen uses
//!   for the enum's Rust type, so an enumerator the installed headers add counts too;
//! * **macros**: DOCA's (`DOCA_…` / `doca_…`) object-like macros whose value is an
//!   integer constant expression (compared by value: `13`, `0xd` and `13U` are equal)
//!   or a string literal (compared exactly).
//!
//! Types are canonical for 64-bit Linux (LP64), the only platforms DOCA supports
//! (x86_64 and aarch64): `unsigned int` and `uint32_t` are both `u32`, `long` and
//! `int64_t` both `i64`, `size_t` is `usize`; plain `char` stays `char` (signed on
//! x86_64, unsigned on aarch64; bindgen writes `c_char`). Other typedef names stay
//! names: each is compared as its own item.
//!
//! # What is deliberately not compared
//!
//! Doc comments, parameter names, the `DOCA_EXPERIMENTAL` / `DOCA_STABLE` /
//! `DOCA_DEPRECATED` markers, attributes that change nothing bindgen emits (`nonnull`,
//! `deprecated`, `visibility`, … — every other attribute of any item is compared), and
//! `extern`; the top-level `const` of a value
//! (bindgen drops it; `const` behind a pointer is kept, wherever it is written),
//! `volatile` and `restrict`; `(void)` equals `()`; array parameters are pointers (C's
//! rule). Items the installed headers have and the reference does not are ignored. A
//! reference item other than a function that the installed headers never mention is
//! absent ([`Conformance::absent_other`]); one they mention in a form this reader does
//! not compare, or that a file-scope macro call might declare, is a difference.
//! Integer macros are compared by their C value, which bindgen's evaluator can differ
//! from in contrived expressions (it does not wrap 32-bit unsigned arithmetic).
//!
//! A statement this reader cannot parse is ignored, unless it names a reference item the
//! installed headers otherwise lack: then it is a [`Difference`] (the check fails
//! closed rather than call an item absent that may be declared differently). So is an
//! item the installed headers leave undecidable: a macro of its name (`#define
//! doca_x doca_x_v2` would make the compiler call another symbol), two different
//! declarations of it (both sides of a condition the reader could not decide), or a
//! macro item defined twice with different values.

mod ctype;
mod expr;
mod items;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use crate::audit::scan::blank_comments;
use crate::audit::{blank_inactive, Conditions, HeaderText};

/// Which kind of item, and its name.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ItemKey {
    /// A function declaration.
    Function(String),
    /// A typedef.
    Typedef(String),
    /// A struct with a body, by tag.
    Struct(String),
    /// A union with a body, by tag.
    Union(String),
    /// An enum's integer type, by tag (or by typedef name for `typedef enum { … } x`).
    Enum(String),
    /// One enumerator.
    Enumerator(String),
    /// An object-like macro with an integer or string value.
    Macro(String),
}

impl ItemKey {
    /// The item's name.
    pub fn name(&self) -> &str {
        match self {
            ItemKey::Function(n)
            | ItemKey::Typedef(n)
            | ItemKey::Struct(n)
            | ItemKey::Union(n)
            | ItemKey::Enum(n)
            | ItemKey::Enumerator(n)
            | ItemKey::Macro(n) => n,
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            ItemKey::Function(_) => "fn",
            ItemKey::Typedef(_) => "typedef",
            ItemKey::Struct(_) => "struct",
            ItemKey::Union(_) => "union",
            ItemKey::Enum(_) => "enum",
            ItemKey::Enumerator(_) => "enumerator",
            ItemKey::Macro(_) => "macro",
        }
    }
}

impl fmt::Display for ItemKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.kind(), self.name())
    }
}

/// One item as a header set declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    /// The canonical declaration (`doca_error_t (ptr struct doca_dpa, u32)` for a
    /// function; a value for an enumerator or a macro).
    pub canonical: String,
    /// The header that declares it.
    pub file: String,
    /// Names its constant expressions use that the header set does not define.
    unresolved: BTreeSet<String>,
}

/// A top-level statement the reader could not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unparsed {
    /// The header it is in.
    pub file: String,
    /// Its tokens, joined by spaces.
    pub text: String,
    /// The identifiers in it.
    pub names: BTreeSet<String>,
}

/// Items a header set declares, keyed by kind and name.
#[derive(Clone, Debug)]
pub struct Items {
    items: BTreeMap<ItemKey, Item>,
    /// Items declared more than once in different ways: every form, with its file.
    conflicts: BTreeMap<ItemKey, Vec<String>>,
    unparsed: Vec<Unparsed>,
    /// Every object-like macro: name → (value text, file).
    macros: items::Macros,
    /// Every macro name, and those defined in two ways.
    macro_names: items::MacroNames,
    /// Every identifier of the headers' active text, directives included.
    identifiers: BTreeSet<String>,
    /// What makes the whole reading unsure (see [`Conformance::problems`]).
    problems: Vec<String>,
    /// What the items were read from (to read them again, see [`compare`]).
    sources: Vec<HeaderText>,
    cond: Conditions,
    /// The macros of the context headers (see [`Items::from_headers_with_context`]).
    context: items::Macros,
}

impl Items {
    /// Extracts the items of header texts (comments and all: the blanking is done
    /// here), after [`blank_inactive`]`(text, cond)`.
    /// A later header's declaration of an item already seen is ignored.
    pub fn from_headers(headers: &[HeaderText], cond: &Conditions) -> Items {
        items::extract(headers, cond, &BTreeMap::new())
    }

    /// [`Items::from_headers`], with the macros of `context` (headers whose items are
    /// not wanted: the DPA set's, for the RDMI set) known to constant expressions. The
    /// RDMI reference headers size `doca_verbs_gid::raw` with `DOCA_GID_BYTE_LENGTH` of
    /// `doca_types.h`: with the DPA headers as context, that size is the reference's own.
    pub fn from_headers_with_context(
        headers: &[HeaderText],
        context: &[HeaderText],
        cond: &Conditions,
    ) -> Items {
        let mut macros = BTreeMap::new();
        for h in context {
            items::read_macros(
                &h.file_name,
                &blank_inactive(&h.text, cond),
                &mut macros,
                &mut items::MacroNames::default(),
            );
        }
        items::extract(headers, cond, &macros)
    }

    /// The names of the declared (exported) functions.
    pub fn function_names(&self) -> BTreeSet<String> {
        self.items
            .keys()
            .filter_map(|k| match k {
                ItemKey::Function(n) => Some(n.clone()),
                _ => None,
            })
            .collect()
    }

    /// One item.
    pub fn get(&self, key: &ItemKey) -> Option<&Item> {
        self.items.get(key)
    }

    /// Every item, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&ItemKey, &Item)> {
        self.items.iter()
    }

    /// How many items.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The statements that could not be parsed.
    pub fn unparsed(&self) -> &[Unparsed] {
        &self.unparsed
    }

    fn has_unresolved(&self) -> bool {
        self.items.values().any(|i| !i.unresolved.is_empty())
    }
}

/// An item the installed headers declare differently from the reference headers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// The item.
    pub key: ItemKey,
    /// Its canonical form in the reference headers (what the committed bindings bind).
    pub reference: String,
    /// Its canonical form in the installed headers (or the statement that could not be
    /// parsed).
    pub installed: String,
    /// The installed header it is in.
    pub installed_file: String,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: doca-rs binds `{}`, {} declares `{}`",
            self.key, self.reference, self.installed_file, self.installed
        )
    }
}

/// The result of [`compare`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Conformance {
    /// Items declared differently (each fails the build).
    pub differences: Vec<Difference>,
    /// Functions of the reference that the installed headers do not declare (left out
    /// of the bundled bindings: an older DOCA lacks newer functions).
    pub absent_functions: BTreeSet<String>,
    /// Other reference items the installed headers lack (harmless: reported, not fatal).
    pub absent_other: Vec<ItemKey>,
    /// How many reference items were compared and found equal.
    pub matched: usize,
    /// What in the installed headers makes the reading of all of them unsure (a header
    /// that changes a macro the reading assumes); each fails the build.
    pub problems: Vec<String>,
}

impl Conformance {
    /// Whether no item differs.
    pub fn conforms(&self) -> bool {
        self.differences.is_empty() && self.problems.is_empty()
    }
}

impl fmt::Display for Conformance {
    /// Every difference, one per line, sorted (the body of the build-failure message).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut lines: Vec<String> = self.differences.iter().map(|d| d.to_string()).collect();
        lines.sort();
        lines.extend(self.problems.iter().cloned());
        for line in lines {
            writeln!(f, "{line}")?;
        }
        Ok(())
    }
}

/// Compares every item of `reference` with `installed`. `exempt`: macro names not
/// compared (the DOCA version macros, which the caller rewrites from the installed
/// version).
///
/// A constant expression of the reference that uses a name neither its headers nor its
/// context define (an array size of `doca_verbs.h` given by a macro of `doca_types.h`,
/// which is in the other binding set, when the reference was read without context) is
/// evaluated with the installed headers' macro of that name: then only the check of the
/// binding set that owns the macro sees a change of its value.
pub fn compare(reference: &Items, installed: &Items, exempt: &[&str]) -> Conformance {
    let resolved;
    let reference = if reference.has_unresolved() {
        let mut fallback = installed.macros.clone();
        fallback.extend(reference.context.clone());
        resolved = items::extract(&reference.sources, &reference.cond, &fallback);
        &resolved
    } else {
        reference
    };
    let mut out = Conformance {
        problems: installed.problems.clone(),
        ..Conformance::default()
    };
    for (key, item) in &reference.items {
        if matches!(key, ItemKey::Macro(n) if exempt.contains(&n.as_str())) {
            continue;
        }
        if let Some(installed_form) = undecidable(key, installed) {
            let file = installed.items.get(key).map(|i| i.file.clone());
            out.differences.push(Difference {
                key: key.clone(),
                reference: item.canonical.clone(),
                installed: installed_form,
                installed_file: file
                    .or_else(|| installed.macro_names.defined.get(key.name()).cloned())
                    .unwrap_or_default(),
            });
            continue;
        }
        match installed.items.get(key) {
            Some(theirs) if theirs.canonical == item.canonical => out.matched += 1,
            Some(theirs) => out.differences.push(Difference {
                key: key.clone(),
                reference: item.canonical.clone(),
                installed: theirs.canonical.clone(),
                installed_file: theirs.file.clone(),
            }),
            None => match installed
                .unparsed
                .iter()
                .find(|u| u.names.contains(key.name()))
            {
                Some(u) => out.differences.push(Difference {
                    key: key.clone(),
                    reference: item.canonical.clone(),
                    installed: format!("{} (a statement this check cannot parse)", u.text),
                    installed_file: u.file.clone(),
                }),
                None => match key {
                    ItemKey::Function(n) => {
                        out.absent_functions.insert(n.clone());
                    }
                    other => match unreadable(other, installed) {
                        Some((installed_form, installed_file)) => {
                            out.differences.push(Difference {
                                key: key.clone(),
                                reference: item.canonical.clone(),
                                installed: installed_form,
                                installed_file,
                            })
                        }
                        None => out.absent_other.push(other.clone()),
                    },
                },
            },
        }
    }
    out
}

/// Why a reference item (not a function) that the installed headers declare nowhere
/// this reader understands may still be declared there, if it may: a macro of its name
/// whose value it cannot evaluate, its name used in text it cannot read, or a
/// function-like macro invoked at file scope (which can declare anything by token
/// pasting). Then the reference's item cannot be kept: (what was found, the file).
/// A name the installed headers never mention is absent (an older DOCA), and the
/// reference item is harmless to keep.
fn unreadable(key: &ItemKey, installed: &Items) -> Option<(String, String)> {
    let name = key.name();
    if let Some((value, file)) = installed.macros.get(name) {
        return Some((
            format!("`#define {name} {value}`, which this check cannot evaluate"),
            file.clone(),
        ));
    }
    if let Some(file) = installed.macro_names.defined.get(name) {
        return Some((format!("a function-like macro `{name}`"), file.clone()));
    }
    if installed.identifiers.contains(name) {
        return Some((
            "named there, but not declared in a form this check compares (a body left \
             out, or a declaration it cannot read)"
                .to_owned(),
            String::new(),
        ));
    }
    installed
        .unparsed
        .iter()
        .find(|u| {
            u.text
                .split_whitespace()
                .next()
                .is_some_and(|first| installed.macro_names.is_function_like(first))
        })
        .map(|u| {
            (
                format!(
                    "maybe declared by `{}`, a macro this check does not expand",
                    u.text
                ),
                u.file.clone(),
            )
        })
}

/// Why the installed headers leave `key` undecidable, if they do: a macro of its name
/// replaces it, it is declared twice in two ways, or (a macro item) it is defined twice
/// with different values.
fn undecidable(key: &ItemKey, installed: &Items) -> Option<String> {
    let names = &installed.macro_names;
    match key {
        ItemKey::Macro(n) if names.redefined.contains(n) => {
            Some("defined more than once with different values".to_owned())
        }
        ItemKey::Macro(_) => None,
        other => {
            if let Some(file) = names.defined.get(other.name()) {
                return Some(format!(
                    "a macro of the same name (in {file}) replaces it for the compiler"
                ));
            }
            installed.conflicts.get(other).map(|forms| {
                format!(
                    "declared more than once, in different ways (under conditions this \
                     check cannot decide): {}",
                    forms.join(", ")
                )
            })
        }
    }
}

/// The installed headers of a binding set (`set_headers`, full paths) and every
/// header they include (`<…>` or `"…"`, found in the including header's directory
/// for `"…"`, then in `include_dirs` in order), transitively: an item may live in
/// another header in a real install. Returns the texts (file names as included) and
/// every file read (for `rerun-if-changed`). A set header that cannot be read is left
/// out: its functions are then absent.
pub fn installed_headers(
    set_headers: &[PathBuf],
    include_dirs: &[PathBuf],
) -> (Vec<HeaderText>, Vec<PathBuf>) {
    let mut texts = Vec::new();
    let mut read: Vec<PathBuf> = Vec::new();
    let mut queue: std::collections::VecDeque<PathBuf> = set_headers.iter().cloned().collect();
    let mut seen: BTreeSet<PathBuf> = BTreeSet::new();
    while let Some(path) = queue.pop_front() {
        let identity = path.canonicalize().unwrap_or_else(|_| path.clone());
        if !seen.insert(identity) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        for (name, quoted) in includes(&text) {
            let local = path.parent().filter(|_| quoted).map(|d| d.join(&name));
            let found = local
                .into_iter()
                .chain(include_dirs.iter().map(|d| d.join(&name)))
                .find(|p| p.is_file());
            if let Some(p) = found {
                queue.push_back(p);
            }
        }
        texts.push(HeaderText {
            file_name: file_name(&path),
            text,
        });
        read.push(path);
    }
    (texts, read)
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// The headers `text` includes: (name as written, whether in quotes).
/// Includes under any condition count (one header too many only adds items).
fn includes(text: &str) -> Vec<(String, bool)> {
    blank_comments(text)
        .lines()
        .filter_map(|line| {
            let rest = line.trim_start().strip_prefix('#')?.trim_start();
            let rest = rest.strip_prefix("include")?.trim_start();
            let (close, quoted) = match rest.chars().next()? {
                '<' => ('>', false),
                '"' => ('"', true),
                _ => return None,
            };
            let name = rest[1..].split(close).next()?.trim();
            // Any header: an item may live in one not named doca_*.h. Only those found
            // in the install are read (the C library's are not there).
            Some((name.to_owned(), quoted))
        })
        .collect()
}
