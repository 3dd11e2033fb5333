//! Operators of the subscription profile through a cluster upgrade, as OLM v0 moves them.
//!
//! OLM v0 upgrades nothing because the cluster does (`reference/olm-v0.md` §6): it sets
//! `Upgradeable=False` on the `operator-lifecycle-manager` ClusterOperator while an installed
//! CSV's `olm.maxOpenShiftVersion` is below the next minor (reason
//! `IncompatibleOperatorsInstalled`), which blocks minor updates only. What moves a Subscription
//! is its catalog: the default sources are retagged to the new release's index after the
//! upgrade, and a pinned CatalogSource moves when its image is edited; then, with Automatic
//! approval, the Subscription and the ones OLM created for its dependencies follow their
//! channels in the new content, edge by edge ([`crate::resolve::olmv0::walk`]).

use super::{Blocker, BundleRef, Compatibility, HopOutcome, Operator, Reason, Stay, Step};
use crate::catalog::model::Bundle;
use crate::config::Approval;
use crate::openshift::ClusterVersion;
use crate::resolve::LoadedCatalog;
use crate::resolve::olmv0::{self, Installed, SourceKey};

/// What the planner knows of a subscription-profile operator beyond [`Operator`].
#[derive(Debug, Clone)]
pub struct SubscriptionUpgrade {
    /// The namespace.
    pub namespace: String,
    /// The channel the Subscription names (empty: every channel).
    pub channel: String,
    /// The CatalogSource it names.
    pub source: SourceKey,
    /// `installPlanApproval`.
    pub approval: Approval,
    /// The dependencies installed with it: package, bundle installed, channel and catalog of
    /// the Subscription OLM created for each.
    pub dependencies: Vec<InstalledDependency>,
}

/// A dependency OLM v0 installed, with the Subscription it created for it.
#[derive(Debug, Clone)]
pub struct InstalledDependency {
    /// Package.
    pub package: String,
    /// The bundle installed now.
    pub bundle: String,
    /// The channel of its Subscription.
    pub channel: String,
    /// The configured catalog it came from.
    pub catalog: String,
}

/// A bundle by name in the catalogs, the named catalog first.
fn find<'a>(
    catalogs: &'a [LoadedCatalog],
    package: &str,
    bundle: &str,
    catalog: Option<&str>,
) -> Option<(&'a LoadedCatalog, &'a Bundle)> {
    let mut ordered: Vec<&LoadedCatalog> = catalogs.iter().collect();
    ordered.sort_by_key(|c| Some(c.name.as_str()) != catalog);
    ordered.into_iter().find_map(|c| {
        c.catalog
            .package(package)
            .and_then(|p| p.bundle(bundle))
            .map(|b| (c, b))
    })
}

/// Where Automatic approval takes the operator in `catalogs` on `cluster`: the bundles its
/// Subscription installs one after the other, from `installed`; `Ok(None)` when it stays.
fn walk(
    op: &Operator,
    sub: &SubscriptionUpgrade,
    installed: &BundleRef,
    catalogs: &[LoadedCatalog],
    cluster: &ClusterVersion,
) -> Result<Option<Vec<BundleRef>>, String> {
    let defaults = crate::openshift::default_catalog_sources(Some(cluster));
    let sources: Vec<olmv0::Source<'_>> = catalogs
        .iter()
        .filter_map(|c| {
            olmv0::catalog_source(c, &defaults).map(|(key, priority)| olmv0::Source {
                key,
                priority,
                catalog: Some(&c.catalog),
            })
        })
        .collect();
    let Some((_, current)) = find(
        catalogs,
        &op.package,
        &installed.bundle,
        installed.catalog.as_deref(),
    ) else {
        return Err(format!(
            "the installed {} is in no catalog snapshot, so what OLM v0 resolves from it is not known",
            installed.bundle
        ));
    };
    let mut csvs = vec![Installed {
        bundle: current,
        replaces: None,
        subscription: Some(op.name.clone()),
    }];
    let mut subs = vec![olmv0::Subscription {
        name: op.name.clone(),
        package: op.package.clone(),
        channel: sub.channel.clone(),
        starting_csv: String::new(),
        source: sub.source.clone(),
        installed: Some(installed.bundle.clone()),
    }];
    for d in &sub.dependencies {
        let Some((catalog, bundle)) = find(catalogs, &d.package, &d.bundle, Some(&d.catalog))
        else {
            return Err(format!(
                "the installed dependency {} is in no catalog snapshot",
                d.bundle
            ));
        };
        let source = SourceKey::new(
            catalog.name.clone(),
            crate::openshift::MARKETPLACE_NAMESPACE,
        );
        let name = format!(
            "{}-{}-{}-{}",
            d.package, d.channel, source.name, source.namespace
        );
        csvs.push(Installed {
            bundle,
            replaces: None,
            subscription: Some(name.clone()),
        });
        subs.push(olmv0::Subscription {
            name,
            package: d.package.clone(),
            channel: d.channel.clone(),
            starting_csv: String::new(),
            source,
            installed: Some(d.bundle.clone()),
        });
    }
    let walked = olmv0::walk::walk(
        &olmv0::Query {
            namespace: &sub.namespace,
            sources: &sources,
            subscriptions: &subs,
            installed: &csvs,
        },
        olmv0::walk::MAX_STEPS,
    )
    .map_err(|e| e.to_string())?;
    let mut chain = vec![installed.clone()];
    for step in &walked.steps {
        for p in step {
            if p.subscription.as_deref() == Some(&op.name) {
                chain.push(BundleRef {
                    bundle: p.bundle.name.clone(),
                    version: p.bundle.version_text.clone(),
                    catalog: Some(p.catalog.name.clone()),
                });
            }
        }
    }
    Ok((chain.len() > 1).then_some(chain))
}

/// After the cluster change: with Automatic approval the Subscription follows its channel in
/// the target's catalog; with Manual every InstallPlan waits.
pub(super) fn follow(
    op: &Operator,
    sub: &SubscriptionUpgrade,
    installed: &BundleRef,
    catalogs: &[LoadedCatalog],
    cluster: &ClusterVersion,
    warnings: &mut Vec<String>,
) -> HopOutcome {
    if sub.approval == Approval::Manual {
        warnings.push(format!(
            "operator \"{}\": installPlanApproval Manual: OLM v0 makes an InstallPlan for each move along channel {} and waits until someone approves it",
            op.name,
            if sub.channel.is_empty() { "(every channel)" } else { &sub.channel }
        ));
        return HopOutcome::Stays(None);
    }
    match walk(op, sub, installed, catalogs, cluster) {
        Ok(Some(chain)) => HopOutcome::Moves(Step {
            operator: op.name.clone(),
            package: op.package.clone(),
            from: Some(installed.clone()),
            to: chain.last().cloned().unwrap_or_else(|| installed.clone()),
            chain,
            version: None,
            reason: Reason::FollowsChannel {
                channel: sub.channel.clone(),
            },
            requires: None,
            reconciles: Vec::new(),
        }),
        Ok(None) => HopOutcome::Stays(Some(Stay {
            operator: op.name.clone(),
            package: op.package.clone(),
            bundle: installed.clone(),
            version: None,
            reconciles: Vec::new(),
        })),
        Err(e) => {
            warnings.push(format!(
                "operator \"{}\": OLM v0 cannot resolve namespace {} from the installed {} on {}; it stays: {e}",
                op.name, sub.namespace, installed.bundle, cluster.text
            ));
            HopOutcome::Stays(None)
        }
    }
}

/// Before a minor hop, for an installed bundle the target is not compatible with: moving it
/// first takes the new catalog content before the cluster moves (a pinned CatalogSource's
/// image edited; a default source is retagged only after the upgrade). `None` when that does
/// not reach a bundle compatible with both releases either.
pub(super) fn before(
    op: &Operator,
    sub: &SubscriptionUpgrade,
    installed: &BundleRef,
    catalogs: &[LoadedCatalog],
    current: &ClusterVersion,
    target: &ClusterVersion,
    compatibility: &Compatibility,
) -> Option<Step> {
    if sub.approval == Approval::Manual {
        return None;
    }
    let chain = walk(op, sub, installed, catalogs, current).ok()??;
    let end = chain.last()?;
    let (_, bundle) = find(catalogs, &op.package, &end.bundle, end.catalog.as_deref())?;
    if !super::compat::check(bundle, target).is_compatible()
        || !super::compat::check(bundle, current).is_compatible()
    {
        return None;
    }
    Some(Step {
        operator: op.name.clone(),
        package: op.package.clone(),
        from: Some(installed.clone()),
        to: end.clone(),
        chain,
        version: None,
        reason: Reason::IncompatibleWithTarget {
            target: target.text.clone(),
            compatibility: compatibility.clone(),
        },
        requires: Some(format!(
            "the new catalog content before the cluster upgrade: point CatalogSource {} at it (a default source is retagged to the new release's index only after the upgrade)",
            sub.source
        )),
        reconciles: Vec::new(),
    })
}

/// The unblock advice for a blocker of the subscription profile.
pub(super) fn unblock(
    op: &Operator,
    sub: &SubscriptionUpgrade,
    current: &ClusterVersion,
    target: &ClusterVersion,
) -> Vec<String> {
    vec![
        format!(
            "OLM v0 sets Upgradeable=False on the operator-lifecycle-manager ClusterOperator (IncompatibleOperatorsInstalled) while this CSV is installed: publish a release of {} supporting OpenShift {} in channel {} of the catalog behind CatalogSource {}, and let the Subscription move to it on {}",
            op.package,
            target.minor_text(),
            if sub.channel.is_empty() {
                "(any)"
            } else {
                &sub.channel
            },
            sub.source,
            current.minor_text()
        ),
        format!(
            "or delete the Subscription and the CSV of operator \"{}\" before upgrading, or stay on OpenShift {}",
            op.name,
            current.minor_text()
        ),
    ]
}

/// Rewrite a blocker's advice for the subscription profile.
pub(super) fn olm_v0_blocker(
    mut b: Blocker,
    op: &Operator,
    sub: &SubscriptionUpgrade,
    current: &ClusterVersion,
    target: &ClusterVersion,
) -> Blocker {
    b.unblock = unblock(op, sub, current, target);
    b.message = super::render::blocker_message(&b);
    b
}
