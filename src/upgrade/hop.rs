//! One hop of the cluster for every operator: what must move before it (an installed bundle
//! the target does not take), what moves after it (by the upgrade policy, as OLM v1's
//! reconciles walk), what stays and why, and what blocks it.

use crate::catalog::model::Bundle;
use crate::config::{UpgradeConstraintPolicy, UpgradePolicy};
use crate::openshift::ClusterVersion;
use crate::resolve::{self, Bound, Cluster, Installed, LoadedCatalog, Resolution};
use crate::version::masterminds;

use super::blocker::blocker;
use super::candidates::{bound_text, eligible, find_installed, parse_bound, policy_bound};
use super::compat::{self, Compatibility};
use super::{
    BundleRef, Change, Hop, HopOutcome, Operator, Reason, Stay, Step, render, subscription,
};

pub(super) fn chain_of(
    start: Option<&BundleRef>,
    resolutions: &[&Resolution<'_>],
) -> Vec<BundleRef> {
    start
        .cloned()
        .into_iter()
        .chain(
            resolutions
                .iter()
                .map(|r| BundleRef::of(r.bundle, &r.catalog.name)),
        )
        .collect()
}

#[allow(clippy::too_many_arguments)]
pub(super) fn plan_hop(
    operators: &[Operator],
    state: &mut [Option<BundleRef>],
    catalogs: &[LoadedCatalog],
    current: &ClusterVersion,
    target: &ClusterVersion,
    change: Change,
    warnings: &mut Vec<String>,
    keep: bool,
) -> Hop {
    let mut hop = Hop {
        from: current.text.clone(),
        to: target.text.clone(),
        change,
        before: Vec::new(),
        after: Vec::new(),
        stays: Vec::new(),
        blockers: Vec::new(),
        release: None,
        edge: None,
        risks: Vec::new(),
        control_plane_only: false,
    };
    // Before the cluster moves: every installed operator must be compatible with the target.
    if change == Change::MinorUpgrade {
        for (op, slot) in operators.iter().zip(state.iter_mut()) {
            let Some(installed) = slot.clone() else {
                continue;
            };
            let Some((_, bundle)) = find_installed(op, &installed, catalogs) else {
                warnings.push(format!(
                    "operator \"{}\": the installed bundle {} ({}) is not in the catalog snapshot, so its compatibility with OpenShift {} was not checked",
                    op.name, installed.bundle, installed.version, target.text
                ));
                continue;
            };
            let compatibility = compat::check(bundle, target);
            if compatibility.is_compatible() {
                continue;
            }
            // Why the operator cannot stay: the same blocker whichever profile looked for a way out.
            let blocked = || {
                blocker(
                    op,
                    &installed,
                    bundle,
                    catalogs,
                    current,
                    target,
                    compatibility.clone(),
                )
            };
            if let Some(sub) = &op.subscription {
                match subscription::before(
                    op,
                    sub,
                    &installed,
                    catalogs,
                    current,
                    target,
                    &compatibility,
                ) {
                    Some(step) => {
                        *slot = Some(step.to.clone());
                        hop.before.push(step);
                    }
                    None => hop.blockers.push(subscription::olm_v0_blocker(
                        blocked(),
                        op,
                        sub,
                        current,
                        target,
                    )),
                }
                continue;
            }
            match upgrade_before(
                op,
                &installed,
                catalogs,
                current,
                target,
                &compatibility,
                keep,
            ) {
                Some(step) => {
                    *slot = Some(step.to.clone());
                    hop.before.push(step);
                }
                None => hop.blockers.push(blocked()),
            }
        }
        if !hop.blockers.is_empty() {
            return hop;
        }
    }
    // After it: each operator moves as its policy allows, compatible with the new release.
    let cluster = Cluster {
        version: Some(target.clone()),
    };
    for (op, slot) in operators.iter().zip(state.iter_mut()) {
        let outcome = match slot.clone() {
            Some(installed) if op.subscription.is_some() && change != Change::PatchRollback => {
                let sub = op.subscription.as_ref().expect("checked");
                subscription::follow(op, sub, &installed, catalogs, target, warnings)
            }
            None => install_fresh(op, catalogs, &cluster, warnings, keep)
                .map_or(HopOutcome::Stays(None), HopOutcome::Moves),
            Some(installed) if change == Change::PatchRollback => {
                rollback(op, &installed, catalogs, &cluster, warnings, keep)
                    .map_or(HopOutcome::Stays(None), HopOutcome::Moves)
            }
            Some(installed) => follow(op, &installed, catalogs, &cluster, change, warnings, keep),
        };
        match outcome {
            HopOutcome::Moves(step) => {
                *slot = Some(step.to.clone());
                hop.after.push(step);
            }
            HopOutcome::Stays(Some(stay)) => hop.stays.push(stay),
            HopOutcome::Stays(None) => {}
        }
    }
    hop
}

/// Walk from `installed` under the operator's policy and `bound`; `None` when a step fails.
pub(super) fn walk_from<'a>(
    op: &Operator,
    installed: &BundleRef,
    bound: Option<Bound>,
    constraint: UpgradeConstraintPolicy,
    catalogs: &'a [LoadedCatalog],
    cluster: &Cluster,
    keep: bool,
) -> Result<resolve::Walk<'a>, resolve::WalkError> {
    let version = installed
        .parsed()
        .unwrap_or_else(|| semver::Version::new(0, 0, 0));
    let from = Installed {
        bundle: installed.bundle.clone(),
        version,
        policy: constraint,
        bound,
    };
    resolve::walk_keeping(&op.request(), &from, catalogs, cluster, keep)
}

pub(super) fn step_from_walk(
    op: &Operator,
    installed: &BundleRef,
    walk: &resolve::Walk<'_>,
    reason: Reason,
) -> Step {
    let moves: Vec<&Resolution<'_>> = walk.moves().iter().collect();
    let end = walk.end();
    Step {
        operator: op.name.clone(),
        package: op.package.clone(),
        from: Some(installed.clone()),
        to: BundleRef::of(end.bundle, &end.catalog.name),
        chain: chain_of(Some(installed), &moves),
        version: walk
            .from
            .bound
            .as_ref()
            .map(|b| b.range.as_str().to_string()),
        reason,
        requires: None,
        reconciles: walk.steps.iter().map(|r| r.candidates.clone()).collect(),
    }
}

/// A move before the cluster upgrade, to a version compatible with both releases that OLM
/// reaches from `installed`: the lowest such for `pinned`, the highest otherwise.
pub(super) fn upgrade_before(
    op: &Operator,
    installed: &BundleRef,
    catalogs: &[LoadedCatalog],
    current: &ClusterVersion,
    target: &ClusterVersion,
    compatibility: &Compatibility,
    keep: bool,
) -> Option<Step> {
    let from_version = installed.parsed()?;
    let policy = policy_bound(op.policy, Change::MinorUpgrade, &from_version)
        .filter(|_| op.policy == UpgradePolicy::FollowCluster);
    let mut targets: Vec<&Bundle> = eligible(op, catalogs, &from_version, current, target)
        .into_iter()
        .filter(|b| {
            let Some(v) = &b.version else { return false };
            policy
                .as_ref()
                .is_none_or(|(_, text)| masterminds::Range::parse(text).is_ok_and(|r| r.matches(v)))
        })
        .collect();
    targets.sort_by(|a, b| match (&a.version, &b.version) {
        (Some(x), Some(y)) => crate::version::cmp_olm(x, y),
        _ => std::cmp::Ordering::Equal,
    });
    if op.policy != UpgradePolicy::Pinned {
        targets.reverse();
    }
    let cluster = Cluster {
        version: Some(current.clone()),
    };
    for t in targets {
        let v = t.version.as_ref()?;
        let (rule, text) = match &policy {
            Some((rule, text)) => (
                format!(
                    "{rule}, compatible with {} and {}",
                    current.text, target.text
                ),
                format!("{text} <={}", bound_text(v)),
            ),
            None => (
                format!(
                    "{}, compatible with {} and {}",
                    op.policy, current.text, target.text
                ),
                format!(">={} <={}", bound_text(&from_version), bound_text(v)),
            ),
        };
        let Some(bound) = parse_bound(rule, &text) else {
            continue;
        };
        let Ok(walk) = walk_from(
            op,
            installed,
            Some(bound),
            op.constraint,
            catalogs,
            &cluster,
            keep,
        ) else {
            continue;
        };
        if walk.end().bundle.name == t.name && walk.moved() {
            return Some(step_from_walk(
                op,
                installed,
                &walk,
                Reason::IncompatibleWithTarget {
                    target: target.text.clone(),
                    compatibility: compatibility.clone(),
                },
            ));
        }
    }
    None
}

/// After the cluster change: move as the policy allows, compatible with the new release.
pub(super) fn follow(
    op: &Operator,
    installed: &BundleRef,
    catalogs: &[LoadedCatalog],
    cluster: &Cluster,
    change: Change,
    warnings: &mut Vec<String>,
    keep: bool,
) -> HopOutcome {
    let Some(version) = installed.parsed() else {
        warnings.push(format!(
            "operator \"{}\": the installed version {:?} is not a semver version; it stays",
            op.name, installed.version
        ));
        return HopOutcome::Stays(None);
    };
    let bound = match policy_bound(op.policy, change, &version) {
        None => None,
        Some((rule, text)) => match parse_bound(rule, &text) {
            Some(b) => Some(b),
            None => {
                warnings.push(format!(
                    "operator \"{}\": the range {text} of its upgrade policy does not parse; it stays",
                    op.name
                ));
                return HopOutcome::Stays(None);
            }
        },
    };
    match walk_from(op, installed, bound, op.constraint, catalogs, cluster, keep) {
        Ok(walk) if walk.moved() => HopOutcome::Moves(step_from_walk(
            op,
            installed,
            &walk,
            Reason::FollowsCluster { policy: op.policy },
        )),
        Ok(walk) => HopOutcome::Stays(Some(Stay {
            operator: op.name.clone(),
            package: op.package.clone(),
            bundle: installed.clone(),
            version: walk
                .from
                .bound
                .as_ref()
                .map(|b| b.range.as_str().to_string()),
            reconciles: walk.steps.iter().map(|r| r.candidates.clone()).collect(),
        })),
        Err(e) => {
            let on = cluster
                .version
                .as_ref()
                .map(|v| v.text.as_str())
                .unwrap_or("");
            // OLM never manages a bootstrap operator: no OLM resolves it, po-manifests does.
            let who = if op.bootstrap {
                "a bootstrap operator (its own objects, which OLM never manages): no bundle follows"
            } else {
                "OLM v1 cannot resolve from"
            };
            warnings.push(format!(
                "operator \"{}\": {who} the installed {} on {on}; it stays: {}",
                op.name,
                installed.bundle,
                crate::error_chain(&e)
            ));
            HopOutcome::Stays(None)
        }
    }
}

/// A patch rollback: stay where the installed bundle still fits, else re-resolve no higher
/// than it (a downgrade, which OLM v1 takes only with `SelfCertified`).
pub(super) fn rollback(
    op: &Operator,
    installed: &BundleRef,
    catalogs: &[LoadedCatalog],
    cluster: &Cluster,
    warnings: &mut Vec<String>,
    keep: bool,
) -> Option<Step> {
    let target = cluster.version.as_ref()?;
    let why = match find_installed(op, installed, catalogs) {
        None => format!(
            "{} is not in the catalog snapshot for {}",
            installed.bundle, target.text
        ),
        Some((_, b)) => match compat::check(b, target) {
            Compatibility::Compatible => return None,
            c => format!(
                "{} {}, not compatible with {}",
                installed.bundle,
                render::compatibility_phrase(&c),
                target.text
            ),
        },
    };
    let version = installed.parsed()?;
    let text = format!("<={}", bound_text(&version));
    let Some(bound) = parse_bound(
        format!("{}, {}", op.policy, Change::PatchRollback.describe()),
        &text,
    ) else {
        warnings.push(format!(
            "operator \"{}\": {why}, and the range {text} does not parse; it stays",
            op.name
        ));
        return None;
    };
    match walk_from(
        op,
        installed,
        Some(bound),
        UpgradeConstraintPolicy::SelfCertified,
        catalogs,
        cluster,
        keep,
    ) {
        Ok(walk) => {
            let end = walk.end();
            let mut step = step_from_walk(op, installed, &walk, Reason::NoLongerFits { why });
            // One SelfCertified reconcile jumps straight to the end.
            step.chain = vec![
                installed.clone(),
                BundleRef::of(end.bundle, &end.catalog.name),
            ];
            if step.to.bundle == installed.bundle {
                return None;
            }
            if op.constraint == UpgradeConstraintPolicy::CatalogProvided
                && end.bundle.version.as_ref().is_some_and(|v| v < &version)
            {
                step.requires = Some(
                    "a downgrade: OLM v1 moves to an older version only with upgradeConstraintPolicy: SelfCertified".into(),
                );
            }
            Some(step)
        }
        Err(e) => {
            warnings.push(format!(
                "operator \"{}\": {why}, and nothing else fits {}: {}",
                op.name,
                target.text,
                crate::error_chain(&e)
            ));
            None
        }
    }
}

/// An operator that is not installed yet: resolved for the target as `create` would.
pub(super) fn install_fresh(
    op: &Operator,
    catalogs: &[LoadedCatalog],
    cluster: &Cluster,
    warnings: &mut Vec<String>,
    keep: bool,
) -> Option<Step> {
    match resolve::resolve(&op.request(), catalogs, cluster) {
        Ok(r) => Some(Step {
            operator: op.name.clone(),
            package: op.package.clone(),
            from: None,
            to: BundleRef::of(r.bundle, &r.catalog.name),
            chain: vec![BundleRef::of(r.bundle, &r.catalog.name)],
            version: op.range.as_ref().map(|r| r.text.clone()),
            reason: Reason::NotInstalled,
            requires: None,
            reconciles: if keep { vec![r.candidates] } else { Vec::new() },
        }),
        Err(e) => {
            warnings.push(format!(
                "operator \"{}\" is not installed and cannot be resolved for {}: {e}",
                op.name,
                cluster
                    .version
                    .as_ref()
                    .map(|v| v.text.as_str())
                    .unwrap_or("")
            ));
            None
        }
    }
}
