//! The zero values Go's `encoding/json` drops from a struct field tagged `omitempty`, and the
//! test whether a field holds one. [`super::omitempty`] (generated) lists each struct's such
//! fields with the kind of their zero value; the decoders ([`super::de`], [`super::schema`])
//! skip a field that holds it. This file imports none of them; they all import it.

use serde_json::Value;

/// The zero value of a field that Go's `encoding/json` omits when empty (`omitempty` on a
/// non-pointer field of one of these kinds; a struct is never empty, a pointer only when nil).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Zero {
    /// `""` (a string, or `[]byte` as base64).
    String,
    /// `false`.
    Bool,
    /// `0`.
    Number,
    /// `[]`.
    List,
    /// `{}`.
    Map,
}

impl Zero {
    /// Whether `v` is the zero value of some kind (`""`, `false`, `0`, `[]`, `{}`).
    fn any_holds(v: &Value) -> bool {
        match v {
            Value::String(s) => s.is_empty(),
            Value::Bool(b) => !b,
            Value::Number(n) => n.as_f64() == Some(0.0),
            Value::Array(a) => a.is_empty(),
            Value::Object(m) => m.is_empty(),
            Value::Null => false,
        }
    }

    /// Whether `v` is this zero value. A value of another JSON kind is not: it goes on to
    /// the typed decode, which refuses it as Go does.
    fn holds(self, v: &Value) -> bool {
        match (self, v) {
            (Zero::String, Value::String(s)) => s.is_empty(),
            (Zero::Bool, Value::Bool(b)) => !b,
            (Zero::Number, Value::Number(n)) => n.as_f64() == Some(0.0),
            (Zero::List, Value::Array(a)) => a.is_empty(),
            (Zero::Map, Value::Object(m)) => m.is_empty(),
            _ => false,
        }
    }
}

/// Whether the struct field `name`, holding `v`, is one Go's encoder drops as empty
/// (`omitempty` is the struct's list from [`super::omitempty`]).
pub(super) fn omitted(omitempty: &[(&'static str, Zero)], name: &str, v: &Value) -> bool {
    // Most values are not empty: that test first, the field list only for those.
    Zero::any_holds(v)
        && omitempty
            .iter()
            .any(|(field, zero)| *field == name && zero.holds(v))
}
