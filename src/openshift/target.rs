//! A release under a feature set: whether each gate is on, which operator API non-bootstrap
//! operators are written with, which ClusterExtension CRD is served, and what the release's
//! OLM v1 renders, accepts and refuses ([`OlmV1`]); [`Target`] is the cluster written for.

use super::cluster_version::ClusterVersion;
use super::feature_set::{FeatureSet, FeatureSetError};
use super::release::{Release, ReleaseError, lookup};
use super::table::{
    ExperimentalManifests, Gate, GateState, OperatorApi, RELEASES, Renderer, WatchNamespaceForm,
};

/// The ClusterExtension CRD a cluster serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClusterExtensionCrd {
    /// `helm/olmv1/base/operator-controller/crd/standard`.
    Standard,
    /// `…/crd/experimental`, with these `spec` fields beyond the standard ones.
    Experimental(&'static [&'static str]),
}

/// The `spec` fields of the standard ClusterExtension CRD on every release (4.18 to 5.1).
const STANDARD_CLUSTER_EXTENSION_SPEC: &[&str] =
    &["install", "namespace", "serviceAccount", "source"];

impl ClusterExtensionCrd {
    /// Whether the CRD's `spec` has `field` (a top-level property of `spec`); a field it lacks
    /// is pruned by the API server.
    pub fn has_spec_field(&self, field: &str) -> bool {
        STANDARD_CLUSTER_EXTENSION_SPEC.contains(&field)
            || matches!(self, ClusterExtensionCrd::Experimental(extra) if extra.contains(&field))
    }

    /// `standard` or `experimental`, as the manifests directories are named.
    pub fn name(&self) -> &'static str {
        match self {
            ClusterExtensionCrd::Standard => "standard",
            ClusterExtensionCrd::Experimental(_) => "experimental",
        }
    }
}

impl Release {
    /// Whether a gate is on with `feature_set`.
    pub fn gate(&self, gate: Gate, feature_set: &FeatureSet) -> bool {
        feature_set.gate_on(gate, self.gate_state(gate))
    }

    /// The gate's state in this release.
    pub fn gate_state(&self, gate: Gate) -> GateState {
        match gate {
            Gate::PlatformOperators => self.row.platform_operators,
            Gate::WebhookProviderServiceCa => self.row.webhook_provider,
            Gate::OwnSingleNamespace => self.row.own_single_namespace,
            Gate::PreflightPermissions => self.row.preflight_permissions,
            Gate::ConfigApi => self.row.config_api,
            Gate::BoxCutterRuntime => self.row.boxcutter_runtime,
        }
    }

    /// The API non-bootstrap operators are written with, under `feature_set`.
    pub fn operator_api(&self, feature_set: &FeatureSet) -> OperatorApi {
        match self.row.api {
            OperatorApi::PlatformOperator if !self.gate(Gate::PlatformOperators, feature_set) => {
                OperatorApi::None
            }
            api => api,
        }
    }

    /// The ClusterExtension CRD the cluster serves under `feature_set` (which manifests
    /// cluster-olm-operator deploys; see [`ExperimentalManifests`]).
    pub fn cluster_extension_crd(&self, feature_set: &FeatureSet) -> ClusterExtensionCrd {
        // The gates cluster-olm-operator maps to upstream flags that po-manifests models;
        // `NewOLMCatalogdAPIV1Metas`, the other one, is on only outside Default, which turns
        // the experimental manifests on by itself.
        let mapped = [
            Gate::WebhookProviderServiceCa,
            Gate::OwnSingleNamespace,
            Gate::PreflightPermissions,
            Gate::ConfigApi,
            Gate::BoxCutterRuntime,
        ];
        let non_default = *feature_set != FeatureSet::Default;
        let experimental = match self.row.experimental_manifests {
            ExperimentalManifests::Never => false,
            ExperimentalManifests::NonDefaultFeatureSet => non_default,
            ExperimentalManifests::NonDefaultOrMappedGate => {
                non_default || mapped.iter().any(|g| self.gate(*g, feature_set))
            }
        };
        if experimental {
            ClusterExtensionCrd::Experimental(self.row.experimental_spec_fields)
        } else {
            ClusterExtensionCrd::Standard
        }
    }

    /// The OLM v1 view of this release under `feature_set`, when it runs OLM v1.
    pub fn olm_v1(&self, feature_set: &FeatureSet) -> Option<OlmV1> {
        let renderer = self.row.renderer?;
        let watch_gate = self.gate(Gate::OwnSingleNamespace, feature_set);
        Some(OlmV1 {
            renderer,
            webhooks: self.gate(Gate::WebhookProviderServiceCa, feature_set),
            watch_namespace: match self.row.watch_namespace_form {
                Some(form) if watch_gate => Some(form),
                Some(WatchNamespaceForm::InlineConfig) if self.row.inline_config_without_gate => {
                    Some(WatchNamespaceForm::InlineConfig)
                }
                _ => None,
            },
            preflight_permissions: self.row.preflight_without_gate
                || self.gate(Gate::PreflightPermissions, feature_set),
            deployment_config: self.gate(Gate::ConfigApi, feature_set),
            provider_checks: self.row.provider_checks,
            own_single_namespace: watch_gate,
            boxcutter: self.gate(Gate::BoxCutterRuntime, feature_set),
            crd: self.cluster_extension_crd(feature_set),
            service_account_required: self.row.service_account_required,
            kubernetes_minor: self.row.kubernetes_minor,
        })
    }

    /// The releases and feature sets on which `want` holds, worded for a "needs …" message:
    /// `"4.21, or 4.20 with TechPreviewNoUpgrade"`. Releases after the first one where it holds
    /// by default are folded into that one.
    pub fn where_it_holds(want: impl Fn(&OlmV1) -> bool) -> Option<String> {
        let mut preview: Vec<String> = Vec::new();
        for row in RELEASES {
            let r = Release {
                name: row.name(),
                row,
                newer_than_known: false,
            };
            if r.olm_v1(&FeatureSet::Default).is_some_and(|o| want(&o)) {
                return Some(match preview.as_slice() {
                    [] => format!("{} or later", r.name),
                    [one] => format!("{} or later, or {one} with TechPreviewNoUpgrade", r.name),
                    [first, .., last] => format!(
                        "{} or later, or {first} to {last} with TechPreviewNoUpgrade",
                        r.name
                    ),
                });
            }
            if r.olm_v1(&FeatureSet::TechPreviewNoUpgrade)
                .is_some_and(|o| want(&o))
            {
                preview.push(r.name);
            }
        }
        preview
            .first()
            .map(|first| format!("{first} or later with TechPreviewNoUpgrade"))
    }
}

/// The target cluster: its release and feature set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The release's row.
    pub release: Release,
    /// The install-config feature set.
    pub feature_set: FeatureSet,
}

/// Why the target cluster is not one po-manifests can write for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    /// The release is not in the table.
    #[error(transparent)]
    Release(#[from] ReleaseError),
    /// The feature set is not valid on the release.
    #[error(transparent)]
    FeatureSet(#[from] FeatureSetError),
}

impl Target {
    /// Look the release up and read install-config's `featureSet` / `featureGates` for it.
    pub fn new(
        version: &ClusterVersion,
        feature_set: Option<&str>,
        feature_gates: &[String],
    ) -> Result<Target, TargetError> {
        let release = lookup(version)?;
        let feature_set = FeatureSet::parse(feature_set, feature_gates, &release)?;
        Ok(Target {
            release,
            feature_set,
        })
    }

    /// The API non-bootstrap operators are written with.
    pub fn operator_api(&self) -> OperatorApi {
        self.release.operator_api(&self.feature_set)
    }

    /// OLM v1's behaviour on this cluster, when it runs OLM v1.
    pub fn olm_v1(&self) -> Option<OlmV1> {
        self.release.olm_v1(&self.feature_set)
    }
}

/// What a release's OLM v1 does under one feature set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OlmV1 {
    /// The converter.
    pub renderer: Renderer,
    /// Bundles with webhooks install, through the service-ca certificate provider.
    pub webhooks: bool,
    /// A watch namespace is honoured, and how it is passed; `None`: it is ignored and only
    /// AllNamespaces installs work.
    pub watch_namespace: Option<WatchNamespaceForm>,
    /// The preflight permission check (`authorization.NewRBACPreAuthorizer`) runs.
    pub preflight_permissions: bool,
    /// `spec.config.inline.deploymentConfig` is accepted.
    pub deployment_config: bool,
    /// See [`super::ReleaseRow::provider_checks`].
    pub provider_checks: bool,
    /// `NewOLMOwnSingleNamespace` is on: bundles without AllNamespaces may install (4.22 with
    /// it off still reads `spec.config`, but `applier/provider.go` refuses such bundles).
    pub own_single_namespace: bool,
    /// `NewOLMBoxCutterRuntime` is on: OLM v1 applies the same objects through
    /// `ClusterObjectSet` revisions; nothing po-manifests writes changes.
    pub boxcutter: bool,
    /// The ClusterExtension CRD the cluster serves: what the written ClusterExtension's `spec`
    /// may contain.
    pub crd: ClusterExtensionCrd,
    /// `spec.serviceAccount` is required (so the installer ServiceAccount and its RBAC are
    /// written).
    pub service_account_required: bool,
    /// The Kubernetes minor of the `k8s.io/api` the release's OLM v1 vendors: its Go types
    /// decide which fields of a typed object survive the round trip.
    pub kubernetes_minor: u64,
}
