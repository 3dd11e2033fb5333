//! The subscription profile's plan of the operators that use it: the CatalogSource each one's
//! Subscription names, its namespace and OperatorGroup, what OLM v0's resolver installs for
//! all the Subscriptions of a namespace together ([`crate::resolve::olmv0`]), where Automatic
//! approval takes them, and the checks OLM v0 leaves to the cluster (install modes against the
//! OperatorGroup, `olm.maxOpenShiftVersion`, `minKubeVersion`) run on every bundle it would
//! install on the way.

use std::collections::BTreeMap;

use super::Install;
use crate::catalog::model::{Bundle, Package};
use crate::config::{self, Approval, InstallMode};
use crate::openshift::{GLOBAL_OPERATORS_NAMESPACE, MARKETPLACE_NAMESPACE, OLM_NAMESPACES};
use crate::resolve::olmv0::{self, Failure, SourceKey};
use crate::resolve::{
    self, Candidate, Cluster, LoadedCatalog, Problem, Rejection, Resolution, Verdict, Warning,
    facts,
};

/// One operator's plan: what [`super::outcome::Outcome`] holds for it.
#[derive(Debug)]
pub struct Outcome<'a> {
    /// The configured operator.
    pub operator: &'a config::Operator,
    /// What OLM v0 installs first, or why nothing.
    pub resolution: Result<Resolution<'a>, resolve::Error>,
    /// Problems with what it installs.
    pub problems: Vec<Problem>,
    /// Warnings.
    pub warnings: Vec<Warning>,
    /// The plan, when it resolved.
    pub subscription: Option<SubscriptionPlan<'a>>,
}

/// A bundle OLM v0 installs for an operator besides the one its Subscription names.
#[derive(Debug, Clone)]
pub struct Dependency<'a> {
    /// The catalog it comes from.
    pub catalog: &'a LoadedCatalog,
    /// The bundle.
    pub bundle: &'a Bundle,
    /// The channel OLM v0 picked it in (its generated Subscription follows that channel).
    pub channel: String,
    /// Where Automatic approval takes it (when it moves).
    pub ends_at: Option<&'a Bundle>,
    /// The bundles it is installed for.
    pub required_by: Vec<String>,
}

/// One operator of the subscription profile, planned.
#[derive(Debug, Clone)]
pub struct SubscriptionPlan<'a> {
    /// The install namespace.
    pub namespace: String,
    /// Whether the Namespace is written (not for the namespaces OpenShift creates).
    pub writes_namespace: bool,
    /// The install mode the namespace's OperatorGroup gives.
    pub install_mode: InstallMode,
    /// The OperatorGroup's `targetNamespaces`.
    pub target_namespaces: Vec<String>,
    /// The OperatorGroup written, by name (`None` in `openshift-operators`, which has
    /// `global-operators`).
    pub operator_group: Option<String>,
    /// The channel the Subscription names (`None`: every channel, the default one first).
    pub channel: Option<String>,
    /// The channel OLM v0 picked the first bundle in.
    pub picked_channel: String,
    /// The CatalogSource the Subscription names.
    pub source: SourceKey,
    /// `startingCSV`.
    pub starting_csv: Option<String>,
    /// `installPlanApproval`.
    pub approval: Approval,
    /// The bundles Automatic approval installs after the first one, in order; the last is
    /// where it ends.
    pub hops: Vec<&'a Bundle>,
    /// What OLM v0 pulls in (with the first bundle).
    pub dependencies: Vec<Dependency<'a>>,
    /// Why Automatic approval stops before the channel's end, when it does.
    pub walk_stopped: Option<String>,
}

impl<'a> SubscriptionPlan<'a> {
    /// The bundle the Subscription ends at: the last hop, else the first bundle.
    pub fn ends_at(&self, first: &'a Bundle) -> &'a Bundle {
        self.hops.last().copied().unwrap_or(first)
    }
}

/// One visible catalog: the configured catalog, the CatalogSource it is on the cluster and the
/// priority OLM sees.
#[derive(Debug)]
struct Visible<'a> {
    catalog: &'a LoadedCatalog,
    key: SourceKey,
    priority: i32,
}

pub use olmv0::catalog_source;

/// The default CatalogSources of the target release.
fn default_sources(cluster: &Cluster) -> Vec<(&'static str, i32)> {
    crate::openshift::default_catalog_sources(cluster.version.as_ref())
}

fn failed<'a>(op: &'a config::Operator, message: String, hints: Vec<String>) -> Outcome<'a> {
    Outcome {
        operator: op,
        resolution: Err(resolve::Error::Subscription {
            package: op.package.value.clone(),
            message,
            hints,
            field: None,
        }),
        problems: Vec::new(),
        warnings: Vec::new(),
        subscription: None,
    }
}

/// What one operator resolves to before its namespace is known.
struct Alone<'a> {
    op: &'a config::Operator,
    visible: usize,
    namespace: String,
    mode: InstallMode,
    targets: Vec<String>,
    warnings: Vec<Warning>,
}

/// Plan every operator that uses the subscription profile; the outcomes come back in the
/// order given.
pub fn resolve_all<'a>(
    inv: &'a Install,
    cluster: &Cluster,
    ops: &[&'a config::Operator],
) -> Vec<Outcome<'a>> {
    let defaults = default_sources(cluster);
    let visible: Vec<Visible<'a>> = inv
        .catalogs
        .iter()
        .filter_map(|c| {
            catalog_source(c, &defaults).map(|(key, priority)| Visible {
                catalog: c,
                key,
                priority,
            })
        })
        .collect();
    let sources: Vec<olmv0::Source<'a>> = visible
        .iter()
        .map(|v| olmv0::Source {
            key: v.key.clone(),
            priority: v.priority,
            catalog: Some(&v.catalog.catalog),
        })
        .collect();
    let mut outcomes: Vec<Option<Outcome<'a>>> = ops.iter().map(|_| None).collect();
    let mut alone: Vec<Option<Alone<'a>>> = ops.iter().map(|_| None).collect();
    for (i, op) in ops.iter().enumerate() {
        match plan_alone(inv, cluster, op, &visible, &sources, &defaults) {
            Ok(a) => alone[i] = Some(a),
            Err(o) => outcomes[i] = Some(*o),
        }
    }
    // Namespaces: one OperatorGroup each, so one install mode and one set of targets.
    let mut by_namespace: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, a) in alone.iter().enumerate() {
        if let Some(a) = a {
            by_namespace.entry(a.namespace.clone()).or_default().push(i);
        }
    }
    for (namespace, members) in &by_namespace {
        let first = alone[members[0]].as_ref().expect("planned alone");
        let clash = members.iter().find_map(|&m| {
            let a = alone[m].as_ref().expect("planned alone");
            (a.mode != first.mode || a.targets != first.targets).then_some(a)
        });
        if let Some(other) = clash {
            let describe = |a: &Alone<'_>| {
                if a.targets.is_empty() || a.mode == InstallMode::OwnNamespace {
                    format!("\"{}\" needs {}", a.op.name.value, a.mode)
                } else {
                    format!(
                        "\"{}\" needs {} of {}",
                        a.op.name.value,
                        a.mode,
                        a.targets.join(", ")
                    )
                }
            };
            let message = format!(
                "namespace {namespace} can have one OperatorGroup, so one install mode, and its operators need two: {} and {}",
                describe(first),
                describe(other)
            );
            for &m in members {
                let a = alone[m].take().expect("planned alone");
                outcomes[m] = Some(failed(
                    a.op,
                    message.clone(),
                    vec!["install them into different namespaces (`namespace:`), or give them the same `installMode`".into()],
                ));
            }
            continue;
        }
        let group: Vec<Alone<'a>> = members
            .iter()
            .map(|&m| alone[m].take().expect("planned alone"))
            .collect();
        let planned = plan_namespace(inv, cluster, namespace, group, &visible, &sources);
        for (&m, o) in members.iter().zip(planned) {
            outcomes[m] = Some(o);
        }
    }
    let mut outcomes: Vec<Outcome<'a>> = outcomes
        .into_iter()
        .map(|o| o.expect("every operator planned"))
        .collect();
    owner_conflicts(&mut outcomes);
    outcomes
}

/// The APIs (`olm.gvk`) a bundle provides.
fn provided(b: &Bundle) -> Vec<(String, String, String)> {
    b.properties_of(crate::catalog::property::PROPERTY_GVK)
        .filter_map(|p| {
            p.value
                .text()
                .and_then(|t| serde_json::from_str::<crate::catalog::property::Gvk>(t).ok())
        })
        .map(|g| (g.group, g.version, g.kind))
        .collect()
}

/// One planned operator for the owner check: its index, namespace, targets, whether its group
/// is AllNamespaces, and the APIs its bundles provide.
type Grouped = (
    usize,
    String,
    Vec<String>,
    bool,
    Vec<(String, String, String)>,
);

/// OLM v0 lets one operator provide an API to a namespace: when the OperatorGroups of two
/// namespaces intersect (either is AllNamespaces, or their targets share a namespace) and
/// their operators provide the same API, the later CSV fails with
/// `InterOperatorGroupOwnerConflict` ("intersecting operatorgroups provide the same apis";
/// OLM `pkg/controller/operators/olm/groups.go`), which the resolver does not foresee.
fn owner_conflicts(outcomes: &mut [Outcome<'_>]) {
    let seen: Vec<Grouped> = outcomes
        .iter()
        .enumerate()
        .filter_map(|(i, o)| {
            let plan = o.subscription.as_ref()?;
            let r = o.resolution.as_ref().ok()?;
            let mut apis = provided(r.bundle);
            for d in &plan.dependencies {
                apis.extend(provided(d.bundle));
            }
            Some((
                i,
                plan.namespace.clone(),
                plan.target_namespaces.clone(),
                plan.install_mode == InstallMode::AllNamespaces,
                apis,
            ))
        })
        .collect();
    for (a, b) in seen
        .iter()
        .enumerate()
        .flat_map(|(x, a)| seen[x + 1..].iter().map(move |b| (a, b)))
    {
        if a.1 == b.1 {
            continue;
        }
        let intersect = a.3 || b.3 || a.2.iter().any(|t| b.2.contains(t));
        let Some(api) = a.4.iter().find(|g| b.4.contains(g)).cloned() else {
            continue;
        };
        if !intersect {
            continue;
        }
        let other = outcomes[a.0].operator.name.value.clone();
        let (group, version, kind) = api;
        outcomes[b.0].problems.push(Problem {
            rule: "operatorGroupOwner".into(),
            message: format!(
                "operators \"{other}\" (namespace {}) and \"{}\" (namespace {}) both provide {kind} ({group}/{version}) to intersecting OperatorGroups: OLM v0 lets one of them own it, and the other's CSV fails with InterOperatorGroupOwnerConflict; install one of them only, or give them OperatorGroups that share no namespace",
                a.1,
                outcomes[b.0].operator.name.value,
                b.1
            ),
        });
    }
}

/// The operator alone: its catalog, channel and startingCSV checked, resolved on its own for
/// the install mode and namespace it gets by default.
fn plan_alone<'a>(
    inv: &'a Install,
    cluster: &Cluster,
    op: &'a config::Operator,
    visible: &[Visible<'a>],
    sources: &[olmv0::Source<'a>],
    defaults: &[(&'static str, i32)],
) -> Result<Alone<'a>, Box<Outcome<'a>>> {
    let fail = |message: String, hints: Vec<String>| Box::new(failed(op, message, hints));
    if let Some(p) = config::subscription::problems(op).into_iter().next() {
        let mut o = failed(
            op,
            format!("`{}`: {}", p.field, p.message),
            p.help.clone().into_iter().collect(),
        );
        if let Err(resolve::Error::Subscription { field, .. }) = &mut o.resolution {
            *field = Some(Box::new((p.span, p.field.to_string())));
        }
        return Err(Box::new(o));
    }
    let package = &op.package.value;
    // The catalog the Subscription names.
    let index = match &op.catalog {
        Some(c) => match visible.iter().position(|v| v.catalog.name == c.value) {
            Some(i) => i,
            None => {
                return Err(fail(
                    no_catalog_source(&c.value, defaults),
                    vec!["give the catalog its `image:` (the index image to serve), or name it after the default CatalogSource it is a snapshot of".into()],
                ));
            }
        },
        None => {
            let with: Vec<usize> = (0..visible.len())
                .filter(|&i| visible[i].catalog.catalog.package(package).is_some())
                .collect();
            let best = with.iter().map(|&i| visible[i].priority).max();
            let top: Vec<usize> = with
                .iter()
                .copied()
                .filter(|&i| Some(visible[i].priority) == best)
                .collect();
            match top.as_slice() {
                [] => {
                    let searched: Vec<&LoadedCatalog> = inv.catalogs.iter().collect();
                    let mut o = failed(op, String::new(), Vec::new());
                    o.resolution = Err(resolve::unknown_package(package, &searched));
                    if inv
                        .catalogs
                        .iter()
                        .any(|c| c.catalog.package(package).is_some())
                    {
                        let names: Vec<&str> = inv
                            .catalogs
                            .iter()
                            .filter(|c| c.catalog.package(package).is_some())
                            .map(|c| c.name.as_str())
                            .collect();
                        return Err(fail(
                            no_catalog_source(names[0], defaults),
                            vec!["give the catalog its `image:`, or name it after the default CatalogSource it is a snapshot of".into()],
                        ));
                    }
                    return Err(Box::new(o));
                }
                [one] => *one,
                many => {
                    return Err(fail(
                        format!(
                            "package {package} is in several catalogs with the same priority {} ({}), and a Subscription names one",
                            best.unwrap_or_default(),
                            many.iter()
                                .map(|&i| format!("\"{}\"", visible[i].catalog.name))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                        vec!["give the operator a `catalog:`".into()],
                    ));
                }
            }
        }
    };
    let v = &visible[index];
    let Some(pkg) = v.catalog.catalog.package(package) else {
        let mut o = failed(op, String::new(), Vec::new());
        o.resolution = Err(resolve::unknown_package(package, &[v.catalog]));
        return Err(Box::new(o));
    };
    let channel = op.channels.first().map(|c| c.value.as_str()).unwrap_or("");
    if !channel.is_empty() && pkg.channel(channel).is_none() {
        let names: Vec<&str> = pkg.channels.iter().map(|c| c.name.as_str()).collect();
        let near = names
            .iter()
            .map(|n| (strsim::jaro_winkler(channel, n), *n))
            .filter(|(s, _)| *s > 0.8)
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, n)| format!("did you mean \"{n}\"?"));
        return Err(fail(
            format!(
                "package {package} has no channel \"{}\" in catalog {} (its channels: {})",
                crate::text::printable(channel),
                v.catalog.name,
                names.join(", ")
            ),
            near.into_iter().collect(),
        ));
    }
    let starting = op
        .subscription
        .starting_csv
        .as_ref()
        .map(|s| s.value.as_str())
        .unwrap_or("");
    if !starting.is_empty() {
        let in_channel = pkg
            .channels
            .iter()
            .filter(|c| channel.is_empty() || c.name == channel)
            .any(|c| c.entries.iter().any(|e| e.name == starting));
        if !in_channel {
            let entries: Vec<&str> = pkg
                .channels
                .iter()
                .filter(|c| channel.is_empty() || c.name == channel)
                .flat_map(|c| c.entries.iter().map(|e| e.name.as_str()))
                .collect();
            return Err(fail(
                format!(
                    "startingCSV {} is not an entry of {} of package {package} (entries: {})",
                    crate::text::printable(starting),
                    if channel.is_empty() {
                        "any channel".to_string()
                    } else {
                        format!("channel {channel}")
                    },
                    entries.join(", ")
                ),
                vec!["name a bundle of the channel (`po-manifests catalog list bundles CATALOG --package PACKAGE`)".into()],
            ));
        }
    }
    // Alone, for the defaults the first bundle gives.
    let sub = subscription_of(op, &v.key);
    let first = olmv0::resolve(&olmv0::Query {
        namespace: "po-manifests-alone",
        sources,
        subscriptions: std::slice::from_ref(&sub),
        installed: &[],
    })
    .map_err(|e| {
        let (message, hints) = failure_text(&e);
        fail(message, hints)
    })?;
    let Some(pick) = first
        .picks
        .iter()
        .find(|p| p.subscription.as_deref() == Some(&op.name.value))
    else {
        return Err(fail(
            "OLM v0 installs nothing for this Subscription".into(),
            Vec::new(),
        ));
    };
    let mut warnings = Vec::new();
    let supported: Option<Vec<String>> = facts::csv_facts(pick.bundle)
        .facts()
        .map(|f| f.install_modes.clone());
    let mode = match (
        op.subscription.install_mode.as_ref().map(|m| m.value),
        &supported,
    ) {
        (Some(m), _) => m,
        (None, Some(modes)) if modes.iter().any(|m| m == "AllNamespaces") => {
            InstallMode::AllNamespaces
        }
        (None, Some(modes)) if modes.iter().any(|m| m == "OwnNamespace") => {
            InstallMode::OwnNamespace
        }
        (None, Some(modes)) => {
            return Err(fail(
                format!(
                    "bundle {} supports neither AllNamespaces nor OwnNamespace (it supports: {}), so the install mode must be given",
                    pick.bundle.name,
                    if modes.is_empty() { "none".into() } else { modes.join(", ") }
                ),
                vec!["give `installMode: SingleNamespace` (or MultiNamespace) with `targetNamespaces`".into()],
            ));
        }
        (None, None) => {
            warnings.push(Warning(format!(
                "bundle {}: the catalog carries neither olm.csv.metadata nor olm.bundle.object, so its install modes are unknown; AllNamespaces is assumed",
                pick.bundle.name
            )));
            InstallMode::AllNamespaces
        }
    };
    let namespace = match &op.namespace {
        Some(n) => n.value.clone(),
        None if mode == InstallMode::AllNamespaces => GLOBAL_OPERATORS_NAMESPACE.to_string(),
        None => match facts::csv_facts(pick.bundle)
            .facts()
            .and_then(|f| f.suggested_namespace.clone())
        {
            Some(ns) => {
                crate::output::names::check_install_namespace(&ns, false)
                    .map_err(|m| fail(m, Vec::new()))?;
                ns
            }
            None => {
                return Err(fail(
                    format!(
                        "the {mode} install needs a namespace, and bundle {} suggests none",
                        pick.bundle.name
                    ),
                    vec!["give the operator a `namespace:`".into()],
                ));
            }
        },
    };
    if namespace == GLOBAL_OPERATORS_NAMESPACE && mode != InstallMode::AllNamespaces {
        return Err(fail(
            format!(
                "namespace {GLOBAL_OPERATORS_NAMESPACE} has OpenShift's OperatorGroup global-operators, which is AllNamespaces; a {mode} install needs a namespace of its own"
            ),
            vec!["give the operator another `namespace:`".into()],
        ));
    }
    let targets = match mode {
        InstallMode::AllNamespaces => Vec::new(),
        InstallMode::OwnNamespace => vec![namespace.clone()],
        InstallMode::SingleNamespace | InstallMode::MultiNamespace => op
            .subscription
            .target_namespaces
            .iter()
            .map(|t| t.value.clone())
            .collect(),
    };
    let _ = cluster;
    Ok(Alone {
        op,
        visible: index,
        namespace,
        mode,
        targets,
        warnings,
    })
}

/// The message for a catalog no CatalogSource can serve.
fn no_catalog_source(name: &str, defaults: &[(&'static str, i32)]) -> String {
    format!(
        "catalog \"{name}\" has no `image:`, so no CatalogSource can be written for it, and it is not one of OpenShift's default CatalogSources ({}); a Subscription must name a CatalogSource",
        defaults
            .iter()
            .map(|(n, _)| *n)
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// The Subscription an operator becomes.
fn subscription_of(op: &config::Operator, source: &SourceKey) -> olmv0::Subscription {
    olmv0::Subscription {
        name: op.name.value.clone(),
        package: op.package.value.clone(),
        channel: op
            .channels
            .first()
            .map(|c| c.value.clone())
            .unwrap_or_default(),
        starting_csv: op
            .subscription
            .starting_csv
            .as_ref()
            .map(|s| s.value.clone())
            .unwrap_or_default(),
        source: source.clone(),
        installed: None,
    }
}

/// A resolver failure as a message and hints.
fn failure_text(e: &Failure) -> (String, Vec<String>) {
    let hints = match e {
        Failure::NotSatisfiable(_) => vec![
            "OLM v0 would report this as ResolutionFailed / ConstraintsNotSatisfiable on the Subscription, and install nothing in the namespace".into(),
        ],
        Failure::Invalid(_) => vec![
            "OLM v0 fails every resolution of the namespace with this (ErrorPreventedResolution): fix the catalog".into(),
        ],
        Failure::OrderDependent { .. } | Failure::SolverChoice => vec![
            "pin what OLM v0 should install: a `startingCSV`, a `channel`, or one Subscription per namespace".into(),
        ],
        Failure::TooComplex => Vec::new(),
    };
    (format!("OLM v0 cannot resolve it: {e}"), hints)
}

/// Plan the Subscriptions of one namespace together.
fn plan_namespace<'a>(
    inv: &'a Install,
    cluster: &Cluster,
    namespace: &str,
    group: Vec<Alone<'a>>,
    visible: &[Visible<'a>],
    sources: &[olmv0::Source<'a>],
) -> Vec<Outcome<'a>> {
    let subs: Vec<olmv0::Subscription> = group
        .iter()
        .map(|a| subscription_of(a.op, &visible[a.visible].key))
        .collect();
    let manual = group.iter().any(|a| {
        a.op.subscription
            .install_plan_approval
            .as_ref()
            .is_some_and(|x| x.value == Approval::Manual)
    });
    let query = olmv0::Query {
        namespace,
        sources,
        subscriptions: &subs,
        installed: &[],
    };
    let walked = olmv0::walk::walk(&query, if manual { 1 } else { olmv0::walk::MAX_STEPS });
    let walked = match walked {
        Ok(w) => w,
        Err(e) => {
            let (message, mut hints) = failure_text(&e);
            if group.len() > 1 {
                hints.push(format!(
                    "the Subscriptions of namespace {namespace} ({}) resolve together",
                    group
                        .iter()
                        .map(|a| a.op.name.value.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            return group
                .iter()
                .map(|a| failed(a.op, message.clone(), hints.clone()))
                .collect();
        }
    };
    let catalog_of = |key: &SourceKey| -> &'a LoadedCatalog {
        visible
            .iter()
            .find(|v| &v.key == key)
            .map(|v| v.catalog)
            .expect("a pick comes from a visible catalog")
    };
    let first_step: &[olmv0::Pick<'a>] = walked.steps.first().map_or(&[], |s| s.as_slice());
    group
        .iter()
        .map(|a| {
            let op = a.op;
            let Some(pick) = first_step
                .iter()
                .find(|p| p.subscription.as_deref() == Some(&op.name.value))
            else {
                return failed(op, "OLM v0 installs nothing for this Subscription".into(), Vec::new());
            };
            let catalog = catalog_of(&pick.catalog);
            let package = catalog
                .catalog
                .package(&op.package.value)
                .expect("the pick's package is in its catalog");
            // What it pulls in: the picks its bundle's dependencies reach.
            let mut mine: Vec<&olmv0::Pick<'a>> = Vec::new();
            let mut frontier = vec![pick.bundle.name.clone()];
            while let Some(name) = frontier.pop() {
                for p in first_step {
                    if p.subscription.is_none()
                        && p.required_by.contains(&name)
                        && !mine.iter().any(|m| m.bundle.name == p.bundle.name)
                    {
                        mine.push(p);
                        frontier.push(p.bundle.name.clone());
                    }
                }
            }
            mine.sort_by(|x, y| x.bundle.name.cmp(&y.bundle.name));
            let hops: Vec<&'a Bundle> = walked
                .steps
                .iter()
                .skip(1)
                .flat_map(|s| s.iter())
                .filter(|p| p.subscription.as_deref() == Some(&op.name.value))
                .map(|p| p.bundle)
                .collect();
            let dependencies: Vec<Dependency<'a>> = mine
                .iter()
                .map(|p| {
                    let generated = olmv0::walk::generated_subscription_name(p);
                    let ends = walked.ends_at(&generated).filter(|b| b.name != p.bundle.name);
                    Dependency {
                        catalog: catalog_of(&p.catalog),
                        bundle: p.bundle,
                        channel: p.channel.clone(),
                        ends_at: ends,
                        required_by: p.required_by.clone(),
                    }
                })
                .collect();
            let plan = SubscriptionPlan {
                namespace: namespace.to_string(),
                writes_namespace: !OLM_NAMESPACES.contains(&namespace),
                install_mode: a.mode,
                target_namespaces: a.targets.clone(),
                operator_group: (namespace != GLOBAL_OPERATORS_NAMESPACE).then(|| namespace.to_string()),
                channel: op.channels.first().map(|c| c.value.clone()),
                picked_channel: pick.channel.clone(),
                source: pick.catalog.clone(),
                starting_csv: op.subscription.starting_csv.as_ref().map(|s| s.value.clone()),
                approval: if manual { Approval::Manual } else { Approval::Automatic },
                hops,
                dependencies,
                walk_stopped: walked.stopped.as_ref().map(|e| e.to_string()),
            };
            let mut warnings = a.warnings.clone();
            let mut problems = Vec::new();
            checks(inv, cluster, op, pick.bundle, &plan, &mut problems, &mut warnings);
            if manual {
                warnings.push(Warning(format!(
                    "installPlanApproval Manual in namespace {namespace}: nothing installs until someone approves the InstallPlan (`oc patch installplan … --type merge -p '{{\"spec\":{{\"approved\":true}}}}'`), and OLM makes every InstallPlan of the namespace Manual, for every Subscription there"
                )));
            }
            if let Some(stopped) = &plan.walk_stopped {
                warnings.push(Warning(format!(
                    "Automatic approval stops at {}: a later resolution of namespace {namespace} fails ({stopped})",
                    plan.ends_at(pick.bundle).name
                )));
            }
            let candidates = candidates(catalog, package, &subs[group.iter().position(|x| std::ptr::eq(x, a)).unwrap_or(0)], pick.bundle);
            let head = candidates.first().map(|c| c.bundle.clone());
            if let Some(head) = head
                && head != pick.bundle.name
                && op.subscription.starting_csv.is_none()
            {
                warnings.push(Warning(format!(
                    "OLM v0 installs {}, not the first of its candidates {head}: {head} cannot be installed with the namespace's other bundles",
                    pick.bundle.name
                )));
            }
            let mut resolution_warnings = Vec::new();
            resolution_warnings.extend(deprecation_warnings(package, pick.bundle, op));
            Outcome {
                operator: op,
                resolution: Ok(Resolution {
                    catalog,
                    package,
                    bundle: pick.bundle,
                    candidates,
                    warnings: resolution_warnings.clone(),
                }),
                problems,
                warnings: resolution_warnings.into_iter().chain(warnings).collect(),
                subscription: Some(plan),
            }
        })
        .collect()
}

/// The Subscription's candidates with OLM v0's verdicts: the pick chosen, those before it
/// passed over, those after it outranked, and the package's other bundles never in the order.
fn candidates(
    catalog: &LoadedCatalog,
    package: &Package,
    sub: &olmv0::Subscription,
    pick: &Bundle,
) -> Vec<Candidate> {
    let ordered = olmv0::subscription_candidates(
        &catalog.catalog,
        &package.name,
        &sub.channel,
        &sub.starting_csv,
    )
    .unwrap_or_default();
    let mut out = Vec::new();
    let mut seen_pick = false;
    for b in &ordered {
        let verdict = if b.name == pick.name {
            seen_pick = true;
            Verdict::Chosen
        } else if seen_pick {
            Verdict::Rejected(Rejection::Outranked {
                by: pick.name.clone(),
            })
        } else {
            Verdict::Rejected(Rejection::PassedOver {
                by: pick.name.clone(),
            })
        };
        out.push(candidate(catalog, b, verdict));
    }
    for b in &package.bundles {
        if !ordered.iter().any(|o| o.name == b.name) {
            out.push(candidate(
                catalog,
                b,
                Verdict::Rejected(Rejection::NotInOrder),
            ));
        }
    }
    out
}

fn candidate(catalog: &LoadedCatalog, b: &Bundle, verdict: Verdict) -> Candidate {
    Candidate {
        catalog: catalog.name.clone(),
        bundle: b.name.clone(),
        version: b.version_text.clone(),
        channels: b.channels.clone(),
        deprecated: b.deprecation.is_some(),
        verdict,
    }
}

/// `olm.deprecations` of the bundle, its package and the channel the Subscription follows:
/// OLM v0 installs such bundles and reports them in the Subscription's conditions (4.15 on).
fn deprecation_warnings(package: &Package, bundle: &Bundle, op: &config::Operator) -> Vec<Warning> {
    let mut out = Vec::new();
    if let Some(m) = &bundle.deprecation {
        out.push(Warning(format!(
            "bundle {} is deprecated: {m}",
            bundle.name
        )));
    }
    if let Some(m) = &package.deprecation {
        out.push(Warning(format!(
            "package {} is deprecated: {m}",
            package.name
        )));
    }
    let channel = op
        .channels
        .first()
        .map(|c| c.value.as_str())
        .unwrap_or(&package.default_channel);
    if let Some(ch) = package.channel(channel)
        && let Some(m) = &ch.deprecation
    {
        out.push(Warning(format!(
            "channel {} of package {} is deprecated: {m}",
            ch.name, package.name
        )));
    }
    out
}

/// The checks OLM v0 leaves to the cluster, on every bundle it installs for the operator (the
/// first one, the hops of Automatic approval, and what it pulls in): the OperatorGroup's
/// install mode, the target's `olm.maxOpenShiftVersion` and Kubernetes version; and an exact
/// `version` against where the Subscription ends.
fn checks(
    inv: &Install,
    cluster: &Cluster,
    op: &config::Operator,
    first: &Bundle,
    plan: &SubscriptionPlan<'_>,
    problems: &mut Vec<Problem>,
    warnings: &mut Vec<Warning>,
) {
    let _ = inv;
    let mut bundles: Vec<(&Bundle, &str)> = vec![(first, "installs")];
    bundles.extend(plan.hops.iter().map(|b| (*b, "upgrades to")));
    for d in &plan.dependencies {
        bundles.push((d.bundle, "pulls in"));
        if let Some(e) = d.ends_at {
            bundles.push((e, "upgrades a dependency to"));
        }
    }
    let mode = plan.install_mode;
    let needed: Vec<&str> = match mode {
        InstallMode::MultiNamespace if plan.target_namespaces.contains(&plan.namespace) => {
            vec!["MultiNamespace", "OwnNamespace"]
        }
        m => vec![m.name()],
    };
    for (b, how) in &bundles {
        match facts::csv_facts(b) {
            facts::CsvSource::Metadata(f) | facts::CsvSource::Embedded(f) => {
                let missing: Vec<&&str> = needed
                    .iter()
                    .filter(|m| !f.install_modes.iter().any(|x| x == *m))
                    .collect();
                if !missing.is_empty() {
                    problems.push(Problem {
                        rule: "installModes".into(),
                        message: format!(
                            "OLM v0 {how} {}, which does not support the {} install mode of namespace {}'s OperatorGroup (it supports: {}): its CSV would fail with UnsupportedOperatorGroup",
                            b.name,
                            missing.iter().map(|m| **m).collect::<Vec<_>>().join(" and "),
                            plan.namespace,
                            if f.install_modes.is_empty() { "none".into() } else { f.install_modes.join(", ") }
                        ),
                    });
                }
            }
            facts::CsvSource::Invalid(reason) => problems.push(Problem {
                rule: "csv".into(),
                message: format!(
                    "bundle {}: cannot read its ClusterServiceVersion: {reason}",
                    b.name
                ),
            }),
            facts::CsvSource::Unknown => {}
        }
        if let Some(rejection) = resolve::cluster_fit(b, cluster) {
            problems.push(Problem {
                rule: "clusterFit".into(),
                message: format!("OLM v0 {how} {}, which {}", b.name, rejection.singular()),
            });
        } else if let Some(block) = resolve::upgrade_block(b, cluster) {
            warnings.push(Warning(format!(
                "bundle {} has olm.maxOpenShiftVersion {}: it installs on {}, but OLM v0 then sets Upgradeable=False on the operator-lifecycle-manager ClusterOperator, blocking the upgrade to {}",
                b.name, block.max, block.cluster, block.next
            )));
        }
    }
    if let Some(v) = &op.version
        && let Some(want) = config::subscription::exact_version(&v.value.text)
    {
        let end = plan.ends_at(first);
        if end.version.as_ref() != Some(&want) {
            problems.push(Problem {
                rule: "version".into(),
                message: format!(
                    "`version: {}` asks OLM v0 to end at {want}, but {} ends at {} ({}): a Subscription follows its channel to the head",
                    v.value.text,
                    if plan.approval == Approval::Manual { "its first InstallPlan" } else { "Automatic approval" },
                    end.name,
                    end.version_text
                ),
            });
        }
    }
}

/// Why a catalog's content on the cluster is not the pinned snapshot, if it is not: its
/// CatalogSource serves an image by tag, or it is the release's live default source.
pub fn not_a_pin(catalog: &LoadedCatalog) -> Option<String> {
    match &catalog.image {
        Some(image) if image.contains("@sha256:") => None,
        Some(image) => Some(format!(
            "the CatalogSource serves {image} by tag, whose content can change whenever its pod is recreated"
        )),
        None => Some(format!(
            "the Subscription resolves against OpenShift's live default CatalogSource {}, not this snapshot",
            catalog.name
        )),
    }
}

/// The lock's record of a subscription-profile operator (`first` is its resolution).
pub fn locked(
    plan: &SubscriptionPlan<'_>,
    first: &Resolution<'_>,
) -> crate::output::lock::LockedSubscription {
    use crate::output::lock::{LockedBundle, LockedDependency, LockedSubscription};
    let bundle = |b: &Bundle| LockedBundle {
        bundle: b.name.clone(),
        version: b.version_text.clone(),
    };
    LockedSubscription {
        catalog_source: plan.source.to_string(),
        channel: plan.channel.clone(),
        starting_csv: plan.starting_csv.clone(),
        install_plan_approval: plan.approval.name().to_string(),
        install_mode: plan.install_mode.name().to_string(),
        ends_at: plan.hops.last().map(|b| bundle(b)),
        dependencies: plan
            .dependencies
            .iter()
            .map(|d| LockedDependency {
                package: d.bundle.package.clone(),
                bundle: d.bundle.name.clone(),
                version: d.bundle.version_text.clone(),
                channel: d.channel.clone(),
                catalog: d.catalog.name.clone(),
                ends_at: d.ends_at.map(bundle),
            })
            .collect(),
        not_a_pin: not_a_pin(first.catalog),
    }
}

/// The CatalogSources the subscription profile writes (one per configured catalog with an
/// `image:`, all of them visible to OLM v0 in every namespace) and, when needed, the
/// OperatorHub that disables default sources: all of them for a disconnected install
/// (install-config mirror rules), else the ones whose names a written CatalogSource takes
/// (the marketplace operator would put their spec back).
pub fn marketplace_objects(
    inv: &Install,
    templates: &crate::render::Templates,
    cluster_version: &crate::openshift::ClusterVersion,
    any: bool,
) -> Result<Vec<crate::render::RenderedObject>, super::Error> {
    if !any {
        return Ok(Vec::new());
    }
    let release = crate::openshift::lookup(cluster_version).ok();
    let defaults = crate::openshift::default_catalog_sources(Some(cluster_version));
    let pod_config = release
        .as_ref()
        .map(|r| r.catalog_source_pod_config())
        .unwrap_or_default();
    let mut objects = Vec::new();
    let mut taken: Vec<&str> = Vec::new();
    let mut with_images: Vec<&LoadedCatalog> =
        inv.catalogs.iter().filter(|c| c.image.is_some()).collect();
    with_images.sort_by(|a, b| a.name.cmp(&b.name));
    for c in with_images {
        objects.push(crate::render::profile::catalog_source(
            templates,
            &crate::render::profile::CatalogContext {
                name: &c.name,
                image: c.image.as_deref(),
                priority: c.priority,
            },
            &pod_config,
        )?);
        if defaults.iter().any(|(n, _)| *n == c.name) {
            taken.push(&c.name);
        }
    }
    let disconnected = inv.disconnected();
    if disconnected || !taken.is_empty() {
        // First, as the PlatformOperator profile writes it.
        objects.insert(
            0,
            crate::render::profile::operator_hub(
                templates,
                disconnected,
                if disconnected { &[] } else { &taken },
            )?,
        );
    }
    Ok(objects)
}

/// What the cluster's resolution will see beyond the configured snapshots: default
/// CatalogSources left enabled (they take part in every namespace's resolution, move with
/// their tags, and one that cannot be reached blocks resolution everywhere), and configured
/// catalogs that are not pinned by digest.
pub fn hermeticity_warnings(inv: &Install, cluster: &Cluster) -> Vec<String> {
    let defaults = default_sources(cluster);
    let disconnected = inv.disconnected();
    let mut out = Vec::new();
    if !disconnected {
        let others: Vec<&str> = defaults
            .iter()
            .map(|(n, _)| *n)
            .filter(|n| !inv.catalogs.iter().any(|c| c.name == *n))
            .collect();
        if !others.is_empty() {
            out.push(format!(
                "not hermetic: OLM v0 will also see OpenShift's default CatalogSources {} ({MARKETPLACE_NAMESPACE}), which it looks in for any dependency the configured catalogs lack, which follow their tags, and any of which, unreachable, blocks resolution in every namespace; configure snapshots of them by name, or install disconnected (install-config `imageDigestSources`: every default source is then disabled)",
                others.join(", ")
            ));
        }
    }
    for c in &inv.catalogs {
        if let Some(why) = not_a_pin(c) {
            out.push(format!(
                "catalog \"{}\" is not a pin: {why}; the lock records it as notAPin",
                c.name
            ));
        }
    }
    out
}
