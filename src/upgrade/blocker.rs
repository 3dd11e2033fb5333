//! Why a hop is blocked for an operator (`Upgradeable=False`) and what would unblock it: the
//! newest bundle that fits both releases, and the setting (channel, `version`, policy) that
//! keeps the operator from it.

use crate::catalog::model::Bundle;
use crate::config::UpgradePolicy;
use crate::openshift::ClusterVersion;
use crate::resolve::LoadedCatalog;
use crate::version::masterminds;

use super::candidates::{candidates_newer, in_channels, in_range, newest, policy_bound};
use super::compat::{self, Compatibility};
use super::{Blocker, BundleRef, Change, Operator, render};

/// An operator that blocks the hop, with what would unblock it.
pub(super) fn blocker(
    op: &Operator,
    installed: &BundleRef,
    bundle: &Bundle,
    catalogs: &[LoadedCatalog],
    current: &ClusterVersion,
    target: &ClusterVersion,
    compatibility: Compatibility,
) -> Blocker {
    let mut unblock = Vec::new();
    let from = installed
        .parsed()
        .unwrap_or_else(|| semver::Version::new(0, 0, 0));
    let fits_both = |b: &&Bundle| {
        compat::check(b, current).is_compatible() && compat::check(b, target).is_compatible()
    };
    let newer: Vec<&Bundle> = candidates_newer(op, catalogs, &from)
        .into_iter()
        .filter(fits_both)
        .collect();
    let label = |b: &Bundle| format!("{} ({})", b.version_text, b.name);
    if let Some(b) = newest(
        newer
            .iter()
            .copied()
            .filter(|b| !in_channels(op, b))
            .collect(),
    ) {
        unblock.push(format!(
            "{} supports both {} and {} but is only in channel{} {}: switch the operator's channel",
            label(b),
            current.minor_text(),
            target.minor_text(),
            if b.channels.len() == 1 { "" } else { "s" },
            b.channels.join(", ")
        ));
    }
    let in_ch: Vec<&Bundle> = newer
        .iter()
        .copied()
        .filter(|b| in_channels(op, b))
        .collect();
    if let Some(b) = newest(in_ch.iter().copied().filter(|b| !in_range(op, b)).collect()) {
        unblock.push(format!(
            "{} supports both {} and {} but is outside the operator's version range {}: widen `version`",
            label(b),
            current.minor_text(),
            target.minor_text(),
            op.range.as_ref().map(|r| r.text.as_str()).unwrap_or("")
        ));
    }
    let in_req: Vec<&Bundle> = in_ch.iter().copied().filter(|b| in_range(op, b)).collect();
    let policy = policy_bound(op.policy, Change::MinorUpgrade, &from)
        .filter(|_| op.policy == UpgradePolicy::FollowCluster);
    let in_policy = |b: &&Bundle| {
        policy.as_ref().is_none_or(|(_, text)| {
            masterminds::Range::parse(text)
                .is_ok_and(|r| b.version.as_ref().is_some_and(|v| r.matches(v)))
        })
    };
    if let Some(b) = newest(in_req.iter().copied().filter(|b| !in_policy(b)).collect()) {
        unblock.push(format!(
            "{} supports both {} and {} but is a new major version, which `upgrade: {}` does not allow: set `upgrade: latest` for this operator",
            label(b),
            current.minor_text(),
            target.minor_text(),
            op.policy
        ));
    }
    if let Some(b) = newest(in_req.iter().copied().filter(in_policy).collect()) {
        unblock.push(format!(
            "{} supports both {} and {} but OLM cannot reach it from {}: the catalog has no upgrade path to it that stays compatible with {}; set `upgradeConstraintPolicy: SelfCertified` to allow the jump",
            label(b),
            current.minor_text(),
            target.minor_text(),
            installed.bundle,
            current.minor_text()
        ));
    }
    if unblock.is_empty() {
        unblock.push(format!(
            "a release of {} that supports OpenShift {} (olm.maxOpenShiftVersion absent or at least {}) and upgrades from {} must be published in the catalog",
            op.package,
            target.minor_text(),
            target.minor_text(),
            installed.bundle
        ));
    }
    unblock.push(format!(
        "or remove operator \"{}\" before upgrading, or stay on OpenShift {}",
        op.name,
        current.minor_text()
    ));
    let mut b = Blocker {
        operator: op.name.clone(),
        package: op.package.clone(),
        installed: installed.clone(),
        max_open_shift_version: compat::max_openshift_version(bundle),
        current: current.text.clone(),
        target: target.text.clone(),
        compatibility,
        unblock,
        message: String::new(),
    };
    b.message = render::blocker_message(&b);
    b
}
