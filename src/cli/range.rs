//! `po-manifests range`: what a range admits, one `VERSION<TAB>true|false|invalid` line per
//! version (`-o wide`: with why an invalid one does not parse as a third field), or the same
//! as one JSON/YAML document. Versions are read strictly, as bundle
//! versions are.

use std::io::Write;

use serde::Serialize;

use super::flags::{Grammar, OutputFormat, RangeArgs};
use super::{EXIT_OK, Error};
use crate::version::{self, blang, masterminds};

/// `-o json|yaml`: the range, its grammar and one verdict per version, in the order given.
#[derive(Serialize)]
struct RangeDocument<'a> {
    range: &'a str,
    grammar: &'static str,
    versions: Vec<Verdict<'a>>,
}

#[derive(Serialize)]
struct Verdict<'a> {
    version: &'a str,
    /// Whether the range admits the version (`false` for an invalid one).
    matches: bool,
    /// Why the version does not parse (the table's `invalid`).
    #[serde(skip_serializing_if = "Option::is_none")]
    invalid: Option<String>,
}

pub(super) fn run(args: &RangeArgs, stdout: &mut dyn Write) -> Result<u8, Error> {
    // Parse first: on a bad range nothing goes to stdout.
    let matches: Box<dyn Fn(&semver::Version) -> bool> = match args.grammar {
        Grammar::Masterminds => {
            let r = masterminds::Range::parse(&args.range)?;
            Box::new(move |v| r.matches(v))
        }
        Grammar::Blang => {
            let r = blang::Range::parse(&args.range)?;
            Box::new(move |v| r.matches(v))
        }
    };
    let verdicts: Vec<Verdict<'_>> = args
        .versions
        .iter()
        .map(|text| match version::parse_bundle_version(text) {
            Ok(v) => Verdict {
                version: text,
                matches: matches(&v),
                invalid: None,
            },
            Err(e) => Verdict {
                version: text,
                matches: false,
                invalid: Some(e.to_string()),
            },
        })
        .collect();
    match args.output {
        format @ (OutputFormat::Table | OutputFormat::Wide) => {
            let mut out = String::new();
            for v in &verdicts {
                let verdict = match (&v.invalid, v.matches) {
                    (Some(_), _) => "invalid",
                    (None, true) => "true",
                    (None, false) => "false",
                };
                out.push_str(&format!("{}\t{verdict}", v.version));
                // Wide: why an invalid version does not parse, as a third field.
                if let (OutputFormat::Wide, Some(why)) = (format, &v.invalid) {
                    out.push('\t');
                    out.push_str(why);
                }
                out.push('\n');
            }
            stdout.write_all(out.as_bytes())?;
        }
        format => {
            let doc = RangeDocument {
                range: &args.range,
                grammar: match args.grammar {
                    Grammar::Masterminds => "masterminds",
                    Grammar::Blang => "blang",
                },
                versions: verdicts,
            };
            super::printer::structured(stdout, format, &doc)?;
        }
    }
    Ok(EXIT_OK)
}
