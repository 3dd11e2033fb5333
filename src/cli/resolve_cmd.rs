//! `po-manifests resolve`: print each operator's choice (table, JSON or YAML), writing nothing.
//! Exit status 1 when any operator could not be resolved or has a problem.

use std::io::Write;

use serde::Serialize;

use super::create::{color_stderr, write_explain};
use super::diagnostics;
use super::flags::{OutputFormat, ResolveArgs};
use super::invocation::{self, Invocation, Outcome};
use super::{EXIT_INVALID, EXIT_OK, Error};
use crate::resolve::{Candidate, Cluster, explain};

/// One operator in `-o json|yaml`.
#[derive(Debug, Serialize)]
struct Row {
    name: String,
    package: String,
    catalog: Option<String>,
    bundle: Option<String>,
    version: Option<String>,
    image: Option<String>,
    channels: Vec<String>,
    problems: Vec<String>,
    warnings: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    candidates: Option<Vec<Candidate>>,
}

#[derive(Debug, Serialize)]
struct Document {
    operators: Vec<Row>,
}

fn row(outcome: &Outcome<'_>, explain: bool) -> Row {
    let op = outcome.operator;
    let (catalog, bundle, version, image, error, candidates) = match &outcome.resolution {
        Ok(r) => (
            Some(r.catalog.name.clone()),
            Some(r.bundle.name.clone()),
            Some(r.bundle.version_text.clone()),
            Some(r.bundle.image.clone()),
            None,
            r.candidates.clone(),
        ),
        Err(e) => {
            let mut text = e.to_string();
            for line in explain::summary(e.candidates()) {
                text.push_str("; ");
                text.push_str(&line);
            }
            if let crate::resolve::Error::NoCandidate { hints, .. } = e {
                for h in hints {
                    text.push_str("; hint: ");
                    text.push_str(h);
                }
            }
            (None, None, None, None, Some(text), e.candidates().to_vec())
        }
    };
    Row {
        name: op.name.value.clone(),
        package: op.package.value.clone(),
        catalog,
        bundle,
        version,
        image,
        channels: op.channels.iter().map(|c| c.value.clone()).collect(),
        problems: outcome.problems.iter().map(|p| p.message.clone()).collect(),
        warnings: outcome.warnings.iter().map(|w| w.0.clone()).collect(),
        error,
        candidates: explain.then_some(candidates),
    }
}

pub(super) fn run(
    args: &ResolveArgs,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<u8, Error> {
    let color = color_stderr();
    let inv = Invocation::read(&args.input)?;
    let catalogs = inv.load_catalogs()?;
    let cluster = Cluster {
        version: inv.cluster_version.clone(),
    };
    let outcomes = invocation::resolve_for_release(&inv, &catalogs, &cluster);
    let all_ok = outcomes.iter().all(Outcome::ok);
    match args.output {
        OutputFormat::Table => {
            let mut rows = vec![
                ["NAME", "PACKAGE", "CATALOG", "BUNDLE", "VERSION", "IMAGE"].map(String::from),
            ];
            for o in &outcomes {
                let r = row(o, false);
                rows.push([
                    r.name,
                    r.package,
                    r.catalog.unwrap_or_else(|| "-".into()),
                    r.bundle.unwrap_or_else(|| "-".into()),
                    r.version.unwrap_or_else(|| "-".into()),
                    r.image.unwrap_or_else(|| "-".into()),
                ]);
            }
            write!(stdout, "{}", explain::columns(rows))?;
            if args.input.explain {
                writeln!(stdout)?;
                for o in &outcomes {
                    write_explain(stdout, o)?;
                }
            }
            for o in &outcomes {
                for report in diagnostics::operator_warnings(o) {
                    write!(stderr, "{}", report.render(color))?;
                }
                if let Some(report) = diagnostics::operator_failure(&inv.config.source, o) {
                    write!(stderr, "{}", report.render(color))?;
                }
            }
        }
        OutputFormat::Json | OutputFormat::Yaml => {
            let doc = Document {
                operators: outcomes
                    .iter()
                    .map(|o| row(o, args.input.explain))
                    .collect(),
            };
            let value =
                serde_json::to_value(&doc).map_err(|e| Error::Stdout(std::io::Error::other(e)))?;
            if args.output == OutputFormat::Json {
                let text = serde_json::to_string_pretty(&value)
                    .map_err(|e| Error::Stdout(std::io::Error::other(e)))?;
                writeln!(stdout, "{text}")?;
            } else {
                let text = crate::output::yaml::to_yaml(&value)
                    .map_err(|e| Error::Stdout(std::io::Error::other(e)))?;
                write!(stdout, "{text}")?;
            }
        }
    }
    Ok(if all_ok { EXIT_OK } else { EXIT_INVALID })
}
