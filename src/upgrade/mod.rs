//! Upgrade planning: platform operators through a cluster upgrade.
//!
//! Input: what is installed (per operator a bundle and version, from the lock file or the
//! configuration), the operators' upgrade settings, a catalog snapshot for the target, and the
//! current and target OpenShift releases. Output: a [`Plan`], data first (serde), that a pure
//! function ([`render::text`]) turns into prose.
//!
//! The policy is the Platform Operators enhancement review's (reference/platform-operators.md,
//! issue 9):
//! - A cluster **patch upgrade** lets each `follow-cluster` operator move to a newer patch of its
//!   own version, `>=X.Y.Z <X.(Y+1).0-0`; a **minor upgrade** to a newer minor,
//!   `>=X.Y.Z <(X+1).0.0-0`. `pinned` operators stay (`=X.Y.Z`) unless they must move; `latest`
//!   ones take the newest compatible version, new majors included. The operator's own `version`
//!   range and channels always apply too.
//! - An operator is compatible with a release when [`compat::check`] says so. An installed
//!   operator that is not compatible with the target must be upgraded **before** the cluster, to
//!   a version compatible with both releases; when there is none, the cluster upgrade is
//!   blocked (`Upgradeable=False`) and the plan says what would unblock it.
//! - A patch **rollback** re-resolves: an operator stays where it fits and otherwise moves back;
//!   a **minor downgrade** is refused; skipping minors is planned as consecutive minor hops,
//!   each checked.
//!
//! Every move is a walk of OLM v1 reconciles ([`crate::resolve::walk`]) under the operator's
//! `upgradeConstraintPolicy`, so each step lists the bundles OLM will install one after the
//! other.

pub mod cluster;
pub mod compat;
pub mod graph;
pub mod render;
pub mod subscription;

use serde::Serialize;

use crate::catalog::model::Bundle;
use crate::config::{UpgradeConstraintPolicy, UpgradePolicy, VersionRange};
use crate::openshift::ClusterVersion;
use crate::resolve::{
    self, Bound, Candidate, Cluster, Installed, LoadedCatalog, Request, Resolution,
};
use crate::version::masterminds;

use compat::Compatibility;

/// One platform operator as the planner sees it.
#[derive(Debug, Clone)]
pub struct Operator {
    /// Configured name.
    pub name: String,
    /// Package.
    pub package: String,
    /// Requested channels; empty: all.
    pub channels: Vec<String>,
    /// The configured `version` range.
    pub range: Option<VersionRange>,
    /// Only this catalog, when set.
    pub catalog: Option<String>,
    /// `upgrade:`.
    pub policy: UpgradePolicy,
    /// `upgradeConstraintPolicy:`.
    pub constraint: UpgradeConstraintPolicy,
    /// What is installed now; `None`: not installed yet.
    pub installed: Option<BundleRef>,
    /// For the subscription profile: how OLM v0 moves it (then its `policy` and `constraint`
    /// play no part).
    pub subscription: Option<subscription::SubscriptionUpgrade>,
}

impl Operator {
    fn request(&self) -> Request<'_> {
        Request {
            package: &self.package,
            channels: &self.channels,
            range: self.range.as_ref().map(|r| (r.text.as_str(), &r.range)),
            catalog: self.catalog.as_deref(),
        }
    }
}

/// A bundle by name and version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BundleRef {
    /// Bundle name.
    pub bundle: String,
    /// Version text.
    pub version: String,
    /// The catalog it comes from, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub catalog: Option<String>,
}

impl BundleRef {
    fn of(bundle: &Bundle, catalog: &str) -> BundleRef {
        BundleRef {
            bundle: bundle.name.clone(),
            version: bundle.version_text.clone(),
            catalog: Some(catalog.to_string()),
        }
    }

    fn parsed(&self) -> Option<semver::Version> {
        crate::version::parse_bundle_version(&self.version).ok()
    }
}

/// What kind of cluster version change a hop (or the whole plan) is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Change {
    /// Same release: nothing moves.
    None,
    /// `4.13.3 → 4.13.4`.
    PatchUpgrade,
    /// `4.13 → 4.14`.
    MinorUpgrade,
    /// `4.13.4 → 4.13.3`.
    PatchRollback,
}

impl Change {
    /// Words for it.
    pub fn describe(self) -> &'static str {
        match self {
            Change::None => "no change",
            Change::PatchUpgrade => "cluster patch upgrade",
            Change::MinorUpgrade => "cluster minor upgrade",
            Change::PatchRollback => "cluster patch rollback",
        }
    }
}

/// Why a step is needed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "rule", rename_all = "camelCase")]
pub enum Reason {
    /// The installed version is not compatible with the next release.
    IncompatibleWithTarget {
        /// The next release.
        target: String,
        /// Why.
        compatibility: Compatibility,
    },
    /// After the cluster upgrade, the operator moves as its policy allows.
    FollowsCluster {
        /// The policy.
        policy: UpgradePolicy,
    },
    /// The installed bundle does not fit the rolled-back release or catalog.
    NoLongerFits {
        /// What is wrong with it.
        why: String,
    },
    /// Not installed yet: installed fresh on the target.
    NotInstalled,
    /// OLM v0's Subscription follows its channel in the new catalog content (Automatic
    /// approval).
    FollowsChannel {
        /// The channel (empty: every channel).
        channel: String,
    },
}

/// One operator moving: the chain of bundles OLM installs one after the other.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    /// Operator name.
    pub operator: String,
    /// Package.
    pub package: String,
    /// Installed before the step (`None`: not installed).
    pub from: Option<BundleRef>,
    /// Installed after it.
    pub to: BundleRef,
    /// Every bundle installed in order, `from` first (when installed), `to` last.
    pub chain: Vec<BundleRef>,
    /// The version range the step resolves in (what an operator's `version` would say).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Why the step is needed.
    pub reason: Reason,
    /// What OLM v1 needs beyond the defaults to take the step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requires: Option<String>,
    /// Each reconcile's candidates and the rule that chose or rejected each one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reconciles: Vec<Vec<Candidate>>,
}

/// An operator that stays where it is after a hop, and the reconcile that keeps it there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stay {
    /// Operator name.
    pub operator: String,
    /// Package.
    pub package: String,
    /// The bundle it stays on.
    pub bundle: BundleRef,
    /// The version range it was resolved in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The reconcile's candidates and the rule that chose or rejected each one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reconciles: Vec<Vec<Candidate>>,
}

/// What happens to one operator in a hop.
enum HopOutcome {
    Moves(Step),
    Stays(Option<Stay>),
}

/// An installed operator that blocks the cluster upgrade (`Upgradeable=False`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Blocker {
    /// Operator name.
    pub operator: String,
    /// Package.
    pub package: String,
    /// What is installed.
    pub installed: BundleRef,
    /// Its `olm.maxOpenShiftVersion`, when set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_open_shift_version: Option<String>,
    /// The current release.
    pub current: String,
    /// The release it blocks.
    pub target: String,
    /// Why it is not compatible.
    pub compatibility: Compatibility,
    /// What would unblock it, most direct first.
    pub unblock: Vec<String>,
    /// The whole message, as [`render::blocker_message`] writes it.
    pub message: String,
}

/// One cluster release change: steps before it, the change, steps after it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Hop {
    /// Release before.
    pub from: String,
    /// Release after.
    pub to: String,
    /// The kind of change.
    pub change: Change,
    /// Operator moves needed before the cluster changes.
    pub before: Vec<Step>,
    /// Operator moves after it.
    pub after: Vec<Step>,
    /// Operators that OLM resolves after it and that stay where they are.
    pub stays: Vec<Stay>,
    /// Operators that block this hop; when any, the hop and the ones after it do not happen.
    pub blockers: Vec<Blocker>,
    /// The release the hop goes to, with its image, from the update graph.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub release: Option<graph::Release>,
    /// How the update graph recommends the hop.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edge: Option<graph::EdgeKind>,
    /// The hop's conditional risks (to evaluate on the cluster).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub risks: Vec<graph::Risk>,
    /// An EUS-to-EUS hop into the odd minor: only the control plane updates, the worker
    /// pools stay paused.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub control_plane_only: bool,
}

/// Whether the plan followed OpenShift's update graph.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct UpdateGraphUse {
    /// The channels of the graph's documents (or the `--channel` the path kept to).
    pub channels: Vec<String>,
    /// Whether the path was checked against the graph.
    pub checked: bool,
    /// Why the path won (the search's decisions).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub why: Vec<String>,
}

/// An EUS-to-EUS update: the control plane passes the odd minor, the workers stay.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Eus {
    /// The EUS minor the cluster is on.
    pub from: String,
    /// The odd minor the control plane passes.
    pub via: String,
    /// The EUS minor it goes to.
    pub to: String,
}

/// The route of the cluster itself: the update graph's path, when one was searched, and
/// whether EUS-to-EUS was asked for.
#[derive(Debug, Clone, Default)]
pub struct Route {
    /// The path through the update graph.
    pub path: Option<graph::Path>,
    /// The channels of the graph.
    pub channels: Vec<String>,
    /// `--eus`: plan an EUS-to-EUS update (else only when both minors are EUS, two apart).
    pub eus: bool,
}

/// Where an operator starts and ends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OperatorPlan {
    /// Operator name.
    pub name: String,
    /// Package.
    pub package: String,
    /// `upgrade:`.
    pub policy: UpgradePolicy,
    /// `upgradeConstraintPolicy:`.
    pub upgrade_constraint_policy: UpgradeConstraintPolicy,
    /// Installed now.
    pub installed: Option<BundleRef>,
    /// Installed at the end of the plan (or where a blocked plan stops).
    pub planned: Option<BundleRef>,
    /// For the subscription profile, the Subscription's approval (`Automatic`, `Manual`):
    /// OLM v0 moves it, not `upgrade:`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subscription: Option<&'static str>,
}

/// The plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    /// Current release.
    pub from: String,
    /// Target release.
    pub to: String,
    /// The change as a whole.
    pub change: Change,
    /// Whether the cluster may upgrade (`Upgradeable`).
    pub upgradeable: bool,
    /// The hops, in order (one for a patch change, one per minor otherwise). Planning stops
    /// after a blocked hop.
    pub hops: Vec<Hop>,
    /// Every operator, start and end.
    pub operators: Vec<OperatorPlan>,
    /// Facts that did not change the plan but deserve attention.
    pub warnings: Vec<String>,
    /// The cluster's own rules that block the upgrade (feature set, removed API).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cluster_blockers: Vec<cluster::ClusterBlocker>,
    /// Whether the update graph was followed.
    pub update_graph: UpdateGraphUse,
    /// The EUS-to-EUS update, when this is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eus: Option<Eus>,
}

impl Plan {
    /// Drop the candidate tables (what `--explain` shows), keeping the decisions.
    pub fn without_reconciles(mut self) -> Plan {
        for hop in &mut self.hops {
            for s in hop.before.iter_mut().chain(hop.after.iter_mut()) {
                s.reconciles.clear();
            }
            for s in &mut hop.stays {
                s.reconciles.clear();
            }
        }
        self
    }

    /// Add the cluster's own blockers ([`cluster::blockers`]); any makes the plan not
    /// upgradeable.
    pub fn with_cluster_blockers(mut self, blockers: Vec<cluster::ClusterBlocker>) -> Plan {
        if !blockers.is_empty() {
            self.upgradeable = false;
        }
        self.cluster_blockers = blockers;
        self
    }

    /// Every blocker of the plan.
    pub fn blockers(&self) -> impl Iterator<Item = &Blocker> {
        self.hops.iter().flat_map(|h| h.blockers.iter())
    }
}

/// Why no plan can be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The target is an older minor.
    #[error(
        "cannot plan {from} → {to}: OpenShift does not support minor version downgrades (only a rollback to an earlier patch of the same minor)"
    )]
    MinorDowngrade {
        /// Current release.
        from: String,
        /// Target release.
        to: String,
    },
    /// The target is more hops ahead than po-manifests plans.
    #[error(
        "cannot plan {from} → {to}: that is {}; po-manifests plans at most {MAX_HOPS} hops",
        hop_words(*minor, *patch)
    )]
    TooManyHops {
        /// Current release.
        from: String,
        /// Target release.
        to: String,
        /// Minor upgrades it would take.
        minor: u64,
        /// Patch updates it would take (hops of the update graph within one minor).
        patch: u64,
    },
    /// `--eus` for releases that are not two EUS minors apart.
    #[error(
        "cannot plan {from} → {to} as an EUS-to-EUS update: both must be Extended Update Support minors ({eus}), two minors apart"
    )]
    NotEus {
        /// Current release.
        from: String,
        /// Target release.
        to: String,
        /// The EUS minors.
        eus: String,
    },
    /// The target is another major the release table never reaches, or the same release
    /// under another name (4.23 and 5.0).
    #[error(
        "cannot plan {from} → {to}: no OpenShift update leads from one to the other by the releases po-manifests knows (4.23 and 5.0 are one release under two names; a major past the release table is not planned)"
    )]
    MajorChange {
        /// Current release.
        from: String,
        /// Target release.
        to: String,
    },
}

/// The most hops planned at once (OpenShift 4.1 to 4.20 is 19 minor upgrades).
pub const MAX_HOPS: u64 = 32;

/// `3 minor upgrades and 1 patch update`, each count with its own word and number.
pub fn hop_words(minor: u64, patch: u64) -> String {
    let count = |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    match (minor, patch) {
        (0, 0) => "no hop".to_string(),
        (m, 0) => count(m, "minor upgrade", "minor upgrades"),
        (0, p) => count(p, "patch update", "patch updates"),
        (m, p) => format!(
            "{} and {}",
            count(m, "minor upgrade", "minor upgrades"),
            count(p, "patch update", "patch updates")
        ),
    }
}

/// How much the plan records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Keep every reconcile's candidate table (memory grows with the square of a walk's
    /// length; without it, only the decisions are kept).
    pub explain: bool,
}

/// Plan the change from `from` to `to` for `operators`, against the catalog snapshot
/// `catalogs` (used for both sides of each hop), keeping every candidate table.
pub fn plan(
    operators: &[Operator],
    catalogs: &[LoadedCatalog],
    from: &ClusterVersion,
    to: &ClusterVersion,
) -> Result<Plan, Error> {
    plan_with(operators, catalogs, from, to, Options { explain: true })
}

/// [`plan`], with [`Options`].
pub fn plan_with(
    operators: &[Operator],
    catalogs: &[LoadedCatalog],
    from: &ClusterVersion,
    to: &ClusterVersion,
    options: Options,
) -> Result<Plan, Error> {
    plan_route(operators, catalogs, from, to, &Route::default(), options)
}

/// The EUS-to-EUS update `from → to`, when both are EUS minors two apart (or `forced`, which
/// refuses anything else).
pub fn eus(from: &ClusterVersion, to: &ClusterVersion, forced: bool) -> Result<Option<Eus>, Error> {
    let two_apart = from.major == to.major && from.minor.checked_add(2) == Some(to.minor);
    if two_apart
        && crate::openshift::is_eus(from.major, from.minor)
        && crate::openshift::is_eus(to.major, to.minor)
    {
        return Ok(Some(Eus {
            from: from.minor_text(),
            via: format!("{}.{}", from.major, to.minor - 1),
            to: to.minor_text(),
        }));
    }
    if forced {
        return Err(Error::NotEus {
            from: from.text.clone(),
            to: to.text.clone(),
            eus: crate::openshift::eus_description(),
        });
    }
    Ok(None)
}

/// [`plan_with`] along `route`: the update graph's path hop by hop (each hop checked for
/// every operator, with the moves before and after it), else one hop per minor.
pub fn plan_route(
    operators: &[Operator],
    catalogs: &[LoadedCatalog],
    from: &ClusterVersion,
    to: &ClusterVersion,
    route: &Route,
    options: Options,
) -> Result<Plan, Error> {
    let eus = eus(from, to, route.eus)?;
    // (from, to, change, path hop)
    let hops: Vec<(
        ClusterVersion,
        ClusterVersion,
        Change,
        Option<&graph::PathHop>,
    )> = match &route.path {
        Some(path) if !path.hops.is_empty() => path
            .hops
            .iter()
            .map(|h| {
                let a = ClusterVersion::parse(&h.from.version).unwrap_or_else(|_| from.clone());
                let b = ClusterVersion::parse(&h.to.version).unwrap_or_else(|_| to.clone());
                let change = if (a.major, a.minor) == (b.major, b.minor) {
                    Change::PatchUpgrade
                } else {
                    Change::MinorUpgrade
                };
                (a, b, change, Some(h))
            })
            .collect(),
        _ => hops(from, to)?
            .into_iter()
            .map(|(a, b, c)| (a, b, c, None))
            .collect(),
    };
    if route.path.is_some() {
        // The graph's releases: the target is the path's last one, across majors too where
        // the graph has such an edge.
        if hops.len() as u64 > MAX_HOPS {
            let minor = hops.iter().filter(|h| h.2 == Change::MinorUpgrade).count() as u64;
            return Err(Error::TooManyHops {
                from: from.text.clone(),
                to: to.text.clone(),
                minor,
                patch: hops.len() as u64 - minor,
            });
        }
    }
    let change = match hops.as_slice() {
        [] => Change::None,
        [(_, _, c, _)] => *c,
        many if many.iter().any(|h| h.2 == Change::MinorUpgrade) => Change::MinorUpgrade,
        _ => Change::PatchUpgrade,
    };
    let target_text = hops
        .last()
        .map(|h| h.1.text.clone())
        .unwrap_or_else(|| to.text.clone());
    let mut state: Vec<Option<BundleRef>> = operators.iter().map(|o| o.installed.clone()).collect();
    let mut warnings = Vec::new();
    let mut planned_hops = Vec::new();
    let mut upgradeable = true;
    for (current, target, change, path_hop) in hops {
        let mut hop = plan_hop(
            operators,
            &mut state,
            catalogs,
            &current,
            &target,
            change,
            &mut warnings,
            options.explain,
        );
        if let Some(h) = path_hop {
            hop.release = Some(h.to.clone());
            hop.edge = Some(h.edge);
            hop.risks = h.risks.clone();
        }
        hop.control_plane_only = eus.as_ref().is_some_and(|e| target.minor_text() == e.via);
        let blocked = !hop.blockers.is_empty();
        planned_hops.push(hop);
        if blocked {
            upgradeable = false;
            break;
        }
    }
    if change == Change::None {
        // Steady state: nothing moves; check what the next minor would need.
        for (op, installed) in operators.iter().zip(&state) {
            if installed.is_none() {
                warnings.push(format!(
                    "operator \"{}\" is not installed (not in the lock file and no `installed:`)",
                    op.name
                ));
            }
        }
    }
    let operators = operators
        .iter()
        .zip(state)
        .map(|(op, planned)| OperatorPlan {
            name: op.name.clone(),
            package: op.package.clone(),
            policy: op.policy,
            upgrade_constraint_policy: op.constraint,
            installed: op.installed.clone(),
            planned,
            subscription: op.subscription.as_ref().map(|s| s.approval.name()),
        })
        .collect();
    Ok(Plan {
        from: from.text.clone(),
        to: target_text,
        change,
        upgradeable,
        hops: planned_hops,
        operators,
        warnings,
        cluster_blockers: Vec::new(),
        update_graph: UpdateGraphUse {
            channels: match route.path.as_ref().and_then(|p| p.channel.clone()) {
                Some(c) => vec![c],
                None => route.channels.clone(),
            },
            checked: route.path.is_some(),
            why: route
                .path
                .as_ref()
                .map(|p| p.why.clone())
                .unwrap_or_default(),
        },
        eus,
    })
}

/// The hops from `from` to `to`: one patch hop within a minor, else one hop per minor.
fn hops(
    from: &ClusterVersion,
    to: &ClusterVersion,
) -> Result<Vec<(ClusterVersion, ClusterVersion, Change)>, Error> {
    use crate::openshift::{next_release, release_order};
    let err_texts = || (from.text.clone(), to.text.clone());
    let (start, goal) = (
        release_order(from.major, from.minor),
        release_order(to.major, to.minor),
    );
    if goal < start {
        let (from, to) = err_texts();
        return Err(Error::MinorDowngrade { from, to });
    }
    if goal == start && (from.major, from.minor) != (to.major, to.minor) {
        // 4.23 and 5.0 are one release under two names: neither updates to the other.
        let (from, to) = err_texts();
        return Err(Error::MajorChange { from, to });
    }
    if goal == start {
        let (a, b) = (from.patch.unwrap_or(0), to.patch.unwrap_or(0));
        return Ok(match a.cmp(&b) {
            std::cmp::Ordering::Equal => Vec::new(),
            std::cmp::Ordering::Less => vec![(from.clone(), to.clone(), Change::PatchUpgrade)],
            std::cmp::Ordering::Greater => {
                vec![(from.clone(), to.clone(), Change::PatchRollback)]
            }
        });
    }
    // One hop per release of the table between them (4.22 → 4.23 → 5.1), the last one to the
    // target itself; a major the table never reaches is not planned.
    let mut out = Vec::new();
    let mut current = from.clone();
    loop {
        if out.len() as u64 >= MAX_HOPS {
            let (from, to) = err_texts();
            let minor = goal.1.saturating_sub(start.1).max(MAX_HOPS + 1);
            return Err(Error::TooManyHops {
                from,
                to,
                minor,
                patch: 0,
            });
        }
        let (major, minor) = next_release(current.major, current.minor);
        let order = release_order(major, minor);
        if order > goal || (order.0 < goal.0 && !crate::openshift::is_known(major, minor)) {
            let (from, to) = err_texts();
            return Err(Error::MajorChange { from, to });
        }
        let next = if order == goal {
            to.clone()
        } else {
            ClusterVersion {
                major,
                minor,
                patch: None,
                text: format!("{major}.{minor}"),
            }
        };
        out.push((current, next.clone(), Change::MinorUpgrade));
        if order == goal {
            return Ok(out);
        }
        current = next;
    }
}

/// A version as a range bound: without build metadata (Masterminds ignores it anyway).
fn bound_text(v: &semver::Version) -> String {
    let mut s = format!("{}.{}.{}", v.major, v.minor, v.patch);
    if !v.pre.is_empty() {
        s.push('-');
        s.push_str(v.pre.as_str());
    }
    s
}

/// The range `policy` allows from `installed` for a hop of kind `change`, with its rule.
fn policy_bound(
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

fn parse_bound(rule: String, text: &str) -> Option<Bound> {
    masterminds::Range::parse(text)
        .ok()
        .map(|range| Bound { rule, range })
}

/// The installed bundle in the searched catalogs: by name, else by exact version.
fn find_installed<'a>(
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

fn chain_of(start: Option<&BundleRef>, resolutions: &[&Resolution<'_>]) -> Vec<BundleRef> {
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
fn plan_hop(
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
                    None => {
                        let b = blocker(
                            op,
                            &installed,
                            bundle,
                            catalogs,
                            current,
                            target,
                            compatibility,
                        );
                        hop.blockers
                            .push(subscription::olm_v0_blocker(b, op, sub, current, target));
                    }
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
                None => hop.blockers.push(blocker(
                    op,
                    &installed,
                    bundle,
                    catalogs,
                    current,
                    target,
                    compatibility,
                )),
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
fn walk_from<'a>(
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

fn step_from_walk(
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
fn upgrade_before(
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

/// Bundles of the operator's package, newer than `from`, in its channels and range, and
/// compatible with both releases.
fn eligible<'a>(
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

fn candidates_newer<'a>(
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

fn in_channels(op: &Operator, b: &Bundle) -> bool {
    op.channels.is_empty() || b.channels.iter().any(|c| op.channels.contains(c))
}

fn in_range(op: &Operator, b: &Bundle) -> bool {
    match (&op.range, &b.version) {
        (None, _) => true,
        (Some(r), Some(v)) => r.range.matches(v),
        (Some(_), None) => false,
    }
}

fn newest(mut bundles: Vec<&Bundle>) -> Option<&Bundle> {
    bundles.sort_by(|a, b| match (&a.version, &b.version) {
        (Some(x), Some(y)) => crate::version::cmp_olm(y, x),
        _ => std::cmp::Ordering::Equal,
    });
    bundles.first().copied()
}

/// An operator that blocks the hop, with what would unblock it.
fn blocker(
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

/// After the cluster change: move as the policy allows, compatible with the new release.
fn follow(
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
            warnings.push(format!(
                "operator \"{}\": OLM v1 cannot resolve from the installed {} on {}; it stays: {}",
                op.name,
                installed.bundle,
                cluster
                    .version
                    .as_ref()
                    .map(|v| v.text.as_str())
                    .unwrap_or(""),
                crate::error_chain(&e)
            ));
            HopOutcome::Stays(None)
        }
    }
}

/// A patch rollback: stay where the installed bundle still fits, else re-resolve no higher
/// than it (a downgrade, which OLM v1 takes only with `SelfCertified`).
fn rollback(
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
fn install_fresh(
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

#[cfg(test)]
mod tests;
