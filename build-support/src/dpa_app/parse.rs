//! Finding the device functions of a DPA source: every `__dpa_global__` (kernel or DPA
//! thread entry point) and `__dpa_rpc__` (RPC) function *definition*, with the C type of
//! each parameter.
//!
//! It reads the sources as the C preprocessor leaves them (`cc -E`, see
//! [`expand`](super::expand)): only the branch of each `#if` the compiler compiles is
//! there, macros are expanded (the two markers excepted, which the scan's prelude keeps),
//! and linemarkers say which file and line each token comes from. The scanner splits
//! that text into tokens and looks at file-scope declarations that are followed by a
//! `{`. What it understands is checked by the compiler afterwards: the generated
//! `_Static_assert`s ([`declaration_asserts`](super::host_decls::declaration_asserts))
//! fail the build if a prototype or a struct layout was read wrong. A marker that is not part of a
//! function definition (`} __dpa_global__;` closing a struct shared by host and device, a
//! prototype ending in `;`) is ignored. Parameters the software DPA cannot pass are
//! refused with a [`DpaAppError`] that names the file, the function and the parameter.

use std::path::{Path, PathBuf};

use super::error::{DpaAppError, ParamRefusal};

/// Most parameters a device function may have in the software DPA
/// (`DOCA_SIM_MAX_KERNEL_ARGS` of `doca_sim_app.h`).
pub const MAX_KERNEL_ARGS: usize = 32;

/// The marker of kernels and DPA thread entry points.
const GLOBAL_MARKER: &str = "__dpa_global__";
/// The marker of RPC functions.
const RPC_MARKER: &str = "__dpa_rpc__";

/// What kind of device function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FunctionKind {
    /// `__dpa_global__`: launched by `doca_dpa_kernel_launch_update_*`, or run by a DPA
    /// thread (`DOCA_SIM_KERNEL_GLOBAL`).
    Global,
    /// `__dpa_rpc__`: called by `doca_dpa_rpc`, returns a `uint64_t`
    /// (`DOCA_SIM_KERNEL_RPC`).
    Rpc,
}

impl FunctionKind {
    /// The `doca_sim_app.h` constant.
    pub fn sim_constant(self) -> &'static str {
        match self {
            FunctionKind::Global => "DOCA_SIM_KERNEL_GLOBAL",
            FunctionKind::Rpc => "DOCA_SIM_KERNEL_RPC",
        }
    }
}

/// One parameter of a device function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    /// Its C type: the declaration without the name and without top-level qualifiers
    /// (`const uint64_t *` for `const uint64_t *const p`, `uint32_t` for `const uint32_t n`).
    pub c_type: String,
    /// Its name, when it has one.
    pub name: Option<String>,
}

/// A `__dpa_global__` or `__dpa_rpc__` function defined in a source file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceFunction {
    /// Its C name (the host-side symbol and the name in the application table).
    pub name: String,
    /// Kernel/thread entry or RPC.
    pub kind: FunctionKind,
    /// The return type as written (without the marker and storage classes).
    pub return_type: String,
    /// The parameters, in order (empty for `(void)` and `()`).
    pub params: Vec<Param>,
    /// The source file.
    pub file: std::path::PathBuf,
    /// The line of the function's name (1-based).
    pub line: usize,
}

/// A token of C text (an identifier, a number, a string or character literal, `...` or
/// one punctuation character).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Token {
    pub(crate) text: String,
    pub(crate) line: usize,
    /// Index into [`Lexed::files`] of the file the token comes from (0: the file the
    /// text was read from, until a linemarker names another).
    pub(crate) file: usize,
}

impl Token {
    pub(crate) fn is(&self, s: &str) -> bool {
        self.text == s
    }

    pub(crate) fn is_ident(&self) -> bool {
        is_ident(&self.text)
    }
}

pub(crate) fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// The tokens of C text, with the files linemarkers name.
pub(crate) struct Lexed {
    pub(crate) tokens: Vec<Token>,
    /// The file of each token's `file` index: `files[0]` is the text's own file.
    pub(crate) files: Vec<PathBuf>,
    /// In preprocessor output with `-dD`: each `#define NAME body` (`Some(body)`) and
    /// `#undef NAME` (`None`), in order.
    pub(crate) macros: Vec<(String, Option<String>)>,
}

/// The tokens of `text`: preprocessor output (or C without comments and directives),
/// read a line at a time. A line starting with `#` is a linemarker (`# 12 "k.c" 2`: the
/// next line is line 12 of `k.c`), a `#define`/`#undef` of `-dD` (kept in
/// [`Lexed::macros`]) or a `#pragma`, and is not tokenized.
pub(crate) fn lex(file: &Path, text: &str) -> Lexed {
    let mut files = vec![file.to_owned()];
    let (mut tokens, mut macros) = (Vec::new(), Vec::new());
    let (mut line, mut current) = (0, 0);
    for text_line in text.lines() {
        line += 1;
        if let Some(directive) = text_line.trim_start().strip_prefix('#') {
            let mut words = directive.split_whitespace();
            match (words.next(), words.next()) {
                (Some(kind @ ("define" | "undef")), Some(_)) => {
                    let rest = directive.trim_start()[kind.len()..].trim_start();
                    let name_end = rest
                        .find(|c: char| !(c == '_' || c.is_ascii_alphanumeric()))
                        .unwrap_or(rest.len());
                    let body = (kind == "define").then(|| rest[name_end..].trim().to_owned());
                    macros.push((rest[..name_end].to_owned(), body));
                }
                (Some(n), Some(name)) if n.parse::<usize>().is_ok() => {
                    let name = PathBuf::from(name.trim_matches('"'));
                    current = files.iter().position(|f| *f == name).unwrap_or_else(|| {
                        files.push(name);
                        files.len() - 1
                    });
                    line = n.parse::<usize>().map_or(0, |n| n.saturating_sub(1));
                }
                _ => {}
            }
            continue;
        }
        let chars: Vec<(usize, char)> = text_line.char_indices().collect();
        let run = |from: usize, keep: &dyn Fn(char) -> bool| {
            from + chars[from..].iter().take_while(|(_, d)| keep(*d)).count()
        };
        let word = |d: char| d == '_' || d == '$' || d.is_ascii_alphanumeric();
        let mut i = 0;
        while let Some(&(start, c)) = chars.get(i) {
            i = if c.is_whitespace() {
                i += 1;
                continue;
            } else if c == '"' || c == '\'' {
                // A literal is one token; it ends at its closing quote or the line's end.
                let mut j = i + 1;
                while chars.get(j).is_some_and(|(_, d)| *d != c) {
                    j += if chars[j].1 == '\\' { 2 } else { 1 };
                }
                (j + 1).min(chars.len())
            } else if word(c) {
                // Numbers may carry dots (1.5, 0x1p3): keep them in one token.
                run(i, &|d| word(d) || (c.is_ascii_digit() && d == '.'))
            } else if text_line[start..].starts_with("...") {
                i + 3
            } else {
                i + 1
            };
            let end = chars.get(i).map_or(text_line.len(), |(e, _)| *e);
            tokens.push(Token {
                text: text_line[start..end].to_owned(),
                line,
                file: current,
            });
        }
    }
    Lexed {
        tokens,
        files,
        macros,
    }
}

/// The words of C's primitive type names (`unsigned long int`, `_Bool`…).
pub(crate) const PRIMITIVE_TYPE_WORDS: &[&str] = &[
    "void",
    "char",
    "short",
    "int",
    "long",
    "float",
    "double",
    "signed",
    "__signed__",
    "unsigned",
    "_Bool",
    "bool",
    "_Complex",
    "__int128",
];

/// Keywords and qualifiers that are part of a type but never a parameter's name.
pub(crate) fn is_type_keyword(word: &str) -> bool {
    PRIMITIVE_TYPE_WORDS.contains(&word)
        || QUALIFIERS.contains(&word)
        || matches!(word, "struct" | "union" | "enum" | "_Atomic")
}

/// Qualifiers that apply to the parameter itself when at top level.
pub(crate) const QUALIFIERS: &[&str] = &[
    "const",
    "volatile",
    "restrict",
    "__restrict",
    "__restrict__",
    "register",
];

/// Words that may precede the return type and are not part of it.
const SPECIFIERS_TO_DROP: &[&str] = &[
    GLOBAL_MARKER,
    RPC_MARKER,
    "static",
    "extern",
    "inline",
    "__inline",
    "__inline__",
];

/// Types narrower than 4 bytes, refused by name (a typedef of one is caught by the
/// generated `_Static_assert`).
const NARROW_TYPES: &[&str] = &[
    "char", "short", "_Bool", "bool", "int8_t", "uint8_t", "int16_t", "uint16_t",
];

/// Removes `__attribute__((…))` / `__attribute((…))` groups.
pub(crate) fn drop_attributes(tokens: &[Token]) -> Vec<Token> {
    let mut out = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i];
        if (t.is("__attribute__") || t.is("__attribute") || t.is("__declspec"))
            && tokens.get(i + 1).is_some_and(|n| n.is("("))
        {
            i = matching(tokens, i + 1, "(", ")") + 1;
            continue;
        }
        out.push(t.clone());
        i += 1;
    }
    out
}

/// Joins type tokens: `const uint64_t *`, `char **`.
fn join_type(tokens: &[&str]) -> String {
    let mut s = tokens.join(" ");
    while s.contains("* *") {
        s = s.replace("* *", "**");
    }
    s
}

pub(crate) fn join_tokens(tokens: &[Token]) -> String {
    tokens
        .iter()
        .map(|t| t.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Splits `tokens` at commas outside any bracket.
pub(crate) fn split_top_level_commas(tokens: &[Token]) -> Vec<&[Token]> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, t) in tokens.iter().enumerate() {
        match t.text.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth -= 1,
            "," if depth == 0 => {
                parts.push(&tokens[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&tokens[start..]);
    parts
}

/// Where a function is, for errors.
struct Site<'a> {
    file: &'a Path,
    line: usize,
    kernel: &'a str,
}

/// Reads one parameter declaration (`const uint64_t *p`).
fn parse_param(site: &Site<'_>, position: usize, tokens: &[Token]) -> Result<Param, DpaAppError> {
    let written = join_tokens(tokens);
    let refuse = |refusal| DpaAppError::UnsupportedParam {
        file: site.file.to_owned(),
        line: site.line,
        kernel: site.kernel.to_owned(),
        position,
        param: written.clone(),
        refusal,
    };
    let texts: Vec<&str> = tokens.iter().map(|t| t.text.as_str()).collect();
    if texts.contains(&"...") {
        return Err(refuse(ParamRefusal::Variadic));
    }
    if texts.contains(&"(") {
        return Err(refuse(ParamRefusal::FunctionPointer));
    }
    if texts.contains(&"[") {
        return Err(refuse(ParamRefusal::Array));
    }
    // The name: a last identifier that is not a type word, after something that is a type.
    let (type_tokens, name) = match texts.split_last() {
        Some((last, rest))
            if is_ident(last)
                && !is_type_keyword(last)
                && rest.iter().any(|t| !QUALIFIERS.contains(t)) =>
        {
            (rest.to_vec(), Some((*last).to_owned()))
        }
        _ => (texts.clone(), None),
    };
    if type_tokens.iter().all(|t| QUALIFIERS.contains(t)) {
        return Err(refuse(ParamRefusal::NoType));
    }
    let is_pointer = type_tokens.contains(&"*");
    if !is_pointer {
        // A `struct` by value passes the parser: whether it can be declared depends on
        // the application's struct definitions (see `host_decls`).
        if type_tokens.contains(&"union") {
            return Err(refuse(ParamRefusal::UnionByValue));
        }
        // `float` and `double` pass (the launcher promotes as C does); `long double`
        // and complex types have no Rust counterpart.
        if type_tokens.contains(&"_Complex")
            || (type_tokens.contains(&"long") && type_tokens.contains(&"double"))
        {
            return Err(refuse(ParamRefusal::FloatingPoint));
        }
        if type_tokens.iter().any(|t| NARROW_TYPES.contains(t)) {
            return Err(refuse(ParamRefusal::Narrow));
        }
    }
    // Drop the qualifiers of the parameter itself: all of them for a non-pointer,
    // those after the last `*` for a pointer.
    let keep_from = type_tokens
        .iter()
        .rposition(|t| *t == "*")
        .map_or(0, |p| p + 1);
    let c_type: Vec<&str> = type_tokens
        .iter()
        .enumerate()
        .filter(|(i, t)| *i < keep_from || !QUALIFIERS.contains(t))
        .map(|(_, t)| *t)
        .collect();
    Ok(Param {
        c_type: join_type(&c_type),
        name,
    })
}

/// Looks at the tokens of a file-scope declaration that a `{` follows; returns the
/// device function it defines, if it is one.
fn parse_header(file: &Path, header: &[Token]) -> Result<Option<DeviceFunction>, DpaAppError> {
    let header = drop_attributes(header);
    let marked = |ts: &[Token]| ts.iter().any(|t| t.is(GLOBAL_MARKER) || t.is(RPC_MARKER));
    if !marked(&header) || !header.iter().any(|t| t.is("(")) {
        // Not a device function (a struct, an initializer, a host helper…).
        return Ok(None);
    }
    let line = header.first().map_or(1, |t| t.line);
    let unsupported = |reason| DpaAppError::UnsupportedDeclaration {
        file: file.to_owned(),
        line,
        text: join_tokens(&header),
        reason,
    };
    // The parameter list is the bracket group that ends the header.
    if !header.last().is_some_and(|t| t.is(")")) {
        return Err(unsupported(
            "unexpected tokens between the parameter list and the body",
        ));
    }
    let mut depth = 0i32;
    let mut open = None;
    for (i, t) in header.iter().enumerate().rev() {
        match t.text.as_str() {
            ")" | "]" => depth += 1,
            "(" | "[" => {
                depth -= 1;
                if depth == 0 {
                    open = Some(i);
                    break;
                }
            }
            _ => {}
        }
    }
    let Some(open) = open.filter(|o| *o > 0) else {
        return Err(unsupported("unbalanced parentheses"));
    };
    let close = header.len() - 1;
    let name_token = &header[open - 1];
    if !name_token.is_ident() || is_type_keyword(&name_token.text) {
        return Err(unsupported("no function name before the parameter list"));
    }
    // The specifiers: what precedes the name, after any earlier bracket group (a
    // file-scope macro call without a semicolon, say).
    let before = &header[..open - 1];
    let from = before
        .iter()
        .rposition(|t| t.is(")") || t.is("]"))
        .map_or(0, |p| p + 1);
    let specs = &before[from..];
    let global = specs.iter().any(|t| t.is(GLOBAL_MARKER));
    let kind = match (global, specs.iter().any(|t| t.is(RPC_MARKER))) {
        (true, false) => FunctionKind::Global,
        (false, true) => FunctionKind::Rpc,
        (false, false) => {
            return Err(unsupported(
                "the marker is not among the specifiers before the function name",
            ))
        }
        (true, true) => return Err(unsupported("both __dpa_global__ and __dpa_rpc__ are given")),
    };
    let return_tokens: Vec<&str> = specs
        .iter()
        .map(|t| t.text.as_str())
        .filter(|t| !SPECIFIERS_TO_DROP.contains(t))
        .collect();
    if return_tokens.is_empty() {
        return Err(unsupported("no return type"));
    }
    let return_type = join_type(&return_tokens);
    let name = name_token.text.clone();
    let site = Site {
        file,
        line: name_token.line,
        kernel: &name,
    };
    if kind == FunctionKind::Rpc && return_type != "uint64_t" {
        return Err(DpaAppError::RpcReturnType {
            file: file.to_owned(),
            line: site.line,
            kernel: name.clone(),
            found: return_type,
        });
    }
    let inner = &header[open + 1..close];
    let mut params = Vec::new();
    let is_void = inner.len() == 1 && inner[0].is("void");
    if !inner.is_empty() && !is_void {
        let parts = split_top_level_commas(inner);
        if parts.len() > MAX_KERNEL_ARGS {
            return Err(DpaAppError::TooManyParams {
                file: file.to_owned(),
                line: site.line,
                kernel: name.clone(),
                count: parts.len(),
                max: MAX_KERNEL_ARGS,
            });
        }
        for (i, part) in parts.iter().enumerate() {
            params.push(parse_param(&site, i + 1, part)?);
        }
    }
    Ok(Some(DeviceFunction {
        line: site.line,
        name,
        kind,
        return_type,
        params,
        file: file.to_owned(),
    }))
}

/// The index of the `}` closing the block whose `{` is at `open` (or the end).
pub(crate) fn matching_brace(tokens: &[Token], open: usize) -> usize {
    matching(tokens, open, "{", "}")
}

/// The index of the `close` token that closes the group whose `open_s` is at `open`
/// (`open` itself when no group opens there; the end when it does not close).
pub(crate) fn matching(tokens: &[Token], open: usize, open_s: &str, close: &str) -> usize {
    let mut depth = 0i32;
    tokens
        .iter()
        .skip(open)
        .position(|t| {
            depth += i32::from(t.is(open_s)) - i32::from(t.is(close));
            depth == 0
        })
        .map_or(tokens.len(), |p| open + p)
}

/// Every `__dpa_global__` and `__dpa_rpc__` function defined in `file`, in source
/// order, from `text`: the preprocessor's output for it (`cc -E` with the prelude of
/// [`write_scan_prelude`](super::write_scan_prelude)), or C text without comments and
/// directives. Definitions the linemarkers place in another
/// file (a header the source includes) are not the source's.
///
/// Errors: a parameter the software DPA cannot pass ([`DpaAppError::UnsupportedParam`]),
/// more than [`MAX_KERNEL_ARGS`] parameters, an RPC not returning `uint64_t`, a marked
/// definition the scanner cannot read, or the same function defined twice.
pub fn parse_device_functions(file: &Path, text: &str) -> Result<Vec<DeviceFunction>, DpaAppError> {
    let Lexed { tokens, .. } = lex(file, text);
    let mut found: Vec<DeviceFunction> = Vec::new();
    for st in statements(&tokens) {
        // A definition the linemarkers place in a header is not the source's.
        if st.head.last().is_none_or(|t| t.file != 0) {
            continue;
        }
        if let Some(f) = parse_header(file, st.head)? {
            if let Some(prev) = found.iter().find(|p| p.name == f.name) {
                return Err(DpaAppError::DuplicateKernel {
                    name: f.name.clone(),
                    first: prev.file.clone(),
                    second: f.file.clone(),
                });
            }
            found.push(f);
        }
    }
    Ok(found)
}

/// A file-scope statement with a brace group: the tokens before its first `{` (`head`),
/// the inside of that group (`body`) and, unless the group was a function's body, the
/// tokens after it up to the `;` ending the statement (`tail`: a struct's declarators
/// and attributes).
struct Statement<'a> {
    head: &'a [Token],
    body: &'a [Token],
    tail: &'a [Token],
}

/// The file-scope statements of `tokens` that have a brace group, in order.
fn statements(tokens: &[Token]) -> Vec<Statement<'_>> {
    let mut out = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < tokens.len() {
        if tokens[i].is(";") {
            start = i + 1;
        } else if tokens[i].is("{") {
            let head = &tokens[start..i];
            let close = matching_brace(tokens, i);
            let body = &tokens[i + 1..close.max(i + 1)];
            // A function's body (after its parameter list) ends the definition.
            let end = if drop_attributes(head).last().is_some_and(|t| t.is(")")) {
                close.min(tokens.len())
            } else {
                let semi = tokens[close.min(tokens.len())..]
                    .iter()
                    .position(|t| t.is(";"));
                semi.map_or(tokens.len(), |p| close + p)
            };
            let tail = &tokens[(close + 1).min(end)..end];
            out.push(Statement { head, body, tail });
            (start, i) = (end + 1, end);
        }
        i += 1;
    }
    out
}

/// One field of a struct defined in a source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// Its C type, without qualifiers.
    pub c_type: String,
    /// Its name.
    pub name: String,
}

/// A `struct NAME { … };` defined at file scope in a source, whose fields are all
/// plain declarations (no arrays, bit-fields, nested or anonymous members).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StructDef {
    /// The struct tag.
    pub name: String,
    /// The name a `typedef struct NAME { … } ALIAS;` gives it.
    pub alias: Option<String>,
    /// The fields, in order.
    pub fields: Vec<Field>,
    /// The source file.
    pub file: std::path::PathBuf,
    /// The line of the tag.
    pub line: usize,
}

fn parse_field(tokens: &[Token]) -> Option<Field> {
    let texts: Vec<&str> = tokens
        .iter()
        .map(|t| t.text.as_str())
        .filter(|t| !QUALIFIERS.contains(t))
        .collect();
    if texts
        .iter()
        .any(|t| matches!(*t, "[" | "(" | ":" | "{" | "," | "="))
    {
        return None;
    }
    let (name, ty) = texts.split_last()?;
    if !is_ident(name) || is_type_keyword(name) || ty.is_empty() {
        return None;
    }
    Some(Field {
        c_type: join_type(ty),
        name: (*name).to_owned(),
    })
}

/// Attribute names that change a struct's layout from the one its fields give.
const LAYOUT_ATTRIBUTES: &[&str] = &["packed", "__packed__", "aligned", "__aligned__"];

/// Every file-scope `struct NAME { … }` definition of `text` (as for
/// [`parse_device_functions`]; `file` is the file of text before any linemarker) whose
/// members are all plain fields, in order, each with the file and line the linemarkers
/// give. Others (with arrays, bit-fields, unions…) are skipped: they simply get no Rust
/// declaration; so do structs laid out by a `packed` or `aligned` attribute.
pub fn parse_structs(file: &Path, text: &str) -> Vec<StructDef> {
    let Lexed { tokens, files, .. } = lex(file, text);
    let mut found = Vec::new();
    for st in statements(&tokens) {
        let typedef = st.head.first().is_some_and(|t| t.is("typedef"));
        let [.., keyword, name] = st.head else {
            continue;
        };
        if !keyword.is("struct") || st.head.len() != 2 + usize::from(typedef) || !name.is_ident() {
            continue;
        }
        let mut parts: Vec<&[Token]> = st.body.split(|t| t.is(";")).collect();
        // The last part is what follows the last member's `;`: nothing, for plain fields.
        let trailing = parts.pop().is_some_and(|rest| !rest.is_empty());
        let fields: Option<Vec<Field>> = parts.into_iter().map(parse_field).collect();
        let alias = match st.tail {
            [alias] if typedef && alias.is_ident() => Some(alias.text.clone()),
            _ => None,
        };
        // `} __attribute__((packed, aligned(8)));` (NVIDIA's initiator-target samples'
        // thread arguments) lays the struct out otherwise than its fields say: no
        // Rust declaration is made for it, as for a struct whose fields cannot be read.
        let relaid = st
            .tail
            .iter()
            .any(|t| LAYOUT_ATTRIBUTES.contains(&t.text.as_str()));
        if let Some(fields) = fields.filter(|f| !f.is_empty() && !trailing && !relaid) {
            found.push(StructDef {
                name: name.text.clone(),
                alias,
                fields,
                file: files[name.file].clone(),
                line: name.line,
            });
        }
    }
    found
}

#[cfg(test)]
pub(crate) mod tests;
