//! What each OpenShift release is: the one place in po-manifests that knows release numbers.
//!
//! Everything that depends on the target release (which feature sets exist, which platform
//! operator API it has, which OLM v1 renderer it runs, whether webhooks and watch namespaces are
//! accepted and how they are passed, which ClusterCatalogs it creates, which Kubernetes version
//! it ships) is a row of [`RELEASES`], looked up with [`lookup`], and then asked through the
//! methods of [`Release`] with the cluster's [`FeatureSet`]. No other module compares release
//! numbers.
//!
//! It also owns the two types that name a cluster, which every layer above reads: the release
//! as written ([`ClusterVersion`]: `4.14`, `4.14.8`) and install-config's `capabilities`
//! ([`Capabilities`]), whose sets [`provided`] knows. It imports nothing of the crate.
//!
//! Sources (our summary is `reference/olm-v1-per-release.md` in the shared notes):
//! - feature sets: openshift/api `config/v1/types_feature.go` on each `release-4.N` branch
//!   (`DevPreviewNoUpgrade` appears in release-4.16);
//! - feature gates: openshift/api `features/features.go` and the rendered
//!   `payload-manifests/featuregates/featureGate-*-SelfManagedHA-{Default,TechPreviewNoUpgrade}.yaml`;
//!   OpenShift gate → upstream flag: openshift/cluster-olm-operator `internal/featuregates/mapper.go`;
//! - renderers: openshift/operator-framework-operator-controller `release-4.18`
//!   (`internal/rukpak/convert/registryv1.go`), `release-4.19`
//!   (`internal/operator-controller/rukpak/convert/registryv1.go`), `release-4.20` and later
//!   (`internal/operator-controller/rukpak/render/registryv1`);
//! - default catalogs: 4.18 catalogd `openshift/manifests/`, 4.19/4.20
//!   `openshift/catalogd/manifests/`, 4.21 on `helm/olmv1/templates/openshift-catalogs/`
//!   (the marketplace catalog was removed for 4.22), their tag from `openshift/helm/catalogd.yaml`
//!   and, on 4.23, cluster-olm-operator's `applyCatalogImageTagOverride`;
//! - which ClusterExtension CRD is served: cluster-olm-operator `pkg/controller/helm.go` (4.21
//!   on), `cmd/cluster-olm-operator/main.go` (4.20), and the CRDs of operator-controller's
//!   `helm/olmv1/base/operator-controller/crd/{standard,experimental}`.
//!
//! The numbering after 4.22 (cluster-olm-operator release-5.0
//! `internal/versionutils/version_utils.go`): 4.23 and 5.0 are co-released equivalents, built
//! from the `release-4.23` and `release-5.0` branches; neither upgrades to the other, both
//! upgrade to 5.1 ([`next_minor`]). Every row has its `major`, so a version is never assumed
//! to be `4.N` outside this module.
//!
//! Its files, one job each: `table` (the rows: data only), `release` (lookup, numbering, order,
//! EUS), `target` (a release under a feature set: gates, operator API, OLM v1, the
//! ClusterExtension CRD), `feature_set`, `catalogs` (default catalogs, OLM's namespaces),
//! `cluster_version` (a release as written), `capability` and [`provided`] (what a release and
//! its capabilities bring).

mod capability;
mod catalogs;
mod cluster_version;
mod feature_set;
pub mod provided;
mod release;
mod table;
mod target;

pub use capability::{Capabilities, Capability};
pub use catalogs::{
    GLOBAL_OPERATORS_NAMESPACE, MARKETPLACE_NAMESPACE, OLM_NAMESPACES, PLATFORM_OPERATOR_CATALOG,
    default_catalog_sources,
};
pub use cluster_version::ClusterVersion;
pub use feature_set::{FeatureSet, FeatureSetError};
pub use provided::capability_enabled;
pub use release::{
    Release, ReleaseError, api_releases, eus_description, is_eus, is_known, lookup,
    max_version_allows_upgrade, newest_known, next_minor, next_release, release_order,
};
pub use table::{
    ExperimentalManifests, Gate, GateState, OperatorApi, RELEASES, ReleaseRow, Renderer,
    WatchNamespaceForm,
};
pub use target::{ClusterExtensionCrd, OlmV1, Target, TargetError};

#[cfg(test)]
mod tests;
