//! `upgrade-plan`'s library side: the plan from the current release (`from`, else the lock
//! file's) to the target ([`plan`]), the planner's view of each configured operator (from the
//! configuration's `installed:` or the lock file), and the planned bundles as outcomes that
//! [`super::plan::plan_outcomes`] renders for the target release (`--write`).

use super::outcome::{self, Outcome};
use super::{Error, Install};
use crate::openshift::ClusterVersion;
use crate::output::lock::{self, Lock};
use crate::resolve::{self, LoadedCatalog, Resolution};
use crate::upgrade::{self, BundleRef, Plan};

/// The upgrade plan from the current release to `to`: `from`, else the lock file's
/// `clusterVersion`, else the configuration's (an install not created yet); the catalogs (as configured, or overridden) are loaded for the target.
/// The notes say where the configuration and the lock file disagree.
pub fn plan(
    inv: &mut Install,
    from: Option<ClusterVersion>,
    to: &ClusterVersion,
    explain: bool,
) -> Result<(Plan, Vec<String>), Error> {
    let lock = lock::read(&inv.lock_path)?;
    let from = match (from, lock.as_ref().and_then(|l| l.cluster_version.as_ref())) {
        (Some(from), _) => from,
        (None, Some(text)) => ClusterVersion::parse(text).map_err(|m| {
            Error::Usage(format!(
                "the lock file {} has clusterVersion {text:?}: {m}; give --from",
                inv.lock_path.display()
            ))
        })?,
        // No lock file yet: the release the configuration was written for is the current one.
        (None, None) => match &inv.config.cluster_version {
            Some(configured) => configured.value.clone(),
            None => {
                return Err(Error::Usage(format!(
                    "the current release is not known: give --from VERSION (no clusterVersion in {} nor in the configuration {})",
                    inv.lock_path.display(),
                    inv.config.source.path.display()
                )));
            }
        },
    };
    // The feature set is read for the current release: it cannot change across an upgrade.
    let current = crate::openshift::Target::new(&from, inv.feature_set(), inv.feature_gates())
        .map_err(|e| Error::Unsupported(format!("the current release {from}: {e}")))?;
    inv.load_catalogs()?;
    let (operators, notes) = operators(inv, lock.as_ref());
    let plan = upgrade::plan_with(
        &operators,
        &inv.catalogs,
        &from,
        to,
        upgrade::Options { explain },
    )?
    .with_cluster_blockers(upgrade::cluster::blockers(
        &upgrade::cluster::ClusterFacts {
            from: &from,
            to,
            feature_set: &current.feature_set,
            platform_operators: inv.config.operators.iter().any(|o| !o.bootstrap),
        },
    ));
    Ok((plan, notes))
}

/// The planner's view of each configured operator: installed from the configuration's
/// `installed:`, else from the lock file. Notes say where the two disagree.
pub fn operators(inv: &Install, lock: Option<&Lock>) -> (Vec<upgrade::Operator>, Vec<String>) {
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

/// Each operator at its planned bundle, checked as `create` checks a resolution and with the
/// problems fitted to the target's OLM v1 as `create` fits them
/// ([`outcome::resolve_for_release`]): a webhook bundle is refused where the release has no
/// certificate provider for it, and accepted where it has one.
pub fn planned_outcomes<'a>(
    inv: &'a Install,
    to: &ClusterVersion,
    plan: &Plan,
) -> Vec<Outcome<'a>> {
    let mut outcomes: Vec<Outcome<'_>> = inv
        .config
        .operators
        .iter()
        .zip(&plan.operators)
        .map(|(op, planned)| {
            let resolution = planned
                .planned
                .as_ref()
                .and_then(|p| planned_resolution(&inv.catalogs, &op.package.value, p))
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
    outcome::fit_to_release(&mut outcomes, inv.target_olm_v1(to).as_ref());
    outcomes
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
