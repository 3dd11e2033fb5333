//! Strict YAML reading for the platformOperators configuration, and the YAML reader's errors in
//! our words.
//!
//! - Values are read as written: a boolean is only an unquoted `true` or `false` ([`StrictBool`]
//!   and [`check_bool_spelling`]); `"yes"`, `yes`, `on` and `True` are refused.
//! - YAML tags (`!evil`, `!!binary`, `!!int`, …) change how a value is read, so none is read
//!   here but `!!str`, which only says the value is text ([`refuse_tags`]).
//! - Every serde-saphyr error we can receive is worded as a sentence about the input
//!   ([`describe`]); one test per mapping below.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Visitor};

use super::{Error, SourceFile, Span};

/// A boolean that is only read from an unquoted `true` or `false`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StrictBool(pub bool);

impl<'de> Deserialize<'de> for StrictBool {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = StrictBool;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`true` or `false`, unquoted")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<StrictBool, E> {
                Ok(StrictBool(v))
            }
        }
        // `deserialize_any`: a quoted scalar arrives as a string, and is refused.
        d.deserialize_any(V)
    }
}

/// The text at `span` must be exactly `true` or `false` (YAML 1.2 also reads `True` and
/// `TRUE`).
pub(crate) fn check_bool_spelling(file: &SourceFile, span: Span) -> Result<(), String> {
    let text = file
        .text
        .get(span.offset..span.offset + span.len)
        .unwrap_or("");
    if text.is_empty() || text == "true" || text == "false" {
        Ok(())
    } else {
        Err(format!(
            "expected `true` or `false`, unquoted, found `{text}`"
        ))
    }
}

/// Refuse any YAML tag but `!!str`, naming the tag and its line.
pub(crate) fn refuse_tags(file: &std::sync::Arc<SourceFile>) -> Result<(), Error> {
    use granit_parser::{Event, Parser};
    for item in Parser::new_from_str(&file.text) {
        // Syntax errors are reported by the reader itself, with its own wording.
        let Ok((event, span)) = item else {
            return Ok(());
        };
        let tag = match &event {
            Event::Scalar(_, _, _, tag)
            | Event::SequenceStart(_, _, tag)
            | Event::MappingStart(_, _, tag) => tag.clone(),
            _ => None,
        };
        let Some(tag) = tag else { continue };
        if tag.is_yaml_core_schema_tag("str") {
            continue;
        }
        let written = if tag.original_handle().is_empty() {
            tag.to_string()
        } else {
            format!("{}{}", tag.original_handle(), tag.suffix())
        };
        let start = span.tag_start.unwrap_or(span.start);
        let offset = start.byte_offset().unwrap_or(0);
        let at = Span::from_bytes(&file.text, offset, 1);
        return Err(Error::Syntax {
            file: file.clone(),
            message: format!(
                "{}:{}:{}: the YAML tag `{written}` is not read in this configuration: values are read as written; remove the tag",
                file.path.display(),
                at.line,
                at.column
            ),
            span: Some(at),
        });
    }
    Ok(())
}

/// A serde-saphyr error as a sentence about the input (without the location, which the
/// diagnostic shows).
pub(crate) fn describe(e: &serde_saphyr::Error) -> String {
    use serde_saphyr::Error as E;
    match e.without_snippet() {
        E::DuplicateMappingKey { key, .. } => match key {
            Some(k) => format!("the key `{k}` is written twice in this mapping; keep one"),
            None => "a key is written twice in this mapping; keep one".into(),
        },
        E::MultipleDocuments { .. } => {
            "the file holds more than one YAML document (a second `---`); the configuration is one document".into()
        }
        E::NullIntoString { .. } => {
            "the value is missing (empty or `null`); write a value, or remove the key".into()
        }
        E::Budget { breach, .. } => format!(
            "the file is too large or too deeply nested to be a configuration ({})",
            budget_phrase(&format!("{breach:?}"))
        ),
        E::InvalidScalar { ty, .. } => format!("expected {}", type_phrase(ty)),
        E::SerdeInvalidType {
            unexpected,
            expected,
            ..
        }
        | E::SerdeInvalidValue {
            unexpected,
            expected,
            ..
        } => format!(
            "expected {}, found {}",
            type_phrase(expected),
            found_phrase(unexpected)
        ),
        E::Unexpected { expected, .. } => format!("expected {}", type_phrase(expected)),
        E::Eof { .. } => "the file ends before the value is complete".into(),
        E::UnsupportedTag { tag, .. } | E::TaggedStructFieldName { tag, .. } => format!(
            "the YAML tag `{tag}` is not read in this configuration: values are read as written; remove the tag"
        ),
        E::InvalidBinaryBase64 { .. }
        | E::BinaryNotUtf8 { .. }
        | E::TaggedScalarCannotDeserializeIntoString { .. } => {
            "a tagged value cannot be read as text; remove the tag".into()
        }
        E::InvalidBooleanStrict { .. } => "expected `true` or `false`, unquoted".into(),
        E::SerdeMissingField { field, .. } => format!("the required key `{field}` is missing"),
        other => {
            let mut message = other.to_string();
            // The reader appends " at line L, column C"; the diagnostic shows the place itself.
            if let Some(i) = message.rfind(" at line ") {
                message.truncate(i);
            }
            message
        }
    }
}

/// serde's and our type names in words.
fn type_phrase(ty: &str) -> String {
    match ty {
        "i8" | "i16" | "i32" | "i64" | "isize" => "a whole number (like 0, 10 or -100)".into(),
        "u8" | "u16" | "u32" | "u64" | "usize" => "a whole number of 0 or more".into(),
        "f32" | "f64" => "a number".into(),
        "bool" | "a boolean" => "`true` or `false`, unquoted".into(),
        "a string" | "string" | "str" => "text".into(),
        "string scalar" => "text (one value, not a list or mapping)".into(),
        "binary scalar" => "a base64 value".into(),
        "an integer" => "a whole number".into(),
        "a sequence" | "seq" | "sequence start" => "a list".into(),
        "mapping start" | "empty mapping start" => "a mapping of keys".into(),
        "mapping end" | "empty mapping end" => "the end of the mapping".into(),
        "scalar" | "value" | "single YAML node" => "one value".into(),
        "null" => "nothing (an empty value)".into(),
        "map" => "a mapping of keys".into(),
        other if other.starts_with("struct ") || other == "a map" => "a mapping of keys".into(),
        other => other.into(),
    }
}

/// What serde saw, in words.
fn found_phrase(unexpected: &str) -> String {
    if let Some(s) = unexpected.strip_prefix("string ") {
        return format!("the text {s}");
    }
    match unexpected {
        "sequence" => "a list".into(),
        "map" => "a mapping".into(),
        "unit value" => "nothing (an empty value)".into(),
        other => other.into(),
    }
}

/// Which budget limit, from the breach's debug form (`ScalarBytes { … }` → scalar bytes).
fn budget_phrase(debug: &str) -> String {
    let name = debug.split([' ', '{', '(']).next().unwrap_or(debug);
    let mut words = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            words.push(' ');
        }
        words.push(c.to_ascii_lowercase());
    }
    format!("limit on {words} exceeded")
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Doc {
        name: Option<String>,
        count: Option<i32>,
        flag: Option<StrictBool>,
        list: Option<Vec<String>>,
    }

    fn message(yaml: &str) -> String {
        let file = Arc::new(SourceFile {
            path: "c.yaml".into(),
            text: yaml.into(),
        });
        match super::super::parse_yaml_strict::<Doc>(&file) {
            Err(Error::Syntax { message, .. }) => message,
            other => panic!("expected a syntax error for {yaml:?}, got {other:?}"),
        }
    }

    #[test]
    fn duplicate_key() {
        let m = message("name: a\nname: b\n");
        assert_eq!(
            m,
            "the key `name` is written twice in this mapping; keep one"
        );
    }

    #[test]
    fn multiple_documents() {
        let m = message("name: a\n---\nname: b\n");
        assert!(
            m.starts_with("the file holds more than one YAML document"),
            "{m}"
        );
        assert!(!m.contains("from_str_multiple"), "{m}");
    }

    #[test]
    fn null_into_string() {
        let m = message("list: [a, null]\n");
        assert_eq!(
            m,
            "the value is missing (empty or `null`); write a value, or remove the key"
        );
    }

    #[test]
    fn invalid_integer() {
        let m = message("count: 99999999999\n");
        assert!(m.starts_with("expected a whole number"), "{m}");
        assert!(!m.contains("i32"), "{m}");
    }

    #[test]
    fn wrong_type() {
        let m = message("name: [a]\n");
        assert_eq!(m, "expected text (one value, not a list or mapping)");
        let m = message("list: a\n");
        assert!(m.starts_with("expected a list"), "{m}");
    }

    #[test]
    fn quoted_boolean_is_refused() {
        let m = message("flag: \"yes\"\n");
        assert_eq!(
            m,
            "expected `true` or `false`, unquoted, found the text \"yes\""
        );
        let m = message("flag: \"true\"\n");
        assert!(m.starts_with("expected `true` or `false`, unquoted"), "{m}");
    }

    #[test]
    fn yaml_1_1_boolean_is_refused() {
        let m = message("flag: yes\n");
        assert!(m.starts_with("expected `true` or `false`, unquoted"), "{m}");
    }

    #[test]
    fn unknown_tag_is_refused_naming_tag_and_line() {
        let m = message("name: a\ncount: !evil 3\n");
        assert_eq!(
            m,
            "c.yaml:2:8: the YAML tag `!evil` is not read in this configuration: values are read as written; remove the tag"
        );
        let m = message("name: !!binary aGVsbG8=\n");
        assert!(m.starts_with("c.yaml:1:7: the YAML tag `!!binary`"), "{m}");
        // `!!str` only says the value is text.
        let file = Arc::new(SourceFile {
            path: "c.yaml".into(),
            text: "name: !!str 4.14\n".into(),
        });
        let doc: Doc = super::super::parse_yaml_strict(&file).unwrap();
        assert_eq!(doc.name.as_deref(), Some("4.14"));
    }

    #[test]
    fn end_of_file() {
        let m = message("name: \"unterminated\n");
        assert!(!m.is_empty() && !m.contains("at line"), "{m}");
    }

    #[test]
    fn budget_phrase_names_the_limit_in_words() {
        assert_eq!(
            budget_phrase("ScalarBytes { total_scalar_bytes: 67108981 }"),
            "limit on scalar bytes exceeded"
        );
    }

    #[test]
    fn bool_spelling() {
        let file = SourceFile {
            path: "c.yaml".into(),
            text: "a: True\nb: true\n".into(),
        };
        assert!(check_bool_spelling(&file, Span::from_bytes(&file.text, 3, 4)).is_err());
        assert!(check_bool_spelling(&file, Span::from_bytes(&file.text, 11, 4)).is_ok());
    }
}
