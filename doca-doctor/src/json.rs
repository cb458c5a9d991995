//! A tiny JSON writer: a value tree and its pretty-printed text.
//!
//! Strings are escaped per RFC 8259: `"` and `\` get a backslash, the control
//! characters U+0000–U+001F become `\n`, `\t`, `\r`, `\b`, `\f` or `\u00XX`,
//! and everything else (including non-ASCII) is written as UTF-8. Object keys
//! keep their insertion order.

use std::fmt::Write as _;

/// A JSON value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Json {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A non-negative integer.
    UInt(u64),
    /// A string.
    Str(String),
    /// An array.
    Array(Vec<Json>),
    /// An object, keys in insertion order.
    Object(Vec<(String, Json)>),
}

impl From<bool> for Json {
    fn from(b: bool) -> Self {
        Json::Bool(b)
    }
}

impl From<u64> for Json {
    fn from(n: u64) -> Self {
        Json::UInt(n)
    }
}

impl From<u32> for Json {
    fn from(n: u32) -> Self {
        Json::UInt(n.into())
    }
}

impl From<usize> for Json {
    fn from(n: usize) -> Self {
        Json::UInt(u64::try_from(n).unwrap_or(u64::MAX))
    }
}

impl From<&str> for Json {
    fn from(s: &str) -> Self {
        Json::Str(s.to_owned())
    }
}

impl From<String> for Json {
    fn from(s: String) -> Self {
        Json::Str(s)
    }
}

impl<T: Into<Json>> From<Option<T>> for Json {
    fn from(v: Option<T>) -> Self {
        v.map_or(Json::Null, Into::into)
    }
}

impl<T: Into<Json>> From<Vec<T>> for Json {
    fn from(v: Vec<T>) -> Self {
        Json::Array(v.into_iter().map(Into::into).collect())
    }
}

/// Builds a [`Json::Object`] field by field.
#[derive(Debug, Default)]
pub(crate) struct ObjectBuilder(Vec<(String, Json)>);

impl ObjectBuilder {
    /// An empty object.
    pub(crate) fn new() -> Self {
        ObjectBuilder(Vec::new())
    }

    /// Adds `key: value`.
    pub(crate) fn field(mut self, key: &str, value: impl Into<Json>) -> Self {
        self.0.push((key.to_owned(), value.into()));
        self
    }

    /// The object.
    pub(crate) fn build(self) -> Json {
        Json::Object(self.0)
    }
}

impl Json {
    /// The value as pretty-printed JSON (two-space indent), without a trailing
    /// newline.
    pub(crate) fn to_pretty(&self) -> String {
        let mut out = String::new();
        self.write(&mut out, 0);
        out
    }

    fn write(&self, out: &mut String, indent: usize) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::UInt(n) => {
                let _ = write!(out, "{n}");
            }
            Json::Str(s) => write_string(out, s),
            Json::Array(items) if items.is_empty() => out.push_str("[]"),
            Json::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    newline(out, indent + 1);
                    item.write(out, indent + 1);
                }
                newline(out, indent);
                out.push(']');
            }
            Json::Object(fields) if fields.is_empty() => out.push_str("{}"),
            Json::Object(fields) => {
                out.push('{');
                for (i, (key, value)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    newline(out, indent + 1);
                    write_string(out, key);
                    out.push_str(": ");
                    value.write(out, indent + 1);
                }
                newline(out, indent);
                out.push('}');
            }
        }
    }
}

fn newline(out: &mut String, indent: usize) {
    out.push('\n');
    for _ in 0..indent {
        out.push_str("  ");
    }
}

/// Writes `s` as a quoted, escaped JSON string.
pub(crate) fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quoted(s: &str) -> String {
        let mut out = String::new();
        write_string(&mut out, s);
        out
    }

    #[test]
    fn escapes_quotes_backslashes_and_controls() {
        assert_eq!(quoted("plain"), "\"plain\"");
        assert_eq!(quoted("a\"b"), "\"a\\\"b\"");
        assert_eq!(quoted("C:\\dir"), "\"C:\\\\dir\"");
        assert_eq!(quoted("l1\nl2\r\t"), "\"l1\\nl2\\r\\t\"");
        assert_eq!(quoted("\u{08}\u{0c}"), "\"\\b\\f\"");
        assert_eq!(quoted("\u{0}\u{1}\u{1f}"), "\"\\u0000\\u0001\\u001f\"");
        // DEL and non-ASCII need no escape.
        assert_eq!(quoted("\u{7f}é✓"), "\"\u{7f}é✓\"");
        assert_eq!(quoted("/"), "\"/\"");
        assert_eq!(quoted(""), "\"\"");
    }

    #[test]
    fn scalars() {
        assert_eq!(Json::Null.to_pretty(), "null");
        assert_eq!(Json::from(true).to_pretty(), "true");
        assert_eq!(Json::from(false).to_pretty(), "false");
        assert_eq!(Json::from(0u32).to_pretty(), "0");
        assert_eq!(Json::from(u64::MAX).to_pretty(), "18446744073709551615");
        assert_eq!(Json::from(None::<u32>).to_pretty(), "null");
        assert_eq!(Json::from(Some("x")).to_pretty(), "\"x\"");
    }

    #[test]
    fn empty_containers_stay_on_one_line() {
        assert_eq!(Json::Array(vec![]).to_pretty(), "[]");
        assert_eq!(ObjectBuilder::new().build().to_pretty(), "{}");
    }

    #[test]
    fn nesting_and_order() {
        let v = ObjectBuilder::new()
            .field("b", 1u32)
            .field("a", vec!["x", "y\""])
            .field(
                "o",
                ObjectBuilder::new()
                    .field("k\n", Json::Null)
                    .field("e", Json::Array(vec![]))
                    .build(),
            )
            .build();
        let expected = "{\n  \"b\": 1,\n  \"a\": [\n    \"x\",\n    \"y\\\"\"\n  ],\n  \
                        \"o\": {\n    \"k\\n\": null,\n    \"e\": []\n  }\n}";
        assert_eq!(v.to_pretty(), expected);
    }
}
