//! The release table end to end: lookups, feature sets, gates and OLM v1 per release.

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
    assert!(o.own_single_namespace && o.deployment_config && o.webhooks && o.preflight_permissions);
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
