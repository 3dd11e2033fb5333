//! `po-manifests upgrade-plan`: from the lock file (what is installed) and a catalog snapshot
//! for the target, the ordered plan of platform operator moves around a cluster upgrade, and
//! the `Upgradeable` verdict. Exit status 1 when the upgrade is blocked. `--write` updates the
//! lock file and re-renders the manifests for the target through `create`'s own writer.

use std::io::Write;
use std::path::PathBuf;

use super::create::{BundleContent, Install, color_stderr, profile_for, write_install};
use super::diagnostics::Report;
use super::flags::{InputArgs, OutputFormat, UpgradePlanArgs};
use super::invocation::{Invocation, Outcome};
use super::{EXIT_INVALID, EXIT_OK, Error};
use crate::config::CatalogLocation;
use crate::openshift::ClusterVersion;
use crate::output::lock::{self, Lock};
use crate::render::Templates;
use crate::resolve::{self, LoadedCatalog, Resolution};
use crate::upgrade::{self, BundleRef, Plan};

pub(super) fn run(
    args: &UpgradePlanArgs,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<u8, Error> {
    let color = color_stderr();
    let to = ClusterVersion::parse(&args.to).map_err(|m| Error::Usage(format!("--to: {m}")))?;
    let mut inv = Invocation::read(&InputArgs {
        dir: args.dir.clone(),
        config: args.config.clone(),
        cluster_version: Some(args.to.clone()),
        explain: args.explain,
        quiet: true,
        network: args.network.clone(),
    })?;
    for spec in &args.catalog {
        override_catalog(&mut inv, spec)?;
    }
    // --write: held for the rest of the run (see create's lock_install_dir).
    let _held = if args.write {
        Some(super::create::lock_install_dir(&inv, args.no_wait, stderr)?)
    } else {
        None
    };
    let lock = lock::read(&inv.lock_path)?;
    let from = match (
        &args.from,
        lock.as_ref().and_then(|l| l.cluster_version.as_ref()),
    ) {
        (Some(text), _) => {
            ClusterVersion::parse(text).map_err(|m| Error::Usage(format!("--from: {m}")))?
        }
        (None, Some(text)) => ClusterVersion::parse(text).map_err(|m| {
            Error::Usage(format!(
                "the lock file {} has clusterVersion {text:?}: {m}; give --from",
                inv.lock_path.display()
            ))
        })?,
        (None, None) => {
            return Err(Error::Usage(format!(
                "the current release is not known: give --from VERSION (no clusterVersion in {})",
                inv.lock_path.display()
            )));
        }
    };
    // The feature set is read for the current release: it cannot change across an upgrade.
    let current = crate::openshift::Target::new(&from, inv.feature_set(), inv.feature_gates())
        .map_err(|e| Error::Unsupported(format!("the current release {from}: {e}")))?;
    let catalogs = inv.load_catalogs()?;
    let (operators, mut notes) = operators(&inv, lock.as_ref());
    let plan = upgrade::plan_with(
        &operators,
        &catalogs,
        &from,
        &to,
        upgrade::Options {
            explain: args.explain,
        },
    )?
    .with_cluster_blockers(upgrade::cluster::blockers(
        &upgrade::cluster::ClusterFacts {
            from: &from,
            to: &to,
            feature_set: &current.feature_set,
            platform_operators: inv.config.operators.iter().any(|o| !o.bootstrap),
        },
    ));
    match args.output {
        OutputFormat::Table => write!(stdout, "{}", upgrade::render::text(&plan, args.explain))?,
        format => super::printer::structured(stdout, format, &plan)?,
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
        if args.output != OutputFormat::Table {
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
        let result = write_target(&inv, &to, &catalogs, &plan, args, &mut written, stderr);
        // Paths of the files written go where they cannot corrupt a JSON document.
        match args.output {
            OutputFormat::Table => stdout.write_all(&written)?,
            _ => stderr.write_all(&written)?,
        }
        return result;
    }
    Ok(EXIT_OK)
}

/// `--catalog NAME=SOURCE`: point the configured catalog NAME at another snapshot. A content
/// pin (`sha256`) belongs to the configured source, so it is dropped.
fn override_catalog(inv: &mut Invocation, spec: &str) -> Result<(), Error> {
    let Some((name, source)) = spec
        .split_once('=')
        .filter(|(n, s)| !n.is_empty() && !s.is_empty())
    else {
        return Err(Error::Usage(format!(
            "--catalog {spec}: expected NAME=SOURCE (a configured catalog name, then a directory, file or https:// URL)"
        )));
    };
    let known: Vec<String> = inv
        .config
        .catalogs
        .iter()
        .map(|c| c.name.value.clone())
        .collect();
    let Some(catalog) = inv
        .config
        .catalogs
        .iter_mut()
        .find(|c| c.name.value == name)
    else {
        return Err(Error::Usage(format!(
            "--catalog {spec}: no catalog named \"{name}\" is configured (configured: {})",
            known.join(", ")
        )));
    };
    catalog.source.value = if source.starts_with("https://") {
        CatalogLocation::Url(source.to_string())
    } else {
        CatalogLocation::Path(PathBuf::from(source))
    };
    catalog.sha256 = None;
    Ok(())
}

/// The planner's view of each configured operator: installed from the configuration's
/// `installed:`, else from the lock file. Notes say where the two disagree.
fn operators(inv: &Invocation, lock: Option<&Lock>) -> (Vec<upgrade::Operator>, Vec<String>) {
    let mut notes = Vec::new();
    let ops = inv
        .config
        .operators
        .iter()
        .map(|o| {
            let locked = lock
                .and_then(|l| l.operators.iter().find(|l| l.name == o.name.value))
                .map(|l| BundleRef {
                    bundle: l.bundle.clone(),
                    version: l.version.clone(),
                    catalog: Some(l.catalog.clone()),
                });
            let configured = o.installed.as_ref().map(|i| BundleRef {
                bundle: i.bundle.value.clone(),
                version: i.version.value.clone(),
                catalog: None,
            });
            if let (Some(c), Some(l)) = (&configured, &locked)
                && (c.bundle != l.bundle || c.version != l.version)
            {
                notes.push(format!(
                    "operator \"{}\": the configuration says {} ({}) is installed, the lock file {} ({}); planning from the configuration",
                    o.name.value, c.bundle, c.version, l.bundle, l.version
                ));
            }
            upgrade::Operator {
                name: o.name.value.clone(),
                package: o.package.value.clone(),
                channels: o.channels.iter().map(|c| c.value.clone()).collect(),
                range: o.version.as_ref().map(|v| v.value.clone()),
                catalog: o.catalog.as_ref().map(|c| c.value.clone()),
                policy: o.upgrade,
                constraint: o.upgrade_constraint_policy,
                installed: configured.or(locked),
            }
        })
        .collect();
    (ops, notes)
}

/// `--write`: each operator at its planned bundle, checked for the target release and rendered
/// and written by `create`'s writer (manifests and lock file, all or nothing).
fn write_target(
    inv: &Invocation,
    to: &ClusterVersion,
    catalogs: &[LoadedCatalog],
    plan: &Plan,
    args: &UpgradePlanArgs,
    out: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<u8, Error> {
    let profile = profile_for(inv, to)?;
    let templates = Templates::load(args.templates.as_deref())?;
    let mut outcomes: Vec<Outcome<'_>> = inv
        .config
        .operators
        .iter()
        .zip(&plan.operators)
        .map(|(op, planned)| {
            let resolution = planned
                .planned
                .as_ref()
                .and_then(|p| planned_resolution(catalogs, &op.package.value, p))
                .ok_or_else(|| resolve::Error::NoCandidate {
                    package: op.package.value.clone(),
                    candidates: Vec::new(),
                    hints: vec![format!(
                        "the plan has no bundle for operator \"{}\" on {}",
                        op.name.value, to
                    )],
                });
            Outcome::checked(op, resolution)
        })
        .collect();
    // The problems fitted to the target's OLM v1 as `create` fits them
    // (`invocation::resolve_for_release`): a webhook bundle is refused where the release has no
    // certificate provider for it, and accepted where it has one.
    super::invocation::fit_to_release(
        &mut outcomes,
        super::create::target_olm_v1(inv, to).as_ref(),
    );
    let stale: Vec<&str> = inv
        .config
        .operators
        .iter()
        .filter(|o| o.installed.is_some())
        .map(|o| o.name.value.as_str())
        .collect();
    let content = BundleContent::for_invocation(inv, &args.bundle_sources, args.allow_tags)?;
    let code = write_install(
        &Install {
            inv,
            cluster_version: to,
            profile,
            templates: &templates,
            catalogs,
            explain: false,
            locked: false,
            mirror_check: true,
            content: &content,
            quiet_unreachable: false,
            output: OutputFormat::Table,
        },
        &outcomes,
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

/// The planned bundle as a resolution, for the writer.
fn planned_resolution<'a>(
    catalogs: &'a [LoadedCatalog],
    package: &str,
    planned: &BundleRef,
) -> Option<Resolution<'a>> {
    catalogs
        .iter()
        .filter(|c| planned.catalog.as_deref().is_none_or(|n| c.name == n))
        .find_map(|c| {
            let p = c.catalog.package(package)?;
            let b = p.bundle(&planned.bundle)?;
            Some(Resolution {
                catalog: c,
                package: p,
                bundle: b,
                candidates: Vec::new(),
                warnings: Vec::new(),
            })
        })
}
