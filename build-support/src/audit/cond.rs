//! The preprocessor conditionals of a header, as far as they can be decided without a
//! compiler: which lines the C preprocessor would drop when bindgen parses the header
//! for a given target.
//!
//! DOCA declares some functions only on one platform (`doca_pe.h`:
//! `doca_pe_get_notification_handle` under `#ifdef __linux__`,
//! `doca_pe_set_notification_handle` under `#ifdef _WIN32`). A text scan that ignored the
//! conditionals would count the Windows one as declared on Linux, where the library does
//! not export it, and the audit would report an install as inconsistent.
//!
//! The evaluation is three-valued. A condition is *known* only when it depends on nothing
//! but macros whose state is certain: the target's platform macros, the defines bindgen
//! is given ([`BINDGEN_DEFINES`]), `__cplusplus` (bindgen parses C) and macros `#define`d
//! or `#undef`ined earlier in the same text. Anything else (a macro from another header,
//! a comparison, arithmetic) is unknown, and the lines under an unknown condition are
//! kept: only a branch that is certainly inactive is dropped, so the scan never loses a
//! declaration the compiler would see.

use std::collections::BTreeSet;

use super::scan::blank_comments;

/// The macros bindgen defines for every DOCA header (`-D` arguments); the bindgen
/// configuration uses this list too.
pub const BINDGEN_DEFINES: &[&str] = &["DOCA_ALLOW_EXPERIMENTAL_API", "DOCA_ALLOW_DEPRECATED_API"];

/// Which macros are certainly defined and certainly undefined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conditions {
    defined: BTreeSet<String>,
    undefined: BTreeSet<String>,
}

/// Platform macros, by the `target_os` that defines them.
const PLATFORM_MACROS: &[(&str, &[&str])] = &[
    ("linux", &["__linux__", "__linux", "__unix__", "__unix"]),
    ("windows", &["_WIN32"]),
    ("macos", &["__APPLE__", "__MACH__"]),
];

impl Conditions {
    /// What the preprocessor knows when bindgen parses C for `target_os` (cargo's
    /// `CARGO_CFG_TARGET_OS` value: `linux`, `windows`, …): that target's platform
    /// macros and [`BINDGEN_DEFINES`] are defined, the other platforms' macros and
    /// `__cplusplus` are not. An unlisted target knows only the latter two.
    pub fn for_target_os(target_os: &str) -> Self {
        let mut defined: BTreeSet<String> =
            BINDGEN_DEFINES.iter().map(|s| (*s).to_owned()).collect();
        let mut undefined: BTreeSet<String> = BTreeSet::from(["__cplusplus".to_owned()]);
        for (os, macros) in PLATFORM_MACROS {
            let set = if *os == target_os {
                &mut defined
            } else {
                &mut undefined
            };
            set.extend(macros.iter().map(|m| (*m).to_owned()));
        }
        Conditions { defined, undefined }
    }

    /// Whether the state of `name` is taken as certain (defined or undefined) when a
    /// header starts: a header that `#define`s or `#undef`s it changes what the
    /// headers after it see, which a per-header reading cannot follow.
    pub fn is_assumed(&self, name: &str) -> bool {
        self.defined.contains(name) || self.undefined.contains(name)
    }

    /// [`Conditions::for_target_os`] of the platform this code runs on.
    pub fn for_host() -> Self {
        Self::for_target_os(std::env::consts::OS)
    }

    fn state(&self, name: &str) -> Tri {
        if self.defined.contains(name) {
            Tri::True
        } else if self.undefined.contains(name) {
            Tri::False
        } else {
            Tri::Unknown
        }
    }

    fn set(&mut self, name: &str, state: Tri) {
        self.defined.remove(name);
        self.undefined.remove(name);
        match state {
            Tri::True => self.defined.insert(name.to_owned()),
            Tri::False => self.undefined.insert(name.to_owned()),
            Tri::Unknown => false,
        };
    }
}

/// A three-valued truth.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tri {
    True,
    False,
    Unknown,
}

impl Tri {
    fn not(self) -> Tri {
        match self {
            Tri::True => Tri::False,
            Tri::False => Tri::True,
            Tri::Unknown => Tri::Unknown,
        }
    }

    fn and(self, other: Tri) -> Tri {
        match (self, other) {
            (Tri::False, _) | (_, Tri::False) => Tri::False,
            (Tri::True, Tri::True) => Tri::True,
            _ => Tri::Unknown,
        }
    }

    fn or(self, other: Tri) -> Tri {
        self.not().and(other.not()).not()
    }
}

/// One open `#if` group.
struct Group {
    /// Whether the current branch is taken.
    branch: Tri,
    /// Whether some branch so far was taken.
    taken: Tri,
}

/// `text` without its comments, and with every line that is certainly inactive under
/// `cond` blanked (newlines kept, so line numbers stay valid). Directives themselves
/// are kept; [`super::scan_declarations`] ignores them.
pub fn blank_inactive(text: &str, cond: &Conditions) -> String {
    let clean = blank_comments(text);
    let mut cond = cond.clone();
    let mut groups: Vec<Group> = Vec::new();
    let mut out = String::with_capacity(clean.len());
    let mut lines = clean.split_inclusive('\n');
    while let Some(first) = lines.next() {
        let outer = groups.iter().fold(Tri::True, |acc, g| acc.and(g.branch));
        let mut logical = vec![first];
        if first.trim_start().starts_with('#') {
            // A directive may continue over several lines.
            let continues = |l: &str| l.trim_end_matches(['\n', '\r', ' ', '\t']).ends_with('\\');
            while logical.last().is_some_and(|l| continues(l)) {
                match lines.next() {
                    Some(l) => logical.push(l),
                    None => break,
                }
            }
            let joined: String = logical
                .iter()
                .map(|l| l.trim_end_matches(['\n', '\r']).trim_end_matches('\\'))
                .collect::<Vec<_>>()
                .join(" ");
            directive(&joined, &mut groups, &mut cond, outer);
        }
        for l in logical {
            if outer == Tri::False {
                out.extend(l.chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
            } else {
                out.push_str(l);
            }
        }
    }
    out
}

/// Applies one directive (`#` included, continuations joined) to the group stack and the
/// macro states; `outer` is whether the enclosing region is active.
fn directive(line: &str, groups: &mut Vec<Group>, cond: &mut Conditions, outer: Tri) {
    let body = line.trim_start().trim_start_matches('#').trim_start();
    let (word, rest) = body
        .split_once(|c: char| c.is_whitespace() || c == '(')
        .map(|(w, _)| (w, &body[w.len()..]))
        .unwrap_or((body, ""));
    let first_name = |rest: &str| -> String {
        rest.trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let open = |groups: &mut Vec<Group>, value: Tri| {
        groups.push(Group {
            branch: value,
            taken: value,
        })
    };
    match word {
        "if" => open(groups, eval(rest, cond)),
        "ifdef" => open(groups, cond.state(&first_name(rest))),
        "ifndef" => open(groups, cond.state(&first_name(rest)).not()),
        "elif" | "elifdef" | "elifndef" => {
            if let Some(g) = groups.last_mut() {
                let value = match word {
                    "elif" => eval(rest, cond),
                    "elifdef" => cond.state(&first_name(rest)),
                    _ => cond.state(&first_name(rest)).not(),
                };
                g.branch = g.taken.not().and(value);
                g.taken = g.taken.or(value);
            }
        }
        "else" => {
            if let Some(g) = groups.last_mut() {
                g.branch = g.taken.not();
                g.taken = Tri::True;
            }
        }
        "endif" => {
            groups.pop();
        }
        // In a region that may or may not be active, the macro's state becomes unknown.
        "define" if outer != Tri::False => cond.set(&first_name(rest), outer),
        "undef" if outer != Tri::False => cond.set(&first_name(rest), outer.not()),
        _ => {}
    }
}

/// A token of a `#if` expression.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Ident(String),
    Number(u64),
    Not,
    And,
    Or,
    Open,
    Close,
    /// Anything this evaluator does not model (comparisons, arithmetic, …).
    Other,
}

fn tokens(expr: &str) -> Vec<Token> {
    let chars: Vec<char> = expr.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let (token, len) = match (c, next) {
            ('&', Some('&')) => (Token::And, 2),
            ('|', Some('|')) => (Token::Or, 2),
            ('!', Some('=')) => (Token::Other, 2),
            ('!', _) => (Token::Not, 1),
            ('(', _) => (Token::Open, 1),
            (')', _) => (Token::Close, 1),
            _ if c.is_ascii_alphabetic() || c == '_' => {
                let word: String = chars[i..]
                    .iter()
                    .take_while(|c| c.is_ascii_alphanumeric() || **c == '_')
                    .collect();
                let len = word.chars().count();
                (Token::Ident(word), len)
            }
            _ if c.is_ascii_digit() => {
                let word: String = chars[i..]
                    .iter()
                    .take_while(|c| c.is_ascii_alphanumeric())
                    .collect();
                let len = word.chars().count();
                let digits = word.trim_end_matches(['u', 'U', 'l', 'L']);
                let value = match digits.strip_prefix("0x").or(digits.strip_prefix("0X")) {
                    Some(hex) => u64::from_str_radix(hex, 16).ok(),
                    None => digits.parse().ok(),
                };
                (value.map_or(Token::Other, Token::Number), len)
            }
            _ => (Token::Other, 1),
        };
        out.push(token);
        i += len;
    }
    out
}

/// The value of a `#if` expression, [`Tri::Unknown`] when it uses anything not modelled.
fn eval(expr: &str, cond: &Conditions) -> Tri {
    let toks = tokens(expr);
    let mut p = Parser {
        toks: &toks,
        pos: 0,
        cond,
    };
    match p.or() {
        Some(v) if p.pos == toks.len() => v,
        _ => Tri::Unknown,
    }
}

/// Recursive descent over `||`, `&&`, `!`, parentheses, `defined`, numbers and names.
/// `None`: the expression has a shape not modelled.
struct Parser<'a> {
    toks: &'a [Token],
    pos: usize,
    cond: &'a Conditions,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.toks.get(self.pos)
    }

    fn eat(&mut self, t: &Token) -> bool {
        let hit = self.peek() == Some(t);
        if hit {
            self.pos += 1;
        }
        hit
    }

    fn or(&mut self) -> Option<Tri> {
        let mut v = self.and()?;
        while self.eat(&Token::Or) {
            v = v.or(self.and()?);
        }
        Some(v)
    }

    fn and(&mut self) -> Option<Tri> {
        let mut v = self.unary()?;
        while self.eat(&Token::And) {
            v = v.and(self.unary()?);
        }
        Some(v)
    }

    fn unary(&mut self) -> Option<Tri> {
        if self.eat(&Token::Not) {
            return Some(self.unary()?.not());
        }
        self.primary()
    }

    fn primary(&mut self) -> Option<Tri> {
        let t = self.peek()?.clone();
        self.pos += 1;
        match t {
            Token::Open => {
                let v = self.or()?;
                self.eat(&Token::Close).then_some(v)
            }
            Token::Number(n) => Some(if n == 0 { Tri::False } else { Tri::True }),
            Token::Ident(name) if name == "defined" => {
                let paren = self.eat(&Token::Open);
                let Some(Token::Ident(m)) = self.peek().cloned() else {
                    return None;
                };
                self.pos += 1;
                if paren && !self.eat(&Token::Close) {
                    return None;
                }
                Some(self.cond.state(&m))
            }
            // A macro used for its value: 0 when certainly undefined, else its value is
            // not known here.
            Token::Ident(name) => Some(match self.cond.state(&name) {
                Tri::False => Tri::False,
                _ => Tri::Unknown,
            }),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::scan::scan_declarations;

    fn names(text: &str, os: &str) -> Vec<String> {
        scan_declarations(&blank_inactive(text, &Conditions::for_target_os(os)))
            .into_iter()
            .map(|d| d.name)
            .collect()
    }

    const PE: &str = "#ifndef PE_H_\n#define PE_H_\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\
        DOCA_STABLE int a(void);\n\
        #ifdef __linux__\nDOCA_STABLE\nint on_linux(int *fd);\n#endif /* __linux__ */\n\
        #ifdef _WIN32\nDOCA_STABLE int on_windows(int fd,\n    long key);\n#endif\n\
        DOCA_STABLE int b(void);\n#ifdef __cplusplus\n}\n#endif\n#endif\n";

    #[test]
    fn platform_conditionals() {
        assert_eq!(names(PE, "linux"), ["a", "on_linux", "b"]);
        assert_eq!(names(PE, "windows"), ["a", "on_windows", "b"]);
        assert_eq!(names(PE, "macos"), ["a", "b"]);
        // Without the evaluation both count as declared.
        assert_eq!(scan_declarations(PE).len(), 4);
        // Line numbers survive the blanking.
        let d = scan_declarations(&blank_inactive(PE, &Conditions::for_target_os("linux")));
        assert_eq!(d[1].line, 9);
    }

    #[test]
    fn else_elif_and_expressions() {
        let text = "#if defined(_WIN32) && !defined(DOCA_ALLOW_EXPERIMENTAL_API)\nint w(void);\n\
            #elif defined __linux__ || defined(__unix__)\nint l(void);\n#else\nint o(void);\n#endif\n\
            #if !(defined(__cplusplus))\nint c(void);\n#endif\n\
            #if 0\nint zero(void);\n#elif 0x1\nint one(void);\n#endif\n\
            #ifndef _WIN32\nint not_win(void);\n#else\nint win(void);\n#endif\n";
        assert_eq!(names(text, "linux"), ["l", "c", "one", "not_win"]);
        assert_eq!(names(text, "windows"), ["o", "c", "one", "win"]);
    }

    #[test]
    fn unknown_conditions_keep_their_lines() {
        let text = "#ifdef SOME_FEATURE\nint f(void);\n#else\nint g(void);\n#endif\n\
            #if SOME_VERSION >= 3\nint h(void);\n#endif\n\
            #if defined(X) && defined(_WIN32)\nint known_false(void);\n#endif\n\
            #if defined(X) || defined(__linux__)\nint known_true(void);\n#else\nint dropped(void);\n#endif\n\
            #if UNDEFINED_THING\nint maybe(void);\n#elif defined(__linux__)\nint maybe_too(void);\n#else\nint never(void);\n#endif\n";
        assert_eq!(
            names(text, "linux"),
            ["f", "g", "h", "known_true", "maybe", "maybe_too"]
        );
    }

    #[test]
    fn defines_in_the_text_count() {
        let text = "#define HAVE_X 1\n#ifdef HAVE_X\nint x(void);\n#endif\n#undef HAVE_X\n\
            #ifdef HAVE_X\nint gone(void);\n#endif\n\
            #undef WIN_ONLY\n#ifdef _WIN32\n#define WIN_ONLY\n#endif\n#ifdef WIN_ONLY\nint w(void);\n#endif\n\
            #ifdef MAYBE\n#define PERHAPS\n#endif\n#ifdef PERHAPS\nint p(void);\n#endif\n";
        assert_eq!(names(text, "linux"), ["x", "p"]);
        assert_eq!(names(text, "windows"), ["x", "w", "p"]);
    }

    #[test]
    fn continued_directives_and_comments() {
        let text = "#if defined(__linux__) && \\\n    defined(_WIN32)\nint both(void);\n#endif\n\
            /* #ifdef _WIN32 in a comment is no directive */\nint kept(void);\n\
            #ifdef _WIN32 // trailing comment\nint w(void);\n#endif\n";
        assert_eq!(names(text, "linux"), ["kept"]);
    }

    #[test]
    fn unbalanced_input_does_not_panic() {
        for text in [
            "#endif\nint a(void);\n",
            "#else\n#elif 1\nint b(void);\n",
            "#if (\n",
            "#if defined(\n#endif\n",
            "#ifdef\n#endif\n",
        ] {
            let _ = names(text, "linux");
        }
        assert_eq!(names("#endif\nint a(void);\n", "linux"), ["a"]);
    }
}
