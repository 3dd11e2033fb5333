//! `po-manifests range`: what a range admits, one `VERSION<TAB>true|false|invalid` line per
//! version. Versions are read strictly, as bundle versions are.

use std::io::Write;

use super::flags::{Grammar, RangeArgs};
use super::{EXIT_OK, Error};
use crate::version::{self, blang, masterminds};

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
    let mut out = String::new();
    for text in &args.versions {
        let verdict = match version::parse_bundle_version(text) {
            Ok(v) => {
                if matches(&v) {
                    "true"
                } else {
                    "false"
                }
            }
            Err(_) => "invalid",
        };
        out.push_str(&format!("{text}\t{verdict}\n"));
    }
    stdout.write_all(out.as_bytes())?;
    Ok(EXIT_OK)
}
