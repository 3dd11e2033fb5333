//! The install-config facts po-manifests needs: `featureSet`, mirror rules, the trust bundle,
//! the proxy, the pull secret, `capabilities` and `platform` (for `platform.external`).
//!
//! Read from `D/install-config.yaml`, or, once `openshift-install create manifests` has consumed
//! that file, from the copy embedded in `D/manifests/cluster-config.yaml` (a ConfigMap whose
//! `data.install-config` holds the YAML). Unknown keys are ignored here: the installer owns this
//! file and its schema.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;

use super::{Error, SourceFile, parse_yaml, read_source_in};
use crate::openshift::Capabilities;

/// What po-manifests reads from install-config.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct InstallConfig {
    /// `featureSet` (`TechPreviewNoUpgrade`, `DevPreviewNoUpgrade`, `CustomNoUpgrade`, or unset).
    pub feature_set: Option<String>,
    /// `featureGates` (`Name=true|false`, with `featureSet: CustomNoUpgrade`).
    #[serde(default)]
    pub feature_gates: Vec<String>,
    /// `additionalTrustBundle` (PEM).
    pub additional_trust_bundle: Option<String>,
    /// `imageDigestSources`.
    #[serde(default)]
    pub image_digest_sources: Vec<ImageDigestSource>,
    /// `imageContentSources` (deprecated form of the same rules).
    #[serde(default)]
    pub image_content_sources: Vec<ImageDigestSource>,
    /// `proxy`.
    pub proxy: Option<Proxy>,
    /// `pullSecret` (JSON, containers-auth format). Never printed.
    #[serde(default, skip_serializing)]
    pub pull_secret: Option<String>,
    /// `capabilities`.
    pub capabilities: Option<Capabilities>,
    /// `platform`: one key naming the platform (`aws`, `none`, `external`, …) and its settings.
    #[serde(default)]
    pub platform: std::collections::BTreeMap<String, serde_json::Value>,
}

/// `platform.external` (openshift/installer `pkg/types/external/platform.go`, from 4.14).
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ExternalPlatform {
    /// `platformName`: informational; the installer defaults it to `Unknown`.
    #[serde(default)]
    pub platform_name: Option<String>,
    /// `cloudControllerManager`: `""` (no CCM, the default) or `External`.
    #[serde(default)]
    pub cloud_controller_manager: Option<String>,
}

impl InstallConfig {
    /// The platform's name: the one key under `platform` (`None` when unset).
    pub fn platform_name(&self) -> Option<&str> {
        self.platform.keys().next().map(String::as_str)
    }

    /// `platform.external`, when the platform is `external` (an empty map reads as defaults;
    /// a value that is not a mapping reads as `None`).
    pub fn external(&self) -> Option<ExternalPlatform> {
        let value = self.platform.get("external")?;
        match value {
            serde_json::Value::Null => Some(ExternalPlatform::default()),
            v => serde_json::from_value(v.clone()).ok(),
        }
    }
}

/// One mirror rule.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ImageDigestSource {
    /// The source repository.
    pub source: String,
    /// Its mirrors, in order.
    #[serde(default)]
    pub mirrors: Vec<String>,
    /// `AllowContactingSource` or `NeverContactSource`.
    pub source_policy: Option<String>,
}

/// `proxy`.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Proxy {
    /// `httpProxy`.
    pub http_proxy: Option<String>,
    /// `httpsProxy`.
    pub https_proxy: Option<String>,
    /// `noProxy`.
    pub no_proxy: Option<String>,
}

#[derive(Debug, Deserialize)]
struct ClusterConfigMap {
    data: Option<ClusterConfigData>,
}

#[derive(Debug, Deserialize)]
struct ClusterConfigData {
    #[serde(rename = "install-config")]
    install_config: Option<String>,
}

/// Where install-config facts were found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The facts.
    pub config: InstallConfig,
    /// The file they came from.
    pub path: PathBuf,
}

/// Read install-config facts for an install directory. `Ok(None)` when neither
/// `install-config.yaml` nor `manifests/cluster-config.yaml` exists. A symbolic link among them
/// that leaves `dir` is refused ([`Error::Io`], naming the link) and never read.
pub fn read(dir: &Path) -> Result<Option<Found>, Error> {
    let direct = dir.join("install-config.yaml");
    if direct.is_file() {
        let file = read_source_in(&direct, Some(dir))?;
        let config: InstallConfig = parse_yaml(&file)?;
        return Ok(Some(Found {
            config,
            path: direct,
        }));
    }
    let embedded = dir.join("manifests").join("cluster-config.yaml");
    if embedded.is_file() {
        let file = read_source_in(&embedded, Some(dir))?;
        let map: ClusterConfigMap = parse_yaml(&file)?;
        let Some(text) = map.data.and_then(|d| d.install_config) else {
            return Err(Error::Syntax {
                file,
                message: "ConfigMap has no `data.install-config` key".into(),
                span: None,
            });
        };
        let inner = Arc::new(SourceFile {
            path: embedded.join("data.install-config"),
            text,
        });
        let config: InstallConfig = parse_yaml(&inner)?;
        return Ok(Some(Found {
            config,
            path: embedded,
        }));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_install_config_facts() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("install-config.yaml"),
            "apiVersion: v1\nfeatureSet: TechPreviewNoUpgrade\nimageDigestSources:\n- source: quay.io/a\n  mirrors: [mirror.local/a]\nplatform: {none: {}}\n",
        )
        .unwrap();
        let found = read(dir.path()).unwrap().unwrap();
        assert_eq!(
            found.config.feature_set.as_deref(),
            Some("TechPreviewNoUpgrade")
        );
        assert_eq!(
            found.config.image_digest_sources[0].mirrors,
            ["mirror.local/a"]
        );
    }

    #[test]
    fn reads_the_copy_embedded_in_cluster_config() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("manifests")).unwrap();
        std::fs::write(
            dir.path().join("manifests/cluster-config.yaml"),
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-config-v1\n  namespace: kube-system\ndata:\n  install-config: |\n    apiVersion: v1\n    featureSet: DevPreviewNoUpgrade\n",
        )
        .unwrap();
        let found = read(dir.path()).unwrap().unwrap();
        assert_eq!(
            found.config.feature_set.as_deref(),
            Some("DevPreviewNoUpgrade")
        );
    }

    #[test]
    fn reads_platform_external_and_capabilities() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("install-config.yaml"),
            "apiVersion: v1\ncapabilities:\n  baselineCapabilitySet: None\n  additionalEnabledCapabilities: [MachineAPI]\nplatform:\n  external:\n    platformName: acme\n    cloudControllerManager: External\n",
        )
        .unwrap();
        let found = read(dir.path()).unwrap().unwrap();
        assert_eq!(found.config.platform_name(), Some("external"));
        let external = found.config.external().unwrap();
        assert_eq!(external.platform_name.as_deref(), Some("acme"));
        assert_eq!(
            external.cloud_controller_manager.as_deref(),
            Some("External")
        );
        let caps = found.config.capabilities.unwrap();
        assert_eq!(caps.baseline_capability_set.as_deref(), Some("None"));
        assert_eq!(caps.additional_enabled_capabilities, ["MachineAPI"]);
    }

    #[test]
    fn absent_install_config_is_none() {
        let dir = tempfile::tempdir().unwrap();
        assert!(read(dir.path()).unwrap().is_none());
    }
}
