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
//!
//! Rooms: this module holds the plan's types and the cluster's route (hops per minor or along
//! the update graph); `hop` plans one hop for every operator, `candidates` says which
//! bundles an operator may move to, `blocker` why a hop is blocked; [`subscription`] does the
//! same for OLM v0 Subscriptions, [`compat`] says whether a bundle fits a release, [`graph`]
//! reads the update graph, [`cluster`] the live cluster, [`render`] turns a plan into prose.

mod blocker;
mod candidates;
pub mod cluster;
pub mod compat;
pub mod graph;
mod hop;
pub mod render;
pub mod subscription;

use serde::Serialize;

use crate::catalog::model::Bundle;
use crate::config::{UpgradeConstraintPolicy, UpgradePolicy, VersionRange};
use crate::openshift::ClusterVersion;
use crate::resolve::{Candidate, LoadedCatalog, Request};

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
    /// `bootstrap: true`: written as its own objects, which OLM never manages; po-manifests
    /// moves it (`upgrade-plan --write`), not OLM.
    pub bootstrap: bool,
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
        let mut hop = hop::plan_hop(
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

#[cfg(test)]
mod tests;
