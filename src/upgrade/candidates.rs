//! Which bundles an operator may move to in one hop: the range its upgrade policy allows from
//! the installed version (`follow-cluster`, `pinned`, `latest`), its channels and `version`
//! range, and compatibility with the releases on both sides; and where the installed bundle is
//! in the catalogs.

use crate::catalog::model::Bundle;
use crate::config::UpgradePolicy;
use crate::openshift::ClusterVersion;
use crate::resolve::{Bound, LoadedCatalog};
use crate::version::masterminds;

use super::compat;
use super::{BundleRef, Change, Operator};

/// A version as a range bound: without build metadata (Masterminds ignores it anyway).
pub(super) fn bound_text(v: &semver::Version) -> String {
    let mut s = format!("{}.{}.{}", v.major, v.minor, v.patch);
    if !v.pre.is_empty() {
        s.push('-');
        s.push_str(v.pre.as_str());
    }
    s
}

/// The range `policy` allows from `installed` for a hop of kind `change`, with its rule.
pub(super) fn policy_bound(
    policy: UpgradePolicy,
    change: Change,
    installed: &semver::Version,
) -> Option<(String, String)> {
    let low = bound_text(installed);
    let (x, y) = (installed.major, installed.minor);
    match (policy, change) {
        (UpgradePolicy::Latest, _) => None,
        (UpgradePolicy::Pinned, _) | (_, Change::None) => {
            Some((format!("{policy}"), format!("={low}")))
        }
        (UpgradePolicy::FollowCluster, Change::PatchUpgrade) => Some((
            format!("{policy}, {}", change.describe()),
            format!(">={low} <{x}.{}.0-0", y.saturating_add(1)),
        )),
        (UpgradePolicy::FollowCluster, Change::MinorUpgrade) => Some((
            format!("{policy}, {}", change.describe()),
            format!(">={low} <{}.0.0-0", x.saturating_add(1)),
        )),
        (UpgradePolicy::FollowCluster, Change::PatchRollback) => Some((
            format!("{policy}, {}", change.describe()),
            format!("<={low}"),
        )),
    }
}

pub(super) fn parse_bound(rule: String, text: &str) -> Option<Bound> {
    masterminds::Range::parse(text)
        .ok()
        .map(|range| Bound { rule, range })
}

/// The installed bundle in the searched catalogs: by name, else by exact version.
pub(super) fn find_installed<'a>(
    op: &Operator,
    installed: &BundleRef,
    catalogs: &'a [LoadedCatalog],
) -> Option<(&'a LoadedCatalog, &'a Bundle)> {
    let searched = || {
        catalogs
            .iter()
            .filter(|c| op.catalog.as_deref().is_none_or(|n| c.name == n))
            .filter(|c| installed.catalog.as_deref().is_none_or(|n| c.name == n))
            .filter_map(|c| c.catalog.package(&op.package).map(|p| (c, p)))
    };
    searched()
        .find_map(|(c, p)| p.bundle(&installed.bundle).map(|b| (c, b)))
        .or_else(|| {
            let v = installed.parsed()?;
            searched().find_map(|(c, p)| {
                p.bundles
                    .iter()
                    .find(|b| b.version.as_ref() == Some(&v))
                    .map(|b| (c, b))
            })
        })
}

/// Bundles of the operator's package, newer than `from`, in its channels and range, and
/// compatible with both releases.
pub(super) fn eligible<'a>(
    op: &Operator,
    catalogs: &'a [LoadedCatalog],
    from: &semver::Version,
    current: &ClusterVersion,
    target: &ClusterVersion,
) -> Vec<&'a Bundle> {
    candidates_newer(op, catalogs, from)
        .into_iter()
        .filter(|b| in_channels(op, b))
        .filter(|b| in_range(op, b))
        .filter(|b| compat::check(b, current).is_compatible())
        .filter(|b| compat::check(b, target).is_compatible())
        .collect()
}

pub(super) fn candidates_newer<'a>(
    op: &Operator,
    catalogs: &'a [LoadedCatalog],
    from: &semver::Version,
) -> Vec<&'a Bundle> {
    catalogs
        .iter()
        .filter(|c| op.catalog.as_deref().is_none_or(|n| c.name == n))
        .filter_map(|c| c.catalog.package(&op.package))
        .flat_map(|p| p.bundles.iter())
        .filter(|b| {
            b.version
                .as_ref()
                .is_some_and(|v| crate::version::cmp_olm(v, from).is_gt())
        })
        .collect()
}

pub(super) fn in_channels(op: &Operator, b: &Bundle) -> bool {
    op.channels.is_empty() || b.channels.iter().any(|c| op.channels.contains(c))
}

pub(super) fn in_range(op: &Operator, b: &Bundle) -> bool {
    match (&op.range, &b.version) {
        (None, _) => true,
        (Some(r), Some(v)) => r.range.matches(v),
        (Some(_), None) => false,
    }
}

pub(super) fn newest(mut bundles: Vec<&Bundle>) -> Option<&Bundle> {
    bundles.sort_by(|a, b| match (&a.version, &b.version) {
        (Some(x), Some(y)) => crate::version::cmp_olm(y, x),
        _ => std::cmp::Ordering::Equal,
    });
    bundles.first().copied()
}
