//! `upgrade-plan`'s library side: the plan from the current release (`from`, else the lock
//! file's) to the target ([`plan`]), the planner's view of each configured operator (from the
//! configuration's `installed:` or the lock file), and the planned bundles as outcomes that
//! [`super::plan::plan_outcomes`] renders for the target release (`--write`).
//!
//! With update graph documents ([`GraphInput`]: files, or `https://` URLs fetched like
//! catalogs, with the same trust, proxy, offline and cache rules), the cluster's route is the
//! graph's path ([`crate::upgrade::graph`]) and every hop of it is checked for every operator.

use super::outcome::{self, Outcome};
use super::{Error, Install};
use crate::openshift::ClusterVersion;
use crate::output::lock::{self, Lock};
use crate::resolve::{self, Cluster, LoadedCatalog, Resolution};
use crate::upgrade::graph::{self, UpdateGraph};
use crate::upgrade::{self, BundleRef, Plan};

/// Where the update graph comes from and how the path through it is chosen.
#[derive(Debug, Clone, Default)]
pub struct GraphInput {
    /// Graph documents: files, or `https://` URLs (`…/graph?channel=stable-4.18&arch=amd64`).
    pub sources: Vec<String>,
    /// Only releases of this channel (default: the channel every document was requested for).
    pub channel: Option<String>,
    /// Also take edges whose risks apply to every cluster.
    pub allow_not_recommended: bool,
    /// Plan an EUS-to-EUS update.
    pub eus: bool,
}

/// Read every graph document into one graph.
pub fn load_graph(inv: &Install, sources: &[String]) -> Result<UpdateGraph, Error> {
    let mut builder = graph::Builder::new();
    let mut fetcher = None;
    for source in sources {
        let (bytes, channel) = if source.starts_with("https://") {
            let fetcher = match &mut fetcher {
                Some(f) => f,
                None => fetcher.insert(
                    inv.fetcher()?
                        .accepting("application/json")
                        .capped(graph::MAX_GRAPH_BYTES, "the update graph cap"),
                ),
            };
            let fetched = fetcher.fetch(source, None).map_err(|e| Error::Fetch {
                name: String::new(),
                source: e,
            })?;
            let bytes = crate::fsread::read(&fetched.path, graph::MAX_GRAPH_BYTES, None).map_err(
                |source| Error::ReadFile {
                    path: fetched.path.clone(),
                    source,
                },
            )?;
            (bytes, graph::channel_of_url(source))
        } else if source.contains("://") {
            return Err(Error::Usage(format!(
                "--update-graph {source}: only files and https:// URLs are read"
            )));
        } else {
            let path = std::path::Path::new(source);
            let bytes =
                crate::fsread::read(path, graph::MAX_GRAPH_BYTES, None).map_err(|source| {
                    Error::ReadFile {
                        path: path.to_path_buf(),
                        source,
                    }
                })?;
            (bytes, None)
        };
        builder
            .add(source, &bytes, channel)
            .map_err(|e| Error::UpdateGraph(Box::new(e)))?;
    }
    Ok(builder.finish())
}

/// The route of the cluster from `from` to `to`: the graph's path when `input` names a graph
/// (not for a rollback or no change, which the graph has no edges for: the notes say so).
pub fn route(
    inv: &Install,
    from: &ClusterVersion,
    to: &ClusterVersion,
    input: &GraphInput,
    notes: &mut Vec<String>,
) -> Result<upgrade::Route, Error> {
    let mut route = upgrade::Route {
        eus: input.eus,
        ..Default::default()
    };
    if input.sources.is_empty() {
        // The plan says so itself (`updateGraph.checked: false`).
        return Ok(route);
    }
    let forward = (to.major, to.minor) > (from.major, from.minor)
        || ((to.major, to.minor) == (from.major, from.minor)
            && to.patch.unwrap_or(0) > from.patch.unwrap_or(0));
    if !forward {
        notes.push(format!(
            "the update graph has no edges for {from} → {to} (only updates to newer releases): it was not used"
        ));
        return Ok(route);
    }
    if from.patch.is_none() {
        return Err(Error::Usage(format!(
            "the current release {from} has no patch version: the update graph needs the exact release (--from {}.{}.Z)",
            from.major, from.minor
        )));
    }
    let graph = load_graph(inv, &input.sources)?;
    notes.extend(graph.notes().iter().cloned());
    let channel = input
        .channel
        .clone()
        .or_else(|| graph.default_channel().map(str::to_string));
    let path = graph
        .path(&graph::Query {
            from,
            to,
            channel: channel.as_deref(),
            allow_not_recommended: input.allow_not_recommended,
        })
        .map_err(|e| Error::UpdateGraph(Box::new(e)))?;
    if path.tier == graph::EdgeKind::NotRecommended {
        notes.push(
            "the path takes an update that the update service does not recommend for any cluster (--allow-not-recommended)".into(),
        );
    }
    route.channels = graph.channels();
    route.path = Some(path);
    Ok(route)
}

/// The upgrade plan from the current release to `to`: `from`, else the lock file's
/// `clusterVersion`, else the configuration's (an install not created yet); the catalogs (as configured, or overridden) are loaded for the target.
/// The notes say where the configuration and the lock file disagree.
pub fn plan(
    inv: &mut Install,
    from: Option<ClusterVersion>,
    to: &ClusterVersion,
    explain: bool,
    input: &GraphInput,
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
    let mut graph_notes = Vec::new();
    let route = route(inv, &from, to, input, &mut graph_notes)?;
    inv.load_catalogs()?;
    let (operators, mut notes) = operators(inv, lock.as_ref());
    notes.extend(graph_notes);
    let plan = upgrade::plan_route(
        &operators,
        &inv.catalogs,
        &from,
        to,
        &route,
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
            let entry = lock.and_then(|l| l.operators.iter().find(|l| l.name == o.name.value));
            // A Subscription with Automatic approval is at the end of its channel: what the
            // lock records it ends at.
            let locked = entry.map(|l| match l.subscription.as_ref().and_then(|s| s.ends_at.as_ref()) {
                Some(end) if l.subscription.as_ref().is_some_and(|s| s.install_plan_approval != "Manual") => BundleRef {
                    bundle: end.bundle.clone(),
                    version: end.version.clone(),
                    catalog: Some(l.catalog.clone()),
                },
                _ => BundleRef {
                    bundle: l.bundle.clone(),
                    version: l.version.clone(),
                    catalog: Some(l.catalog.clone()),
                },
            });
            let subscription = entry.and_then(|l| {
                let s = l.subscription.as_ref()?;
                let (name, namespace) = s.catalog_source.split_once('/')?;
                Some(crate::upgrade::subscription::SubscriptionUpgrade {
                    namespace: l.namespace.clone().unwrap_or_default(),
                    channel: s.channel.clone().unwrap_or_default(),
                    source: crate::resolve::olmv0::SourceKey::new(name, namespace),
                    approval: if s.install_plan_approval == "Manual" {
                        crate::config::Approval::Manual
                    } else {
                        crate::config::Approval::Automatic
                    },
                    dependencies: s
                        .dependencies
                        .iter()
                        .map(|d| crate::upgrade::subscription::InstalledDependency {
                            package: d.package.clone(),
                            bundle: d
                                .ends_at
                                .as_ref()
                                .map_or_else(|| d.bundle.clone(), |e| e.bundle.clone()),
                            channel: d.channel.clone(),
                            catalog: d.catalog.clone(),
                        })
                        .collect(),
                })
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
                subscription,
                bootstrap: o.bootstrap,
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
    let cluster = Cluster {
        version: Some(to.clone()),
    };
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
                    missing_channel: None,
                });
            Outcome::checked(op, resolution, &cluster)
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
