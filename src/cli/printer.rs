//! The one way commands print data: `-o table` is each command's own text; `-o json` and
//! `-o yaml` print the same serde document (camelCase keys, as Kubernetes writes them).
//! Both escape every character [`crate::text::is_unsafe`] names: JSON as `\uXXXX`
//! ([`crate::text::json_pretty`]); YAML as its writer escapes controls and line separators,
//! and a document holding a character that YAML writes raw (a bidirectional control) is
//! printed in YAML's JSON form instead, where it is a `\uXXXX` escape: the same data for any
//! YAML reader.

use std::io::Write;

use serde::Serialize;

use super::Error;
use super::flags::OutputFormat;

/// Print `value` as JSON (pretty, one trailing newline) or YAML. `Table` is the caller's own
/// rendering, so it prints JSON here rather than nothing.
pub(super) fn structured(
    out: &mut dyn Write,
    format: OutputFormat,
    value: &impl Serialize,
) -> Result<(), Error> {
    let value = serde_json::to_value(value).map_err(|e| Error::Stdout(std::io::Error::other(e)))?;
    match format {
        OutputFormat::Yaml => {
            let text = crate::output::yaml::to_yaml(&value)
                .map_err(|e| Error::Stdout(std::io::Error::other(e)))?;
            if text.chars().any(|c| c != '\n' && crate::text::is_unsafe(c)) {
                writeln!(out, "{}", json(&value)?)?;
            } else {
                write!(out, "{text}")?;
            }
        }
        OutputFormat::Json | OutputFormat::Table | OutputFormat::Wide => {
            writeln!(out, "{}", json(&value)?)?;
        }
    }
    Ok(())
}

/// `value` as pretty JSON, every unsafe character escaped ([`crate::text::json_pretty`]).
pub(super) fn json(value: &serde_json::Value) -> Result<String, Error> {
    crate::text::json_pretty(value).map_err(|e| Error::Stdout(std::io::Error::other(e)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Doc {
        skip_range: &'static str,
    }

    #[test]
    fn json_and_yaml_carry_the_same_camel_case_document() {
        let mut json = Vec::new();
        structured(
            &mut json,
            OutputFormat::Json,
            &Doc {
                skip_range: "<1.0.0",
            },
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(json).unwrap(),
            "{\n  \"skipRange\": \"<1.0.0\"\n}\n"
        );
        let mut yaml = Vec::new();
        structured(
            &mut yaml,
            OutputFormat::Yaml,
            &Doc {
                skip_range: "<1.0.0",
            },
        )
        .unwrap();
        assert_eq!(String::from_utf8(yaml).unwrap(), "skipRange: <1.0.0\n");
    }

    /// Issue 34 item 7: nothing unsafe is printed raw, in JSON or YAML, and both read back as
    /// the same document.
    #[test]
    fn unsafe_characters_are_escaped_in_json_and_yaml() {
        for text in [
            "a\u{202e}b",
            "a\u{2066}b\u{2069}",
            "a\u{2028}b",
            "a\u{7f}\u{9b}\u{1b}[2J\r\u{8}\u{7}",
        ] {
            let doc = serde_json::json!({ "name": text, text: [text] });
            for format in [OutputFormat::Json, OutputFormat::Yaml] {
                let mut out = Vec::new();
                structured(&mut out, format, &doc).unwrap();
                let out = String::from_utf8(out).unwrap();
                assert!(
                    !out.chars().any(|c| c != '\n' && crate::text::is_unsafe(c)),
                    "{format:?}: {out:?}"
                );
                let back: serde_json::Value = serde_saphyr::from_str(&out).unwrap();
                assert_eq!(back, doc, "{format:?}: {out}");
            }
        }
    }
}
