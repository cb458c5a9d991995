//! C declarations read from tokens, and the canonical text of their types.
//!
//! The canonical text is what decides the ABI and the shape of bindgen's Rust on 64-bit
//! Linux (LP64): primitive spellings become their Rust counterpart (`unsigned int` and
//! `uint32_t` are both `u32`, `long` is `i64`), plain `char` stays `char` (its sign
//! differs between x86_64 and aarch64; bindgen writes `c_char`), a pointer is `ptr T`,
//! `const` is kept only where Rust sees it (on what a pointer points to: `ptr const char`
//! for both `const char *` and `char const *`), `volatile` and `restrict` are dropped
//! (bindgen drops them), and parameter names, markers and attributes are not part of a
//! type. Other typedef names stay names: each is compared as its own typedef item.

use std::collections::BTreeSet;

use super::expr::{evaluate, ExprError, Value};
use crate::audit::Marker;
use crate::dpa_app::parse::{
    is_ident, join_tokens, split_top_level_commas, Token, PRIMITIVE_TYPE_WORDS, QUALIFIERS,
};

/// A C type, as far as the comparison needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Ty {
    /// A primitive (already canonical: `u32`, `char`, `void`), `struct x`, `union x`,
    /// `enum x` or a typedef name.
    Named { name: String, konst: bool },
    /// A struct or union without a tag, rendered with its fields.
    Anonymous {
        kind: &'static str,
        fields: Vec<Field>,
        konst: bool,
    },
    /// `T *`.
    Pointer { to: Box<Ty>, konst: bool },
    /// `T [len]`; `len` is the canonical size text (`None`: `[]`).
    Array { of: Box<Ty>, len: Option<String> },
    /// A function type.
    Function {
        ret: Box<Ty>,
        params: Vec<Ty>,
        variadic: bool,
    },
}

/// One member of a struct or union body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Field {
    pub(crate) ty: Ty,
    /// `None`: an anonymous member or an unnamed bit-field.
    pub(crate) name: Option<String>,
    /// The bit-field width, canonical.
    pub(crate) width: Option<String>,
}

/// A struct, union or enum body found in a declaration's specifiers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Definition {
    /// `struct x { … }` or `union x { … }` with a tag.
    Record {
        kind: &'static str,
        tag: String,
        fields: Vec<Field>,
    },
    /// `enum x { … }` (`tag` is `None` for an anonymous enum): the enumerators with the
    /// tokens of their explicit values.
    Enum {
        tag: Option<String>,
        enumerators: Vec<(String, Option<Vec<Token>>)>,
    },
}

/// The storage class words of a declaration.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Storage {
    pub(crate) typedef: bool,
    /// `static` or `inline`: not an exported symbol.
    pub(crate) local: bool,
}

/// A parsed file-scope declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Declaration {
    pub(crate) storage: Storage,
    /// Each declarator: its name (if any) and its full type.
    pub(crate) declarators: Vec<(Option<String>, Ty)>,
    /// The bodies its specifiers define, nested ones included.
    pub(crate) definitions: Vec<Definition>,
}

/// What an array size or a bit-field width may refer to, and the names it could not
/// resolve.
pub(crate) struct Env<'a> {
    pub(crate) lookup: &'a dyn Fn(&str) -> Option<Value>,
    pub(crate) unresolved: BTreeSet<String>,
}

impl Env<'_> {
    /// The canonical text of an integer constant expression: its value, or, when it
    /// cannot be evaluated, its tokens (names it needs are recorded in `unresolved`).
    pub(crate) fn constant(&mut self, tokens: &[Token]) -> String {
        match evaluate(tokens, self.lookup) {
            Ok(v) => v.value.to_string(),
            Err(e) => {
                if let ExprError::Unknown(names) = e {
                    self.unresolved.extend(names);
                }
                join_tokens(tokens)
            }
        }
    }
}

/// Words that may start or continue the specifiers and are dropped (with
/// [`QUALIFIERS`] other than `const`: bindgen drops `volatile` and `restrict`).
const DROPPED: &[&str] = &["extern", "__extension__", "__volatile__", "_Noreturn"];

fn is_dropped(word: &str) -> bool {
    DROPPED.contains(&word) || QUALIFIERS.contains(&word)
}

/// The canonical name of a primitive spelled with `words` (in any order), on LP64.
fn primitive(words: &[&str]) -> Option<&'static str> {
    let count = |w: &str| words.iter().filter(|x| **x == w).count();
    let unsigned = count("unsigned") > 0;
    let signed = count("signed") + count("__signed__") > 0;
    let longs = count("long");
    let base: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| !matches!(*w, "unsigned" | "signed" | "__signed__" | "long" | "short"))
        .collect();
    if count("_Complex") > 0 || (unsigned && signed) {
        return None;
    }
    let int_like = base.is_empty() || base == ["int"];
    Some(match (base.as_slice(), count("short"), longs) {
        (["void"], 0, 0) if !signed && !unsigned => "void",
        (["_Bool"] | ["bool"], 0, 0) if !signed && !unsigned => "bool",
        (["float"], 0, 0) if !signed && !unsigned => "f32",
        (["double"], 0, 0) if !signed && !unsigned => "f64",
        (["double"], 0, 1) if !signed && !unsigned => "long double",
        (["char"], 0, 0) if unsigned => "u8",
        (["char"], 0, 0) if signed => "i8",
        (["char"], 0, 0) => "char",
        (_, 1, 0) if int_like => ["i16", "u16"][usize::from(unsigned)],
        (_, 0, 0) if int_like => ["i32", "u32"][usize::from(unsigned)],
        (_, 0, 1 | 2) if int_like => ["i64", "u64"][usize::from(unsigned)],
        _ => return None,
    })
}

/// Typedefs of the C library and of `<linux/types.h>` whose LP64 meaning is fixed
/// (`__be16` is `__u16`, as bindgen resolves it).
fn standard_typedef(name: &str) -> Option<&'static str> {
    Some(match name {
        "int8_t" | "__s8" => "i8",
        "uint8_t" | "__u8" => "u8",
        "int16_t" | "__s16" => "i16",
        "uint16_t" | "__u16" | "__be16" | "__le16" => "u16",
        "int32_t" | "__s32" => "i32",
        "uint32_t" | "__u32" | "__be32" | "__le32" => "u32",
        "int64_t" | "__s64" => "i64",
        "uint64_t" | "__u64" | "__be64" | "__le64" => "u64",
        "size_t" | "uintptr_t" => "usize",
        "ssize_t" | "intptr_t" | "ptrdiff_t" => "isize",
        _ => return None,
    })
}

/// The canonical text of `ty` as a value (its own `const` is not part of it).
pub(crate) fn render(ty: &Ty) -> String {
    render_in(ty, false)
}

fn render_in(ty: &Ty, pointee: bool) -> String {
    let konst = |k: bool| if pointee && k { "const " } else { "" };
    match ty {
        Ty::Named { name, konst: k } => format!("{}{name}", konst(*k)),
        Ty::Anonymous {
            kind,
            fields,
            konst: k,
        } => format!("{}{kind} {}", konst(*k), render_fields(fields)),
        Ty::Pointer { to, konst: k } => match **to {
            Ty::Function { .. } => format!("{}ptr ({})", konst(*k), render_in(to, true)),
            _ => format!("{}ptr {}", konst(*k), render_in(to, true)),
        },
        Ty::Array { of, len } => format!(
            "[{}] {}",
            len.as_deref().unwrap_or(""),
            render_in(of, pointee)
        ),
        Ty::Function {
            ret,
            params,
            variadic,
        } => {
            let mut list: Vec<String> = params.iter().map(render).collect();
            if *variadic {
                list.push("...".into());
            }
            format!("{} ({})", render(ret), list.join(", "))
        }
    }
}

/// The canonical text of a struct or union body: `{ u32 a; ptr char b; u8 c : 3; }`.
pub(crate) fn render_fields(fields: &[Field]) -> String {
    let mut s = String::from("{");
    for f in fields {
        s.push(' ');
        s.push_str(&render(&f.ty));
        if let Some(n) = &f.name {
            s.push(' ');
            s.push_str(n);
        }
        if let Some(w) = &f.width {
            s.push_str(" : ");
            s.push_str(w);
        }
        s.push(';');
    }
    s.push_str(" }");
    s
}

/// A parameter's type after C's adjustments: arrays and functions become pointers.
fn decay(ty: Ty) -> Ty {
    match ty {
        Ty::Array { of, .. } => Ty::Pointer {
            to: of,
            konst: false,
        },
        f @ Ty::Function { .. } => Ty::Pointer {
            to: Box::new(f),
            konst: false,
        },
        other => other,
    }
}

/// Reads one file-scope declaration (its tokens, attributes already dropped, without the
/// final `;`). `None`: a shape this reader does not model.
pub(crate) fn parse_declaration(tokens: &[Token], env: &mut Env<'_>) -> Option<Declaration> {
    let mut p = Parser {
        tokens,
        pos: 0,
        env,
        definitions: Vec::new(),
    };
    let (base, storage) = p.specifiers()?;
    let mut declarators = Vec::new();
    if p.pos < tokens.len() {
        loop {
            let d = p.declarator()?;
            declarators.push(d.apply(base.clone()));
            if p.eat(",") {
                continue;
            }
            break;
        }
    }
    if p.pos != tokens.len() {
        return None;
    }
    Some(Declaration {
        storage,
        declarators,
        definitions: p.definitions,
    })
}

/// A declarator's structure before the base type is known.
struct Declarator {
    /// The `*`s before it, each with whether it is `* const`.
    pointers: Vec<bool>,
    inner: Inner,
    suffixes: Vec<Suffix>,
}

enum Inner {
    Name(Option<String>),
    Nested(Box<Declarator>),
}

enum Suffix {
    Array(Option<String>),
    Function(Vec<Ty>, bool),
}

impl Declarator {
    fn apply(self, base: Ty) -> (Option<String>, Ty) {
        let mut ty = base;
        for konst in self.pointers {
            ty = Ty::Pointer {
                to: Box::new(ty),
                konst,
            };
        }
        for suffix in self.suffixes.into_iter().rev() {
            ty = match suffix {
                Suffix::Array(len) => Ty::Array {
                    of: Box::new(ty),
                    len,
                },
                Suffix::Function(params, variadic) => Ty::Function {
                    ret: Box::new(ty),
                    params,
                    variadic,
                },
            };
        }
        match self.inner {
            Inner::Name(name) => (name, ty),
            Inner::Nested(d) => d.apply(ty),
        }
    }
}

struct Parser<'t, 'e, 'l> {
    tokens: &'t [Token],
    pos: usize,
    env: &'e mut Env<'l>,
    definitions: Vec<Definition>,
}

impl Parser<'_, '_, '_> {
    fn peek(&self) -> Option<&str> {
        self.tokens.get(self.pos).map(|t| t.text.as_str())
    }

    fn peek_at(&self, ahead: usize) -> Option<&str> {
        self.tokens.get(self.pos + ahead).map(|t| t.text.as_str())
    }

    fn eat(&mut self, s: &str) -> bool {
        let hit = self.peek() == Some(s);
        if hit {
            self.pos += 1;
        }
        hit
    }

    /// The tokens between the bracket at the cursor and its match; the cursor moves past.
    fn group(&mut self) -> Option<&[Token]> {
        let open = self.pos;
        let mut depth = 0usize;
        for (i, t) in self.tokens.iter().enumerate().skip(open) {
            match t.text.as_str() {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        self.pos = i + 1;
                        return Some(&self.tokens[open + 1..i]);
                    }
                }
                _ => {}
            }
        }
        None
    }

    /// Declaration specifiers: the base type (with its `const`) and the storage class.
    fn specifiers(&mut self) -> Option<(Ty, Storage)> {
        let mut storage = Storage::default();
        let mut konst = false;
        let mut words: Vec<&str> = Vec::new();
        let mut named: Option<Ty> = None;
        while let Some(t) = self.peek() {
            let t = t.to_owned();
            match t.as_str() {
                "typedef" => storage.typedef = true,
                "static" | "inline" | "__inline" | "__inline__" => storage.local = true,
                "const" | "__const" => konst = true,
                w if is_dropped(w) || Marker::from_token(w).is_some() => {}
                w if PRIMITIVE_TYPE_WORDS.contains(&w) && named.is_none() => {
                    let w = PRIMITIVE_TYPE_WORDS.iter().find(|p| **p == w)?;
                    words.push(w);
                }
                "struct" | "union" | "enum" if named.is_none() && words.is_empty() => {
                    self.pos += 1;
                    named = Some(self.tagged(&t)?);
                    continue;
                }
                w if is_ident(w) && named.is_none() && words.is_empty() => {
                    let name = standard_typedef(w).unwrap_or(w);
                    named = Some(Ty::Named {
                        name: name.to_owned(),
                        konst: false,
                    });
                }
                _ => break,
            }
            self.pos += 1;
        }
        let mut base = match (named, words.is_empty()) {
            (Some(ty), true) => ty,
            (None, false) => Ty::Named {
                name: primitive(&words)?.to_owned(),
                konst: false,
            },
            _ => return None,
        };
        match &mut base {
            Ty::Named { konst: k, .. } | Ty::Anonymous { konst: k, .. } => *k |= konst,
            _ => {}
        }
        Some((base, storage))
    }

    /// After `struct` / `union` / `enum`: the tag, the body if any.
    fn tagged(&mut self, kind: &str) -> Option<Ty> {
        let kind: &'static str = match kind {
            "struct" => "struct",
            "union" => "union",
            _ => "enum",
        };
        let tag = match self.peek() {
            Some(w) if is_ident(w) => {
                let w = w.to_owned();
                self.pos += 1;
                Some(w)
            }
            _ => None,
        };
        if self.peek() != Some("{") {
            let tag = tag?;
            return Some(Ty::Named {
                name: format!("{kind} {tag}"),
                konst: false,
            });
        }
        let body = self.group()?.to_vec();
        if kind == "enum" {
            let enumerators = enumerators(&body)?;
            self.definitions.push(Definition::Enum {
                tag: tag.clone(),
                enumerators,
            });
            return Some(Ty::Named {
                name: tag.map_or_else(|| "enum".to_owned(), |t| format!("enum {t}")),
                konst: false,
            });
        }
        let fields = self.fields(&body)?;
        Some(match tag {
            Some(tag) => {
                self.definitions.push(Definition::Record {
                    kind,
                    tag: tag.clone(),
                    fields,
                });
                Ty::Named {
                    name: format!("{kind} {tag}"),
                    konst: false,
                }
            }
            None => Ty::Anonymous {
                kind,
                fields,
                konst: false,
            },
        })
    }

    /// The members of a struct or union body.
    fn fields(&mut self, body: &[Token]) -> Option<Vec<Field>> {
        let mut fields = Vec::new();
        let mut start = 0;
        let mut depth = 0usize;
        for (i, t) in body.iter().enumerate() {
            match t.text.as_str() {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => depth = depth.checked_sub(1)?,
                ";" if depth == 0 => {
                    self.member(&body[start..i], &mut fields)?;
                    start = i + 1;
                }
                _ => {}
            }
        }
        body[start..].is_empty().then_some(fields)
    }

    /// One member declaration (`int a, *b;`, `unsigned x : 3;`, `union { … };`).
    fn member(&mut self, tokens: &[Token], out: &mut Vec<Field>) -> Option<()> {
        let mut sub = Parser {
            tokens,
            pos: 0,
            env: self.env,
            definitions: Vec::new(),
        };
        let (base, storage) = sub.specifiers()?;
        if storage != Storage::default() {
            return None;
        }
        if sub.pos == tokens.len() {
            match &base {
                // An anonymous struct / union member.
                Ty::Anonymous { .. } => out.push(Field {
                    ty: base,
                    name: None,
                    width: None,
                }),
                // A nested tag declaration or definition declares no member.
                Ty::Named { name, .. }
                    if ["struct ", "union ", "enum"]
                        .iter()
                        .any(|k| name.starts_with(k)) => {}
                // A lone name (a macro such as `DOCA_STRUCT_START` that expands to a
                // member): what it adds is not known, so the body is not read.
                _ => return None,
            }
        } else {
            loop {
                let (name, ty) = if sub.peek() == Some(":") {
                    (None, base.clone())
                } else {
                    sub.declarator()?.apply(base.clone())
                };
                let width = if sub.eat(":") {
                    let from = sub.pos;
                    while sub.peek().is_some_and(|t| t != ",") {
                        sub.pos += 1;
                    }
                    Some(sub.env.constant(&tokens[from..sub.pos]))
                } else {
                    None
                };
                out.push(Field { ty, name, width });
                if !sub.eat(",") {
                    break;
                }
            }
        }
        let done = sub.pos == tokens.len();
        self.definitions.append(&mut sub.definitions);
        done.then_some(())
    }

    /// A declarator, abstract or not.
    fn declarator(&mut self) -> Option<Declarator> {
        let mut pointers = Vec::new();
        while self.eat("*") {
            let mut konst = false;
            while let Some(q) = self.peek() {
                match q {
                    "const" | "__const" => konst = true,
                    q if is_dropped(q) => {}
                    _ => break,
                }
                self.pos += 1;
            }
            pointers.push(konst);
        }
        let inner = match self.peek() {
            Some("(") if self.starts_nested_declarator() => {
                self.pos += 1;
                let d = self.declarator()?;
                if !self.eat(")") {
                    return None;
                }
                Inner::Nested(Box::new(d))
            }
            Some(w) if is_ident(w) && !PRIMITIVE_TYPE_WORDS.contains(&w) => {
                let w = w.to_owned();
                self.pos += 1;
                Inner::Name(Some(w))
            }
            _ => Inner::Name(None),
        };
        let mut suffixes = Vec::new();
        loop {
            match self.peek() {
                Some("[") => {
                    let inside = self.group()?.to_vec();
                    let len = (!inside.is_empty()).then(|| self.env.constant(&inside));
                    suffixes.push(Suffix::Array(len));
                }
                Some("(") => {
                    let inside = self.group()?.to_vec();
                    let (params, variadic) = self.params(&inside)?;
                    suffixes.push(Suffix::Function(params, variadic));
                }
                _ => break,
            }
        }
        Some(Declarator {
            pointers,
            inner,
            suffixes,
        })
    }

    /// Whether the `(` at the cursor opens a nested declarator (`(*cb)`, `(name)`) rather
    /// than a parameter list (`(void)`, `(int x)`, `()`).
    fn starts_nested_declarator(&self) -> bool {
        match self.peek_at(1) {
            Some("*" | "(" | "^") => true,
            Some(w) if is_ident(w) => {
                self.peek_at(2) == Some(")")
                    && !PRIMITIVE_TYPE_WORDS.contains(&w)
                    && standard_typedef(w).is_none()
                    && !matches!(w, "const" | "struct" | "union" | "enum")
            }
            _ => false,
        }
    }

    /// A parameter list: the parameter types (adjusted) and whether it ends in `...`.
    fn params(&mut self, inside: &[Token]) -> Option<(Vec<Ty>, bool)> {
        if inside.is_empty() || (inside.len() == 1 && inside[0].is("void")) {
            return Some((Vec::new(), false));
        }
        let mut params = Vec::new();
        let mut variadic = false;
        for part in split_top_level_commas(inside) {
            if variadic {
                return None;
            }
            if part.len() == 1 && part[0].is("...") {
                variadic = true;
                continue;
            }
            let mut sub = Parser {
                tokens: part,
                pos: 0,
                env: self.env,
                definitions: Vec::new(),
            };
            let (base, storage) = sub.specifiers()?;
            if storage.typedef || storage.local {
                return None;
            }
            let (_, ty) = sub.declarator()?.apply(base);
            if sub.pos != part.len() {
                return None;
            }
            params.push(decay(ty));
        }
        Some((params, variadic))
    }
}

/// The enumerators of an enum body: names and the tokens of explicit values.
fn enumerators(body: &[Token]) -> Option<Vec<(String, Option<Vec<Token>>)>> {
    let mut out = Vec::new();
    for part in split_top_level_commas(body) {
        match part {
            [] => {}
            [name] if name.is_ident() => out.push((name.text.clone(), None)),
            [name, eq, value @ ..] if name.is_ident() && eq.is("=") && !value.is_empty() => {
                out.push((name.text.clone(), Some(value.to_vec())))
            }
            _ => return None,
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dpa_app::parse::tokenize;

    fn decl(text: &str) -> Option<Declaration> {
        let lookup = |n: &str| (n == "N").then(|| Value::fitting(16)).flatten();
        let mut env = Env {
            lookup: &lookup,
            unresolved: BTreeSet::new(),
        };
        parse_declaration(&tokenize(text), &mut env)
    }

    fn ty(text: &str) -> String {
        let d = decl(text).unwrap_or_else(|| panic!("{text} does not parse"));
        render(&d.declarators[0].1)
    }

    #[test]
    fn primitive_spellings() {
        for (a, b) in [
            ("unsigned int x", "uint32_t x"),
            ("unsigned x", "uint32_t x"),
            ("int x", "signed x"),
            ("signed int x", "int32_t x"),
            ("long x", "int64_t x"),
            ("long int x", "long long x"),
            ("unsigned long x", "uint64_t x"),
            ("unsigned long long x", "long unsigned int x"),
            ("short x", "int16_t x"),
            ("unsigned short int x", "uint16_t x"),
            ("signed char x", "int8_t x"),
            ("unsigned char x", "uint8_t x"),
            ("_Bool x", "bool x"),
            ("size_t x", "uintptr_t x"),
            ("ssize_t x", "ptrdiff_t x"),
            ("__be16 x", "uint16_t x"),
        ] {
            assert_eq!(ty(a), ty(b), "{a} / {b}");
        }
        assert_eq!(ty("char x"), "char");
        assert_ne!(ty("char x"), ty("signed char x"));
        assert_ne!(ty("int x"), ty("unsigned x"));
        assert_ne!(ty("long x"), ty("int x"));
        assert!(decl("unsigned signed x").is_none());
    }

    #[test]
    fn declarators() {
        assert_eq!(ty("const char *p"), "ptr const char");
        assert_eq!(ty("char const *p"), "ptr const char");
        assert_eq!(ty("char *const p"), "ptr char");
        assert_eq!(ty("char *const *p"), "ptr const ptr char");
        assert_eq!(ty("const int x"), "i32");
        assert_eq!(ty("int *a[3]"), "[3] ptr i32");
        assert_eq!(ty("int (*a)[N]"), "ptr [16] i32");
        assert_eq!(ty("int a[2][3]"), "[2] [3] i32");
        assert_eq!(
            ty("void (*cb)(const union doca_data d, struct doca_ctx *ctx)"),
            "ptr (void (union doca_data, ptr struct doca_ctx))"
        );
        assert_eq!(ty("int f(void)"), "i32 ()");
        assert_eq!(ty("int f()"), "i32 ()");
        assert_eq!(ty("int f(int, ...)"), "i32 (i32, ...)");
        assert_eq!(
            ty("int f(char s[8], int g(int))"),
            "i32 (ptr char, ptr (i32 (i32)))"
        );
        assert_eq!(ty("int f(const char s[])"), "i32 (ptr const char)");
        assert_eq!(ty("void (doca_dpa_func_t)(void)"), "void ()");
        assert_eq!(
            ty("int (*f(int x))(long)"),
            "ptr (i32 (i64)) (i32)",
            "a function returning a function pointer"
        );
        assert_eq!(
            ty("doca_error_t f(doca_dpa_func_t *func)"),
            "doca_error_t (ptr doca_dpa_func_t)"
        );
        let d = decl(
            "typedef struct doca_x { int a; unsigned b : 3; union { int c; long d; }; } doca_x_t",
        )
        .unwrap();
        assert!(d.storage.typedef);
        assert_eq!(render(&d.declarators[0].1), "struct doca_x");
        assert_eq!(
            d.definitions,
            vec![Definition::Record {
                kind: "struct",
                tag: "doca_x".into(),
                fields: match decl(
                    "struct doca_x { int a; unsigned b : 3; union { int c; long d; }; }"
                )
                .unwrap()
                .definitions
                .remove(0)
                {
                    Definition::Record { fields, .. } => fields,
                    other => panic!("{other:?}"),
                },
            }]
        );
        if let Definition::Record { fields, .. } = &d.definitions[0] {
            assert_eq!(
                render_fields(fields),
                "{ i32 a; u32 b : 3; union { i32 c; i64 d; }; }"
            );
        }
    }

    #[test]
    fn unknown_sizes_are_kept_as_text() {
        let lookup = |_: &str| None;
        let mut env = Env {
            lookup: &lookup,
            unresolved: BTreeSet::new(),
        };
        let d =
            parse_declaration(&tokenize("struct g { uint8_t raw[DOCA_LEN]; }"), &mut env).unwrap();
        let Definition::Record { fields, .. } = &d.definitions[0] else {
            panic!()
        };
        assert_eq!(render_fields(fields), "{ [DOCA_LEN] u8 raw; }");
        assert!(env.unresolved.contains("DOCA_LEN"));
    }

    #[test]
    fn shapes_not_modelled() {
        for text in [
            "DOCA_STATIC_ASSERT(sizeof(int) == 4)",
            "int",
            "int x = 3",
            "struct { int a }",
            "int f(int x",
            "int f(..., int)",
            "a b c",
            "enum e { A B }",
            "}",
        ] {
            // Either refused or read: never a panic. The first ones are refused.
            let _ = decl(text);
        }
        assert!(decl("int x = 3").is_none());
        // A member hidden behind a macro makes the body unreadable, not shorter.
        assert!(decl("struct s { DOCA_STRUCT_START; int a; }").is_none());
        assert!(decl("struct s { struct inner { int b; }; int a; }").is_some());
        assert!(decl("enum e { A B }").is_none());
        assert!(decl("int f(..., int)").is_none());
    }
}
