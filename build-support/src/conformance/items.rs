//! Extraction of the comparable items of a header set from its text.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

use super::ctype::{parse_declaration, render, render_fields, Definition, Env, Ty};
use super::expr::{evaluate, ExprError, Value};
use super::{Item, ItemKey, Items, Unparsed};
use crate::audit::scan::{blank_comments_and_preprocessor, split_statements_with_bodies};
use crate::audit::{blank_inactive, Conditions, HeaderText};
use crate::dpa_app::parse::{drop_attributes, is_ident, join_tokens, tokenize, Token};

/// How deep macro values may refer to other macros before the evaluation gives up (a
/// macro defined through itself would otherwise never end).
const MAX_MACRO_DEPTH: usize = 32;

/// The object-like macros of a header set: name → (value text, file). Function-like
/// macros are not recorded; a later `#define` replaces an earlier one and `#undef`
/// removes it, as the preprocessor does.
pub(super) type Macros = BTreeMap<String, (String, String)>;

/// What the `#define`s of a header set say beyond the values of [`Macros`]: a macro
/// that shares the name of a bound item replaces that item for the compiler (bindgen
/// would see what it expands to), and a name defined twice in two ways was defined
/// under conditions this reader cannot decide. Either way the check cannot know what
/// the item is.
#[derive(Clone, Debug, Default)]
pub(super) struct MacroNames {
    /// Every macro name defined (function-like ones too) → the file.
    pub(super) defined: BTreeMap<String, String>,
    /// Names `#define`d more than once with different replacements, an `#undef`
    /// between or not: the reader cannot tell whether a condition it could not decide
    /// guards the second one.
    pub(super) redefined: BTreeSet<String>,
    /// Every replacement text each name was given (`(…)` first for function-like).
    ever: BTreeMap<String, String>,
    /// Every name `#define`d or `#undef`d → the first file that did.
    touched: BTreeMap<String, String>,
}

impl MacroNames {
    /// Whether `name` was defined as a function-like macro.
    pub(super) fn is_function_like(&self, name: &str) -> bool {
        self.ever.get(name).is_some_and(|v| v.starts_with('('))
    }
}

/// Items of `headers` (after `blank_inactive` under `cond`); a name that no macro of
/// `headers` defines is looked up in `fallback`.
pub(super) fn extract(headers: &[HeaderText], cond: &Conditions, fallback: &Macros) -> Items {
    let active: Vec<(String, String)> = headers
        .iter()
        .map(|h| (h.file_name.clone(), blank_inactive(&h.text, cond)))
        .collect();
    let mut macros = Macros::new();
    let mut macro_names = MacroNames::default();
    for (file, text) in &active {
        read_macros(file, text, &mut macros, &mut macro_names);
    }
    // Each header is read with the assumed macros set as bindgen sets them; one that
    // changes them changes the headers after it, which this reading does not follow.
    let problems = macro_names
        .touched
        .iter()
        .filter(|(name, _)| cond.is_assumed(name))
        .map(|(name, file)| {
            format!(
                "{file} #defines or #undefs {name}, which this check takes as set the way \
                 bindgen sets it for every header"
            )
        })
        .collect();
    let mut x = Extraction {
        macros: &macros,
        fallback,
        enumerators: RefCell::new(BTreeMap::new()),
        items: BTreeMap::new(),
        conflicts: BTreeMap::new(),
        forward_attributes: BTreeMap::new(),
        unparsed: Vec::new(),
    };
    // A `#pragma pack` left open applies to the headers included after it, whose order
    // this reader does not follow: one anywhere marks every record.
    let packs = active
        .iter()
        .any(|(_, text)| text.lines().any(is_pragma_pack));
    for (file, text) in &active {
        let clean = blank_comments_and_preprocessor(text);
        for (_, statement) in split_statements_with_bodies(&clean) {
            x.statement(file, &statement, packs);
        }
    }
    for (key, attributes) in std::mem::take(&mut x.forward_attributes) {
        if let Some(item) = x.items.get_mut(&key) {
            item.canonical.push_str(&attributes);
        }
    }
    x.macro_items();
    let identifiers = active
        .iter()
        .flat_map(|(_, text)| tokenize(&crate::audit::scan::blank_comments(text)))
        .filter(|t| t.is_ident())
        .map(|t| t.text)
        .collect();
    let Extraction {
        items,
        conflicts,
        unparsed,
        ..
    } = x;
    Items {
        items,
        conflicts,
        unparsed,
        macros,
        macro_names,
        identifiers,
        problems,
        sources: headers.to_vec(),
        cond: cond.clone(),
        context: fallback.clone(),
    }
}

/// Records the `#define`s and `#undef`s of `text` (comments blanked, inactive lines
/// blanked, directives kept) into `macros` and `names`.
pub(super) fn read_macros(file: &str, text: &str, macros: &mut Macros, names: &mut MacroNames) {
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let mut logical = line.to_owned();
        while logical.trim_end().ends_with('\\') {
            let trimmed = logical.trim_end().trim_end_matches('\\').to_owned();
            logical = trimmed + " " + lines.next().unwrap_or("");
        }
        let Some(directive) = logical.trim_start().strip_prefix('#') else {
            continue;
        };
        let directive = directive.trim_start();
        let (word, rest) = directive
            .find(|c: char| !c.is_ascii_alphanumeric())
            .map_or((directive, ""), |i| directive.split_at(i));
        let rest_trimmed = rest.trim_start();
        let name_len = rest_trimmed
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest_trimmed.len());
        let name = &rest_trimmed[..name_len];
        if !is_ident(name) || rest.len() == rest_trimmed.len() {
            continue;
        }
        if word == "define" || word == "undef" {
            names
                .touched
                .entry(name.to_owned())
                .or_insert_with(|| file.to_owned());
        }
        match word {
            "define" => {
                let after = &rest_trimmed[name_len..];
                // Kept through an `#undef`: a macro undone after the declarations it
                // changed, or undone under a condition the reader cannot decide, still
                // makes them undecidable.
                names.defined.insert(name.to_owned(), file.to_owned());
                let replacement = after.trim().to_owned();
                if names.ever.get(name).is_some_and(|v| *v != replacement) {
                    names.redefined.insert(name.to_owned());
                }
                names.ever.insert(name.to_owned(), replacement.clone());
                if after.starts_with('(') {
                    // Function-like: never a constant.
                    macros.remove(name);
                } else {
                    macros.insert(name.to_owned(), (replacement, file.to_owned()));
                }
            }
            "undef" => {
                macros.remove(name);
            }
            _ => {}
        }
    }
}

/// Whether bindgen would bind a macro of this name in our configuration: DOCA's own.
fn is_doca_name(name: &str) -> bool {
    name.starts_with("DOCA_") || name.starts_with("doca_")
}

/// Whether a macro value is a string literal (or adjacent literals), compared exactly.
fn is_string_literal(value: &str) -> bool {
    value.len() >= 2 && value.starts_with('"') && value.ends_with('"')
}

struct Extraction<'a> {
    macros: &'a Macros,
    fallback: &'a Macros,
    /// Enumerators seen so far, for the values of later ones.
    enumerators: RefCell<BTreeMap<String, Value>>,
    items: BTreeMap<ItemKey, Item>,
    conflicts: BTreeMap<ItemKey, Vec<String>>,
    /// Attributes of forward declarations (`struct __attribute__((packed)) x;`),
    /// added to the record's item at the end.
    forward_attributes: BTreeMap<ItemKey, String>,
    unparsed: Vec<Unparsed>,
}

impl Extraction<'_> {
    /// The value of a name in a constant expression: an earlier enumerator, else an
    /// integer macro of this set, else one of the fallback set.
    fn lookup(&self, name: &str, depth: usize) -> Option<Value> {
        if let Some(v) = self.enumerators.borrow().get(name) {
            return Some(*v);
        }
        let (text, _) = self.macros.get(name).or_else(|| self.fallback.get(name))?;
        self.macro_value(text, depth + 1).ok()
    }

    fn macro_value(&self, text: &str, depth: usize) -> Result<Value, ExprError> {
        if depth > MAX_MACRO_DEPTH {
            return Err(ExprError::Malformed);
        }
        let lookup = |n: &str| self.lookup(n, depth);
        evaluate(&tokenize(text), &lookup)
    }

    fn insert(
        &mut self,
        key: ItemKey,
        file: &str,
        canonical: String,
        unresolved: BTreeSet<String>,
    ) {
        // A valid header set declares an item once, or twice the same way; two ways
        // means both sides of a condition this reader could not decide were read,
        // and which one the compiler sees is unknown.
        match self.items.get(&key) {
            Some(first) if first.canonical != canonical => {
                self.conflicts
                    .entry(key)
                    .or_insert_with(|| vec![format!("`{}` ({})", first.canonical, first.file)])
                    .push(format!("`{canonical}` ({file})"));
            }
            Some(_) => {}
            None => {
                self.items.insert(
                    key,
                    Item {
                        canonical,
                        file: file.to_owned(),
                        unresolved,
                    },
                );
            }
        }
    }

    /// One top-level statement of `file`; `packs`: the file has a `#pragma pack`.
    fn statement(&mut self, file: &str, statement: &str, packs: bool) {
        let all_tokens = tokenize(statement);
        let tokens: Vec<Token> = drop_attributes(&all_tokens);
        // Attributes can change what bindgen makes of any item (`packed` or `aligned`
        // a record's layout, `mode` a typedef's width, a calling convention or
        // `noreturn` a function, `packed` an enum's type): every item keeps them, so
        // an attribute the reference does not have is a difference.
        let attributes = attribute_text(&all_tokens, &tokens);
        let mut layout = attributes.clone();
        if packs {
            layout.push_str(" (under a #pragma pack of this header set)");
        }
        if tokens.is_empty() {
            return;
        }
        if !attributes.is_empty() {
            // `struct __attribute__((packed)) x;` ahead of the body applies to it.
            if let [kind, tag, rest @ ..] = tokens.as_slice() {
                if (kind.is("struct") || kind.is("union"))
                    && tag.is_ident()
                    && rest.iter().all(|t| t.is(";"))
                {
                    let key = if kind.is("union") {
                        ItemKey::Union(tag.text.clone())
                    } else {
                        ItemKey::Struct(tag.text.clone())
                    };
                    self.forward_attributes.insert(key, attributes);
                    return;
                }
            }
        }
        let fallback = |n: &str| self.lookup(n, 0);
        let mut env = Env {
            lookup: &fallback,
            unresolved: BTreeSet::new(),
        };
        let parsed = parse_declaration(&tokens, &mut env);
        let unresolved = env.unresolved;
        let Some(decl) = parsed.filter(|d| {
            // A file-scope "declaration" without a declarator name or a definition is a
            // macro call or the like.
            !d.definitions.is_empty() || d.declarators.iter().all(|(n, _)| n.is_some())
        }) else {
            self.unparsed.push(Unparsed {
                file: file.to_owned(),
                text: join_tokens(&tokens),
                names: tokens
                    .iter()
                    .filter(|t| t.is_ident())
                    .map(|t| t.text.clone())
                    .collect(),
            });
            return;
        };
        for definition in &decl.definitions {
            match definition {
                Definition::Record { kind, tag, fields } => {
                    let key = if *kind == "union" {
                        ItemKey::Union(tag.clone())
                    } else {
                        ItemKey::Struct(tag.clone())
                    };
                    let canonical = render_fields(fields) + &layout;
                    self.insert(key, file, canonical, unresolved.clone());
                }
                Definition::Enum { tag, enumerators } => {
                    // `typedef enum { … } name;` is bound under the typedef's name.
                    let name = tag.clone().or_else(|| {
                        decl.storage
                            .typedef
                            .then(|| decl.declarators.first().and_then(|(n, _)| n.clone()))
                            .flatten()
                    });
                    self.enumeration(file, name.as_deref(), enumerators, &attributes);
                }
            }
        }
        for (name, ty) in &decl.declarators {
            let Some(name) = name else { continue };
            if decl.storage.typedef {
                let mut canonical = render(ty);
                if matches!(ty, Ty::Anonymous { .. }) {
                    // `typedef struct { … } __attribute__((packed)) x;`: bindgen names
                    // the record after the typedef, so its layout is the typedef's.
                    canonical.push_str(&layout);
                } else {
                    canonical.push_str(&attributes);
                }
                self.insert(
                    ItemKey::Typedef(name.clone()),
                    file,
                    canonical,
                    unresolved.clone(),
                );
            } else if matches!(ty, Ty::Function { .. }) && !decl.storage.local {
                self.insert(
                    ItemKey::Function(name.clone()),
                    file,
                    render(ty) + &attributes,
                    unresolved.clone(),
                );
            }
        }
    }

    /// The enumerators of one enum, and the enum's integer type.
    fn enumeration(
        &mut self,
        file: &str,
        name: Option<&str>,
        list: &[(String, Option<Vec<Token>>)],
        attributes: &str,
    ) {
        let context = match name {
            Some(n) => format!("enum {n}"),
            None => "anonymous enum".to_owned(),
        };
        // The previous enumerator: its value, or its canonical text when unknown.
        let mut previous: Option<Result<Value, String>> = None;
        let mut values = Vec::new();
        let mut pending = Vec::new();
        for (enumerator, expr) in list {
            let mut unresolved = BTreeSet::new();
            let value = match (expr, &previous) {
                (Some(tokens), _) => match self.macro_value_of(tokens) {
                    Ok(v) => Ok(v),
                    Err(ExprError::Unknown(names)) => {
                        unresolved.extend(names);
                        Err(join_tokens(tokens))
                    }
                    Err(ExprError::Malformed) => Err(join_tokens(tokens)),
                },
                (None, None) => Ok(Value {
                    value: 0,
                    unsigned: false,
                    bits: 32,
                }),
                (None, Some(Ok(v))) => {
                    Value::fitting(v.value + 1).ok_or_else(|| format!("{} + 1", v.value))
                }
                (None, Some(Err(text))) => Err(format!("({text}) + 1")),
            };
            if let Ok(v) = &value {
                // An enumerator is an `int` constant when it fits one (C11 6.7.2.2).
                let typed = Value::fitting(v.value).unwrap_or(*v);
                self.enumerators
                    .borrow_mut()
                    .insert(enumerator.clone(), typed);
                values.push(v.value);
            }
            let text = match &value {
                Ok(v) => v.value.to_string(),
                Err(t) => format!("`{t}`"),
            };
            pending.push((enumerator.clone(), text, unresolved));
            previous = Some(value);
        }
        let all_known = values.len() == list.len();
        let repr = if all_known { repr_of(&values) } else { None };
        for (enumerator, text, unresolved) in pending {
            // An anonymous enum's constants take its integer type in bindgen's output.
            let canonical = match (name, repr) {
                (None, Some(r)) => format!("{text} ({context}, {r})"),
                _ => format!("{text} ({context})"),
            };
            self.insert(ItemKey::Enumerator(enumerator), file, canonical, unresolved);
        }
        if let Some(n) = name {
            let canonical = match repr {
                Some(r) => r.to_owned(),
                None => {
                    "not evaluated: some enumerator values are not integer constants".to_owned()
                }
            } + attributes;
            self.insert(
                ItemKey::Enum(n.to_owned()),
                file,
                canonical,
                BTreeSet::new(),
            );
        }
    }

    fn macro_value_of(&self, tokens: &[Token]) -> Result<Value, ExprError> {
        let lookup = |n: &str| self.lookup(n, 0);
        evaluate(tokens, &lookup)
    }

    /// DOCA's object-like macros whose value bindgen turns into a constant.
    fn macro_items(&mut self) {
        let macros = self.macros;
        for (name, (text, file)) in macros {
            if !is_doca_name(name) || text.is_empty() {
                continue;
            }
            let (canonical, unresolved) = if is_string_literal(text) {
                (text.clone(), BTreeSet::new())
            } else {
                match self.macro_value(text, 0) {
                    Ok(v) => (v.value.to_string(), BTreeSet::new()),
                    Err(ExprError::Unknown(names)) => {
                        (join_tokens(&tokenize(text)), names.into_iter().collect())
                    }
                    Err(ExprError::Malformed) => continue,
                }
            };
            self.items
                .entry(ItemKey::Macro(name.clone()))
                .or_insert(Item {
                    canonical,
                    file: file.clone(),
                    unresolved,
                });
        }
    }
}

fn is_pragma_pack(line: &str) -> bool {
    let Some(rest) = line.trim_start().strip_prefix('#') else {
        return false;
    };
    let mut words = rest.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
    let mut words = words.by_ref().filter(|w| !w.is_empty());
    words.next() == Some("pragma") && words.next() == Some("pack")
}

/// The attribute groups `drop_attributes` took out of `all` (leaving `kept`), as text:
/// empty when there were none, else ` with <attributes>`.
fn attribute_text(all: &[Token], kept: &[Token]) -> String {
    if all.len() == kept.len() {
        return String::new();
    }
    // `kept` is `all` with some runs removed: walk both to find them.
    let mut removed = Vec::new();
    let mut k = 0;
    for t in all {
        if kept
            .get(k)
            .is_some_and(|kt| kt.text == t.text && kt.line == t.line)
        {
            k += 1;
        } else {
            removed.push(t.clone());
        }
    }
    let kept: Vec<String> = attribute_groups(&removed)
        .into_iter()
        .filter(|(name, _)| !NO_BINDGEN_EFFECT.contains(&name.trim_matches('_')))
        .map(|(_, text)| text)
        .collect();
    if kept.is_empty() {
        String::new()
    } else {
        format!(" with {}", kept.join(" "))
    }
}

/// GCC attributes that change nothing bindgen emits (checks, optimisation hints,
/// symbol visibility, deprecation): they may differ between the reference and an
/// install. Every other attribute (`packed`, `aligned`, `mode`, `noreturn`, calling
/// conventions, `weak`, `__declspec`, …) is compared.
const NO_BINDGEN_EFFECT: &[&str] = &[
    "access",
    "alloc_align",
    "alloc_size",
    "always_inline",
    "artificial",
    "cold",
    "const",
    "deprecated",
    "error",
    "format",
    "format_arg",
    "gnu_inline",
    "hot",
    "leaf",
    "malloc",
    "no_sanitize",
    "noinline",
    "nonnull",
    "nothrow",
    "pure",
    "returns_nonnull",
    "sentinel",
    "unavailable",
    "unused",
    "used",
    "visibility",
    "warn_unused_result",
    "warning",
];

/// The attributes in `tokens` (`__attribute__((a, b(x)))` runs, `__declspec(…)`), one
/// `(name, text)` each; a `__declspec` is named `__declspec`.
fn attribute_groups(tokens: &[Token]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let keyword = &tokens[i];
        // The run's extent: the keyword and its balanced parentheses.
        let mut j = i + 1;
        let mut depth = 0usize;
        let mut parts: Vec<Vec<Token>> = vec![Vec::new()];
        let push = |parts: &mut Vec<Vec<Token>>, t: &Token| {
            if let Some(p) = parts.last_mut() {
                p.push(t.clone());
            }
        };
        while j < tokens.len() {
            let t = &tokens[j];
            if t.is("(") {
                depth += 1;
                if depth > 2 {
                    push(&mut parts, t);
                }
            } else if t.is(")") {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    j += 1;
                    break;
                }
                if depth >= 2 {
                    push(&mut parts, t);
                }
            } else if t.is(",") && depth == 2 {
                parts.push(Vec::new());
            } else {
                push(&mut parts, t);
            }
            j += 1;
        }
        if keyword.is("__declspec") {
            out.push((
                "__declspec".to_owned(),
                join_tokens(&tokens[i..j.min(tokens.len())]),
            ));
        } else {
            for part in parts.into_iter().filter(|p| !p.is_empty()) {
                let name = part[0].text.clone();
                out.push((name, format!("__attribute__(({}))", join_tokens(&part))));
            }
        }
        i = j.max(i + 1);
    }
    out
}

/// The integer type C (and so bindgen) gives an enum with these values: `u32` when none
/// is negative and all fit, `i32` when one is negative and all fit an `int`, else the
/// 64-bit type of the same signedness (GCC and Clang on LP64).
fn repr_of(values: &[i128]) -> Option<&'static str> {
    let negative = values.iter().any(|v| *v < 0);
    let fits = |lo: i128, hi: i128| values.iter().all(|v| (lo..=hi).contains(v));
    Some(if !negative && fits(0, u32::MAX.into()) {
        "u32"
    } else if fits(i32::MIN.into(), i32::MAX.into()) {
        "i32"
    } else if !negative && fits(0, u64::MAX.into()) {
        "u64"
    } else if fits(i64::MIN.into(), i64::MAX.into()) {
        "i64"
    } else {
        return None;
    })
}
