//! Integer constant expressions of C headers (enumerator values, array sizes, macro
//! values), evaluated with C's types on LP64: `int` and `unsigned int` of 32 bits,
//! `long` and `unsigned long` of 64, the usual arithmetic conversions, and results
//! wrapped to their type (`~0U` is 4294967295, not -1).
//!
//! What is modelled: integer literals (decimal, hex, octal, binary, with `u`/`U`/`l`/`L`
//! suffixes), parentheses, unary `+ - ~ !`, binary `* / % + - << >> & ^ |`, and names
//! whose value the caller knows (earlier enumerators, integer object macros). Anything
//! else (casts, `sizeof`, comparisons, character literals, function-like macro calls) is
//! [`ExprError::Malformed`]: bindgen's macro evaluation does not turn those into
//! constants either.

use crate::dpa_app::parse::Token;

/// An integer constant with its C type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Value {
    /// The mathematical value (already wrapped to the type).
    pub(crate) value: i128,
    /// Whether the type is unsigned.
    pub(crate) unsigned: bool,
    /// The width of the type: 32 (`int`) or 64 (`long`).
    pub(crate) bits: u32,
}

impl Value {
    /// An `int` constant if `value` fits one, else the first of `unsigned int`, `long`,
    /// `unsigned long` that holds it (how an enumerator or a decimal literal is typed).
    pub(crate) fn fitting(value: i128) -> Option<Value> {
        [(false, 32), (true, 32), (false, 64), (true, 64)]
            .into_iter()
            .map(|(unsigned, bits)| Value {
                value,
                unsigned,
                bits,
            })
            .find(|v| v.wrapped() == value)
    }

    fn wrapped(self) -> i128 {
        let modulus = 1i128 << self.bits;
        let low = self.value.rem_euclid(modulus);
        if !self.unsigned && low >= modulus / 2 {
            low - modulus
        } else {
            low
        }
    }

    fn of_type(value: i128, unsigned: bool, bits: u32) -> Value {
        let v = Value {
            value,
            unsigned,
            bits,
        };
        Value {
            value: v.wrapped(),
            ..v
        }
    }
}

/// Why an expression has no value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ExprError {
    /// Well formed, but uses names whose value is not known (sorted, deduplicated).
    Unknown(Vec<String>),
    /// Not an integer constant expression this evaluator models.
    Malformed,
}

/// The value of `tokens`; `lookup` gives the value of a name.
pub(crate) fn evaluate(
    tokens: &[Token],
    lookup: &dyn Fn(&str) -> Option<Value>,
) -> Result<Value, ExprError> {
    let mut p = Parser {
        tokens,
        pos: 0,
        lookup,
        unknown: Vec::new(),
    };
    let v = p.binary(0).ok_or(ExprError::Malformed)?;
    if p.pos != tokens.len() {
        return Err(ExprError::Malformed);
    }
    if !p.unknown.is_empty() {
        p.unknown.sort();
        p.unknown.dedup();
        return Err(ExprError::Unknown(p.unknown));
    }
    v.ok_or(ExprError::Malformed)
}

/// The value of an integer literal token (`13`, `0xd`, `015`, `13U`, `1UL`).
fn literal(text: &str) -> Option<Value> {
    let lower = text.to_ascii_lowercase();
    let digits = lower.trim_end_matches(['u', 'l']);
    let suffix = &lower[digits.len()..];
    if !matches!(suffix, "" | "u" | "l" | "ul" | "lu" | "ll" | "ull" | "llu") {
        return None;
    }
    let (radix, body) = if let Some(hex) = digits.strip_prefix("0x") {
        (16, hex)
    } else if let Some(bin) = digits.strip_prefix("0b") {
        (2, bin)
    } else if digits.len() > 1 && digits.starts_with('0') {
        (8, &digits[1..])
    } else {
        (10, digits)
    };
    let value = u64::from_str_radix(body, radix).ok()? as i128;
    let unsigned_suffix = suffix.contains('u');
    let long_suffix = suffix.contains('l');
    // C11 6.4.4.1: the first type of the literal's list that holds the value; a
    // decimal literal without `u` never becomes unsigned.
    let candidates: &[(bool, u32)] = match (unsigned_suffix, long_suffix, radix == 10) {
        (false, false, true) => &[(false, 32), (false, 64)],
        (false, false, false) => &[(false, 32), (true, 32), (false, 64), (true, 64)],
        (true, false, _) => &[(true, 32), (true, 64)],
        (false, true, true) => &[(false, 64)],
        (false, true, false) => &[(false, 64), (true, 64)],
        (true, true, _) => &[(true, 64)],
    };
    candidates
        .iter()
        .map(|&(unsigned, bits)| Value {
            value,
            unsigned,
            bits,
        })
        .find(|v| v.wrapped() == value)
}

struct Parser<'a> {
    tokens: &'a [Token],
    pos: usize,
    lookup: &'a dyn Fn(&str) -> Option<Value>,
    unknown: Vec<String>,
}

/// Binary operators by precedence level (lowest first), as token sequences.
const LEVELS: &[&[&str]] = &[
    &["|"],
    &["^"],
    &["&"],
    &["<<", ">>"],
    &["+", "-"],
    &["*", "/", "%"],
];

impl<'a> Parser<'a> {
    fn peek(&self, ahead: usize) -> Option<&'a str> {
        self.tokens.get(self.pos + ahead).map(|t| t.text.as_str())
    }

    /// The operator of `level` at the cursor (two-character shifts are two tokens).
    fn operator(&self, level: usize) -> Option<&'static str> {
        LEVELS[level].iter().copied().find(|op| match op.len() {
            1 => self.peek(0) == Some(op) && !self.is_doubled(),
            _ => self.peek(0) == Some(&op[..1]) && self.peek(1) == Some(&op[1..]),
        })
    }

    /// `&&`, `||`, `<=`… start with a one-character operator: they are not it.
    fn is_doubled(&self) -> bool {
        matches!(
            (self.peek(0), self.peek(1)),
            (Some("&"), Some("&"))
                | (Some("|"), Some("|"))
                | (Some("<" | ">" | "=" | "!"), Some("="))
        )
    }

    /// `None`: malformed. `Some(None)`: well formed but depends on an unknown name.
    fn binary(&mut self, level: usize) -> Option<Option<Value>> {
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut left = self.binary(level + 1)?;
        while let Some(op) = self.operator(level) {
            self.pos += op.len();
            let right = self.binary(level + 1)?;
            left = match (left, right) {
                (Some(a), Some(b)) => Some(apply(op, a, b)?),
                _ => None,
            };
        }
        Some(left)
    }

    fn unary(&mut self) -> Option<Option<Value>> {
        let op = self.peek(0)?;
        if matches!(op, "-" | "+" | "~" | "!") {
            self.pos += 1;
            let v = self.unary()?;
            return Some(v.map(|v| match op {
                "-" => Value::of_type(-v.value, v.unsigned, v.bits),
                "~" => Value::of_type(!v.value, v.unsigned, v.bits),
                "!" => Value::of_type(i128::from(v.value == 0), false, 32),
                _ => v,
            }));
        }
        self.primary()
    }

    fn primary(&mut self) -> Option<Option<Value>> {
        let token = self.tokens.get(self.pos)?;
        self.pos += 1;
        let text = token.text.as_str();
        if text == "(" {
            let v = self.binary(0)?;
            return (self.peek(0) == Some(")")).then(|| {
                self.pos += 1;
                v
            });
        }
        if text.starts_with(|c: char| c.is_ascii_digit()) {
            return literal(text).map(Some);
        }
        if token.is_ident() && self.peek(0) != Some("(") {
            let v = (self.lookup)(text);
            if v.is_none() {
                self.unknown.push(text.to_owned());
            }
            return Some(v);
        }
        None
    }
}

/// `a op b` with the usual arithmetic conversions; `None` for what C leaves undefined
/// (division by zero, shifts by a negative amount or by the width or more).
fn apply(op: &str, a: Value, b: Value) -> Option<Value> {
    if matches!(op, "<<" | ">>") {
        // The result has the left operand's type.
        if b.value < 0 || b.value >= i128::from(a.bits) {
            return None;
        }
        let v = if op == "<<" {
            a.value << b.value
        } else {
            a.value >> b.value
        };
        return Some(Value::of_type(v, a.unsigned, a.bits));
    }
    let bits = a.bits.max(b.bits);
    let unsigned = match a.bits.cmp(&b.bits) {
        std::cmp::Ordering::Equal => a.unsigned || b.unsigned,
        std::cmp::Ordering::Greater => a.unsigned,
        std::cmp::Ordering::Less => b.unsigned,
    };
    let (x, y) = (
        Value::of_type(a.value, unsigned, bits).value,
        Value::of_type(b.value, unsigned, bits).value,
    );
    let v = match op {
        "|" => x | y,
        "^" => x ^ y,
        "&" => x & y,
        "+" => x + y,
        "-" => x - y,
        // Operands are at most 64 bits wide: the product may leave i128, and only its
        // low 64 bits count after the wrap below.
        "*" => x.wrapping_mul(y),
        "/" | "%" if y == 0 => return None,
        "/" => x / y,
        "%" => x % y,
        _ => return None,
    };
    Some(Value::of_type(v, unsigned, bits))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dpa_app::parse::tokenize;

    fn eval(text: &str) -> Result<i128, ExprError> {
        let lookup = |name: &str| match name {
            "FOUR" => Value::fitting(4),
            _ => None,
        };
        evaluate(&tokenize(text), &lookup).map(|v| v.value)
    }

    #[test]
    fn literals_and_operators() {
        for (text, want) in [
            ("13", 13),
            ("0xd", 13),
            ("015", 13),
            ("13U", 13),
            ("13ul", 13),
            ("0b1101", 13),
            ("0", 0),
            ("(1 << 3) | 5", 13),
            ("1U << 31", 2_147_483_648),
            ("-1", -1),
            ("~0U", 4_294_967_295),
            ("~0", -1),
            ("~0UL", 18_446_744_073_709_551_615),
            ("2 + 3 * 4 - 1", 13),
            ("(2 + 3) * 4", 20),
            ("FOUR * 3 + 1", 13),
            ("0xff ^ 0xf2", 13),
            ("29 & 15", 13),
            ("52 >> 2", 13),
            ("-FOUR", -4),
            ("0xFFFFFFFF", 4_294_967_295),
            ("-0x80000000", 2_147_483_648),
            ("!0", 1),
            ("27 % 14", 13),
            ("0xFFFFFFFFFFFFFFFF * 0xFFFFFFFFFFFFFFFF", 1),
            ("0xFFFFFFFFFFFFFFFF + 1", 0),
        ] {
            assert_eq!(eval(text), Ok(want), "{text}");
        }
    }

    #[test]
    fn what_is_not_a_value() {
        assert_eq!(
            eval("OTHER + 1"),
            Err(ExprError::Unknown(vec!["OTHER".into()]))
        );
        for text in [
            "",
            "(",
            "1 +",
            "(uint32_t)1",
            "sizeof(int)",
            "F(1)",
            "1 == 1",
            "1 && 1",
            "1 / 0",
            "1 << 32",
            "1 << -1",
            "1.5",
            "12abc",
            "A B",
        ] {
            assert_eq!(eval(text), Err(ExprError::Malformed), "{text}");
        }
    }
}
