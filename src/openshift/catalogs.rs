//! The catalogs and namespaces a release brings itself: OLM v0's default CatalogSources and
//! OLM's own namespaces, the ClusterCatalogs of releases that have them, the index image of
//! each default catalog, and how a CatalogSource written for the subscription profile is
//! placed (operator-marketplace `defaults/`; `reference/olm-v0.md` §4).

use super::cluster_version::ClusterVersion;
use super::release::{Release, lookup};

/// OLM v0's default CatalogSources on releases without default ClusterCatalogs.
const CATALOG_SOURCES_4: &[(&str, i32)] = &[
    ("redhat-operators", -100),
    ("certified-operators", -200),
    ("redhat-marketplace", -300),
    ("community-operators", -400),
];

/// The default CatalogSources of a release ([`Release::default_catalog_sources`]); without a
/// known release, the four every release from 4.12 to 4.21 has.
pub fn default_catalog_sources(version: Option<&ClusterVersion>) -> Vec<(&'static str, i32)> {
    version
        .and_then(|v| lookup(v).ok())
        .map(|r| r.default_catalog_sources())
        .unwrap_or_else(|| CATALOG_SOURCES_4.to_vec())
}

/// The namespace of the default CatalogSources and OLM v0's global catalog namespace.
pub const MARKETPLACE_NAMESPACE: &str = "openshift-marketplace";

/// The namespace OLM v0 installs AllNamespaces operators into, with its OperatorGroup
/// `global-operators` (OLM `manifests/0000_50_olm_13-operatorgroup-default.yaml`).
pub const GLOBAL_OPERATORS_NAMESPACE: &str = "openshift-operators";

/// The namespaces OLM's own manifests create, which the subscription profile never writes.
pub const OLM_NAMESPACES: &[&str] = &[
    "openshift-operators",
    "openshift-operator-lifecycle-manager",
    "openshift-marketplace",
];

/// The one CatalogSource (in `openshift-marketplace`) the PlatformOperator manager (4.12–4.15)
/// resolves from; the configuration's catalog of this name is its snapshot.
pub const PLATFORM_OPERATOR_CATALOG: &str = "redhat-operators";

/// The index repository of each catalog OpenShift serves itself, by CatalogSource name (the
/// default ClusterCatalogs are these names with `openshift-` before them); the tag is `v4.N`.
const DEFAULT_INDEXES: &[(&str, &str)] = &[
    (
        "redhat-operators",
        "registry.redhat.io/redhat/redhat-operator-index",
    ),
    (
        "certified-operators",
        "registry.redhat.io/redhat/certified-operator-index",
    ),
    (
        "redhat-marketplace",
        "registry.redhat.io/redhat/redhat-marketplace-index",
    ),
    (
        "community-operators",
        "registry.redhat.io/redhat/community-operator-index",
    ),
];

impl Release {
    /// The ClusterCatalogs this release creates, with their priorities.
    pub fn default_catalogs(&self) -> &'static [(&'static str, i32)] {
        self.row.default_catalogs
    }

    /// The CatalogSources the marketplace operator creates in `openshift-marketplace` (OLM
    /// v0's default sources), with their priorities: the default ClusterCatalogs' names
    /// without `openshift-` where the release has them, else all four
    /// (operator-marketplace `defaults/`; `reference/olm-v0.md` §4).
    pub fn default_catalog_sources(&self) -> Vec<(&'static str, i32)> {
        if self.row.default_catalogs.is_empty() {
            return CATALOG_SOURCES_4.to_vec();
        }
        self.row
            .default_catalogs
            .iter()
            .map(|(n, p)| (n.strip_prefix("openshift-").unwrap_or(n), *p))
            .collect()
    }

    /// The `grpcPodConfig` of a CatalogSource written for the subscription profile: run under
    /// PSA `restricted` (FBC images built by a current opm do; the field exists from 4.12, with
    /// `legacy` as the default up to 4.15 and a namespace-derived one after), and placed on the
    /// control plane as the release's own default sources are, so the catalog serves while the
    /// workers are still coming up (operator-marketplace `defaults/` of 4.19).
    pub fn catalog_source_pod_config(&self) -> serde_json::Value {
        serde_json::json!({
            "nodeSelector": {
                "kubernetes.io/os": "linux",
                "node-role.kubernetes.io/master": "",
            },
            "priorityClassName": "system-cluster-critical",
            "securityContextConfig": "restricted",
            "tolerations": [
                {"key": "node-role.kubernetes.io/master", "operator": "Exists", "effect": "NoSchedule"},
                {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 120},
                {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 120},
            ],
        })
    }

    /// The index image of a catalog this release serves itself, by name: one of its default
    /// ClusterCatalogs (`openshift-redhat-operators`), or a default CatalogSource of
    /// `openshift-marketplace` (`redhat-operators`, which the PlatformOperator manager reads):
    /// `registry.redhat.io/redhat/redhat-operator-index:v4.N` (the row's
    /// [`super::ReleaseRow::catalog_tag`]). What `mirror-config` mirrors for a catalog named after one
    /// of them and given without `image:`.
    pub fn default_index_image(&self, catalog: &str) -> Option<String> {
        let source = match catalog.strip_prefix("openshift-") {
            Some(s) if self.row.default_catalogs.iter().any(|(n, _)| *n == catalog) => s,
            Some(_) => return None,
            None => catalog,
        };
        DEFAULT_INDEXES
            .iter()
            .find(|(n, _)| *n == source)
            .map(|(_, repo)| format!("{repo}:{}", self.row.catalog_tag))
    }
}
