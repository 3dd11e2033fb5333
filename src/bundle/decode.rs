//! Decoding manifest text into objects, the way `k8s.io/cli-runtime`'s resource builder and
//! `sigs.k8s.io/yaml` do for operator-controller (`rukpak/bundle/source/source.go`).
//!
//! - YAML scalars are read as YAML 1.1, the way go-yaml v2 does ([`super::yaml11`]);
//! - a file is a stream of documents: JSON when its first non-blank byte is `{` or `[`
//!   (apimachinery `YAMLOrJSONDecoder` sniffs the same way), YAML documents otherwise;
//! - empty documents are skipped;
//! - `kind: List` style objects with an `items` array are flattened (the builder's
//!   `Flatten()`);
//! - every remaining document must be a mapping.
//!
//! Also here: the Go-compatible JSON compaction used to rebuild the `olm.properties`
//! annotation, and base64 decoding of `olm.bundle.object` data.

use base64::Engine as _;
use serde_json::Value;

/// Why a piece of manifest text could not be decoded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// The text is not valid YAML, or holds a value Go's reader refuses.
    #[error(transparent)]
    Yaml(#[from] super::yaml11::Yaml11Error),
    /// The text looked like JSON but is not valid JSON.
    #[error("invalid JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// The base64 payload of an `olm.bundle.object` property is invalid.
    #[error("invalid base64: {0}")]
    Base64(#[from] base64::DecodeError),
    /// The decoded bytes are not UTF-8 text.
    #[error("content is not UTF-8: {0}")]
    Utf8(#[from] std::string::FromUtf8Error),
    /// A document is not a mapping (for example a bare string or a list).
    #[error(
        "document {index} is a {found}, expected a mapping (an object with apiVersion and kind)"
    )]
    NotAnObject {
        /// Zero-based document index in the stream.
        index: usize,
        /// JSON type name of what was found.
        found: &'static str,
    },
}

/// Name of a JSON value's type, for messages.
pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "list",
        Value::Object(_) => "mapping",
    }
}

/// Decode a stream of YAML or JSON documents into objects (mappings), flattening lists.
pub fn decode_documents(text: &str) -> Result<Vec<Value>, DecodeError> {
    let trimmed = text.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    let docs: Vec<Value> = if trimmed.starts_with('{') || trimmed.starts_with('[') {
        serde_json::Deserializer::from_str(trimmed)
            .into_iter::<Value>()
            .collect::<Result<_, _>>()?
    } else {
        super::yaml11::from_multiple(text)?
    };
    let mut out = Vec::with_capacity(docs.len());
    for (index, doc) in docs.into_iter().enumerate() {
        flatten_into(doc, index, &mut out)?;
    }
    Ok(out)
}

/// Parse a single YAML (or JSON) document into a value; an empty document gives `Null`.
pub(crate) fn decode_single(text: &str) -> Result<Value, DecodeError> {
    let docs: Vec<Value> = super::yaml11::from_multiple(text)?;
    Ok(docs.into_iter().next().unwrap_or(Value::Null))
}

fn flatten_into(doc: Value, index: usize, out: &mut Vec<Value>) -> Result<(), DecodeError> {
    match doc {
        Value::Null => Ok(()),
        Value::Object(map) => {
            let is_list = map
                .get("kind")
                .and_then(Value::as_str)
                .is_some_and(|k| k.ends_with("List"))
                && map.get("items").is_some_and(Value::is_array);
            if is_list {
                if let Some(Value::Array(items)) = map.get("items") {
                    for item in items {
                        flatten_into(item.clone(), index, out)?;
                    }
                }
            } else {
                out.push(Value::Object(map));
            }
            Ok(())
        }
        other => Err(DecodeError::NotAnObject {
            index,
            found: type_name(&other),
        }),
    }
}

/// Decode the `data` of an `olm.bundle.object` property: standard base64 with padding
/// (Go's `[]byte` encoding), holding JSON (or YAML, since the loader runs `yaml.ToJSON`).
pub fn decode_bundle_object(data: &str) -> Result<Value, DecodeError> {
    let bytes = base64::engine::general_purpose::STANDARD.decode(data.trim())?;
    let text = String::from_utf8(bytes)?;
    let mut docs = decode_documents(&text)?;
    match docs.len() {
        1 => Ok(docs.remove(0)),
        0 => Err(DecodeError::NotAnObject {
            index: 0,
            found: "null",
        }),
        // Several documents in one bundle object never happen in practice; keep the first
        // one's error shape simple by refusing.
        _ => Err(DecodeError::NotAnObject {
            index: 1,
            found: "second document",
        }),
    }
}

/// Append `s` as a JSON string the way Go's `encoding/json` does with HTML escaping on:
/// `<`, `>`, `&`, U+2028 and U+2029 become `\uXXXX`; control characters use `\n`, `\r`,
/// `\t` or `\u00XX` (Go writes `\b` and `\f` as `\u0008`/`\u000c`).
pub(crate) fn go_json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Compact raw JSON text the way Go's `json.Compact` with HTML escaping does (what
/// `json.Marshal` does to a `json.RawMessage`): drop insignificant whitespace, escape `<`,
/// `>`, `&`, U+2028 and U+2029 inside strings. Input must already be valid JSON.
pub(crate) fn go_compact(raw: &str, out: &mut String) {
    let mut in_string = false;
    let mut escaped = false;
    for c in raw.chars() {
        if in_string {
            if escaped {
                escaped = false;
                out.push(c);
                continue;
            }
            match c {
                '\\' => {
                    escaped = true;
                    out.push(c);
                }
                '"' => {
                    in_string = false;
                    out.push(c);
                }
                '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                    out.push_str(&format!("\\u{:04x}", c as u32));
                }
                c => out.push(c),
            }
        } else {
            match c {
                ' ' | '\t' | '\n' | '\r' => {}
                '"' => {
                    in_string = true;
                    out.push(c);
                }
                c => out.push(c),
            }
        }
    }
}

/// Encode a value as compact JSON with sorted object keys, Go-style string escaping: the
/// result of `sigs.k8s.io/yaml` converting YAML to JSON (it goes through Go maps, which
/// `encoding/json` writes sorted).
pub(crate) fn go_json_sorted(v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::String(s) => go_json_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                go_json_sorted(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                go_json_string(k, out);
                out.push(':');
                go_json_sorted(&map[k], out);
            }
            out.push('}');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn yaml_multi_doc_skips_empty_and_flattens_lists() {
        let text = "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n---\n\
                    apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Secret, metadata: {name: b}}\n";
        let docs = decode_documents(text).unwrap();
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[1]["kind"], "Secret");
    }

    #[test]
    fn json_stream() {
        let docs = decode_documents(" {\"kind\":\"A\"}\n{\"kind\":\"B\"}").unwrap();
        assert_eq!(docs.len(), 2);
    }

    #[test]
    fn scalar_document_is_refused() {
        let err = decode_documents("just a string\n").unwrap_err();
        assert!(matches!(
            err,
            DecodeError::NotAnObject {
                index: 0,
                found: "string"
            }
        ));
    }

    #[test]
    fn bundle_object_base64() {
        let data = base64::engine::general_purpose::STANDARD.encode(br#"{"kind":"ConfigMap"}"#);
        assert_eq!(
            decode_bundle_object(&data).unwrap(),
            json!({"kind": "ConfigMap"})
        );
        assert!(matches!(
            decode_bundle_object("%%%"),
            Err(DecodeError::Base64(_))
        ));
    }

    #[test]
    fn go_string_escaping() {
        let mut s = String::new();
        go_json_string("a<b>&\"\\\n\u{1}\u{2028}é", &mut s);
        assert_eq!(s, r#""a\u003cb\u003e\u0026\"\\\n\u0001\u2028é""#);
    }

    #[test]
    fn go_compaction() {
        let mut s = String::new();
        go_compact("{ \"a\" : [1, 2],\n \"b\": \"x y<\\\"\" }", &mut s);
        assert_eq!(s, r#"{"a":[1,2],"b":"x y\u003c\""}"#);
    }

    #[test]
    fn sorted_encoding() {
        let mut s = String::new();
        go_json_sorted(&json!({"b": 1, "a": {"d": null, "c": true}}), &mut s);
        assert_eq!(s, r#"{"a":{"c":true,"d":null},"b":1}"#);
    }
}
