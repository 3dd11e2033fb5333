//! Reading manifest YAML the way operator-controller does: YAML 1.1 scalars as
//! `sigs.k8s.io/yaml` over its go-yaml v2 fork resolves them, then the JSON hop that
//! `k8s.io/apimachinery/pkg/util/yaml` (`YAMLOrJSONDecoder` → `yaml.ToJSON`) and
//! `unstructured.UnstructuredJSONScheme` make.
//!
//! Sources (read, not copied): `sigs.k8s.io/yaml` `goyaml.v2/resolve.go` (`resolve`,
//! `resolveTable`, `resolveMapList`, `yamlStyleFloat`), `goyaml.v2/decode.go` (`scalar`:
//! quoted and block scalars are strings, timestamps decoded into `interface{}` stay strings;
//! `isMerge`, `merge`), `yaml.go` (`convertToJSONableObject`: how non-string keys become
//! strings), Go `encoding/json` (`floatEncoder`: an integral float64 below 1e21 is written
//! without a fraction; `+Inf`/`NaN` are refused) and apimachinery `unstructured.go`
//! (`UseNumber`, then `Int64()` before `Float64()`).
//!
//! So a plain `0755` is octal 493, `0x1F` is 31, `+12` is 12, `1_000` is 1000, `yes`/`on`/`y`
//! are `true`, `no`/`off`/`n` are `false`, `~` is null, `.inf` is refused (Go's JSON encoder
//! cannot write it), `08` is 8 (not octal, read as a float), and `755.0` is the integer 755.
//! A quoted or block scalar is always a string.

use std::borrow::Cow;
use std::collections::HashMap;

use base64::Engine as _;
use granit_parser::{Event, Parser, ScalarStyle, ScanError, Span, Tag};
use serde_json::{Map, Number, Value};

/// Why YAML text could not be read as Go would read it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Yaml11Error {
    /// The text is not well-formed YAML.
    #[error("invalid YAML: {0}")]
    Syntax(#[from] ScanError),
    /// A value Go's JSON encoder refuses (`json: unsupported value: +Inf`).
    #[error(
        "line {line} column {column}: {value:?} is not representable in JSON (Go's encoder refuses infinity and NaN)"
    )]
    NonFinite {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The scalar as written.
        value: String,
    },
    /// A scalar with an explicit core tag that does not fit it (go-yaml's `cannot decode`).
    #[error("line {line} column {column}: cannot decode {value:?} as a {tag}")]
    BadTaggedScalar {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The scalar as written.
        value: String,
        /// The tag's short name (`int`, `bool`, …).
        tag: String,
    },
    /// A mapping key sigs.k8s.io/yaml cannot turn into a JSON object key.
    #[error(
        "line {line} column {column}: unsupported map key {key:?} (a mapping key must be a string, number or boolean)"
    )]
    UnsupportedKey {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What the key was.
        key: String,
    },
    /// An alias names no anchor.
    #[error("line {line} column {column}: unknown anchor")]
    UnknownAnchor {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
    },
    /// A merge key (`<<`) whose value is not a mapping or a list of mappings.
    #[error("line {line} column {column}: map merge requires map or sequence of maps as the value")]
    BadMerge {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
    },
}

/// A scalar as go-yaml v2's `resolve` types it, before the JSON hop.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Scalar {
    /// `~`, `null`, empty.
    Null,
    /// YAML 1.1 booleans.
    Bool(bool),
    /// Fits Go's `int` (64-bit).
    Int(i64),
    /// Only fits `uint64`.
    Uint(u64),
    /// A float64.
    Float(f64),
    /// Anything else, and every quoted or block scalar.
    Str(String),
}

/// go-yaml v2 `resolveMapList`.
fn resolve_map(s: &str) -> Option<Scalar> {
    Some(match s {
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            Scalar::Bool(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            Scalar::Bool(false)
        }
        "" | "~" | "null" | "Null" | "NULL" => Scalar::Null,
        ".nan" | ".NaN" | ".NAN" => Scalar::Float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => Scalar::Float(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => Scalar::Float(f64::NEG_INFINITY),
        _ => return None,
    })
}

/// Go `strconv.ParseUint(s, 0, 64)` with its base prefixes (`0x`, `0o`, `0b`, leading `0`
/// for octal). Underscores were already removed by the caller, as go-yaml does.
fn go_parse_uint_base0(s: &str) -> Option<u64> {
    let (radix, digits) = if let Some(r) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        (16, r)
    } else if let Some(r) = s.strip_prefix("0o").or_else(|| s.strip_prefix("0O")) {
        (8, r)
    } else if let Some(r) = s.strip_prefix("0b").or_else(|| s.strip_prefix("0B")) {
        (2, r)
    } else if s.len() > 1 && s.starts_with('0') {
        (8, &s[1..])
    } else {
        (10, s)
    };
    if digits.is_empty() || digits.starts_with(['+', '-']) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

/// Go `strconv.ParseInt(s, 0, 64)`.
fn go_parse_int_base0(s: &str) -> Option<i64> {
    let (neg, rest) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let u = go_parse_uint_base0(rest)?;
    if neg {
        if u <= i64::MAX as u64 + 1 {
            Some((u as i64).wrapping_neg())
        } else {
            None
        }
    } else {
        i64::try_from(u).ok()
    }
}

/// go-yaml v2 `yamlStyleFloat`: `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn yaml_style_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            digits(&mut i);
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// Go `strconv.ParseFloat(s, 64)` for the spellings go-yaml hands it: decimal with optional
/// exponent. An out-of-range value is an error in Go (`ErrRange`), so go-yaml keeps the
/// text as a string.
fn go_parse_float(s: &str) -> Option<f64> {
    let f: f64 = s.parse().ok()?;
    f.is_finite().then_some(f)
}

/// go-yaml v2 `resolve` for an untagged plain scalar.
pub(crate) fn resolve_plain(s: &str) -> Scalar {
    let Some(&first) = s.as_bytes().first() else {
        return Scalar::Null;
    };
    match first {
        b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~' => {
            resolve_map(s).unwrap_or_else(|| Scalar::Str(s.to_owned()))
        }
        b'.' => resolve_map(s)
            .or_else(|| go_parse_dot_float(s).map(Scalar::Float))
            .unwrap_or_else(|| Scalar::Str(s.to_owned())),
        b'+' | b'-' | b'0'..=b'9' => {
            if let Some(v) = resolve_map(s) {
                return v;
            }
            // Timestamps would resolve here, but decoded into interface{} they stay
            // strings (go-yaml v2 decode.go `scalar`), which is what falling through gives.
            let plain: Cow<'_, str> = if s.contains('_') {
                Cow::Owned(s.replace('_', ""))
            } else {
                Cow::Borrowed(s)
            };
            if let Some(i) = go_parse_int_base0(&plain) {
                return Scalar::Int(i);
            }
            if let Some(u) = go_parse_uint_base0(&plain) {
                return Scalar::Uint(u);
            }
            if yaml_style_float(&plain)
                && let Some(f) = go_parse_float(&plain)
            {
                return Scalar::Float(f);
            }
            if let Some(bin) = plain.strip_prefix("0b") {
                if let Ok(i) = i64::from_str_radix(bin, 2) {
                    return Scalar::Int(i);
                }
                if let Ok(u) = u64::from_str_radix(bin, 2) {
                    return Scalar::Uint(u);
                }
            } else if let Some(bin) = plain.strip_prefix("-0b")
                && let Ok(i) = i64::from_str_radix(&format!("-{bin}"), 2)
            {
                return Scalar::Int(i);
            }
            Scalar::Str(s.to_owned())
        }
        _ => Scalar::Str(s.to_owned()),
    }
}

/// The `'.'` hint: `strconv.ParseFloat` on the text as is (`.5`, `.5e3`).
fn go_parse_dot_float(s: &str) -> Option<f64> {
    if yaml_style_float(s) {
        go_parse_float(s)
    } else {
        None
    }
}

/// A float64 after Go's JSON encoder and apimachinery's `Int64()`-first decoding: integral
/// values below 1e21 that fit an int64 come back as integers.
pub(crate) fn go_json_float(f: f64) -> Option<Value> {
    if !f.is_finite() {
        return None;
    }
    if f.fract() == 0.0 && f.abs() < 1e21 && f >= i64::MIN as f64 && f < i64::MAX as f64 {
        return Some(Value::Number(Number::from(f as i64)));
    }
    Number::from_f64(f).map(Value::Number)
}

struct Builder<'a> {
    events: std::iter::Peekable<Parser<'a, granit_parser::StrInput<'a>>>,
    anchors: HashMap<usize, Value>,
}

fn pos(span: &Span) -> (usize, usize) {
    (span.start.line(), span.start.col() + 1)
}

fn tag_name(tag: &Option<Cow<'_, Tag>>) -> Option<String> {
    let t = tag.as_ref()?;
    if t.handle() == "tag:yaml.org,2002:" {
        Some(t.suffix().to_owned())
    } else if t.handle() == "!" && t.suffix().is_empty() {
        // The non-specific tag `!` makes a plain scalar a string.
        Some("str".to_owned())
    } else {
        Some(format!("{}{}", t.handle(), t.suffix()))
    }
}

/// Resolve a scalar event into a JSON value (after the JSON hop). `Ok(None)` never happens
/// for values; keys use [`key_string`].
fn scalar_value(
    value: &str,
    style: ScalarStyle,
    tag: Option<String>,
    span: &Span,
) -> Result<Scalar, Yaml11Error> {
    let (line, column) = pos(span);
    let plain = matches!(style, ScalarStyle::Plain);
    let bad = |t: &str| Yaml11Error::BadTaggedScalar {
        line,
        column,
        value: value.to_owned(),
        tag: t.to_owned(),
    };
    Ok(match tag.as_deref() {
        None if plain => resolve_plain(value),
        None => Scalar::Str(value.to_owned()),
        Some("str") => Scalar::Str(value.to_owned()),
        Some("null") => Scalar::Null,
        Some("binary") => {
            let compact: String = value.chars().filter(|c| !c.is_whitespace()).collect();
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(compact)
                .map_err(|_| bad("binary"))?;
            Scalar::Str(String::from_utf8_lossy(&bytes).into_owned())
        }
        Some(t @ ("bool" | "int" | "float")) => {
            let r = resolve_plain(value);
            match (t, &r) {
                ("bool", Scalar::Bool(_)) | ("int", Scalar::Int(_) | Scalar::Uint(_)) => r,
                ("float", Scalar::Float(_)) => r,
                // go-yaml allows an int where a float is tagged.
                ("float", Scalar::Int(i)) => Scalar::Float(*i as f64),
                ("float", Scalar::Uint(u)) => Scalar::Float(*u as f64),
                _ => return Err(bad(t)),
            }
        }
        // `!!timestamp` and application tags: go-yaml keeps the text.
        Some(_) if plain => match resolve_plain(value) {
            Scalar::Null => Scalar::Null,
            _ => Scalar::Str(value.to_owned()),
        },
        Some(_) => Scalar::Str(value.to_owned()),
    })
}

fn scalar_json(s: Scalar, raw: &str, span: &Span) -> Result<Value, Yaml11Error> {
    Ok(match s {
        Scalar::Null => Value::Null,
        Scalar::Bool(b) => Value::Bool(b),
        Scalar::Int(i) => Value::Number(i.into()),
        // JSON text of a uint64 beyond int64: apimachinery's Int64() fails, Float64() wins.
        Scalar::Uint(u) => go_json_float(u as f64).unwrap_or(Value::Null),
        Scalar::Float(f) => go_json_float(f).ok_or_else(|| {
            let (line, column) = pos(span);
            Yaml11Error::NonFinite {
                line,
                column,
                value: raw.to_owned(),
            }
        })?,
        Scalar::Str(s) => Value::String(s),
    })
}

/// A key after sigs.k8s.io/yaml `convertToJSONableObject`.
fn key_string(s: Scalar, span: &Span) -> Result<String, Yaml11Error> {
    let (line, column) = pos(span);
    Ok(match s {
        Scalar::Str(s) => s,
        Scalar::Int(i) => i.to_string(),
        Scalar::Bool(b) => b.to_string(),
        Scalar::Float(f) => go_format_float32_g(f),
        Scalar::Null => {
            return Err(Yaml11Error::UnsupportedKey {
                line,
                column,
                key: "null".into(),
            });
        }
        Scalar::Uint(u) => {
            return Err(Yaml11Error::UnsupportedKey {
                line,
                column,
                key: u.to_string(),
            });
        }
    })
}

/// `strconv.FormatFloat(f, 'g', -1, 32)` with go-yaml's `.inf`/`.nan` spellings: the
/// shortest text that reads back as the same float32, exponent form for exponents below -4
/// or at least the digit count.
fn go_format_float32_g(f: f64) -> String {
    if f.is_nan() {
        return ".nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { ".inf" } else { "-.inf" }.into();
    }
    let v = f as f32;
    // Rust's `{:e}` gives the shortest round-tripping digits for f32.
    let e = format!("{v:e}");
    let (mantissa, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (neg, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let n = digits.len() as i32;
    // Go: with the shortest precision, %e is chosen when the exponent is below -4 or at
    // least 6 (`fmtG` in strconv/ftoa.go).
    let body = if !(-4..6).contains(&exp) {
        // %e form: d.ddde±XX (at least two exponent digits).
        let mut m = digits[..1].to_owned();
        if n > 1 {
            m.push('.');
            m.push_str(&digits[1..]);
        }
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{m}e{sign}{:02}", exp.abs())
    } else if exp < 0 {
        format!("0.{}{}", "0".repeat((-exp - 1) as usize), digits)
    } else if exp + 1 >= n {
        format!("{}{}", digits, "0".repeat((exp + 1 - n) as usize))
    } else {
        let (a, b) = digits.split_at((exp + 1) as usize);
        format!("{a}.{b}")
    };
    if neg { format!("-{body}") } else { body }
}

impl<'a> Builder<'a> {
    fn next(&mut self) -> Result<Option<(Event<'a>, Span)>, Yaml11Error> {
        match self.events.next() {
            None => Ok(None),
            Some(r) => Ok(Some(r?)),
        }
    }

    /// Read one node whose first event is `ev`.
    fn node(&mut self, ev: Event<'a>, span: Span) -> Result<Value, Yaml11Error> {
        match ev {
            Event::Scalar(value, style, anchor, tag) => {
                let s = scalar_value(&value, style, tag_name(&tag), &span)?;
                let v = scalar_json(s, &value, &span)?;
                if anchor != 0 {
                    self.anchors.insert(anchor, v.clone());
                }
                Ok(v)
            }
            Event::Alias(id) => self.anchors.get(&id).cloned().ok_or_else(|| {
                let (line, column) = pos(&span);
                Yaml11Error::UnknownAnchor { line, column }
            }),
            Event::SequenceStart(_, anchor, _) => {
                let mut items = Vec::new();
                while let Some((ev, sp)) = self.next()? {
                    if matches!(ev, Event::SequenceEnd) {
                        break;
                    }
                    if skip(&ev) {
                        continue;
                    }
                    items.push(self.node(ev, sp)?);
                }
                let v = Value::Array(items);
                if anchor != 0 {
                    self.anchors.insert(anchor, v.clone());
                }
                Ok(v)
            }
            Event::MappingStart(_, anchor, _) => {
                let mut map = Map::new();
                // Keys set by merges are overridden by explicit keys, wherever they stand.
                let mut merged: Vec<Map<String, Value>> = Vec::new();
                while let Some((ev, sp)) = self.next()? {
                    if matches!(ev, Event::MappingEnd) {
                        break;
                    }
                    if skip(&ev) {
                        continue;
                    }
                    let is_merge =
                        matches!(&ev, Event::Scalar(v, ScalarStyle::Plain, _, None) if v == "<<");
                    let key = if is_merge {
                        None
                    } else {
                        Some(self.key(ev, &sp)?)
                    };
                    let (vev, vsp) = loop {
                        let Some((e, s)) = self.next()? else {
                            return Ok(Value::Object(map));
                        };
                        if !skip(&e) {
                            break (e, s);
                        }
                    };
                    let value = self.node(vev, vsp)?;
                    match key {
                        Some(k) => {
                            map.insert(k, value);
                        }
                        None => {
                            let (line, column) = pos(&sp);
                            match value {
                                Value::Object(m) => merged.push(m),
                                Value::Array(items) => {
                                    // go-yaml: earlier maps in the list win.
                                    for item in items.into_iter().rev() {
                                        match item {
                                            Value::Object(m) => merged.push(m),
                                            _ => {
                                                return Err(Yaml11Error::BadMerge { line, column });
                                            }
                                        }
                                    }
                                }
                                _ => return Err(Yaml11Error::BadMerge { line, column }),
                            }
                        }
                    }
                }
                let v = if merged.is_empty() {
                    Value::Object(map)
                } else {
                    let mut out = Map::new();
                    for m in merged {
                        for (k, v) in m {
                            out.insert(k, v);
                        }
                    }
                    for (k, v) in map {
                        out.insert(k, v);
                    }
                    Value::Object(out)
                };
                if anchor != 0 {
                    self.anchors.insert(anchor, v.clone());
                }
                Ok(v)
            }
            _ => Ok(Value::Null),
        }
    }

    fn key(&mut self, ev: Event<'a>, span: &Span) -> Result<String, Yaml11Error> {
        let (line, column) = pos(span);
        match ev {
            Event::Scalar(value, style, anchor, tag) => {
                let s = scalar_value(&value, style, tag_name(&tag), span)?;
                if anchor != 0 {
                    let v = scalar_json(s.clone(), &value, span).unwrap_or(Value::Null);
                    self.anchors.insert(anchor, v);
                }
                key_string(s, span)
            }
            Event::Alias(id) => match self.anchors.get(&id) {
                Some(Value::String(s)) => Ok(s.clone()),
                Some(Value::Number(n)) => Ok(n.to_string()),
                Some(Value::Bool(b)) => Ok(b.to_string()),
                Some(other) => Err(Yaml11Error::UnsupportedKey {
                    line,
                    column,
                    key: other.to_string(),
                }),
                None => Err(Yaml11Error::UnknownAnchor { line, column }),
            },
            other => {
                // A collection as a key: read it to report it.
                let v = self.node(other, *span)?;
                Err(Yaml11Error::UnsupportedKey {
                    line,
                    column,
                    key: v.to_string(),
                })
            }
        }
    }
}

fn skip(ev: &Event<'_>) -> bool {
    !matches!(
        ev,
        Event::Scalar(..)
            | Event::Alias(_)
            | Event::SequenceStart(..)
            | Event::SequenceEnd
            | Event::MappingStart(..)
            | Event::MappingEnd
            | Event::DocumentStart(..)
            | Event::DocumentEnd
            | Event::StreamEnd
    )
}

/// Read every document of a YAML stream. An empty document gives `Null`.
pub fn from_multiple(text: &str) -> Result<Vec<Value>, Yaml11Error> {
    let mut b = Builder {
        events: Parser::new_from_str(text).peekable(),
        anchors: HashMap::new(),
    };
    let mut docs = Vec::new();
    while let Some((ev, _)) = b.next()? {
        match ev {
            Event::DocumentStart(..) => {
                b.anchors.clear();
                let mut doc = Value::Null;
                while let Some((ev, sp)) = b.next()? {
                    match ev {
                        Event::DocumentEnd | Event::StreamEnd => break,
                        ev if skip(&ev) => {}
                        ev => doc = b.node(ev, sp)?,
                    }
                }
                docs.push(doc);
            }
            Event::StreamEnd => break,
            _ => {}
        }
    }
    Ok(docs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn one(text: &str) -> Value {
        from_multiple(text).unwrap().remove(0)
    }

    /// go-yaml v2 `resolve` (goyaml.v2/resolve.go) and sigs.k8s.io/yaml `YAMLToJSON`; the
    /// expectations are what `yaml.YAMLToJSON` returns for each scalar.
    #[test]
    fn scalars_resolve_like_go_yaml_v2() {
        let cases: &[(&str, Value)] = &[
            ("0755", json!(493)),
            ("0o17", json!(15)),
            ("0x1F", json!(31)),
            ("-0x10", json!(-16)),
            ("+12", json!(12)),
            ("1_000", json!(1000)),
            ("0b101", json!(5)),
            ("-0b101", json!(-5)),
            ("08", json!(8)),
            ("755.0", json!(755)),
            ("1e3", json!(1000)),
            ("0.5", json!(0.5)),
            (".5", json!(0.5)),
            ("1e400", json!("1e400")),
            ("yes", json!(true)),
            ("Y", json!(true)),
            ("on", json!(true)),
            ("ON", json!(true)),
            ("no", json!(false)),
            ("n", json!(false)),
            ("Off", json!(false)),
            ("~", Value::Null),
            ("null", Value::Null),
            ("", Value::Null),
            ("true1", json!("true1")),
            ("2001-12-14", json!("2001-12-14")),
            ("1.2.3", json!("1.2.3")),
            ("0xZZ", json!("0xZZ")),
            ("9223372036854775807", json!(9223372036854775807_i64)),
            ("-9223372036854775808", json!(i64::MIN)),
        ];
        for (text, want) in cases {
            let got = one(&format!("v: {text}\n"));
            assert_eq!(&got["v"], want, "{text:?}");
        }
    }

    #[test]
    fn quoted_and_block_scalars_are_strings() {
        let v = one("a: '0755'\nb: \"yes\"\nc: |\n  10\nd: !!str 12\ne: !!int '12'\n");
        assert_eq!(
            v,
            json!({"a": "0755", "b": "yes", "c": "10\n", "d": "12", "e": 12})
        );
    }

    #[test]
    fn infinity_is_refused_as_go_json_does() {
        let err = from_multiple("a: .inf\n").unwrap_err();
        assert!(
            matches!(err, Yaml11Error::NonFinite { line: 1, .. }),
            "{err}"
        );
        assert!(from_multiple("a: .nan\n").is_err());
    }

    #[test]
    fn keys_are_stringified_like_sigs_yaml() {
        // The well-known YAML 1.1 trap: a key `y` (or `n`, `on`, …) is a boolean.
        let v = one("1: a\nyes: b\n0x10: c\n1.5: d\nn: e\n");
        assert_eq!(
            v,
            json!({"1": "a", "true": "b", "16": "c", "1.5": "d", "false": "e"})
        );
        assert!(matches!(
            from_multiple("~: a\n").unwrap_err(),
            Yaml11Error::UnsupportedKey { .. }
        ));
    }

    #[test]
    fn anchors_aliases_and_merges() {
        let v = one("base: &b {a: 1, b: 2}\nuse:\n  <<: *b\n  b: 3\nlist: [*b]\n");
        assert_eq!(v["use"], json!({"a": 1, "b": 3}));
        assert_eq!(v["list"], json!([{"a": 1, "b": 2}]));
    }

    #[test]
    fn multiple_documents() {
        let docs = from_multiple("a: 1\n---\n---\nb: 2\n").unwrap();
        assert_eq!(docs, vec![json!({"a": 1}), Value::Null, json!({"b": 2})]);
    }

    #[test]
    fn float_keys_use_go_float32_g_format() {
        assert_eq!(go_format_float32_g(1.5), "1.5");
        assert_eq!(go_format_float32_g(100.0), "100");
        assert_eq!(go_format_float32_g(1e21), "1e+21");
        assert_eq!(go_format_float32_g(0.0001), "0.0001");
        assert_eq!(go_format_float32_g(0.00001), "1e-05");
        assert_eq!(go_format_float32_g(100000.0), "100000");
        assert_eq!(go_format_float32_g(1e6), "1e+06");
    }
}
