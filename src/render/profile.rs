//! Output profiles: which objects an operator becomes on a given OpenShift release.
//!
//! | release | default profile |
//! |---|---|
//! | 4.12–4.15 with `featureSet: TechPreviewNoUpgrade` (or the `PlatformOperators` gate) | [`Profile::PlatformOperator`] |
//! | 4.12–4.17 otherwise (the PlatformOperator API needs a tech preview and was removed in 4.16; `ClusterExtension` is GA from 4.18) | [`Profile::Subscription`] |
//! | ≥ 4.18 | [`Profile::ClusterExtension`] |
//!
//! An operator with `profile: subscription` gets [`Profile::Subscription`] on every release.
//! Operators with `bootstrap: true` are written as their own objects in every profile and on
//! every release, so a configuration of only bootstrap operators needs no profile. The facts
//! come from [`crate::openshift`]'s release table.

use serde_json::json;

use super::{Error, RenderedObject, Templates};
use crate::openshift::ClusterVersion;
use crate::openshift::{FeatureSet, OperatorApi, Target};

/// How non-bootstrap operators are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Profile {
    /// `PlatformOperator` + `BundleDeployment` (OpenShift 4.12–4.15, tech preview).
    PlatformOperator,
    /// OLM v1 `ClusterExtension` (OpenShift ≥ 4.18).
    ClusterExtension,
    /// OLM v0: Namespace, OperatorGroup, `Subscription`, CatalogSource (every release; the
    /// default where neither of the others applies).
    Subscription,
}

/// Why no profile can write the configured operators for the target cluster.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProfileError {
    /// The release has no API for platform operators.
    #[error("OpenShift {version} cannot install platform operators: {reason}")]
    UnsupportedRelease {
        /// The target release.
        version: String,
        /// Why, and what works instead.
        reason: String,
    },
    /// The PlatformOperator CRD is only there with a tech preview feature set.
    #[error(
        "the PlatformOperator API on OpenShift {version} needs featureSet TechPreviewNoUpgrade (or CustomNoUpgrade with PlatformOperators=true) in install-config.yaml, found {found}"
    )]
    FeatureSet {
        /// The target release.
        version: String,
        /// The featureSet found.
        found: String,
    },
}

impl Profile {
    /// The default profile for a target cluster, from [`crate::openshift`]'s table: OLM v0
    /// Subscriptions wherever neither PlatformOperators nor OLM v1 can take the operators.
    pub fn for_target(target: &Target) -> Result<Profile, ProfileError> {
        match target.operator_api() {
            OperatorApi::PlatformOperator => Ok(Profile::PlatformOperator),
            OperatorApi::ClusterExtension => Ok(Profile::ClusterExtension),
            OperatorApi::None => Ok(Profile::Subscription),
        }
    }

    /// The name written in the lock file and in `resolve -o json`.
    pub fn name(self) -> &'static str {
        match self {
            Profile::PlatformOperator => "PlatformOperator",
            Profile::ClusterExtension => "ClusterExtension",
            Profile::Subscription => "subscription",
        }
    }

    /// Why the release gives no PlatformOperator API, for a message about the default the
    /// subscription profile takes (`None` where PlatformOperators are the default or OLM v1 is).
    pub fn why_no_platform_operators(target: &Target) -> Option<ProfileError> {
        let version = &target.release.name;
        match (target.release.row.api, target.operator_api()) {
            (_, OperatorApi::PlatformOperator | OperatorApi::ClusterExtension) => None,
            (OperatorApi::PlatformOperator, OperatorApi::None) => Some(ProfileError::FeatureSet {
                version: version.clone(),
                found: match &target.feature_set {
                    FeatureSet::Default => "none".into(),
                    other => format!("\"{other}\""),
                },
            }),
            _ => {
                // Both releases come from the table (crate::openshift::RELEASES).
                let last_po = crate::openshift::api_releases(OperatorApi::PlatformOperator)
                    .map(|(_, last)| last)
                    .unwrap_or_default();
                let first_ce = crate::openshift::api_releases(OperatorApi::ClusterExtension)
                    .map(|(first, _)| first)
                    .unwrap_or_default();
                Some(ProfileError::UnsupportedRelease {
                    version: version.clone(),
                    reason: format!(
                        "the PlatformOperator API ends with {last_po} and OLM v1's ClusterExtension is generally available only from {first_ce}"
                    ),
                })
            }
        }
    }

    /// The profile for a release and install-config `featureSet` / `featureGates`.
    pub fn for_cluster(
        version: &ClusterVersion,
        feature_set: Option<&str>,
        feature_gates: &[String],
    ) -> Result<Profile, ProfileError> {
        let target = Target::new(version, feature_set, feature_gates).map_err(|e| {
            ProfileError::UnsupportedRelease {
                version: version.text.clone(),
                reason: e.to_string(),
            }
        })?;
        Profile::for_target(&target)
    }
}

/// What the templates see about one operator.
#[derive(Debug, Clone, serde::Serialize)]
pub struct OperatorContext<'a> {
    /// Config name.
    pub name: &'a str,
    /// Package.
    pub package: &'a str,
    /// Requested channels.
    pub channels: &'a [String],
    /// Install namespace, when one applies.
    pub namespace: Option<&'a str>,
}

/// What the templates see about the chosen bundle.
#[derive(Debug, Clone, serde::Serialize)]
pub struct BundleContext<'a> {
    /// Bundle name.
    pub name: &'a str,
    /// Version.
    pub version: &'a str,
    /// Image.
    pub image: &'a str,
}

/// What the templates see about the catalog.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CatalogContext<'a> {
    /// Configured name.
    pub name: &'a str,
    /// Catalog image, if configured.
    pub image: Option<&'a str>,
    /// Priority across catalogs.
    pub priority: i32,
}

/// The group name manifest files of ClusterCatalogs are written under.
pub const CLUSTER_CATALOGS_GROUP: &str = "clustercatalogs";

/// The ClusterExtension profile's objects for one operator: its Namespace, the installer
/// ServiceAccount with exactly the RBAC that installing the converted bundle needs, and the
/// ClusterExtension pinned to the resolved version. `converted` is the bundle converted for
/// the install namespace.
///
/// `watch` is the watch namespace and the form the target release reads it in
/// (`olm.operatorframework.io/watch-namespace` on 4.19/4.20, `spec.config.inline` from 4.21).
pub fn cluster_extension(
    templates: &Templates,
    operator: &OperatorContext<'_>,
    bundle: &BundleContext<'_>,
    catalog: &CatalogContext<'_>,
    converted: &[serde_json::Value],
    watch: Option<(crate::openshift::WatchNamespaceForm, &str)>,
) -> Result<Vec<RenderedObject>, Error> {
    let namespace = operator.namespace.unwrap_or_default();
    let installer = format!("{}-installer", operator.name);
    let rbac =
        super::installer_rbac::derive(operator.name, namespace, converted).map_err(|message| {
            Error::Rbac {
                operator: operator.name.into(),
                message,
            }
        })?;
    let common = json!({ "name": installer, "namespace": namespace, "service_account": installer, "service_account_namespace": namespace });
    let with_rules = |rules: &[serde_json::Value]| {
        let mut c = common.clone();
        c["rules"] = json!(rules);
        c
    };
    let mut out = vec![
        templates.render(
            "namespace.yaml.j2",
            operator.name,
            &json!({ "namespace": namespace }),
        )?,
        templates.render("serviceaccount.yaml.j2", operator.name, &common)?,
        templates.render(
            "clusterrole.yaml.j2",
            operator.name,
            &with_rules(&rbac.cluster_rules),
        )?,
        templates.render("clusterrolebinding.yaml.j2", operator.name, &common)?,
    ];
    if !rbac.namespace_rules.is_empty() {
        out.push(templates.render(
            "role.yaml.j2",
            operator.name,
            &with_rules(&rbac.namespace_rules),
        )?);
        out.push(templates.render("rolebinding.yaml.j2", operator.name, &common)?);
    }
    for (ns, rules) in &rbac.other_namespace_rules {
        let mut c = with_rules(rules);
        c["namespace"] = json!(ns);
        c["service_account_namespace"] = json!(namespace);
        out.push(templates.render("role.yaml.j2", operator.name, &c)?);
        out.push(templates.render("rolebinding.yaml.j2", operator.name, &c)?);
    }
    let watch_namespace = watch.map(|(form, ns)| {
        json!({
            "namespace": ns,
            "form": match form {
                crate::openshift::WatchNamespaceForm::Annotation => "Annotation",
                crate::openshift::WatchNamespaceForm::InlineConfig => "InlineConfig",
            },
        })
    });
    let context = json!({ "operator": operator, "bundle": bundle, "catalog": catalog, "service_account": installer, "watch_namespace": watch_namespace });
    out.push(templates.render("clusterextension.yaml.j2", operator.name, &context)?);
    Ok(out)
}

/// A ClusterCatalog for a configured catalog with an image.
pub fn cluster_catalog(
    templates: &Templates,
    catalog: &CatalogContext<'_>,
) -> Result<RenderedObject, Error> {
    templates.render(
        "clustercatalog.yaml.j2",
        CLUSTER_CATALOGS_GROUP,
        &json!({ "catalog": catalog }),
    )
}

/// The PlatformOperator profile's objects for one operator: a `PlatformOperator` and the
/// `BundleDeployment` that pins the resolved bundle.
pub fn platform_operator(
    templates: &Templates,
    operator: &OperatorContext<'_>,
    bundle: &BundleContext<'_>,
    catalog: &CatalogContext<'_>,
) -> Result<Vec<RenderedObject>, Error> {
    let context = json!({ "operator": operator, "bundle": bundle, "catalog": catalog });
    Ok(vec![
        templates.render("platformoperator.yaml.j2", operator.name, &context)?,
        templates.render("bundledeployment.yaml.j2", operator.name, &context)?,
    ])
}

/// What the templates see of one Subscription and its namespace.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SubscriptionContext<'a> {
    /// `metadata.name` (the operator's name).
    pub name: &'a str,
    /// Its namespace.
    pub namespace: &'a str,
    /// The package.
    pub package: &'a str,
    /// The channel, when one is named.
    pub channel: Option<&'a str>,
    /// The CatalogSource.
    pub source: &'a str,
    /// Its namespace.
    pub source_namespace: &'a str,
    /// `startingCSV`, when one is pinned.
    pub starting_csv: Option<&'a str>,
    /// `Automatic` or `Manual`.
    pub approval: &'a str,
}

/// The OperatorGroup of a namespace.
#[derive(Debug, Clone, serde::Serialize)]
pub struct GroupContext<'a> {
    /// Its name.
    pub name: &'a str,
    /// Its namespace.
    pub namespace: &'a str,
    /// `targetNamespaces` (empty: AllNamespaces).
    pub target_namespaces: &'a [String],
}

/// The subscription profile's objects for one operator: its Namespace and OperatorGroup when
/// it is the first of its namespace and OpenShift creates neither, then its Subscription.
pub fn subscription(
    templates: &Templates,
    operator: &str,
    namespace: Option<&str>,
    group: Option<&GroupContext<'_>>,
    subscription: &SubscriptionContext<'_>,
) -> Result<Vec<RenderedObject>, Error> {
    let mut out = Vec::new();
    if let Some(ns) = namespace {
        out.push(templates.render("namespace.yaml.j2", operator, &json!({ "namespace": ns }))?);
    }
    if let Some(g) = group {
        out.push(templates.render("operatorgroup.yaml.j2", operator, &json!({ "group": g }))?);
    }
    out.push(templates.render(
        "subscription.yaml.j2",
        operator,
        &json!({ "subscription": subscription }),
    )?);
    Ok(out)
}

/// A CatalogSource in `openshift-marketplace` serving a configured catalog's image, for the
/// subscription profile (`pod_config`: the release's `grpcPodConfig`).
pub fn catalog_source(
    templates: &Templates,
    catalog: &CatalogContext<'_>,
    pod_config: &serde_json::Value,
) -> Result<RenderedObject, Error> {
    templates.render(
        "catalogsource.yaml.j2",
        super::offline::MARKETPLACE,
        &json!({
            "catalog": {"name": catalog.name},
            "source": {
                "name": catalog.name,
                "image": catalog.image,
                "display_name": catalog.name,
                "publisher": "po-manifests",
                "priority": catalog.priority,
                "pod_config": pod_config,
            },
        }),
    )
}

/// The OperatorHub `cluster` of the subscription profile: every default source disabled
/// (disconnected), or only the ones whose names written CatalogSources take.
pub fn operator_hub(
    templates: &Templates,
    disable_all: bool,
    disabled: &[&str],
) -> Result<RenderedObject, Error> {
    templates.render(
        "operatorhub.yaml.j2",
        super::offline::MARKETPLACE,
        &json!({"hub": {"disable_all": disable_all, "disabled": disabled}}),
    )
}

/// A bootstrap operator's Namespace object.
pub fn namespace(
    templates: &Templates,
    operator: &str,
    namespace: &str,
) -> Result<RenderedObject, Error> {
    templates.render(
        "namespace.yaml.j2",
        operator,
        &json!({ "namespace": namespace }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cv(s: &str) -> ClusterVersion {
        ClusterVersion::parse(s).unwrap()
    }

    #[test]
    fn tech_preview_4_14_is_platform_operator() {
        assert_eq!(
            Profile::for_cluster(&cv("4.14.8"), Some("TechPreviewNoUpgrade"), &[]),
            Ok(Profile::PlatformOperator)
        );
        assert_eq!(
            Profile::for_cluster(&cv("4.12"), Some("TechPreviewNoUpgrade"), &[]),
            Ok(Profile::PlatformOperator)
        );
        assert!(Profile::for_cluster(&cv("4.12"), Some("DevPreviewNoUpgrade"), &[]).is_err());
        assert_eq!(
            Profile::for_cluster(
                &cv("4.13"),
                Some("CustomNoUpgrade"),
                &["PlatformOperators=true".into()]
            ),
            Ok(Profile::PlatformOperator)
        );
    }

    #[test]
    fn without_the_tech_preview_it_is_subscriptions() {
        assert_eq!(
            Profile::for_cluster(&cv("4.13"), None, &[]),
            Ok(Profile::Subscription)
        );
        assert_eq!(
            Profile::for_cluster(&cv("4.13"), Some("CustomNoUpgrade"), &[]),
            Ok(Profile::Subscription)
        );
        let target = Target::new(&cv("4.13"), None, &[]).unwrap();
        let why = Profile::why_no_platform_operators(&target)
            .unwrap()
            .to_string();
        assert!(why.contains("TechPreviewNoUpgrade"), "{why}");
    }

    #[test]
    fn from_4_18_on_it_is_cluster_extension() {
        assert_eq!(
            Profile::for_cluster(&cv("4.18.1"), None, &[]),
            Ok(Profile::ClusterExtension)
        );
        assert_eq!(
            Profile::for_cluster(&cv("4.20"), Some("TechPreviewNoUpgrade"), &[]),
            Ok(Profile::ClusterExtension)
        );
    }

    #[test]
    fn releases_without_either_api_get_subscriptions() {
        for v in ["4.16", "4.17.3"] {
            assert_eq!(
                Profile::for_cluster(&cv(v), Some("TechPreviewNoUpgrade"), &[]),
                Ok(Profile::Subscription)
            );
        }
        let target = Target::new(&cv("4.16"), None, &[]).unwrap();
        let why = Profile::why_no_platform_operators(&target)
            .unwrap()
            .to_string();
        assert!(why.contains("4.18") && why.contains("4.15"), "{why}");
        assert!(Profile::for_cluster(&cv("4.11"), Some("TechPreviewNoUpgrade"), &[]).is_err());
    }
}
