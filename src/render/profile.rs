//! Output profiles: which objects an operator becomes on a given OpenShift release.
//!
//! | release | profile |
//! |---|---|
//! | 4.12–4.15 with `featureSet: TechPreviewNoUpgrade` (or the `PlatformOperators` gate) | [`Profile::PlatformOperator`] |
//! | 4.16–4.17 | none: the PlatformOperator API was removed in 4.16 and `ClusterExtension` is GA from 4.18 |
//! | ≥ 4.18 | [`Profile::ClusterExtension`] |
//!
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
    /// The profile for a target cluster, from [`crate::openshift`]'s table.
    pub fn for_target(target: &Target) -> Result<Profile, ProfileError> {
        let version = &target.release.name;
        match (target.release.row.api, target.operator_api()) {
            (_, OperatorApi::PlatformOperator) => Ok(Profile::PlatformOperator),
            (_, OperatorApi::ClusterExtension) => Ok(Profile::ClusterExtension),
            (OperatorApi::PlatformOperator, OperatorApi::None) => Err(ProfileError::FeatureSet {
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
                Err(ProfileError::UnsupportedRelease {
                    version: version.clone(),
                    reason: format!(
                        "the PlatformOperator API ends with {last_po} and OLM v1's ClusterExtension is generally available only from {first_ce}; \
                         either target OpenShift {first_ce} or later (ClusterExtension profile), or mark the operator `bootstrap: true` to install its own objects"
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
    fn default_feature_set_is_refused() {
        let e = Profile::for_cluster(&cv("4.13"), None, &[]).unwrap_err();
        assert!(e.to_string().contains("TechPreviewNoUpgrade"), "{e}");
        assert!(Profile::for_cluster(&cv("4.13"), Some("CustomNoUpgrade"), &[]).is_err());
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
    fn releases_without_the_api_are_refused_with_both_options() {
        let e = Profile::for_cluster(&cv("4.16"), Some("TechPreviewNoUpgrade"), &[])
            .unwrap_err()
            .to_string();
        assert!(e.contains("4.18") && e.contains("bootstrap: true"), "{e}");
        assert!(Profile::for_cluster(&cv("4.11"), Some("TechPreviewNoUpgrade"), &[]).is_err());
    }
}
