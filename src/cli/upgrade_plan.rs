//! `po-manifests upgrade-plan`: from the lock file (what is installed) and a catalog snapshot
//! for the target, the ordered plan of platform operator moves around a cluster upgrade, and
//! the `Upgradeable` verdict. Exit status 1 when the upgrade is blocked. `--write` updates the
//! lock file and re-renders the manifests for the target through `create`'s own writer.

use std::io::Write;

use super::diagnostics::{Report, color_stderr};
use super::flags::{OutputFormat, PictureFormat, UpgradePlanArgs};
use super::{EXIT_INVALID, EXIT_OK, Error};
use crate::install::plan::{self, BundleContent, Settings};
use crate::install::{Inputs, Install};
use crate::openshift::ClusterVersion;
use crate::render::Templates;
use crate::upgrade::{self, Plan};

pub(super) fn run(
    args: &UpgradePlanArgs,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<u8, Error> {
    let color = color_stderr();
    let to = ClusterVersion::parse(&args.to).map_err(|m| Error::Usage(format!("--to: {m}")))?;
    let mut inv = Install::read(
        &Inputs {
            dir: args.dir.clone(),
            config: args.config.clone(),
            cluster_version: Some(args.to.clone()),
            follow_links: args.follow_links,
        },
        (&args.network).into(),
    )?;
    for spec in &args.catalog {
        override_catalog(&mut inv, spec)?;
    }
    // --write: held for the rest of the run (see create's lock_install_dir).
    let _held = if args.write {
        Some(super::lock_install_dir(&inv, args.no_wait, stderr)?)
    } else {
        None
    };
    let from = args
        .from
        .as_deref()
        .map(|text| ClusterVersion::parse(text).map_err(|m| Error::Usage(format!("--from: {m}"))))
        .transpose()?;
    let input = crate::install::upgrade::GraphInput {
        sources: args.update_graph.clone(),
        channel: args.channel.clone(),
        allow_not_recommended: args.allow_not_recommended,
        eus: args.eus,
    };
    let (plan, mut notes) =
        crate::install::upgrade::plan(&mut inv, from, &to, args.explain, &input)?;
    let text_output = args.output.data().is_some_and(OutputFormat::is_text);
    match (args.output, args.output.data()) {
        (PictureFormat::Mermaid, _) => write!(stdout, "{}", upgrade::render::mermaid(&plan))?,
        (PictureFormat::Dot, _) => write!(stdout, "{}", upgrade::render::dot(&plan))?,
        (_, Some(format)) if format.is_text() => write!(
            stdout,
            "{}",
            upgrade::render::text(&plan, args.explain, format.width())
        )?,
        (_, Some(format)) => super::printer::structured(stdout, format, &plan)?,
        (_, None) => {}
    }
    for w in &plan.warnings {
        write!(stderr, "{}", Report::warning(w.clone()).render(color))?;
    }
    for note in notes.drain(..) {
        write!(stderr, "{}", Report::warning(note).render(color))?;
    }
    if !plan.cluster_blockers.is_empty() {
        for b in &plan.cluster_blockers {
            let report = Report::message(format!(
                "Upgradeable=False: the upgrade from {} to {} is blocked: {}{}",
                plan.from,
                plan.to,
                b.reason,
                if args.write {
                    "; nothing was written"
                } else {
                    ""
                }
            ))
            .help(format!("way out: {}", b.way_out));
            write!(stderr, "{}", report.render(color))?;
        }
        return Ok(EXIT_INVALID);
    }
    if !plan.upgradeable {
        let n = plan.blockers().count();
        let mut report = Report::message(format!(
            "the upgrade from {} to {} is blocked by {n} platform operator{}{}",
            plan.from,
            plan.to,
            if n == 1 { "" } else { "s" },
            if args.write {
                "; nothing was written"
            } else {
                ""
            }
        ));
        if !text_output {
            report = Report::message(format!(
                "{}: {}",
                report,
                plan.blockers()
                    .map(|b| b.message.as_str())
                    .collect::<Vec<_>>()
                    .join(" | ")
            ));
        }
        write!(stderr, "{}", report.render(color))?;
        return Ok(EXIT_INVALID);
    }
    if args.write {
        let mut written = Vec::new();
        let result = write_target(&inv, &to, &plan, args, &mut written, stderr);
        // Paths of the files written go where they cannot corrupt a JSON document.
        if text_output {
            stdout.write_all(&written)?;
        } else {
            stderr.write_all(&written)?;
        }
        return result;
    }
    Ok(EXIT_OK)
}

/// `--catalog NAME=SOURCE`: point the configured catalog NAME at another snapshot.
fn override_catalog(inv: &mut Install, spec: &str) -> Result<(), Error> {
    let Some((name, source)) = spec
        .split_once('=')
        .filter(|(n, s)| !n.is_empty() && !s.is_empty())
    else {
        return Err(Error::Usage(format!(
            "--catalog {spec}: expected NAME=SOURCE (a configured catalog name, then a directory, file or https:// URL)"
        )));
    };
    inv.override_catalog(name, source).map_err(|known| {
        Error::Usage(format!(
            "--catalog {spec}: no catalog named \"{name}\" is configured (configured: {})",
            known.join(", ")
        ))
    })
}

/// `--write`: each operator at its planned bundle, checked for the target release and rendered
/// and written by `create`'s writer (manifests and lock file, all or nothing).
fn write_target(
    inv: &Install,
    to: &ClusterVersion,
    plan: &Plan,
    args: &UpgradePlanArgs,
    out: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<u8, Error> {
    inv.profile_for(to)?;
    let templates = Templates::load(args.templates.as_deref())?;
    let outcomes = crate::install::upgrade::planned_outcomes(inv, to, plan);
    let stale: Vec<&str> = inv
        .config
        .operators
        .iter()
        .filter(|o| o.installed.is_some())
        .map(|o| o.name.value.as_str())
        .collect();
    let content = BundleContent::for_install(inv, &(&args.bundle_sources).into(), args.allow_tags)?;
    let planned = plan::plan_outcomes(
        inv,
        outcomes,
        &Settings {
            cluster_version: to,
            templates: &templates,
            mirror_check: true,
            content: &content,
        },
    )?;
    let code = super::plan_report::write_plan(
        inv,
        planned,
        false,
        OutputFormat::Table,
        true,
        out,
        stderr,
    )?;
    if !stale.is_empty() {
        writeln!(
            out,
            "note: update `installed:` in the configuration of {}: the lock file now records the planned bundles",
            stale.join(", ")
        )?;
    }
    Ok(code)
}
