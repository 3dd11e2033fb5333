//! The release table: one row per OpenShift release ([`RELEASES`], oldest first) with what
//! that release's OLM v1 and installer do, before a feature set is applied: its operator API,
//! renderer, the state of each feature gate po-manifests asks about ([`Gate`], [`GateState`]),
//! how a watch namespace is passed, the ClusterExtension CRD's experimental fields, its
//! default ClusterCatalogs, and the Kubernetes version it ships. Data only: looking a release
//! up is [`super::release`]'s job, applying a feature set [`super::target`]'s.

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

/// The feature gates po-manifests cares about, by their OpenShift names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    /// `PlatformOperators`: the PlatformOperator and BundleDeployment CRDs (4.12–4.15).
    PlatformOperators,
    /// `NewOLMWebhookProviderOpenshiftServiceCA` → upstream `WebhookProviderOpenshiftServiceCA`.
    WebhookProviderServiceCa,
    /// `NewOLMOwnSingleNamespace` → upstream `SingleOwnNamespaceInstallSupport`.
    OwnSingleNamespace,
    /// `NewOLMPreflightPermissionChecks` → upstream `PreflightPermissions`.
    PreflightPermissions,
    /// `NewOLMConfigAPI` → upstream `DeploymentConfig` (`spec.config.inline.deploymentConfig`).
    ConfigApi,
    /// `NewOLMBoxCutterRuntime` → upstream `BoxcutterRuntime` (objects applied through
    /// `ClusterObjectSet` revisions instead of Helm releases; the same objects, the same
    /// installer ServiceAccount, checked by `ServiceAccountValidator`).
    BoxCutterRuntime,
}

impl Gate {
    /// The gate's name in openshift/api `features/features.go` (and in `featureGates`).
    pub fn openshift_name(self) -> &'static str {
        match self {
            Gate::PlatformOperators => "PlatformOperators",
            Gate::WebhookProviderServiceCa => "NewOLMWebhookProviderOpenshiftServiceCA",
            Gate::OwnSingleNamespace => "NewOLMOwnSingleNamespace",
            Gate::PreflightPermissions => "NewOLMPreflightPermissionChecks",
            Gate::ConfigApi => "NewOLMConfigAPI",
            Gate::BoxCutterRuntime => "NewOLMBoxCutterRuntime",
        }
    }
}

/// Where a gate is on in a release's rendered feature-gate manifests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GateState {
    /// The gate does not exist in this release.
    Absent,
    /// On in `TechPreviewNoUpgrade` and `DevPreviewNoUpgrade` only.
    TechPreview,
    /// On in every feature set.
    Default,
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

impl ReleaseRow {
    /// `major.minor`.
    pub fn name(&self) -> String {
        format!("{}.{}", self.major, self.minor)
    }

    /// The row's place in the release order, its co-release's place for 4.23 (equal to 5.0).
    pub(super) fn effective(&self) -> (u64, u64) {
        self.co_release_of.unwrap_or((self.major, self.minor))
    }
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

/// The first release with `DevPreviewNoUpgrade`.
pub(super) const DEV_PREVIEW_SINCE: &str = "4.16";

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

/// Every release po-manifests knows, oldest first. A newer release is treated as the last row
/// (see [`super::lookup`]).
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
