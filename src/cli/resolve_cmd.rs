//! `po-manifests resolve`: the dry run of `create`. It runs every check `create` runs (target
//! release and feature set, resolution, bundle conversion with its webhook, APIService and
//! dependency checks, ClusterCatalogs, mirror rules) through the same function
//! ([`crate::install::plan::plan_outcomes`]), prints each operator's choice (table, JSON or YAML) and
//! writes nothing. A check that cannot run (bundle content that is not embedded and cannot be
//! fetched, or no target release) is named; it makes the exit status 1 unless
//! `--allow-unchecked`. Exit status 1 too when any operator is refused.

use std::io::Write;

use serde::Serialize;

use super::diagnostics::{self, color_stderr};
use super::flags::ResolveArgs;
use super::plan_report::write_explain;
use super::{EXIT_INVALID, EXIT_OK, Error};
use crate::install::Install;
use crate::install::outcome::{self, Outcome};
use crate::install::plan::{self, BundleContent, Refusal, Settings};
use crate::render::Templates;
use crate::resolve::{Candidate, Cluster, explain};

/// One operator in `-o json|yaml`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
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
    /// Checks that could not run for this operator.
    unchecked: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    candidates: Option<Vec<Candidate>>,
    /// The profile it is written with, when the release is known.
    #[serde(skip_serializing_if = "Option::is_none")]
    profile: Option<&'static str>,
    /// The subscription profile's plan.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    subscription: Option<SubscriptionRow>,
}

/// What `-o json` adds for an operator of the subscription profile: what the Subscription
/// names (`channel`: none for every channel), where Automatic approval ends and what OLM v0
/// pulls in (`bundle` and `catalog` are what it installs first).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct SubscriptionRow {
    channel: Option<String>,
    namespace: String,
    install_mode: &'static str,
    target_namespaces: Vec<String>,
    catalog_source: String,
    #[serde(rename = "startingCSV")]
    starting_csv: Option<String>,
    install_plan_approval: &'static str,
    ends_at: EndsAt,
    dependencies: Vec<DependencyRow>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct EndsAt {
    bundle: String,
    version: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct DependencyRow {
    package: String,
    bundle: String,
    version: String,
    channel: String,
    catalog: String,
    ends_at: Option<EndsAt>,
}

fn subscription_row(outcome: &Outcome<'_>) -> Option<SubscriptionRow> {
    let plan = outcome.subscription.as_ref()?;
    let r = outcome.resolution.as_ref().ok()?;
    let end = plan.ends_at(r.bundle);
    Some(SubscriptionRow {
        channel: plan.channel.clone(),
        namespace: plan.namespace.clone(),
        install_mode: plan.install_mode.name(),
        target_namespaces: plan.target_namespaces.clone(),
        catalog_source: plan.source.to_string(),
        starting_csv: plan.starting_csv.clone(),
        install_plan_approval: plan.approval.name(),
        ends_at: EndsAt {
            bundle: end.name.clone(),
            version: end.version_text.clone(),
        },
        dependencies: plan
            .dependencies
            .iter()
            .map(|d| DependencyRow {
                package: d.bundle.package.clone(),
                bundle: d.bundle.name.clone(),
                version: d.bundle.version_text.clone(),
                channel: d.channel.clone(),
                catalog: d.catalog.name.clone(),
                ends_at: d.ends_at.map(|b| EndsAt {
                    bundle: b.name.clone(),
                    version: b.version_text.clone(),
                }),
            })
            .collect(),
    })
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Document {
    operators: Vec<Row>,
    /// Checks that could not run for the install as a whole.
    unchecked: Vec<String>,
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
        unchecked: Vec::new(),
        error,
        candidates: explain.then_some(candidates),
        profile: None,
        subscription: subscription_row(outcome),
    }
}

/// What the checks found, per operator and for the whole install.
struct Findings {
    /// Per outcome: why `create` would refuse it, beyond its resolution (already reported).
    refused: Vec<Option<String>>,
    /// Per outcome: the checks that could not run.
    unchecked: Vec<Vec<String>>,
    /// Checks that could not run for the whole install.
    install_unchecked: Vec<String>,
    /// An install-wide refusal (mirror rules, templates, manifest names).
    error: Option<Error>,
}

/// Run `create`'s checks on the outcomes ([`plan::plan_outcomes`]), writing nothing, and
/// report as create reports; the outcomes come back with what the checks found.
fn check<'a>(
    args: &ResolveArgs,
    inv: &'a Install,
    outcomes: Vec<Outcome<'a>>,
    stderr: &mut dyn Write,
) -> Result<(Vec<Outcome<'a>>, Findings), Error> {
    let color = color_stderr();
    let mut findings = Findings {
        refused: outcomes.iter().map(|_| None).collect(),
        unchecked: outcomes.iter().map(|_| Vec::new()).collect(),
        install_unchecked: Vec::new(),
        error: None,
    };
    let Some(cluster_version) = &inv.cluster_version else {
        // Without a release only the catalog can be asked: report as create reports, and name
        // what did not run.
        for o in &outcomes {
            for report in diagnostics::operator_warnings(o) {
                write!(stderr, "{}", report.render(color))?;
            }
            if let Some(report) = diagnostics::operator_failure(&inv.config.source, o) {
                write!(stderr, "{}", report.render(color))?;
            }
        }
        findings.install_unchecked.push(
            "the cluster checks (release, feature set, profile, bundle conversion, webhooks, APIServices, ClusterCatalogs, mirror rules): the target release is not set; add `clusterVersion` to platformOperators or pass --cluster-version".into(),
        );
        return Ok((outcomes, findings));
    };
    inv.profile_for(cluster_version)?;
    let templates = Templates::load(args.templates.as_deref())?;
    let content = BundleContent::for_install(inv, &(&args.bundle_sources).into(), args.allow_tags)?;
    let plan = plan::plan_outcomes(
        inv,
        outcomes,
        &Settings {
            cluster_version,
            templates: &templates,
            mirror_check: !args.no_mirror_check,
            content: &content,
        },
    )?;
    super::plan_report::print_plan(inv, &plan, None, true, &mut std::io::sink(), stderr)?;
    let any = plan.refused();
    let only_unreachable = plan
        .operators
        .iter()
        .filter_map(|o| o.refusal.as_ref())
        .all(Refusal::unreachable);
    if let Some(Err(e)) = plan.install {
        findings.error = Some(e);
    }
    let mut outcomes = Vec::with_capacity(plan.operators.len());
    for (index, op) in plan.operators.into_iter().enumerate() {
        match &op.refusal {
            Some(r) if r.unreachable() => {
                let bundle = op
                    .outcome
                    .resolution
                    .as_ref()
                    .map(|res| res.bundle.name.clone())
                    .unwrap_or_default();
                findings.unchecked[index].push(format!(
                    "bundle content checks for {bundle} (conversion, webhooks, APIServices, dependencies): its content is not in the catalog and could not be had: {}",
                    r.message().unwrap_or_default().replace('\n', " ")
                ));
            }
            Some(r) => findings.refused[index] = r.message().map(str::to_owned),
            None => {}
        }
        outcomes.push(op.outcome);
    }
    if any && only_unreachable {
        findings.install_unchecked.push(
            "the install-wide checks (ClusterCatalogs, mirror rules, manifest file names): they run once every operator's content is checked".into(),
        );
    }
    Ok((outcomes, findings))
}

pub(super) fn run(
    args: &ResolveArgs,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<u8, Error> {
    let color = color_stderr();
    let mut inv = Install::read(&(&args.input).into(), (&args.input.network).into())?;
    if let Some(cv) = &inv.cluster_version {
        // As create: an unsupported target is refused before catalogs are read.
        inv.profile_for(cv)?;
    }
    let progress = super::progress::Progress::new(args.input.quiet);
    progress.stage(&format!("loading {} catalog(s)", inv.config.catalogs.len()));
    inv.load_catalogs()?;
    let cluster = Cluster {
        version: inv.cluster_version.clone(),
    };
    progress.stage(&format!(
        "resolving {} operator(s)",
        inv.config.operators.len()
    ));
    let outcomes = outcome::resolve_for_release(&inv, &cluster);
    // The line stays through the checks (conversion, pulls); their diagnostics go around it.
    let (outcomes, mut findings) = check(args, &inv, outcomes, &mut progress.writer(stderr))?;
    drop(progress);
    findings.install_unchecked.extend(inv.unchecked());
    let rows: Vec<Row> = outcomes
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let mut r = row(o, args.input.explain && !args.output.is_text());
            r.profile = inv
                .operator_profile(o.operator, inv.cluster_version.as_ref())
                .map(crate::render::Profile::name)
                .or(o.operator.bootstrap.then_some("bootstrap"));
            r.unchecked = std::mem::take(&mut findings.unchecked[i]);
            // A refusal of the resolution itself is already in `error` and `problems`.
            if o.ok() {
                r.error = findings.refused[i].take();
            }
            r
        })
        .collect();
    let refused = rows
        .iter()
        .any(|r| r.error.is_some() || !r.problems.is_empty())
        || !outcomes.iter().all(Outcome::ok);
    let unchecked: Vec<String> = rows
        .iter()
        .flat_map(|r| {
            r.unchecked
                .iter()
                .map(move |u| format!("operator \"{}\": {u}", r.name))
        })
        .chain(findings.install_unchecked.iter().cloned())
        .collect();
    match args.output {
        format if format.is_text() => {
            let dash = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
            let table: Vec<Vec<String>> = rows
                .iter()
                .map(|r| {
                    vec![
                        r.name.clone(),
                        r.package.clone(),
                        dash(&r.catalog),
                        dash(&r.bundle),
                        dash(&r.version),
                        dash(&r.image),
                    ]
                })
                .collect();
            use crate::table::Column;
            let columns = [
                Column::new("NAME"),
                Column::new("PACKAGE"),
                Column::new("CATALOG").redundant_if(crate::table::uniform(&table, 2)),
                Column::new("BUNDLE"),
                Column::new("VERSION").redundant_if(crate::table::holds(&table, 3, 4)),
                Column::wide("IMAGE"),
            ];
            write!(
                stdout,
                "{}",
                crate::table::render_with(&columns, &table, format.width(), !args.no_headers)
            )?;
            if args.input.explain {
                writeln!(stdout)?;
                for o in &outcomes {
                    write_explain(stdout, o, format.width())?;
                }
            }
        }
        format => super::printer::structured(
            stdout,
            format,
            &Document {
                operators: rows,
                unchecked: findings.install_unchecked.clone(),
            },
        )?,
    }
    for u in &unchecked {
        let report = if args.allow_unchecked {
            diagnostics::Report::warning(format!("not checked: {u}"))
        } else {
            diagnostics::Report::message(format!("not checked: {u}"))
        };
        write!(stderr, "{}", report.render(color))?;
    }
    if let Some(e) = findings.error {
        return Err(e);
    }
    if refused {
        return Ok(EXIT_INVALID);
    }
    if !unchecked.is_empty() && !args.allow_unchecked {
        let n = unchecked.len();
        write!(
            stderr,
            "{}",
            diagnostics::Report::message(format!(
                "{n} check{} could not run, and create refuses an install it cannot check",
                if n == 1 { "" } else { "s" }
            ))
            .help("give what is missing (the bundle content: --bundles, --oci-layout or a reachable registry; the target release; the install-config), or pass --allow-unchecked to accept; create accepts a missing install-config with --allow-unchecked too, never missing bundle content or target release")
            .render(color)
        )?;
        return Ok(EXIT_INVALID);
    }
    Ok(EXIT_OK)
}
