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

mod capability;
mod cluster_version;
mod feature_set;
pub mod provided;

pub use capability::{Capabilities, Capability, capability_enabled};
pub use cluster_version::ClusterVersion;
pub use feature_set::{FeatureSet, FeatureSetError, Gate, GateState};

/// Which API non-bootstrap operators are written with on a release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OperatorApi {
    /// `PlatformOperator` + `BundleDeployment` (behind the `PlatformOperators` gate).
    PlatformOperator,
    /// None: the PlatformOperator API is gone and OLM v1 is not yet GA (4.16, 4.17).
    None,
    /// OLM v1 `ClusterExtension`.
    ClusterExtension,
}

/// Which registry+v1 converter a release's OLM v1 runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Renderer {
    /// 4.18, `internal/rukpak/convert/registryv1.go`: no `revisionHistoryLimit`, CRDs passed
    /// through untyped, and the value-copy bug that drops the `namespaces get/list/watch` rule
    /// when promoting to AllNamespaces.
    Convert418,
    /// 4.19, `internal/operator-controller/rukpak/convert/registryv1.go`: the namespaces rule
    /// and `revisionHistoryLimit: 1`.
    Convert419,
    /// 4.20 and later, `rukpak/render/registryv1` generators.
    RegistryV1,
}

/// How a watch namespace reaches OLM v1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchNamespaceForm {
    /// The ClusterExtension annotation `olm.operatorframework.io/watch-namespace` (4.19, 4.20).
    Annotation,
    /// `spec.config: {configType: Inline, inline: {watchNamespace: …}}` (4.21 and later),
    /// validated against the schema derived from the bundle's install modes.
    InlineConfig,
}

/// When cluster-olm-operator deploys OLM v1's experimental manifests, whose ClusterExtension
/// CRD has the fields marked `<opcon:experimental>` (`spec.config`, `progressDeadlineMinutes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExperimentalManifests {
    /// Never (4.18, 4.19: one set of manifests).
    Never,
    /// With a `featureSet` other than Default (release-4.20 `cmd/cluster-olm-operator/main.go`).
    NonDefaultFeatureSet,
    /// With a `featureSet` other than Default, or when any gate cluster-olm-operator maps to an
    /// upstream flag is on (release-4.21 and later `pkg/controller/helm.go`:
    /// `UseExperimentalFeatureSet() || HasEnabledDownstreamFeatureGates(...)`). From 4.21
    /// `NewOLMWebhookProviderOpenshiftServiceCA` is on by default, so Default clusters get them.
    NonDefaultOrMappedGate,
}

/// The ClusterExtension CRD a cluster serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClusterExtensionCrd {
    /// `helm/olmv1/base/operator-controller/crd/standard`.
    Standard,
    /// `…/crd/experimental`, with these `spec` fields beyond the standard ones.
    Experimental(&'static [&'static str]),
}

/// The `spec` fields of the standard ClusterExtension CRD on every release (4.18 to 5.1).
pub const STANDARD_CLUSTER_EXTENSION_SPEC: &[&str] =
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

/// One row of [`RELEASES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReleaseRow {
    /// Major version of OpenShift (4, or 5 from 5.0).
    pub major: u64,
    /// Minor version.
    pub minor: u64,
    /// The release this one is co-released with and equivalent to (4.23 with 5.0: "neither
    /// upgrades to the other; both upgrade exclusively to 5.1", cluster-olm-operator
    /// release-5.0 `internal/versionutils/version_utils.go`).
    pub co_release_of: Option<(u64, u64)>,
    /// Kubernetes minor version shipped (the `k8s.io/api` of the release's
    /// operator-framework-operator-controller branch; OpenShift 4.N ships 1.(N+13) up to 4.22,
    /// 4.23, 5.0 and 5.1 ship 1.36).
    pub kubernetes_minor: u64,
    /// The tag of the release's own catalog index images (`v4.14`; `v5.0` on 5.1, whose
    /// branch has not moved the pin of `openshift/helm/catalogd.yaml` yet).
    pub catalog_tag: &'static str,
    /// Whether `DevPreviewNoUpgrade` exists.
    pub dev_preview: bool,
    /// The operator API, before feature gates are applied.
    pub api: OperatorApi,
    /// `PlatformOperators`.
    pub platform_operators: GateState,
    /// OLM v1's converter (ClusterExtension releases).
    pub renderer: Option<Renderer>,
    /// `NewOLMWebhookProviderOpenshiftServiceCA`.
    pub webhook_provider: GateState,
    /// `NewOLMOwnSingleNamespace`.
    pub own_single_namespace: GateState,
    /// How the watch namespace is passed when supported.
    pub watch_namespace_form: Option<WatchNamespaceForm>,
    /// `spec.config.inline` is read and validated even when `NewOLMOwnSingleNamespace` is off
    /// (4.22's provider parses any config present).
    pub inline_config_without_gate: bool,
    /// `NewOLMPreflightPermissionChecks`.
    pub preflight_permissions: GateState,
    /// The upstream `PreflightPermissions` flag is on with no gate to turn it off: from 5.0
    /// the gate is gone from openshift/api and from cluster-olm-operator's mapper, and the
    /// experimental values (`openshift/helm/experimental.yaml`, which every 5.x cluster gets)
    /// enable the flag.
    pub preflight_without_gate: bool,
    /// `NewOLMConfigAPI`.
    pub config_api: GateState,
    /// `NewOLMBoxCutterRuntime` (mapped by cluster-olm-operator from 4.22; 4.21 defines it
    /// without mapping it, so it is never on there).
    pub boxcutter_runtime: GateState,
    /// When the experimental manifests are deployed.
    pub experimental_manifests: ExperimentalManifests,
    /// The `spec` fields the experimental ClusterExtension CRD adds.
    pub experimental_spec_fields: &'static [&'static str],
    /// `spec.serviceAccount` is required (`+required` in `api/v1/clusterextension_types.go`
    /// on every release branch to 5.1; upstream main made it optional and ignored).
    pub service_account_required: bool,
    /// The release runs `applier/provider.go`'s `RegistryV1ManifestProvider` (4.21 on): its
    /// refusals before rendering, the `CheckConversionWebhookSupport` and `CheckWebhookRules`
    /// validators, the stricter own-namespace rule of `render.go` `validateTargetNamespaces`,
    /// and operator-registry's `PodMonitor` kind. 4.20's `rukpak/convert/helm.go` has none of
    /// them.
    pub provider_checks: bool,
    /// The ClusterCatalogs the release creates itself, with their priorities.
    pub default_catalogs: &'static [(&'static str, i32)],
    /// The Agent-based installer carries install-config's `featureSet` to the cluster. Up to
    /// 4.19 its AgentClusterInstall has no featureSet: `agentclusterinstall.go` puts only
    /// `fips` (then platform, capabilities, networking, …) into the
    /// `agent-install.openshift.io/install-config-overrides` annotation, and from 4.15
    /// `pkg/asset/agent/installconfig.go` `warnUnusedConfig` says the field "is ignored"
    /// (openshift/installer PR #7825, OCPBUGS-19054; AGENT-554 open), so assisted-service's
    /// install-config, and so the cluster, gets Default (a real 4.15 `agent create
    /// config-image` confirmed it, issue 33). From 4.20 `agentClusterInstallInstallConfigOverrides`
    /// has `FeatureSet` and `FeatureGates`, set from install-config (the agent UI's
    /// CustomNoUpgrade use, assisted-installer-ui PR #3065, was picked to release-4.20);
    /// installer PR #9780 still said in June 2025, on the 4.20 branch's main, that TechPreview
    /// was not supported with the agent, so 4.20 is the first release taken to carry it.
    pub agent_feature_set: bool,
}

const CATALOGS_4: &[(&str, i32)] = &[
    ("openshift-redhat-operators", -100),
    ("openshift-certified-operators", -200),
    ("openshift-redhat-marketplace", -300),
    ("openshift-community-operators", -400),
];
const CATALOGS_NO_MARKETPLACE: &[(&str, i32)] = &[
    ("openshift-redhat-operators", -100),
    ("openshift-certified-operators", -200),
    ("openshift-community-operators", -400),
];

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

const DEV_PREVIEW_SINCE: &str = "4.16";

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

const fn legacy(
    minor: u64,
    catalog_tag: &'static str,
    platform_operators: GateState,
    dev_preview: bool,
) -> ReleaseRow {
    ReleaseRow {
        major: 4,
        minor,
        co_release_of: None,
        kubernetes_minor: minor + 13,
        catalog_tag,
        dev_preview,
        api: if matches!(platform_operators, GateState::Absent) {
            OperatorApi::None
        } else {
            OperatorApi::PlatformOperator
        },
        platform_operators,
        renderer: None,
        webhook_provider: GateState::Absent,
        own_single_namespace: GateState::Absent,
        watch_namespace_form: None,
        inline_config_without_gate: false,
        preflight_permissions: GateState::Absent,
        preflight_without_gate: false,
        config_api: GateState::Absent,
        boxcutter_runtime: GateState::Absent,
        experimental_manifests: ExperimentalManifests::Never,
        experimental_spec_fields: &[],
        service_account_required: false,
        provider_checks: false,
        default_catalogs: &[],
        agent_feature_set: false,
    }
}

/// The first Extended Update Support minor of OpenShift 4 (4.6; every even minor since).
pub const FIRST_EUS_MINOR: u64 = 6;

/// Whether `major.minor` is an Extended Update Support release: OpenShift 4's even minors from
/// 4.6 on (Red Hat's OpenShift life cycle policy), between which EUS-to-EUS updates pass the
/// odd minor with the worker pools paused.
pub fn is_eus(major: u64, minor: u64) -> bool {
    major == 4 && minor >= FIRST_EUS_MINOR && minor.is_multiple_of(2)
}

/// The EUS minors in words, for messages.
pub fn eus_description() -> String {
    format!("the even minors from 4.{FIRST_EUS_MINOR} on")
}

/// Every release po-manifests knows, oldest first. A newer release is treated as the last row
/// (see [`lookup`]).
pub const RELEASES: &[ReleaseRow] = &[
    legacy(12, "v4.12", GateState::TechPreview, false),
    legacy(13, "v4.13", GateState::TechPreview, false),
    legacy(14, "v4.14", GateState::TechPreview, false),
    legacy(15, "v4.15", GateState::TechPreview, false),
    legacy(16, "v4.16", GateState::Absent, true),
    legacy(17, "v4.17", GateState::Absent, true),
    ReleaseRow {
        major: 4,
        minor: 18,
        co_release_of: None,
        kubernetes_minor: 31,
        catalog_tag: "v4.18",
        dev_preview: true,
        api: OperatorApi::ClusterExtension,
        platform_operators: GateState::Absent,
        renderer: Some(Renderer::Convert418),
        webhook_provider: GateState::Absent,
        own_single_namespace: GateState::Absent,
        watch_namespace_form: None,
        inline_config_without_gate: false,
        preflight_permissions: GateState::Absent,
        preflight_without_gate: false,
        config_api: GateState::Absent,
        boxcutter_runtime: GateState::Absent,
        experimental_manifests: ExperimentalManifests::Never,
        experimental_spec_fields: &[],
        service_account_required: true,
        provider_checks: false,
        default_catalogs: CATALOGS_4,
        agent_feature_set: false,
    },
    ReleaseRow {
        major: 4,
        minor: 19,
        co_release_of: None,
        kubernetes_minor: 32,
        catalog_tag: "v4.19",
        dev_preview: true,
        api: OperatorApi::ClusterExtension,
        platform_operators: GateState::Absent,
        renderer: Some(Renderer::Convert419),
        webhook_provider: GateState::Absent,
        own_single_namespace: GateState::TechPreview,
        watch_namespace_form: Some(WatchNamespaceForm::Annotation),
        inline_config_without_gate: false,
        preflight_permissions: GateState::TechPreview,
        preflight_without_gate: false,
        config_api: GateState::Absent,
        boxcutter_runtime: GateState::Absent,
        experimental_manifests: ExperimentalManifests::Never,
        experimental_spec_fields: &[],
        service_account_required: true,
        provider_checks: false,
        default_catalogs: CATALOGS_4,
        agent_feature_set: false,
    },
    ReleaseRow {
        major: 4,
        minor: 20,
        co_release_of: None,
        kubernetes_minor: 33,
        catalog_tag: "v4.20",
        dev_preview: true,
        api: OperatorApi::ClusterExtension,
        platform_operators: GateState::Absent,
        renderer: Some(Renderer::RegistryV1),
        webhook_provider: GateState::TechPreview,
        own_single_namespace: GateState::TechPreview,
        watch_namespace_form: Some(WatchNamespaceForm::Annotation),
        inline_config_without_gate: false,
        preflight_permissions: GateState::TechPreview,
        preflight_without_gate: false,
        config_api: GateState::Absent,
        boxcutter_runtime: GateState::Absent,
        experimental_manifests: ExperimentalManifests::NonDefaultFeatureSet,
        experimental_spec_fields: &[],
        service_account_required: true,
        provider_checks: false,
        default_catalogs: CATALOGS_4,
        agent_feature_set: true,
    },
    ReleaseRow {
        major: 4,
        minor: 21,
        co_release_of: None,
        kubernetes_minor: 34,
        catalog_tag: "v4.21",
        dev_preview: true,
        api: OperatorApi::ClusterExtension,
        platform_operators: GateState::Absent,
        renderer: Some(Renderer::RegistryV1),
        webhook_provider: GateState::Default,
        own_single_namespace: GateState::TechPreview,
        watch_namespace_form: Some(WatchNamespaceForm::InlineConfig),
        inline_config_without_gate: false,
        preflight_permissions: GateState::TechPreview,
        preflight_without_gate: false,
        config_api: GateState::Absent,
        boxcutter_runtime: GateState::Absent,
        experimental_manifests: ExperimentalManifests::NonDefaultOrMappedGate,
        experimental_spec_fields: &["config"],
        service_account_required: true,
        provider_checks: true,
        default_catalogs: CATALOGS_4,
        agent_feature_set: true,
    },
    ReleaseRow {
        major: 4,
        minor: 22,
        co_release_of: None,
        kubernetes_minor: 35,
        catalog_tag: "v4.22",
        dev_preview: true,
        api: OperatorApi::ClusterExtension,
        platform_operators: GateState::Absent,
        renderer: Some(Renderer::RegistryV1),
        webhook_provider: GateState::Default,
        own_single_namespace: GateState::TechPreview,
        watch_namespace_form: Some(WatchNamespaceForm::InlineConfig),
        inline_config_without_gate: true,
        preflight_permissions: GateState::TechPreview,
        preflight_without_gate: false,
        config_api: GateState::TechPreview,
        boxcutter_runtime: GateState::TechPreview,
        experimental_manifests: ExperimentalManifests::NonDefaultOrMappedGate,
        experimental_spec_fields: EXPERIMENTAL_SPEC_4_22,
        service_account_required: true,
        provider_checks: true,
        default_catalogs: CATALOGS_NO_MARKETPLACE,
        agent_feature_set: true,
    },
    after_4_22(4, 23, Some((5, 0)), "v4.23", false),
    after_4_22(5, 0, None, "v5.0", true),
    after_4_22(5, 1, None, "v5.0", true),
];

/// `spec.config` (4.21 on) and `spec.progressDeadlineMinutes` (4.22 on).
const EXPERIMENTAL_SPEC_4_22: &[&str] = &["config", "progressDeadlineMinutes"];

/// The releases after 4.22. Their operator-framework-operator-controller branches carry
/// 4.22's renderer, `applier/provider.go` and CRDs unchanged (`git diff release-4.22
/// release-5.0` touches no non-test file of `rukpak/render`, `applier/provider.go` or the
/// config schema but `registryv1bundleconfig.json` descriptions); release-5.1 is release-5.0's
/// commit. The gates come from openshift/api `payload-manifests/featuregates/` on each branch:
/// `NewOLMWebhookProviderOpenshiftServiceCA` Default, `NewOLMOwnSingleNamespace`,
/// `NewOLMConfigAPI`, `NewOLMBoxCutterRuntime` TechPreviewNoUpgrade/DevPreviewNoUpgrade,
/// `NewOLMPreflightPermissionChecks` gone (api commit `217ca8ce9`). The new Default gate
/// `OLMLifecycleAndCompatibility` is read by no OLM v1 component on these branches (and
/// cluster-olm-operator's mapper takes only `NewOLM…` gates), so it changes nothing here.
const fn after_4_22(
    major: u64,
    minor: u64,
    co_release_of: Option<(u64, u64)>,
    catalog_tag: &'static str,
    preflight_without_gate: bool,
) -> ReleaseRow {
    ReleaseRow {
        major,
        minor,
        co_release_of,
        kubernetes_minor: 36,
        catalog_tag,
        dev_preview: true,
        api: OperatorApi::ClusterExtension,
        platform_operators: GateState::Absent,
        renderer: Some(Renderer::RegistryV1),
        webhook_provider: GateState::Default,
        own_single_namespace: GateState::TechPreview,
        watch_namespace_form: Some(WatchNamespaceForm::InlineConfig),
        inline_config_without_gate: true,
        // release-4.23 cluster-olm-operator still maps the gate, which api release-4.23 no
        // longer has: its `featureGate.Enabled` reads an unknown gate as off.
        preflight_permissions: GateState::Absent,
        preflight_without_gate,
        config_api: GateState::TechPreview,
        boxcutter_runtime: GateState::TechPreview,
        experimental_manifests: ExperimentalManifests::NonDefaultOrMappedGate,
        experimental_spec_fields: EXPERIMENTAL_SPEC_4_22,
        service_account_required: true,
        provider_checks: true,
        default_catalogs: CATALOGS_NO_MARKETPLACE,
        agent_feature_set: true,
    }
}

/// Why a release is not in the table.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReleaseError {
    /// Older than the oldest release with a platform-operator API.
    #[error(
        "OpenShift {version} is older than any release po-manifests knows (4.{oldest} is the oldest: platform operators exist from 4.12 on)"
    )]
    TooOld {
        /// The version written.
        version: String,
        /// The oldest known minor.
        oldest: u64,
    },
    /// A major version below 4.
    #[error("OpenShift {version} is not an OpenShift 4 or later release")]
    NotOpenShift4 {
        /// The version written.
        version: String,
    },
}

/// A release looked up in the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Release {
    /// The version asked for, as written.
    pub name: String,
    /// The row whose facts apply.
    pub row: &'static ReleaseRow,
    /// Set when the version is newer than the table: the newest row's facts apply.
    pub newer_than_known: bool,
}

/// Look `version` up. A release newer than the newest row (5.2, 6.0, or a 4.x the table does
/// not have, such as 4.24, which the numbering skips) gets the newest row's facts and
/// `newer_than_known`, which callers turn into a warning.
pub fn lookup(version: &ClusterVersion) -> Result<Release, ReleaseError> {
    let oldest = &RELEASES[0];
    let newest = RELEASES.last().expect("the table is not empty");
    let name = version.text.clone();
    let asked = (version.major, version.minor);
    if version.major < 4 {
        return Err(ReleaseError::NotOpenShift4 { version: name });
    }
    if let Some(row) = RELEASES.iter().find(|r| (r.major, r.minor) == asked) {
        return Ok(Release {
            name,
            row,
            newer_than_known: false,
        });
    }
    if asked < (oldest.major, oldest.minor) {
        return Err(ReleaseError::TooOld {
            version: name,
            oldest: oldest.minor,
        });
    }
    Ok(Release {
        name,
        row: newest,
        newer_than_known: true,
    })
}

/// The newest release in the table, as `major.minor`.
pub fn newest_known() -> String {
    RELEASES.last().expect("the table is not empty").name()
}

impl ReleaseRow {
    /// `major.minor`.
    pub fn name(&self) -> String {
        format!("{}.{}", self.major, self.minor)
    }

    /// The row's place in the release order, its co-release's place for 4.23 (equal to 5.0).
    fn effective(&self) -> (u64, u64) {
        self.co_release_of.unwrap_or((self.major, self.minor))
    }
}

/// The release a cluster of `version` upgrades to next, as `major.minor`: the next row of the
/// table that is not its co-release (4.22 → 4.23, 4.23 → 5.1, 5.0 → 5.1), else the next minor
/// (cluster-olm-operator release-5.0 `versionutils.NextOCPMinorVersion`).
pub fn next_minor(version: &ClusterVersion) -> String {
    let asked = (version.major, version.minor);
    let current = RELEASES
        .iter()
        .find(|r| (r.major, r.minor) == asked)
        .map(ReleaseRow::effective)
        .unwrap_or(asked);
    RELEASES
        .iter()
        .find(|r| (r.major, r.minor) > asked && r.effective() > current)
        .map(ReleaseRow::name)
        .unwrap_or_else(|| format!("{}.{}", current.0, current.1.saturating_add(1)))
}

/// The place of `major.minor` in the release order: its co-release's for 4.23 (which is 5.0),
/// its own otherwise (also for a release the table does not know).
pub fn release_order(major: u64, minor: u64) -> (u64, u64) {
    RELEASES
        .iter()
        .find(|r| (r.major, r.minor) == (major, minor))
        .map(ReleaseRow::effective)
        .unwrap_or((major, minor))
}

/// Whether the release table has a row for `major.minor`.
pub fn is_known(major: u64, minor: u64) -> bool {
    RELEASES
        .iter()
        .any(|r| (r.major, r.minor) == (major, minor))
}

/// The release a cluster of `major.minor` moves to in one minor upgrade, by the table: 4.22 →
/// 4.23 (the same release as 5.0), 4.23 and 5.0 → 5.1; past the table, the next minor of the
/// same major.
pub fn next_release(major: u64, minor: u64) -> (u64, u64) {
    let current = release_order(major, minor);
    RELEASES
        .iter()
        .find(|r| (r.major, r.minor) > (major, minor) && r.effective() > current)
        .map(|r| (r.major, r.minor))
        .unwrap_or((current.0, current.1.saturating_add(1)))
}

/// Whether a bundle whose `olm.maxOpenShiftVersion` is `max` lets a cluster of `version`
/// upgrade to its next release: `max` must be above the cluster, 4.23 counting as 5.0
/// (cluster-olm-operator release-5.0 `IsOperatorMaxOCPVersionCompatibleWithCluster`).
pub fn max_version_allows_upgrade(max: (u64, u64), version: &ClusterVersion) -> bool {
    let asked = (version.major, version.minor);
    let effective = RELEASES
        .iter()
        .find(|r| (r.major, r.minor) == asked)
        .map(ReleaseRow::effective)
        .unwrap_or(asked);
    max > effective
}

impl Release {
    /// `major.minor` of the row whose facts apply.
    pub fn known_as(&self) -> String {
        self.row.name()
    }

    /// A warning to print when the release is newer than the table.
    pub fn newer_warning(&self) -> Option<String> {
        self.newer_than_known.then(|| {
            format!(
                "OpenShift {} is newer than the releases po-manifests knows; its OLM v1 is assumed to behave like {}'s",
                self.name,
                self.known_as()
            )
        })
    }

    /// The feature sets this release has, in install-config spelling.
    pub fn feature_sets(&self) -> impl Iterator<Item = &'static str> + use<> {
        let dev = self.row.dev_preview;
        [
            "Default",
            "TechPreviewNoUpgrade",
            "DevPreviewNoUpgrade",
            "CustomNoUpgrade",
        ]
        .into_iter()
        .filter(move |s| dev || *s != "DevPreviewNoUpgrade")
    }

    /// Whether the Agent-based installer carries install-config's `featureSet` to a cluster of
    /// this release ([`ReleaseRow::agent_feature_set`]).
    pub fn agent_carries_feature_set(&self) -> bool {
        self.row.agent_feature_set
    }

    /// The first release whose Agent-based installer carries `featureSet`.
    pub fn agent_feature_set_since() -> Option<String> {
        RELEASES
            .iter()
            .find(|r| r.agent_feature_set)
            .map(ReleaseRow::name)
    }

    /// Kubernetes minor version (of 1.x).
    pub fn kubernetes_minor(&self) -> u64 {
        self.row.kubernetes_minor
    }

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
    /// [`ReleaseRow::catalog_tag`]). What `mirror-config` mirrors for a catalog named after one
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

/// The first and last releases of the table whose `api` (before feature gates) is `api`, as
/// `major.minor`; `None` when no release has it. The last one is the table's newest row when the API
/// is still current.
pub fn api_releases(api: OperatorApi) -> Option<(String, String)> {
    let mut rows = RELEASES.iter().filter(|r| r.api == api);
    let first = rows.next()?;
    let last = rows.next_back().unwrap_or(first);
    Some((first.name(), last.name()))
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
    /// See [`ReleaseRow::provider_checks`].
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cluster_version_forms() {
        assert_eq!(
            ClusterVersion::parse("4.14.8").unwrap().kube_minor(),
            Some(27)
        );
        assert_eq!(ClusterVersion::parse("v4.18").unwrap().minor, 18);
        assert_eq!(ClusterVersion::parse("4.16.0-rc.2").unwrap().patch, Some(0));
        for bad in ["4", "4.x", "", "4.14.8.1", "04.14"] {
            assert!(ClusterVersion::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(
            ClusterVersion::parse("4.08").unwrap_err(),
            "\"08\" in \"4.08\" starts with a zero, which release numbers do not; write \"8\""
        );
        assert!(
            ClusterVersion::parse("4.99999999999999999999")
                .unwrap_err()
                .contains("too large")
        );
    }

    fn rel(v: &str) -> Release {
        lookup(&ClusterVersion::parse(v).unwrap()).unwrap()
    }

    #[test]
    fn table_is_sorted_and_contiguous() {
        let names: Vec<String> = RELEASES.iter().map(ReleaseRow::name).collect();
        let want: Vec<String> = (12..=23)
            .map(|m| format!("4.{m}"))
            .chain(["5.0".into(), "5.1".into()])
            .collect();
        assert_eq!(names, want);
        for pair in RELEASES.windows(2) {
            assert!((pair[0].major, pair[0].minor) < (pair[1].major, pair[1].minor));
        }
        for row in RELEASES.iter().filter(|r| r.major == 4 && r.minor <= 22) {
            assert_eq!(row.kubernetes_minor, row.minor + 13, "{}", row.name());
            assert_eq!(row.catalog_tag, format!("v{}", row.name()));
        }
    }

    #[test]
    fn operator_api_by_release_and_feature_set() {
        let tp = FeatureSet::TechPreviewNoUpgrade;
        assert_eq!(
            rel("4.14.8").operator_api(&tp),
            OperatorApi::PlatformOperator
        );
        assert_eq!(
            rel("4.14.8").operator_api(&FeatureSet::Default),
            OperatorApi::None
        );
        let custom = FeatureSet::CustomNoUpgrade {
            enabled: vec!["PlatformOperators".into()],
            disabled: vec![],
        };
        assert_eq!(
            rel("4.13").operator_api(&custom),
            OperatorApi::PlatformOperator
        );
        assert_eq!(rel("4.16").operator_api(&tp), OperatorApi::None);
        assert_eq!(
            rel("4.18").operator_api(&FeatureSet::Default),
            OperatorApi::ClusterExtension
        );
    }

    #[test]
    fn platform_operator_api_spans_4_12_to_4_15() {
        assert_eq!(
            api_releases(OperatorApi::PlatformOperator),
            Some(("4.12".into(), "4.15".into()))
        );
        assert_eq!(
            api_releases(OperatorApi::ClusterExtension).map(|r| r.0),
            Some("4.18".into())
        );
    }

    #[test]
    fn dev_preview_exists_from_4_16() {
        let err = FeatureSet::parse(Some("DevPreviewNoUpgrade"), &[], &rel("4.15")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "featureSet DevPreviewNoUpgrade exists from OpenShift 4.16 on, not on 4.15"
        );
        assert_eq!(
            FeatureSet::parse(Some("DevPreviewNoUpgrade"), &[], &rel("4.16")).unwrap(),
            FeatureSet::DevPreviewNoUpgrade
        );
        let err = FeatureSet::parse(Some("LatencySensitive"), &[], &rel("4.15")).unwrap_err();
        assert!(
            err.to_string()
                .contains("Default, TechPreviewNoUpgrade, CustomNoUpgrade")
        );
    }

    #[test]
    fn custom_gates() {
        let r = rel("4.20");
        let fs = FeatureSet::parse(
            Some("CustomNoUpgrade"),
            &["NewOLMWebhookProviderOpenshiftServiceCA=true".into()],
            &r,
        )
        .unwrap();
        assert!(r.olm_v1(&fs).unwrap().webhooks);
        let fs = FeatureSet::parse(
            Some("CustomNoUpgrade"),
            &["NewOLMWebhookProviderOpenshiftServiceCA=false".into()],
            &rel("4.21"),
        )
        .unwrap();
        assert!(!rel("4.21").olm_v1(&fs).unwrap().webhooks);
        assert!(FeatureSet::parse(Some("CustomNoUpgrade"), &["X".into()], &r).is_err());
        assert!(FeatureSet::parse(Some("TechPreviewNoUpgrade"), &["X=true".into()], &r).is_err());
    }

    #[test]
    fn olm_v1_per_release() {
        let d = FeatureSet::Default;
        let tp = FeatureSet::TechPreviewNoUpgrade;
        assert_eq!(
            rel("4.18").olm_v1(&tp).unwrap().renderer,
            Renderer::Convert418
        );
        assert_eq!(
            rel("4.19").olm_v1(&d).unwrap().renderer,
            Renderer::Convert419
        );
        assert_eq!(
            rel("4.22").olm_v1(&d).unwrap().renderer,
            Renderer::RegistryV1
        );
        assert!(!rel("4.20").olm_v1(&d).unwrap().webhooks);
        assert!(rel("4.20").olm_v1(&tp).unwrap().webhooks);
        assert!(rel("4.21").olm_v1(&d).unwrap().webhooks);
        assert_eq!(rel("4.18").olm_v1(&tp).unwrap().watch_namespace, None);
        assert_eq!(
            rel("4.19").olm_v1(&tp).unwrap().watch_namespace,
            Some(WatchNamespaceForm::Annotation)
        );
        assert_eq!(rel("4.21").olm_v1(&d).unwrap().watch_namespace, None);
        assert_eq!(
            rel("4.21").olm_v1(&tp).unwrap().watch_namespace,
            Some(WatchNamespaceForm::InlineConfig)
        );
        assert_eq!(
            rel("4.22").olm_v1(&d).unwrap().watch_namespace,
            Some(WatchNamespaceForm::InlineConfig)
        );
        assert!(rel("4.14").olm_v1(&tp).is_none());
    }

    #[test]
    fn newer_and_older_releases() {
        let r = rel("5.9.1");
        assert!(r.newer_than_known);
        assert_eq!(r.known_as(), newest_known());
        assert_eq!(
            r.newer_warning().unwrap(),
            "OpenShift 5.9.1 is newer than the releases po-manifests knows; its OLM v1 is assumed to behave like 5.1's"
        );
        assert_eq!(r.row, RELEASES.last().unwrap());
        assert!(rel("6.0").newer_than_known);
        // The numbering skips from 4.23 to 5.x: a 4.24 is no release the branches know.
        assert!(rel("4.24").newer_than_known);
        assert!(rel("4.30").newer_than_known);
        assert!(!rel("4.22.3").newer_than_known);
        assert!(!rel("5.0.1").newer_than_known);
        assert!(!rel("5.1").newer_than_known);
        let old = lookup(&ClusterVersion::parse("4.11").unwrap()).unwrap_err();
        assert!(old.to_string().contains("4.12 is the oldest"));
        assert!(lookup(&ClusterVersion::parse("3.11.0").unwrap()).is_err());
    }

    #[test]
    fn where_webhooks_hold() {
        assert_eq!(
            Release::where_it_holds(|o| o.webhooks).unwrap(),
            "4.21 or later, or 4.20 with TechPreviewNoUpgrade"
        );
        assert_eq!(
            Release::where_it_holds(|o| o.watch_namespace.is_some()).unwrap(),
            "4.22 or later, or 4.19 to 4.21 with TechPreviewNoUpgrade"
        );
    }

    #[test]
    fn capability_sets() {
        use Capability::*;
        let set = |s: &str, extra: &[&str]| Capabilities {
            baseline_capability_set: Some(s.into()),
            additional_enabled_capabilities: extra.iter().map(|e| e.to_string()).collect(),
        };
        assert!(!capability_enabled(Some(&set("None", &[])), Marketplace));
        assert!(capability_enabled(Some(&set("v4.11", &[])), Marketplace));
        assert!(!capability_enabled(
            Some(&set("v4.17", &[])),
            OperatorLifecycleManagerV1
        ));
        assert!(capability_enabled(
            Some(&set("v4.18", &[])),
            OperatorLifecycleManagerV1
        ));
        assert!(capability_enabled(
            Some(&set("vCurrent", &[])),
            OperatorLifecycleManagerV1
        ));
        assert!(capability_enabled(
            Some(&set("None", &["OperatorLifecycleManagerV1"])),
            OperatorLifecycleManagerV1
        ));
        assert!(capability_enabled(None, Marketplace));
    }

    #[test]
    fn default_index_images() {
        assert_eq!(
            rel("4.14")
                .default_index_image("redhat-operators")
                .as_deref(),
            Some("registry.redhat.io/redhat/redhat-operator-index:v4.14")
        );
        assert_eq!(
            rel("4.21")
                .default_index_image("openshift-certified-operators")
                .as_deref(),
            Some("registry.redhat.io/redhat/certified-operator-index:v4.21")
        );
        // 4.22 has no marketplace ClusterCatalog; 4.14 no ClusterCatalogs at all.
        assert!(
            rel("4.22")
                .default_index_image("openshift-redhat-marketplace")
                .is_none()
        );
        assert!(
            rel("4.14")
                .default_index_image("openshift-redhat-operators")
                .is_none()
        );
        assert!(rel("4.20").default_index_image("acme-operators").is_none());
    }

    /// The releases after 4.22 as their branches say (openshift/operator-framework-operator-
    /// controller, openshift/api, openshift/cluster-olm-operator `release-4.23`, `release-5.0`,
    /// `release-5.1`), in the API every caller already uses.
    #[test]
    fn releases_after_4_22_are_known() {
        for v in ["4.23", "4.23.1", "5.0", "5.0.0-rc.1", "5.1.2"] {
            let r = rel(v);
            assert!(!r.newer_than_known, "{v}");
            // go.mod `k8s.io/api v0.36.1` on all three operator-controller branches.
            assert_eq!(r.kubernetes_minor(), 36, "{v}");
            assert_eq!(
                ClusterVersion::parse(v).unwrap().kube_minor(),
                Some(36),
                "{v}"
            );
        }
        assert_eq!(rel("5.0").known_as(), "5.0");
        assert_eq!(rel("4.23").known_as(), "4.23");
        assert_eq!(newest_known(), "5.1");
        // cluster-olm-operator `pkg/controller/helm.go` `applyCatalogImageTagOverride`:
        // catalogd.yaml pins v5.0; a 4.x RELEASE_VERSION gets its own 4.x tag, 5.x keeps v5.0.
        let image = |v: &str| rel(v).default_index_image("openshift-redhat-operators");
        assert_eq!(
            image("4.23").as_deref(),
            Some("registry.redhat.io/redhat/redhat-operator-index:v4.23")
        );
        assert_eq!(
            image("5.0").as_deref(),
            Some("registry.redhat.io/redhat/redhat-operator-index:v5.0")
        );
        assert_eq!(
            image("5.1").as_deref(),
            Some("registry.redhat.io/redhat/redhat-operator-index:v5.0")
        );
        assert!(
            rel("5.0")
                .default_index_image("openshift-redhat-marketplace")
                .is_none()
        );
        assert_eq!(
            api_releases(OperatorApi::ClusterExtension),
            Some(("4.18".into(), "5.1".into()))
        );
    }

    /// One line per release and feature set (TP: TechPreviewNoUpgrade, DP: DevPreviewNoUpgrade):
    /// every OLM v1 cell of the table, from openshift/api `payload-manifests/featuregates/
    /// featureGate-4-10-SelfManagedHA-{Default,TechPreviewNoUpgrade,DevPreviewNoUpgrade}.yaml`,
    /// cluster-olm-operator `internal/featuregates/mapper.go`, `pkg/controller/helm.go` and
    /// operator-controller `openshift/helm/experimental.yaml` on each `release-*` branch.
    #[test]
    fn every_olm_v1_cell() {
        // (release, feature set, webhooks, watch namespace, own/single, preflight,
        //  deploymentConfig, boxcutter, crd)
        type Row = (
            &'static str,
            &'static str,
            bool,
            Option<WatchNamespaceForm>,
            bool,
            bool,
            bool,
            bool,
            &'static str,
        );
        use WatchNamespaceForm::{Annotation as A, InlineConfig as I};
        let rows: &[Row] = &[
            (
                "4.18", "Default", false, None, false, false, false, false, "standard",
            ),
            (
                "4.18", "TP", false, None, false, false, false, false, "standard",
            ),
            (
                "4.19", "Default", false, None, false, false, false, false, "standard",
            ),
            (
                "4.19",
                "TP",
                false,
                Some(A),
                true,
                true,
                false,
                false,
                "standard",
            ),
            (
                "4.20", "Default", false, None, false, false, false, false, "standard",
            ),
            (
                "4.20",
                "TP",
                true,
                Some(A),
                true,
                true,
                false,
                false,
                "experimental",
            ),
            (
                "4.21",
                "Default",
                true,
                None,
                false,
                false,
                false,
                false,
                "experimental",
            ),
            (
                "4.21",
                "TP",
                true,
                Some(I),
                true,
                true,
                false,
                false,
                "experimental",
            ),
            (
                "4.22",
                "Default",
                true,
                Some(I),
                false,
                false,
                false,
                false,
                "experimental",
            ),
            (
                "4.22",
                "TP",
                true,
                Some(I),
                true,
                true,
                true,
                true,
                "experimental",
            ),
            (
                "4.22",
                "DP",
                true,
                Some(I),
                true,
                true,
                true,
                true,
                "experimental",
            ),
            (
                "4.23",
                "Default",
                true,
                Some(I),
                false,
                false,
                false,
                false,
                "experimental",
            ),
            (
                "4.23",
                "TP",
                true,
                Some(I),
                true,
                false,
                true,
                true,
                "experimental",
            ),
            (
                "4.23",
                "DP",
                true,
                Some(I),
                true,
                false,
                true,
                true,
                "experimental",
            ),
            (
                "5.0",
                "Default",
                true,
                Some(I),
                false,
                true,
                false,
                false,
                "experimental",
            ),
            (
                "5.0",
                "TP",
                true,
                Some(I),
                true,
                true,
                true,
                true,
                "experimental",
            ),
            (
                "5.0",
                "DP",
                true,
                Some(I),
                true,
                true,
                true,
                true,
                "experimental",
            ),
            (
                "5.1",
                "Default",
                true,
                Some(I),
                false,
                true,
                false,
                false,
                "experimental",
            ),
            (
                "5.1",
                "TP",
                true,
                Some(I),
                true,
                true,
                true,
                true,
                "experimental",
            ),
            (
                "5.1",
                "DP",
                true,
                Some(I),
                true,
                true,
                true,
                true,
                "experimental",
            ),
        ];
        for &(v, fs, webhooks, watch, own_single, preflight, dc, boxcutter, crd) in rows {
            let set = match fs {
                "Default" => FeatureSet::Default,
                "TP" => FeatureSet::TechPreviewNoUpgrade,
                _ => FeatureSet::DevPreviewNoUpgrade,
            };
            let o = rel(v).olm_v1(&set).unwrap();
            let at = format!("{v} {fs}");
            assert_eq!(o.webhooks, webhooks, "webhooks {at}");
            assert_eq!(o.watch_namespace, watch, "watch namespace {at}");
            assert_eq!(o.own_single_namespace, own_single, "own/single {at}");
            assert_eq!(o.preflight_permissions, preflight, "preflight {at}");
            assert_eq!(o.deployment_config, dc, "deploymentConfig {at}");
            assert_eq!(o.boxcutter, boxcutter, "boxcutter {at}");
            assert_eq!(o.crd.name(), crd, "crd {at}");
            assert!(o.service_account_required, "serviceAccount {at}");
            assert_eq!(
                o.renderer >= Renderer::RegistryV1,
                v != "4.18" && v != "4.19"
            );
            assert_eq!(
                o.provider_checks,
                !["4.18", "4.19", "4.20"].contains(&v),
                "{at}"
            );
        }
        // Every ClusterExtension release and feature set of the table is listed.
        for r in RELEASES.iter().filter(|r| r.renderer.is_some()) {
            assert!(rows.iter().any(|row| row.0 == r.name()), "{}", r.name());
        }
    }

    /// `spec.config` only in the experimental CRD from 4.21 (release-4.21
    /// `helm/olmv1/base/operator-controller/crd/experimental/…clusterextensions.yaml`),
    /// `progressDeadlineMinutes` from 4.22; `serviceAccount` is in every CRD, and required.
    #[test]
    fn cluster_extension_crd_fields() {
        let d = FeatureSet::Default;
        let tp = FeatureSet::TechPreviewNoUpgrade;
        let crd = |v: &str, fs: &FeatureSet| rel(v).olm_v1(fs).unwrap().crd;
        assert!(!crd("4.20", &tp).has_spec_field("config"));
        assert!(crd("4.21", &d).has_spec_field("config"));
        assert!(!crd("4.21", &tp).has_spec_field("progressDeadlineMinutes"));
        for v in ["4.22", "4.23", "5.0", "5.1"] {
            assert!(crd(v, &d).has_spec_field("config"), "{v}");
            assert!(crd(v, &d).has_spec_field("progressDeadlineMinutes"), "{v}");
        }
        assert!(!crd("4.19", &tp).has_spec_field("config"));
        for r in RELEASES.iter().filter(|r| r.renderer.is_some()) {
            for fs in [&d, &tp] {
                let c = crd(&r.name(), fs);
                assert!(c.has_spec_field("serviceAccount") && c.has_spec_field("source"));
                assert!(!c.has_spec_field("bogus"));
            }
        }
        // CustomNoUpgrade always gets the experimental manifests from 4.20, even with every
        // mapped gate off.
        let off = FeatureSet::CustomNoUpgrade {
            enabled: vec![],
            disabled: vec!["NewOLMWebhookProviderOpenshiftServiceCA".into()],
        };
        assert_eq!(crd("5.0", &off).name(), "experimental");
        assert_eq!(crd("4.20", &off).name(), "experimental");
        assert_eq!(crd("4.19", &off).name(), "standard");
    }

    /// CustomNoUpgrade on the new releases: the gates can be switched one by one; the
    /// preflight check cannot be switched off on 5.x (no gate) nor on on 4.23 (gate gone).
    #[test]
    fn custom_gates_after_4_22() {
        let custom = |v: &str, gates: &[&str]| {
            let r = rel(v);
            let g: Vec<String> = gates.iter().map(|s| s.to_string()).collect();
            let fs = FeatureSet::parse(Some("CustomNoUpgrade"), &g, &r).unwrap();
            r.olm_v1(&fs).unwrap()
        };
        let o = custom(
            "5.0",
            &["NewOLMOwnSingleNamespace=true", "NewOLMConfigAPI=true"],
        );
        assert!(
            o.own_single_namespace && o.deployment_config && o.webhooks && o.preflight_permissions
        );
        assert!(!o.boxcutter);
        assert!(custom("5.1", &["NewOLMBoxCutterRuntime=true"]).boxcutter);
        assert!(!custom("5.0", &["NewOLMWebhookProviderOpenshiftServiceCA=false"]).webhooks);
        assert!(custom("5.0", &["NewOLMPreflightPermissionChecks=false"]).preflight_permissions);
        assert!(!custom("4.23", &["NewOLMPreflightPermissionChecks=true"]).preflight_permissions);
        // 4.21 defines NewOLMBoxCutterRuntime but cluster-olm-operator does not map it.
        assert!(!custom("4.21", &["NewOLMBoxCutterRuntime=true"]).boxcutter);
    }

    /// cluster-olm-operator release-5.0 `internal/versionutils/version_utils_test.go`
    /// `TestNextOCPMinorVersion` and `TestIsOperatorMaxOCPVersionCompatibleWithCluster`.
    #[test]
    fn co_release_of_4_23_and_5_0() {
        let cv = |v: &str| ClusterVersion::parse(v).unwrap();
        assert_eq!(next_minor(&cv("4.21.3")), "4.22");
        assert_eq!(next_minor(&cv("4.22")), "4.23");
        assert_eq!(next_minor(&cv("4.23")), "5.1");
        assert_eq!(next_minor(&cv("5.0.2")), "5.1");
        assert_eq!(next_minor(&cv("5.1")), "5.2");
        assert_eq!(next_minor(&cv("5.7")), "5.8");
        let allows = |max: (u64, u64), v: &str| max_version_allows_upgrade(max, &cv(v));
        assert!(allows((4, 18), "4.17"));
        assert!(!allows((4, 18), "4.18"));
        assert!(!allows((4, 18), "4.19"));
        assert!(allows((4, 23), "4.22"));
        assert!(!allows((4, 23), "4.23"));
        assert!(!allows((5, 0), "4.23"));
        assert!(allows((5, 1), "4.23"));
        assert!(!allows((4, 23), "5.0"));
        assert!(!allows((5, 0), "5.0"));
        assert!(allows((5, 1), "5.0"));
        assert!(!allows((5, 0), "5.1"));
        assert!(!allows((5, 1), "5.1"));
        assert_eq!(rel("4.23").row.co_release_of, Some((5, 0)));
    }

    #[test]
    fn default_catalogs() {
        assert_eq!(rel("4.21").default_catalogs().len(), 4);
        assert!(
            !rel("4.22")
                .default_catalogs()
                .iter()
                .any(|(n, _)| *n == "openshift-redhat-marketplace")
        );
    }
}
