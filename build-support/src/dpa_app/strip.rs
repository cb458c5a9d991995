//! Removing what the kernel scanner must not look at: comments, string and character
//! literals, and preprocessor directives.
//!
//! Everything removed is replaced by spaces, except line breaks, which are kept so that
//! line numbers in the result are those of the original text.

/// Returns `text` with comments, string/char literals and preprocessor lines blanked out.
///
/// * `/* … */` and `// …` comments (a `//` comment continued by a trailing backslash
///   goes on to the next line, as in C);
/// * `"…"` and `'…'` literals, escapes included (an unterminated literal ends at the end
///   of its line);
/// * a line whose first token is `#` (only blanks and block comments before it), up to
///   its end, continuation lines included.
pub(crate) fn strip_c(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    // Only blanks and block comments seen since the last line break.
    let mut line_start = true;
    // Inside a preprocessor directive.
    let mut directive = false;

    // Pushes a blank for `c`, keeping line breaks.
    fn blank(out: &mut String, c: char) {
        out.push(if c == '\n' { '\n' } else { ' ' });
    }

    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            '/' if next == Some('*') => {
                out.push_str("  ");
                i += 2;
                while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                    blank(&mut out, chars[i]);
                    i += 1;
                }
                if i < chars.len() {
                    out.push_str("  ");
                    i += 2;
                }
                // A block comment does not end a line start (`/* x */ #define`).
            }
            '/' if next == Some('/') => {
                while i < chars.len() && chars[i] != '\n' {
                    if chars[i] == '\\' && chars.get(i + 1) == Some(&'\n') {
                        out.push_str(" \n");
                        i += 2;
                        continue;
                    }
                    out.push(' ');
                    i += 1;
                }
            }
            '"' | '\'' => {
                out.push(' ');
                i += 1;
                while i < chars.len() && chars[i] != c && chars[i] != '\n' {
                    if chars[i] == '\\' && i + 1 < chars.len() {
                        blank(&mut out, chars[i]);
                        blank(&mut out, chars[i + 1]);
                        i += 2;
                        continue;
                    }
                    out.push(' ');
                    i += 1;
                }
                if i < chars.len() && chars[i] == c {
                    out.push(' ');
                    i += 1;
                }
                line_start = false;
            }
            '\\' if directive && next == Some('\n') => {
                out.push_str(" \n");
                i += 2;
            }
            '\n' => {
                out.push('\n');
                i += 1;
                line_start = true;
                directive = false;
            }
            '#' if line_start => {
                out.push(' ');
                i += 1;
                directive = true;
                line_start = false;
            }
            c if c.is_whitespace() => {
                out.push(c);
                i += 1;
            }
            c => {
                if directive {
                    out.push(' ');
                } else {
                    out.push(c);
                    line_start = false;
                }
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_literals_and_directives() {
        let text = "#include <a.h>\n\
                    /* __dpa_global__ void f(void) { } */\n\
                    // __dpa_rpc__ uint64_t g(void) {\n\
                    const char *s = \"__dpa_global__ \\\" x\";\n\
                    char c = '\\'';\n\
                    #define M(x) \\\n  __dpa_global__ x\n\
                    /* c */ # pragma once\n\
                    int keep;\n";
        let s = strip_c(text);
        assert_eq!(s.lines().count(), text.lines().count());
        assert!(!s.contains("__dpa"), "{s}");
        assert!(!s.contains("include"), "{s}");
        assert!(!s.contains("pragma"), "{s}");
        assert!(s.contains("const char *s ="), "{s}");
        assert!(s.contains("char c ="), "{s}");
        assert!(s.contains("int keep;"), "{s}");
        // Line numbers survive.
        assert_eq!(s.lines().nth(8), Some("int keep;"));
    }

    #[test]
    fn multi_line_block_comment_keeps_lines() {
        let s = strip_c("a /* x\ny\nz */ b\nc");
        assert_eq!(
            s.lines().collect::<Vec<_>>(),
            ["a     ", " ", "     b", "c"]
        );
    }

    #[test]
    fn hash_inside_code_is_kept() {
        // Not at line start: not a directive (would be a syntax error in C, but the
        // stripper must not eat the rest of the line).
        let s = strip_c("int a; # x\n");
        assert!(s.starts_with("int a; # x"));
    }

    #[test]
    fn unterminated_literal_ends_at_line_end() {
        let s = strip_c("x = \"abc\nint y;\n");
        assert!(s.contains("int y;"));
    }
}
