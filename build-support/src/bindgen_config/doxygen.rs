//! Doxygen comments (as DOCA writes them) to rustdoc markdown.
//!
//! Handled: `@brief`, `@details`, `@param [in] x` / `@param[out] x` / `@param x`,
//! `@return(s)`, `@retval`, `@note`, `@warning`, `@attention`, `@deprecated`, `@see`/`@sa`,
//! `@code`…`@endcode`, inline `@ref x` / `@p x` / `@c x` / `@a x` / `@b x`, and group
//! markers (`@{`, `@}`, `@ingroup`, `@defgroup`, `@addtogroup`, `@file`), which are
//! dropped. Both `@cmd` and `\cmd` spellings are accepted.
//!
//! Any other command makes [`convert`] return `None`; [`to_markdown`] then falls back to
//! the raw text in a `text` code block, so a comment is never lost, never turned into a
//! doctest, and never a panic.

/// The comment as rustdoc markdown: the converted text when [`convert`] succeeds, the raw
/// text in a fenced `text` block otherwise. Never panics.
pub fn to_markdown(raw: &str) -> String {
    let converted = std::panic::catch_unwind(|| convert(raw)).ok().flatten();
    match converted {
        Some(text) => text,
        None => fence_raw(raw),
    }
}

/// The raw text in a fenced `text` block (longer fence than any backtick run inside).
pub fn fence_raw(raw: &str) -> String {
    let mut longest = 0usize;
    let mut run = 0usize;
    for c in raw.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}text\n{}\n{fence}", raw.trim_end())
}

#[derive(Default)]
struct Doc {
    description: Vec<String>,
    params: Vec<(String, Option<String>, Vec<String>)>,
    returns: Vec<String>,
    notes: Vec<(&'static str, Vec<String>)>,
    see: Vec<String>,
}

#[derive(Clone, Copy, PartialEq)]
enum Section {
    Description,
    Param,
    Returns,
    Note,
}

/// Converts a doxygen comment to markdown; `None` when it uses a command this converter
/// does not know (the caller then keeps the raw text).
pub fn convert(raw: &str) -> Option<String> {
    let mut doc = Doc::default();
    let mut section = Section::Description;
    let mut in_code = false;
    let mut first = true;
    for line in raw.lines() {
        let mut line = line.trim();
        if first {
            // Trailing member comments (`/**< text */`) keep the `<`.
            line = line.strip_prefix('<').map(str::trim_start).unwrap_or(line);
            first = false;
        }
        if in_code {
            if command(line).is_some_and(|(c, _)| c == "endcode") {
                in_code = false;
                push_line(&mut doc, section, "```".to_owned());
            } else {
                push_line(&mut doc, section, line.to_owned());
            }
            continue;
        }
        if line.is_empty() {
            // A blank line ends a parameter / return / note block.
            if section != Section::Description {
                section = Section::Description;
            }
            doc.description.push(String::new());
            continue;
        }
        match command(line) {
            None => {
                let text = inline(line)?;
                push_line(&mut doc, section, text);
            }
            Some((cmd, rest)) => match cmd {
                "brief" | "short" | "details" | "par" => {
                    section = Section::Description;
                    if !rest.is_empty() {
                        doc.description.push(inline(rest)?);
                    }
                }
                "param" | "tparam" => {
                    let (dir, rest) = param_direction(rest)?;
                    let mut words = rest.splitn(2, char::is_whitespace);
                    let name = words.next().filter(|n| !n.is_empty())?;
                    let text = words.next().unwrap_or("").trim();
                    let mut lines = Vec::new();
                    if !text.is_empty() {
                        lines.push(inline(text)?);
                    }
                    doc.params.push((name.to_owned(), dir, lines));
                    section = Section::Param;
                }
                "return" | "returns" | "result" => {
                    section = Section::Returns;
                    if !rest.is_empty() {
                        doc.returns.push(inline(rest)?);
                    }
                }
                "retval" => {
                    section = Section::Returns;
                    let mut words = rest.splitn(2, char::is_whitespace);
                    let value = words.next().unwrap_or("");
                    let text = inline(words.next().unwrap_or("").trim())?;
                    doc.returns
                        .push(format!("- `{value}` {text}").trim_end().to_owned());
                }
                "note" | "remark" | "remarks" | "warning" | "attention" | "deprecated" => {
                    let label = match cmd {
                        "warning" | "attention" => "Warning",
                        "deprecated" => "Deprecated",
                        _ => "Note",
                    };
                    let mut lines = Vec::new();
                    if !rest.is_empty() {
                        lines.push(inline(rest)?);
                    }
                    doc.notes.push((label, lines));
                    section = Section::Note;
                }
                "see" | "sa" => doc.see.push(inline(rest)?),
                "code" => {
                    in_code = true;
                    push_line(&mut doc, section, "```c".to_owned());
                }
                "{" | "}" | "ingroup" | "defgroup" | "addtogroup" | "file" | "internal"
                | "endinternal" | "private" | "public" => {}
                _ => return None,
            },
        }
    }
    if in_code {
        // An unterminated code block: close it rather than swallow the rest of the docs.
        push_line(&mut doc, section, "```".to_owned());
    }
    Some(render(&doc))
}

/// `@cmd rest` / `\cmd rest` at the start of `line`.
fn command(line: &str) -> Option<(&str, &str)> {
    let body = line.strip_prefix('@').or_else(|| line.strip_prefix('\\'))?;
    if let Some(rest) = body.strip_prefix('{') {
        return Some(("{", rest.trim()));
    }
    if let Some(rest) = body.strip_prefix('}') {
        return Some(("}", rest.trim()));
    }
    let end = body
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(body.len());
    if end == 0 {
        return None;
    }
    let (cmd, rest) = body.split_at(end);
    Some((cmd, rest.trim()))
}

/// Strips `[in]`, `[out]`, `[in,out]`, `[in/out]` from the start of a `@param` body.
fn param_direction(rest: &str) -> Option<(Option<String>, &str)> {
    let rest = rest.trim_start();
    let Some(after) = rest.strip_prefix('[') else {
        return Some((None, rest));
    };
    let close = after.find(']')?;
    let dir: String = after[..close]
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase()
        .replace('/', ",");
    if !matches!(dir.as_str(), "in" | "out" | "in,out" | "out,in") {
        return None;
    }
    let dir = if dir == "out,in" {
        "in,out".to_owned()
    } else {
        dir
    };
    Some((Some(dir), after[close + 1..].trim_start()))
}

fn push_line(doc: &mut Doc, section: Section, text: String) {
    match section {
        Section::Description => doc.description.push(text),
        Section::Param => match doc.params.last_mut() {
            Some(p) => p.2.push(text),
            None => doc.description.push(text),
        },
        Section::Returns => doc.returns.push(text),
        Section::Note => match doc.notes.last_mut() {
            Some(n) => n.1.push(text),
            None => doc.description.push(text),
        },
    }
}

/// Escapes markdown, and converts inline commands. `None` for an unknown inline command.
fn inline(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len() + 8);
    let mut rest = text;
    let mut line_start = true;
    while let Some(c) = rest.chars().next() {
        if c == '@' || c == '\\' {
            if let Some((cmd, after)) = split_inline_command(rest) {
                match cmd {
                    "ref" | "p" | "c" | "a" | "e" | "em" | "b" => {
                        let after = after.trim_start();
                        let end = after
                            .find(|ch: char| {
                                !(ch.is_ascii_alphanumeric() || ch == '_' || ch == ':')
                            })
                            .unwrap_or(after.len());
                        let (word, tail) = after.split_at(end);
                        if word.is_empty() {
                            return None;
                        }
                        if cmd == "b" {
                            out.push_str(&format!("**{word}**"));
                        } else {
                            out.push_str(&format!("`{word}`"));
                        }
                        rest = tail;
                        line_start = false;
                        continue;
                    }
                    "n" => {
                        out.push_str("  \n");
                        rest = after;
                        continue;
                    }
                    _ if c == '\\' => {
                        // A backslash that is not a known command: keep it literally.
                        out.push_str("\\\\");
                        rest = &rest[1..];
                        continue;
                    }
                    _ => return None,
                }
            }
        }
        match c {
            '[' | ']' | '<' | '>' | '*' | '`' | '|' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '#' if line_start => out.push_str("\\#"),
            _ => out.push(c),
        }
        if !c.is_whitespace() {
            line_start = false;
        }
        rest = &rest[c.len_utf8()..];
    }
    Some(out)
}

/// `@word…` / `\word…` at the start of `text` → (word, rest after it).
fn split_inline_command(text: &str) -> Option<(&str, &str)> {
    let body = &text[1..];
    let end = body
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(body.len());
    if end == 0 {
        return None;
    }
    Some((&body[..end], &body[end..]))
}

fn render(doc: &Doc) -> String {
    let mut blocks: Vec<String> = Vec::new();
    let desc = paragraphs(&doc.description);
    if !desc.is_empty() {
        blocks.push(desc);
    }
    for (label, lines) in &doc.notes {
        let body = lines.join("\n");
        blocks.push(
            format!("**{label}:** {}", body.trim())
                .trim_end()
                .to_owned(),
        );
    }
    if !doc.params.is_empty() {
        let mut s = String::from("# Parameters\n");
        for (name, dir, lines) in &doc.params {
            let dir = dir.as_ref().map(|d| format!(" ({d})")).unwrap_or_default();
            s.push_str(&format!("\n* `{name}`{dir}"));
            let mut first = true;
            for l in lines.iter().filter(|l| !l.trim().is_empty()) {
                if first {
                    s.push_str(" - ");
                    s.push_str(l);
                    first = false;
                } else {
                    s.push_str("\n  ");
                    s.push_str(l);
                }
            }
        }
        blocks.push(s);
    }
    if !doc.returns.is_empty() {
        let body = doc
            .returns
            .iter()
            .filter(|l| !l.trim().is_empty())
            .cloned()
            .collect::<Vec<_>>()
            .join("\n");
        if !body.is_empty() {
            blocks.push(format!("# Returns\n\n{body}"));
        }
    }
    if !doc.see.is_empty() {
        blocks.push(format!("See also: {}", doc.see.join(", ")));
    }
    blocks.join("\n\n")
}

/// Joins description lines, collapsing runs of blank lines.
fn paragraphs(lines: &[String]) -> String {
    let mut out: Vec<&str> = Vec::new();
    for l in lines {
        if l.trim().is_empty() && out.last().is_none_or(|p| p.trim().is_empty()) {
            continue;
        }
        out.push(l);
    }
    while out.last().is_some_and(|l| l.trim().is_empty()) {
        out.pop();
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOCA_STYLE: &str = "@brief Create a DOCA DPA context.\n\n\
        @param [in] dev\n\
        DOCA device.\n\
        @param[out] dpa\n\
        The created context.\n\n\
        @return\n\
        DOCA_SUCCESS - in case of success.\n\
        doca_error code - in case of failure:\n\
        - DOCA_ERROR_INVALID_VALUE - received invalid input.\n\
        - DOCA_ERROR_NO_MEMORY - failed to alloc @ref doca_dpa.\n\n\
        @note Call doca_dpa_set_app() before doca_dpa_start().";

    #[test]
    fn converts_doca_style() {
        let md = convert(DOCA_STYLE).unwrap();
        assert!(md.starts_with("Create a DOCA DPA context."), "{md}");
        assert!(md.contains("# Parameters"), "{md}");
        assert!(md.contains("* `dev` (in) - DOCA device."), "{md}");
        assert!(md.contains("* `dpa` (out) - The created context."), "{md}");
        assert!(
            md.contains("# Returns\n\nDOCA_SUCCESS - in case of success."),
            "{md}"
        );
        assert!(
            md.contains("\n- DOCA_ERROR_INVALID_VALUE - received invalid input."),
            "{md}"
        );
        assert!(md.contains("failed to alloc `doca_dpa`."), "{md}");
        assert!(
            md.contains("**Note:** Call doca_dpa_set_app() before doca_dpa_start()."),
            "{md}"
        );
        assert_eq!(to_markdown(DOCA_STYLE), md);
    }

    #[test]
    fn escapes_markdown() {
        let md = convert("Pass a struct doca_dev *dev [in] <stdint.h> | x").unwrap();
        assert_eq!(
            md,
            "Pass a struct doca_dev \\*dev \\[in\\] \\<stdint.h\\> \\| x"
        );
        assert_eq!(convert("# not a heading").unwrap(), "\\# not a heading");
        assert_eq!(convert("< Success").unwrap(), "Success");
    }

    #[test]
    fn code_blocks_are_c() {
        let md = convert("@brief Example.\n@code\nint x = 1;\n@endcode\nAfter.").unwrap();
        assert!(md.contains("```c\nint x = 1;\n```\nAfter."), "{md}");
        let md = convert("@code\nunterminated").unwrap();
        assert!(md.ends_with("```"), "{md}");
    }

    #[test]
    fn unknown_commands_fall_back_to_raw() {
        let raw = "@brief X\n@mystery thing [in]";
        assert_eq!(convert(raw), None);
        let md = to_markdown(raw);
        assert!(md.starts_with("```text\n@brief X"), "{md}");
        assert!(md.ends_with("\n```"));
        let with_fence = "@unknown ```` code";
        let md = to_markdown(with_fence);
        assert!(md.starts_with("`````text\n"), "{md}");
    }

    #[test]
    fn odd_inputs_never_panic() {
        let long = "@".repeat(10_000);
        let inputs: Vec<&str> = vec![
            "",
            " ",
            "@",
            "\\",
            "@param",
            "@param [in]",
            "@param [",
            "@param [sideways] x",
            "@param [in] x",
            "@return",
            "@retval",
            "@ref",
            "text @ref",
            "text @p",
            "@{",
            "@}",
            "@code",
            "@endcode",
            "ünïcödé @b wörd",
            "\\brief backslash style\n\\param[in,out] y the y",
            "@brief\n\n\n\n",
            "a\\nb",
            "trailing backslash \\",
            "@@@@",
            "**/ */ /*",
            &long,
        ];
        for raw in inputs {
            let md = to_markdown(raw);
            // Whatever happened, the result is text; a fallback keeps the raw content.
            if convert(raw).is_none() {
                assert!(md.contains(raw.trim_end()));
            }
        }
        let md = convert("\\brief backslash style\n\\param[in,out] y the y").unwrap();
        assert!(md.contains("* `y` (in,out) - the y"), "{md}");
    }

    #[test]
    fn retval_and_groups() {
        let md = convert("@{\n@brief B\n@retval DOCA_SUCCESS on success\n@}").unwrap();
        assert_eq!(md, "B\n\n# Returns\n\n- `DOCA_SUCCESS` on success");
        let md = convert("@param x no direction\n@see doca_dpa_start").unwrap();
        assert!(md.contains("* `x` - no direction"));
        assert!(md.contains("See also: doca_dpa_start"));
    }
}
