//! Each operator's resolution with its profile checks and warnings ([`Outcome`]), fitted to the
//! target release's OLM v1, and a resolved bundle's content converted as that release does.

use super::Install;
use crate::config::{self, Config};
use crate::resolve::{self, Cluster, LoadedCatalog, Problem, Request, Resolution, Warning, facts};

/// One operator's resolution and the checks on it.
#[derive(Debug)]
pub struct Outcome<'a> {
    /// The configured operator.
    pub operator: &'a config::Operator,
    /// The resolution, or why there is none.
    pub resolution: Result<Resolution<'a>, resolve::Error>,
    /// Problems with the chosen bundle (the operator cannot be installed).
    pub problems: Vec<Problem>,
    /// Warnings (the choice stands).
    pub warnings: Vec<Warning>,
    /// The subscription profile's plan of it (namespace, OperatorGroup, Subscription, what
    /// OLM v0 pulls in and where Automatic approval takes it), for an operator that uses it.
    pub subscription: Option<super::subscription::SubscriptionPlan<'a>>,
}

impl Outcome<'_> {
    /// Whether this operator can be installed.
    pub fn ok(&self) -> bool {
        self.resolution.is_ok() && self.problems.is_empty()
    }

    /// The install namespace for a bootstrap operator: the configured one, else the CSV's
    /// suggested namespace, else `<package>-system`.
    pub fn install_namespace(&self) -> Option<String> {
        let resolution = self.resolution.as_ref().ok()?;
        Some(
            self.operator
                .namespace
                .as_ref()
                .map(|n| n.value.clone())
                .or_else(|| {
                    facts::csv_facts(resolution.bundle)
                        .facts()
                        .and_then(|f| f.suggested_namespace.clone())
                })
                .unwrap_or_else(|| format!("{}-system", self.operator.package.value)),
        )
    }
}

/// Resolve every operator (all of them, so every problem is reported in one run).
/// `only_from` names the one catalog operators that give no `catalog:` resolve from (bootstrap
/// operators excepted): the PlatformOperator manager's.
pub fn resolve_all<'a>(
    config: &'a Config,
    catalogs: &'a [LoadedCatalog],
    cluster: &Cluster,
    only_from: Option<&str>,
) -> Vec<Outcome<'a>> {
    let operators: Vec<&'a config::Operator> = config.operators.iter().collect();
    resolve_these(&operators, catalogs, cluster, only_from)
}

/// [`resolve_all`] for some of the operators.
fn resolve_these<'a>(
    operators: &[&'a config::Operator],
    catalogs: &'a [LoadedCatalog],
    cluster: &Cluster,
    only_from: Option<&str>,
) -> Vec<Outcome<'a>> {
    use rayon::prelude::*;
    // Operators resolve independently; reading their candidates' CSVs is the costly part, so
    // they share the cores. `collect` keeps the configuration's order.
    operators
        .par_iter()
        .copied()
        .map(|operator| {
            let channels: Vec<String> = operator.channels.iter().map(|c| c.value.clone()).collect();
            let request = Request {
                package: &operator.package.value,
                channels: &channels,
                range: operator
                    .version
                    .as_ref()
                    .map(|v| (v.value.text.as_str(), &v.value.range)),
                catalog: operator
                    .catalog
                    .as_ref()
                    .map(|c| c.value.as_str())
                    .or(only_from.filter(|_| !operator.bootstrap)),
            };
            let resolution = match &operator.installed {
                // OLM v1's upgrade resolution from what the configuration says is installed.
                Some(i) => resolve::resolve_installed(
                    &request,
                    &resolve::Installed {
                        bundle: i.bundle.value.clone(),
                        version: i.parsed.clone(),
                        policy: operator.upgrade_constraint_policy,
                        bound: None,
                    },
                    catalogs,
                    cluster,
                ),
                None => resolve::resolve(&request, catalogs, cluster),
            };
            Outcome::checked(operator, resolution, cluster)
        })
        .collect()
}

/// A warning per `replaces` loop in the requested channels (all channels when none is
/// requested) of the operator's package: `catalog validate` refuses such a catalog, and OLM's
/// upgrade edges through the loop are meaningless (issue 14).
fn replaces_cycle_warnings(
    operator: &config::Operator,
    catalog: &crate::catalog::model::Catalog,
) -> Vec<Warning> {
    let Some(package) = catalog.package(&operator.package.value) else {
        return Vec::new();
    };
    package
        .channels
        .iter()
        .filter(|c| operator.channels.is_empty() || operator.channels.iter().any(|r| r.value == c.name))
        .flat_map(|c| {
            crate::catalog::graph::replaces_cycles(c).into_iter().map(move |cycle| {
                Warning(format!(
                    "channel {} of package {} has a replaces cycle: {} (`catalog validate` refuses this catalog; upgrades along it are undefined)",
                    c.name,
                    package.name,
                    cycle
                        .iter()
                        .map(|b| crate::text::printable(b).into_owned())
                        .collect::<Vec<_>>()
                        .join(" -> ")
                ))
            })
        })
        .collect()
}

/// The rules of [`resolve::check_installable`] that hold for a bootstrap operator. Its objects
/// are applied as they are and OLM never manages it: nothing resolves its dependencies and
/// nothing gives its webhooks a certificate, on any release. (Conversion checks install modes
/// and APIServices itself.)
const BOOTSTRAP_RULES: [&str; 2] = ["dependencies", "webhooks"];

/// The problems of [`resolve::check_installable`] that refuse `bundle` as a bootstrap operator.
fn bootstrap_problems(bundle: &crate::catalog::model::Bundle) -> (Vec<Problem>, Vec<Warning>) {
    let (problems, warnings) = resolve::check_installable(bundle);
    let problems = problems
        .into_iter()
        .filter(|p| BOOTSTRAP_RULES.contains(&p.rule.as_str()))
        .collect();
    (problems, warnings)
}

/// What to do about a bootstrap operator whose chosen bundle has webhooks: OLM v1's and OLM
/// v0's advice does not apply (OLM never manages it), so name the bundle versions of the
/// requested channels (every channel when none is) that a bootstrap operator can install
/// instead: known from the catalog to have no webhooks and no dependencies, and fitting the
/// cluster.
pub fn bootstrap_webhooks_advice(
    operator: &config::Operator,
    resolution: &Resolution<'_>,
    cluster: &Cluster,
) -> String {
    let channels: Vec<&str> = operator.channels.iter().map(|c| c.value.as_str()).collect();
    let scope = match channels.as_slice() {
        [] => format!("package {}", resolution.package.name),
        [one] => format!("channel {one}"),
        many => format!("channels {}", many.join(", ")),
    };
    let in_scope = |b: &&crate::catalog::model::Bundle| {
        channels.is_empty() || b.channels.iter().any(|c| channels.contains(&c.as_str()))
    };
    let mut unknown = 0;
    let mut fit: Vec<&crate::catalog::model::Bundle> = Vec::new();
    for b in resolution.package.bundles.iter().filter(in_scope) {
        if facts::csv_facts(b).facts().is_none() {
            unknown += 1;
        } else if b.version.is_some()
            && bootstrap_problems(b).0.is_empty()
            && resolve::cluster_fit(b, cluster).is_none()
        {
            fit.push(b);
        }
    }
    fit.sort_by(|a, b| match (&a.version, &b.version) {
        (Some(x), Some(y)) => crate::version::cmp_olm(y, x),
        _ => std::cmp::Ordering::Equal,
    });
    let mut versions: Vec<String> = fit
        .iter()
        .map(|b| crate::text::printable(&b.version_text).into_owned())
        .collect();
    versions.dedup();
    let why = "a bootstrap operator's objects are applied as they are and OLM never manages it, so nothing gives its webhooks a certificate";
    if !versions.is_empty() {
        return format!(
            "{why}: pin `version:` to one of the versions in {scope} without webhooks: {}",
            versions.join(", ")
        );
    }
    if unknown == 0 {
        format!("{why}, and no bundle in {scope} is without webhooks")
    } else {
        let carry = if unknown == 1 { "carries" } else { "carry" };
        format!(
            "{why}, and no bundle in {scope} is known to be without webhooks ({unknown} {carry} neither olm.csv.metadata nor olm.bundle.object, so the catalog does not say)"
        )
    }
}

impl<'a> Outcome<'a> {
    /// Run the checks on a resolution (the profile checks; for bootstrap operators only
    /// [`BOOTSTRAP_RULES`], a webhook problem with the versions to pin instead) and gather
    /// its warnings.
    pub fn checked(
        operator: &'a config::Operator,
        resolution: Result<Resolution<'a>, resolve::Error>,
        cluster: &Cluster,
    ) -> Outcome<'a> {
        let (problems, mut warnings) = match &resolution {
            Ok(r) if operator.bootstrap => {
                let (mut problems, warnings) = bootstrap_problems(r.bundle);
                for p in problems.iter_mut().filter(|p| p.rule == "webhooks") {
                    p.message.push_str("; ");
                    p.message
                        .push_str(&bootstrap_webhooks_advice(operator, r, cluster));
                }
                (problems, warnings)
            }
            Ok(r) => resolve::check_installable(r.bundle),
            Err(_) => (Vec::new(), Vec::new()),
        };
        if let Ok(r) = &resolution {
            warnings.splice(0..0, r.warnings.iter().cloned());
            warnings.extend(replaces_cycle_warnings(operator, &r.catalog.catalog));
        }
        Outcome {
            operator,
            resolution,
            problems,
            warnings,
            subscription: None,
        }
    }
}

/// [`resolve_all`], with the problems fitted to the target release's OLM v1
/// ([`fit_to_release`]), so `resolve`, `images` and `create` agree on what installs.
pub fn resolve_for_release<'a>(inv: &'a Install, cluster: &Cluster) -> Vec<Outcome<'a>> {
    let platform_operators = cluster.version.as_ref().is_some_and(|v| {
        inv.profile_for(v).ok().flatten() == Some(crate::render::Profile::PlatformOperator)
    });
    let source = crate::openshift::PLATFORM_OPERATOR_CATALOG;
    let only_from =
        (platform_operators && inv.catalogs.iter().any(|c| c.name == source)).then_some(source);
    // The subscription profile's operators resolve with OLM v0, namespace by namespace; the
    // others one by one with OLM v1's (or the PlatformOperator manager's) rules.
    let uses = |o: &config::Operator| {
        inv.operator_profile(o, cluster.version.as_ref())
            == Some(crate::render::Profile::Subscription)
    };
    let (olm_v0, others): (Vec<&config::Operator>, Vec<&config::Operator>) =
        inv.config.operators.iter().partition(|o| uses(o));
    let mut planned = super::subscription::resolve_all(inv, cluster, &olm_v0)
        .into_iter()
        .map(|p| Outcome {
            operator: p.operator,
            resolution: p.resolution,
            problems: p.problems,
            warnings: p.warnings,
            subscription: p.subscription,
        });
    let mut resolved = resolve_these(&others, &inv.catalogs, cluster, only_from).into_iter();
    let mut outcomes: Vec<Outcome<'a>> = inv
        .config
        .operators
        .iter()
        .map(|o| {
            if uses(o) {
                planned.next().expect("one outcome per operator")
            } else {
                resolved.next().expect("one outcome per operator")
            }
        })
        .collect();
    if platform_operators {
        for o in &mut outcomes {
            if let Some(p) = platform_operator_catalog_problem(inv, o) {
                o.problems.push(p);
            }
        }
    }
    let olm = cluster.version.as_ref().and_then(|v| {
        crate::openshift::Target::new(v, inv.feature_set(), inv.feature_gates())
            .ok()
            .and_then(|t| t.olm_v1())
    });
    fit_to_release(&mut outcomes, olm.as_ref());
    for o in &mut outcomes {
        // Every profile writes the chosen bundles' names (the CSV's, the objects'), so each
        // must be a Kubernetes name; the problem comes first, ahead of any naming it raw.
        let named: Vec<Problem> = installed_bundles(o)
            .into_iter()
            .flat_map(|(_, b)| resolve::name_problems(b))
            .collect();
        if !named.is_empty() {
            o.problems.splice(0..0, named);
        }
    }
    outcomes
}

/// Every bundle an outcome installs: the one resolved, and for the subscription profile what
/// OLM v0 pulls in and the bundles Automatic approval moves them to, each with its catalog.
pub fn installed_bundles<'a>(
    outcome: &Outcome<'a>,
) -> Vec<(&'a LoadedCatalog, &'a crate::catalog::model::Bundle)> {
    let Ok(r) = &outcome.resolution else {
        return Vec::new();
    };
    let mut out = vec![(r.catalog, r.bundle)];
    if let Some(s) = &outcome.subscription {
        out.extend(s.hops.iter().map(|b| (r.catalog, *b)));
        for d in &s.dependencies {
            out.push((d.catalog, d.bundle));
            out.extend(d.ends_at.map(|b| (d.catalog, b)));
        }
    }
    out
}

/// The PlatformOperator manager (4.12–4.15) resolves every platform operator from the
/// CatalogSource `openshift-marketplace/redhat-operators` and nothing else: a platform operator
/// resolved from another catalog would never install. The configuration marks the catalog that
/// is the snapshot of that CatalogSource by its name, `redhat-operators` (as a ClusterExtension's
/// catalog is named after the default ClusterCatalog it is a snapshot of).
fn platform_operator_catalog_problem(inv: &Install, o: &Outcome<'_>) -> Option<Problem> {
    let source = crate::openshift::PLATFORM_OPERATOR_CATALOG;
    let r = o.resolution.as_ref().ok()?;
    if o.operator.bootstrap || r.catalog.name == source {
        return None;
    }
    let configured = inv.catalogs.iter().any(|c| c.name == source);
    Some(Problem {
        rule: "platformOperatorCatalog".into(),
        message: format!(
            "the PlatformOperator manager installs platform operators only from the CatalogSource openshift-marketplace/{source}, but {} resolves from catalog \"{}\"; {}",
            r.bundle.name,
            crate::text::printable(&r.catalog.name),
            if configured {
                format!(
                    "drop the operator's `catalog: {}` so it resolves from the catalog \"{source}\"",
                    crate::text::printable(&r.catalog.name)
                )
            } else {
                format!(
                    "name the configured catalog that is a snapshot of redhat-operators \"{source}\" (no catalog of that name is configured)"
                )
            }
        ),
    })
}

/// Fit each outcome's problems to the target's OLM v1: a bundle with webhooks is no problem
/// where the service-ca provider is on; elsewhere the problem names the releases and feature
/// sets that accept it (from the release table).
pub fn fit_to_release(outcomes: &mut [Outcome<'_>], olm: Option<&crate::openshift::OlmV1>) {
    let Some(olm) = olm else { return };
    let watch_accepted = crate::openshift::Release::where_it_holds(|o| o.own_single_namespace);
    // OLM never manages a bootstrap operator: its problems hold whatever the release.
    for outcome in outcomes.iter_mut().filter(|o| !o.operator.bootstrap) {
        if olm.watch_namespace.is_some() && olm.own_single_namespace {
            // The watch namespace and the renderer decide (render::watch_namespace, convert).
            outcome.problems.retain(|p| p.rule != "installModes");
        } else if let Some(accepted) = &watch_accepted {
            for p in outcome
                .problems
                .iter_mut()
                .filter(|p| p.rule == "installModes")
            {
                p.message.push_str(&format!(
                    "; OLM v1 installs it into a watch namespace (`watchNamespace:`) on {accepted}"
                ));
            }
        }
        // What OLM v1 refuses, OLM v0 installs: name the way out.
        if outcome.subscription.is_none() {
            for p in outcome.problems.iter_mut().filter(|p| {
                matches!(
                    p.rule.as_str(),
                    "installModes" | "webhooks" | "dependencies" | "apiServices"
                )
            }) {
                p.message.push_str(
                    "; OLM v0 installs it: give the operator `profile: subscription` (a Namespace, OperatorGroup and Subscription, with its dependencies resolved as OLM v0 resolves them)",
                );
            }
        }
        if olm.webhooks {
            outcome.problems.retain(|p| p.rule != "webhooks");
        } else if let Some(accepted) = crate::openshift::Release::where_it_holds(|o| o.webhooks) {
            for p in outcome.problems.iter_mut().filter(|p| p.rule == "webhooks") {
                p.message
                    .push_str(&format!("; OLM v1 installs webhooks on {accepted}"));
            }
        }
    }
}

/// Why a resolved bundle's objects could not be produced.
#[derive(Debug)]
pub enum ContentError {
    /// Its registry+v1 content could not be obtained.
    Source(crate::bundle::source::Error),
    /// It could not be converted.
    Convert(crate::convert::Error),
    /// The watch namespace does not fit the bundle or the release.
    WatchNamespace(crate::render::watch_namespace::Error),
}

/// A resolved bundle's registry+v1 content (embedded in the catalog, from `--bundles`, the
/// cache, `--oci-layout` or the registry), converted as OLM v1 does for an AllNamespaces install
/// into `namespace`. Shared by `create` (the objects it writes) and `images` (the containers
/// they run).
///
/// `olm` is the target's OLM v1 (its renderer and certificate provider); without one (a
/// bootstrap operator on a release before 4.18) the newest renderer is used, without webhooks.
pub fn converted_bundle(
    sources: &crate::bundle::source::Sources,
    bundle: &crate::catalog::model::Bundle,
    namespace: &str,
    olm: Option<&crate::openshift::OlmV1>,
    watch: Option<&str>,
) -> Result<Vec<serde_json::Value>, ContentError> {
    let loaded = sources
        .load_catalog_bundle(bundle)
        .map_err(ContentError::Source)?;
    let mut options = match olm {
        Some(olm) => crate::convert::Options::for_olm_v1(olm, namespace),
        None => crate::convert::Options {
            install_namespace: namespace.to_string(),
            ..Default::default()
        },
    };
    options.target_namespaces = match olm {
        Some(olm) => {
            let modes = loaded
                .bundle
                .install_modes()
                .map_err(|e| ContentError::Convert(e.into()))?;
            crate::render::watch_namespace::target_namespaces(olm, &modes, namespace, watch)
                .map_err(ContentError::WatchNamespace)?
        }
        None => watch.map(|w| vec![w.to_string()]).unwrap_or_default(),
    };
    crate::convert::convert_owned(loaded.bundle, &options).map_err(ContentError::Convert)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::Outcome;
    use crate::openshift::ClusterVersion;
    use crate::resolve::testcat::{Fbc, entry};
    use crate::resolve::{self, Cluster, Request};

    /// One operator of a configuration read through the real reader.
    fn operator(yaml: &str) -> crate::config::Config {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("platform-operators.yaml");
        std::fs::write(&path, yaml).unwrap();
        crate::config::read_file(&path).unwrap()
    }

    fn csv(webhooks: bool) -> serde_json::Value {
        let mut value = json!({"installModes": [{"type": "AllNamespaces", "supported": true}]});
        if webhooks {
            value["webhookdefinitions"] =
                json!([{"type": "ValidatingAdmissionWebhook", "generateName": "vccm.acme.io"}]);
        }
        json!({"type": "olm.csv.metadata", "value": value})
    }

    /// A bootstrap operator whose chosen bundle has webhooks is refused with the versions of
    /// its channel a bootstrap operator can install instead (fitting the cluster, no webhooks,
    /// no dependencies), newest first, and without OLM v1's or OLM v0's advice, on a release
    /// with OLM v1's webhook support as on one without.
    #[test]
    fn a_bootstrap_operator_with_webhooks_is_told_the_versions_without() {
        let max = |m: &str| json!({"type": "olm.maxOpenShiftVersion", "value": m});
        let needs = json!({"type": "olm.package.required", "value": {"packageName": "x", "versionRange": ">=1.0.0"}});
        let catalog = Fbc::new("acme-ccm")
            .bundle_with("1.0.0", vec![csv(false)])
            .bundle_with("1.1.0", vec![csv(false), max("4.14")])
            .bundle_with("1.2.0", vec![csv(false), needs])
            .bundle_with("1.3.0", vec![csv(false)])
            .bundle_with("1.4.0", vec![])
            .bundle_with("2.0.0", vec![csv(true)])
            .channel(
                "stable",
                ["1.0.0", "1.1.0", "1.2.0", "1.3.0", "1.4.0", "2.0.0"]
                    .iter()
                    .map(|v| entry(&format!("acme-ccm.v{v}"), None, &[], None))
                    .collect(),
            )
            .channel("fast", vec![entry("acme-ccm.v2.0.0", None, &[], None)])
            .channel(
                "beta",
                vec![
                    entry("acme-ccm.v1.4.0", None, &[], None),
                    entry("acme-ccm.v2.0.0", None, &[], None),
                ],
            )
            .load("partner");
        let catalogs = [catalog];
        let run = |channel: &str, version: &str| {
            let config = operator(&format!(
                "platformOperators:\n  catalogs:\n  - name: partner\n    source: c\n  operators:\n  - name: acme-ccm\n    package: acme-ccm\n    bootstrap: true\n{channel}"
            ));
            let cluster = Cluster {
                version: Some(ClusterVersion::parse(version).unwrap()),
            };
            let channels: Vec<String> = config.operators[0]
                .channels
                .iter()
                .map(|c| c.value.clone())
                .collect();
            let request = Request {
                package: "acme-ccm",
                channels: &channels,
                range: None,
                catalog: None,
            };
            let resolution = resolve::resolve(&request, &catalogs, &cluster);
            let mut outcomes = vec![Outcome::checked(&config.operators[0], resolution, &cluster)];
            let olm =
                crate::openshift::Target::new(&ClusterVersion::parse(version).unwrap(), None, &[])
                    .ok()
                    .and_then(|t| t.olm_v1());
            super::fit_to_release(&mut outcomes, olm.as_ref());
            let o = outcomes.remove(0);
            assert_eq!(
                o.resolution.as_ref().unwrap().bundle.name,
                "acme-ccm.v2.0.0"
            );
            let problems: Vec<String> = o
                .problems
                .iter()
                .map(|p| format!("{}: {}", p.rule, p.message))
                .collect();
            assert_eq!(problems.len(), 1, "{problems:?}");
            assert!(!problems[0].contains("OLM v"), "{}", problems[0]);
            problems[0].clone()
        };
        let advice = "a bootstrap operator's objects are applied as they are and OLM never manages it, so nothing gives its webhooks a certificate";
        for version in ["4.16.3", "4.21.0"] {
            let p = run("", version);
            assert!(p.starts_with("webhooks: bundle acme-ccm.v2.0.0 defines webhooks (ValidatingAdmissionWebhook webhook vccm.acme.io)"), "{p}");
            assert!(
                p.ends_with(&format!("; {advice}: pin `version:` to one of the versions in package acme-ccm without webhooks: 1.3.0, 1.0.0")),
                "{version}: {p}"
            );
        }
        assert!(
            run("    channel: stable\n", "4.14.1")
                .ends_with("in channel stable without webhooks: 1.3.0, 1.1.0, 1.0.0")
        );
        assert!(run("    channel: fast\n", "4.16.3").ends_with(&format!(
            "; {advice}, and no bundle in channel fast is without webhooks"
        )));
        assert!(run("    channels: [beta, fast]\n", "4.16.3").ends_with(&format!(
            "; {advice}, and no bundle in channels beta, fast is known to be without webhooks (1 carries neither olm.csv.metadata nor olm.bundle.object, so the catalog does not say)"
        )));
    }
}
