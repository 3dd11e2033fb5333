//! `po-manifests check --dir D`: the flags read, [`crate::install::dir_check`] run, the report
//! printed.

use std::collections::BTreeMap;
use std::io::Write;

use super::flags::{CheckArgs, OutputFormat};
use super::{EXIT_INVALID, EXIT_OK, Error};
use crate::check::{self, Report};
use crate::install::dir_check;
use crate::openshift::ClusterVersion;
use crate::rules::{Role, Severity};
use crate::text::printable;

pub(super) fn run(
    args: &CheckArgs,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<u8, Error> {
    let dir = &args.dir;
    crate::install::check_dir_flag(dir, false)?;
    let mut roles = BTreeMap::new();
    for r in &args.role {
        let Some((name, role)) = r.split_once('=') else {
            return Err(Error::Usage(format!("--role {r}: expected NAME=ROLE")));
        };
        let role = Role::parse(role).map_err(|m| Error::Usage(format!("--role {r}: {m}")))?;
        roles.insert(name.to_string(), role);
    }
    let version = match &args.cluster_version {
        Some(text) => Some(
            ClusterVersion::parse(text)
                .map_err(|m| Error::Usage(format!("--cluster-version: {m}")))?,
        ),
        None => None,
    };
    let report = dir_check::check_dir(dir, roles, version, args.installer, args.follow_links)?;
    match args.output {
        OutputFormat::Table | OutputFormat::Wide => {
            write!(stdout, "{}", report.text())?;
            for w in &report.waived {
                writeln!(
                    stderr,
                    "waived: {} (reason: {})",
                    printable(&check::problem_line(&w.problem)),
                    printable(&w.reason)
                )?;
            }
            for n in &report.notes {
                writeln!(stderr, "note: {}", printable(n))?;
            }
            let errors = count(&report, Severity::Error);
            let notes = count(&report, Severity::Note);
            let warnings = count(&report, Severity::Warning);
            let notes = if notes > 0 {
                format!(", {notes} note{}", plural(notes))
            } else {
                String::new()
            };
            writeln!(
                stderr,
                "{errors} error{}, {warnings} warning{}{notes}",
                plural(errors),
                plural(warnings)
            )?;
        }
        format => super::printer::structured(stdout, format, &report)?,
    }
    Ok(if report.has_errors() {
        EXIT_INVALID
    } else {
        EXIT_OK
    })
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn count(report: &Report, severity: Severity) -> usize {
    report
        .problems
        .iter()
        .filter(|p| p.severity == severity)
        .count()
}
