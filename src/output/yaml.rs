//! YAML that Kubernetes reads back exactly: Kubernetes parses YAML 1.1, where `on`, `no`, `y`,
//! `0755`, `1:20` and `2024-01-01` are not strings unless quoted. serde-saphyr quotes every such
//! spelling (its default, non-`yaml_12` mode); block scalars are turned off so multi-line strings
//! are written as double-quoted scalars with escapes, which every reader agrees on.

use serde_json::Value;

/// Serialize one object as a YAML document.
pub fn to_yaml(value: &Value) -> Result<String, String> {
    let options = serde_saphyr::ser_options! { prefer_block_scalars: false };
    let mut out = String::new();
    serde_saphyr::to_fmt_writer_with_options(&mut out, value, options)
        .map_err(|e| e.to_string())?;
    if !out.ends_with('\n') {
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Strings that a YAML 1.1 reader would turn into booleans, numbers, nulls or timestamps.
    const YAML11_TRAPS: &[&str] = &[
        "on",
        "off",
        "On",
        "OFF",
        "yes",
        "no",
        "y",
        "n",
        "Y",
        "N",
        "true",
        "False",
        "null",
        "~",
        "Null",
        "",
        "0755",
        "0x1F",
        "0o17",
        "1e3",
        "1_000",
        "1:20",
        "190:20:30",
        "-.inf",
        ".NaN",
        "2024-01-01",
        "2001-12-14t21:59:43.10-05:00",
        "=",
        "<<",
        "12",
        "-1",
        "+1",
        "1.",
        ".5",
        "0b101",
    ];

    #[test]
    fn yaml11_spellings_are_quoted() {
        for trap in YAML11_TRAPS {
            let out = to_yaml(&json!({ "k": trap })).unwrap();
            let value = out.trim_start_matches("k: ").trim_end();
            assert!(
                value.starts_with('"') || value.starts_with('\''),
                "{trap:?} was written unquoted: {out}"
            );
        }
    }

    #[test]
    fn keys_that_are_yaml11_booleans_are_quoted() {
        let out = to_yaml(&json!({ "on": 1, "y": 2, "no": 3 })).unwrap();
        for line in out.lines() {
            assert!(line.starts_with('"') || line.starts_with('\''), "{line}");
        }
    }

    #[test]
    fn multi_line_strings_are_not_block_scalars() {
        let out = to_yaml(&json!({ "script": "a\nb\n" })).unwrap();
        assert_eq!(out, "script: \"a\\nb\\n\"\n");
    }

    #[test]
    fn round_trips_through_the_reader() {
        let v = json!({"a": ["x", {"b": "on", "c": 1, "d": 1.5, "e": null, "f": true}], "g": {}, "h": [], "i": "é ünïcode", "j": "#not a comment", "k": "- x", "l": "a: b"});
        let back: Value = serde_saphyr::from_str(&to_yaml(&v).unwrap()).unwrap();
        assert_eq!(back, v);
    }
}
