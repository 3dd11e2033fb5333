//! The install-config facts po-manifests needs: `featureSet`, mirror rules, the trust bundle,
//! the proxy, the pull secret, `capabilities` and `platform` (for `platform.external`).
//!
//! Read from `D/install-config.yaml`, or, once `openshift-install create manifests` has consumed
//! that file, from the copy embedded in `D/manifests/cluster-config.yaml` (a ConfigMap whose
//! `data.install-config` holds the YAML), or, once `openshift-install agent create
//! cluster-manifests` has, from the AgentClusterInstall it wrote. Unknown keys are ignored here: the installer owns this
//! file and its schema.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;

use super::{Error, SourceFile, parse_yaml, read_source_in};
use crate::openshift::{Capabilities, ClusterVersion};

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

/// The files install-config facts are read from, in the order [`read`] tries them (relative to
/// the install directory).
pub const LOOKED_FOR: [&str; 3] = [
    "install-config.yaml",
    "manifests/cluster-config.yaml",
    AGENT_CLUSTER_INSTALL,
];

/// Read install-config facts for an install directory: `install-config.yaml`, else the copy in
/// `manifests/cluster-config.yaml`, else what the Agent-based installer's
/// [`AGENT_CLUSTER_INSTALL`] passes on. `Ok(None)` when none of them exists. A symbolic link among them
/// that leaves `dir` is refused ([`Error::Io`], naming the link) and never read; so is one that
/// is there but not a regular file (a FIFO, a folder, a link to nothing): it is never taken
/// for "no install-config".
pub fn read(dir: &Path) -> Result<Option<Found>, Error> {
    read_following(dir, false)
}

/// [`read`], following `dir/manifests` where it is a symbolic link out of `dir` when
/// `follow_links` (`--follow-links`; see [`crate::fsread::own_folder`]).
pub fn read_following(dir: &Path, follow_links: bool) -> Result<Option<Found>, Error> {
    let [direct, embedded, agent] = LOOKED_FOR.map(|f| dir.join(f));
    if crate::fsread::is_there(&direct) {
        let file = read_source_in(&direct, Some(dir))?;
        let config: InstallConfig = parse_yaml(&file)?;
        return Ok(Some(Found {
            config,
            path: direct,
        }));
    }
    if crate::fsread::is_there(&embedded) {
        let folder =
            crate::fsread::own_folder(dir, "manifests", follow_links).map_err(|source| {
                Error::Io {
                    path: embedded.clone(),
                    source,
                }
            })?;
        let file = read_source_in(&folder.path.join("cluster-config.yaml"), Some(&folder.root))?;
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
    if crate::fsread::is_there(&agent) {
        let file = read_source_in(&agent, Some(dir))?;
        let aci: AgentClusterInstall = parse_yaml(&file)?;
        let config = aci.install_config().map_err(|message| Error::Syntax {
            file,
            message,
            span: None,
        })?;
        return Ok(Some(Found {
            config,
            path: agent,
        }));
    }
    Ok(None)
}

/// The Agent-based installer's AgentClusterInstall, written by `openshift-install agent create
/// cluster-manifests` once it has consumed install-config.yaml (openshift/installer
/// `pkg/asset/agent/manifests/agentclusterinstall.go`).
pub const AGENT_CLUSTER_INSTALL: &str = "cluster-manifests/agent-cluster-install.yaml";

/// The annotation through which the agent passes install-config fields to assisted-service.
const INSTALL_CONFIG_OVERRIDES: &str = "agent-install.openshift.io/install-config-overrides";

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct AgentClusterInstall {
    #[serde(default)]
    metadata: AciMetadata,
    #[serde(default)]
    spec: AciSpec,
}

#[derive(Debug, Default, Deserialize)]
struct AciMetadata {
    #[serde(default)]
    annotations: std::collections::BTreeMap<String, String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct AciSpec {
    platform_type: Option<String>,
    external_platform_spec: Option<serde_json::Value>,
}

impl AgentClusterInstall {
    /// The install-config facts the cluster will get: `featureSet`, `featureGates`,
    /// `capabilities` and `platform.external` from the install-config-overrides annotation (the
    /// only way the agent passes them on; no annotation, or no `featureSet` in it, means the
    /// cluster gets the Default feature set), the platform from `spec.platformType`.
    fn install_config(&self) -> Result<InstallConfig, String> {
        let mut config = match self.metadata.annotations.get(INSTALL_CONFIG_OVERRIDES) {
            Some(json) => serde_json::from_str::<InstallConfig>(json).map_err(|e| {
                format!("annotation {INSTALL_CONFIG_OVERRIDES} is not install-config JSON: {e}")
            })?,
            None => InstallConfig::default(),
        };
        // Only what reaches the cluster through this annotation; mirrors and the trust bundle
        // travel by other files (mirror/registries.conf, the InfraEnv).
        config.pull_secret = None;
        if let Some(platform) = self.spec.platform_type.as_deref() {
            let name = platform.to_ascii_lowercase();
            let mut settings = config
                .platform
                .remove(&name)
                .unwrap_or(serde_json::Value::Null);
            if name == "external"
                && let Some(serde_json::Value::Object(spec)) = &self.spec.external_platform_spec
            {
                let mut merged = spec.clone();
                if let serde_json::Value::Object(over) = settings {
                    merged.extend(over);
                }
                settings = serde_json::Value::Object(merged);
            }
            config.platform.clear();
            config.platform.insert(name, settings);
        }
        Ok(config)
    }
}

/// The release the installer's own files name, and which file named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedRelease {
    /// The release.
    pub version: ClusterVersion,
    /// The file, relative to the install directory.
    pub file: &'static str,
}

#[derive(Debug, Deserialize)]
struct ObjectData {
    #[serde(default)]
    data: std::collections::BTreeMap<String, serde_json::Value>,
    #[serde(default)]
    spec: std::collections::BTreeMap<String, serde_json::Value>,
}

/// The installer's files that name the release, in the order they are believed, with how each
/// names it:
/// - `openshift/openshift-install-manifests.yaml`, the ConfigMap `openshift-config/
///   openshift-install-manifests` whose `data.version` is the installer's `version.Raw`
///   (openshift/installer `pkg/asset/openshiftinstall/openshiftinstall.go`): `4.15.3`, or
///   `v4.15.0-…` from a source build; a build that names no release (`unreleased-master-…`) is
///   passed over;
/// - `manifests/cvo-overrides.yaml`, the ClusterVersion whose `spec.channel` the installer's
///   release branch sets (`stable-4.15`, `data/data/manifests/bootkube/cvo-overrides.yaml.template`):
///   the minor;
/// - `cluster-manifests/cluster-image-set.yaml` (the Agent-based installer's `create
///   cluster-manifests`), whose `spec.releaseImage` is tagged `4.15.0-x86_64`
///   (`pkg/asset/agent/manifests/clusterimageset.go`).
const RELEASE_FILES: [&str; 3] = [
    "openshift/openshift-install-manifests.yaml",
    "manifests/cvo-overrides.yaml",
    "cluster-manifests/cluster-image-set.yaml",
];

/// The release one of [`RELEASE_FILES`] names, if it names one.
fn release_in(file: &str, object: &ObjectData) -> Option<ClusterVersion> {
    let text = |v: Option<&serde_json::Value>| v.and_then(|v| v.as_str()).map(str::to_string);
    let candidate = match file {
        "openshift/openshift-install-manifests.yaml" => text(object.data.get("version"))?,
        "manifests/cvo-overrides.yaml" => {
            let channel = text(object.spec.get("channel"))?;
            channel.rsplit_once('-')?.1.to_string()
        }
        _ => {
            // A digest names no release; a tag is `4.15.0-x86_64` (the architecture last).
            let image = text(object.spec.get("releaseImage"))?;
            if image.contains('@') {
                return None;
            }
            let tag = image.rsplit_once(':')?.1;
            ["x86_64", "aarch64", "ppc64le", "s390x", "multi"]
                .iter()
                .find_map(|arch| tag.strip_suffix(&format!("-{arch}")))
                .unwrap_or(tag)
                .to_string()
        }
    };
    let version = ClusterVersion::parse(&candidate).ok()?;
    // Only a release number (the installer's `v` dropped), never a build's extra text.
    ClusterVersion::parse(&format!(
        "{}.{}{}",
        version.major,
        version.minor,
        version.patch.map(|p| format!(".{p}")).unwrap_or_default()
    ))
    .ok()
}

/// The release the installer's own files in `dir` name ([`RELEASE_FILES`], first one that names
/// one); `None` when none does. A file that cannot be read (a link out of `dir`, a FIFO) or does
/// not decode is passed over: these files are the installer's, and other checks report them.
pub fn named_release(dir: &Path) -> Option<NamedRelease> {
    RELEASE_FILES.iter().find_map(|file| {
        let path = dir.join(file);
        if !path.is_file() {
            return None;
        }
        let source = read_source_in(&path, Some(dir)).ok()?;
        let object: ObjectData = parse_yaml(&source).ok()?;
        release_in(file, &object).map(|version| NamedRelease { version, file })
    })
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

    /// After `create manifests` the installer's own files name the release (issue 33 item 7):
    /// its version ConfigMap first, then the ClusterVersion channel, then the agent's
    /// ClusterImageSet; a source build's version text falls through to the next.
    #[test]
    fn the_installers_files_name_the_release() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        assert_eq!(named_release(d), None);
        std::fs::create_dir_all(d.join("cluster-manifests")).unwrap();
        std::fs::write(
            d.join("cluster-manifests/cluster-image-set.yaml"),
            "apiVersion: hive.openshift.io/v1\nkind: ClusterImageSet\nmetadata:\n  name: openshift-4.15.2\nspec:\n  releaseImage: quay.io/openshift-release-dev/ocp-release:4.15.2-x86_64\n",
        )
        .unwrap();
        let named = named_release(d).unwrap();
        assert_eq!(
            (named.version.text.as_str(), named.file),
            ("4.15.2", "cluster-manifests/cluster-image-set.yaml")
        );
        std::fs::create_dir_all(d.join("manifests")).unwrap();
        std::fs::write(
            d.join("manifests/cvo-overrides.yaml"),
            "apiVersion: config.openshift.io/v1\nkind: ClusterVersion\nmetadata:\n  namespace: openshift-cluster-version\n  name: version\nspec:\n  channel: stable-4.14\n  clusterID: 1f0e5f3a-0000-4000-8000-000000000000\n",
        )
        .unwrap();
        assert_eq!(named_release(d).unwrap().version.text, "4.14");
        std::fs::create_dir_all(d.join("openshift")).unwrap();
        let cm = |version: &str| {
            format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: openshift-install-manifests\n  namespace: openshift-config\ndata:\n  invoker: user\n  version: {version}\n"
            )
        };
        std::fs::write(
            d.join("openshift/openshift-install-manifests.yaml"),
            cm("unreleased-master-8123-gdeadbeef"),
        )
        .unwrap();
        assert_eq!(
            named_release(d).unwrap().file,
            "manifests/cvo-overrides.yaml"
        );
        std::fs::write(
            d.join("openshift/openshift-install-manifests.yaml"),
            cm("v4.14.0-rc.2-17-gabcdef0"),
        )
        .unwrap();
        let named = named_release(d).unwrap();
        assert_eq!(
            (named.version.text.as_str(), named.file),
            ("4.14.0", "openshift/openshift-install-manifests.yaml")
        );
    }

    /// After `agent create cluster-manifests` consumed install-config (issue 33 item 5), the
    /// facts are what the AgentClusterInstall passes on: no featureSet on 4.15 (the cluster
    /// gets Default), the featureSet of its overrides annotation where the agent writes one.
    #[test]
    fn reads_what_the_agent_cluster_install_passes_on() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("cluster-manifests")).unwrap();
        let aci = |annotations: &str| {
            format!(
                "apiVersion: extensions.hive.openshift.io/v1beta1\nkind: AgentClusterInstall\nmetadata:\n  name: c\n  namespace: c{annotations}\nspec:\n  platformType: External\n  externalPlatformSpec:\n    platformName: oci\n  provisionRequirements:\n    controlPlaneAgents: 3\n"
            )
        };
        let path = dir.path().join(AGENT_CLUSTER_INSTALL);
        std::fs::write(&path, aci("")).unwrap();
        let found = read(dir.path()).unwrap().unwrap();
        assert_eq!(found.path, path);
        assert_eq!(found.config.feature_set, None);
        assert_eq!(found.config.platform_name(), Some("external"));
        assert_eq!(
            found.config.external().unwrap().platform_name.as_deref(),
            Some("oci")
        );
        std::fs::write(
            &path,
            aci("\n  annotations:\n    agent-install.openshift.io/install-config-overrides: '{\"featureSet\":\"TechPreviewNoUpgrade\",\"platform\":{\"external\":{\"platformName\":\"oci\",\"cloudControllerManager\":\"External\"}}}'"),
        )
        .unwrap();
        let found = read(dir.path()).unwrap().unwrap();
        assert_eq!(
            found.config.feature_set.as_deref(),
            Some("TechPreviewNoUpgrade")
        );
        assert_eq!(
            found
                .config
                .external()
                .unwrap()
                .cloud_controller_manager
                .as_deref(),
            Some("External")
        );
    }

    #[test]
    fn absent_install_config_is_none() {
        let dir = tempfile::tempdir().unwrap();
        assert!(read(dir.path()).unwrap().is_none());
    }
}
