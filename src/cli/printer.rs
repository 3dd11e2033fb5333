//! The one way commands print data: `-o table` is each command's own text; `-o json` and
//! `-o yaml` print the same serde document (camelCase keys, as Kubernetes writes them).

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
            write!(out, "{text}")?;
        }
        OutputFormat::Json | OutputFormat::Table | OutputFormat::Wide => {
            let text = serde_json::to_string_pretty(&value)
                .map_err(|e| Error::Stdout(std::io::Error::other(e)))?;
            writeln!(out, "{text}")?;
        }
    }
    Ok(())
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
}
