//! The file rules: what the installer reads from `manifests/` and `openshift/`, and whether each
//! file decodes as exactly one object the way cluster-bootstrap decodes it.
//!
//! The installer reads every top-level file of `manifests/` (`Manifests.Load`), but only
//! `openshift/*.yaml`, `*.yml` and `*.json` (`Openshift.Load`, openshift/installer
//! `pkg/asset/manifests/openshift.go`). bootkube.sh copies `openshift/*` over `manifests/`, and
//! cluster-bootstrap decodes each file's first YAML document only (library-go
//! `pkg/assets/create/creater.go`, yaml.v2 `YAMLToJSON`).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::yaml::{self, Document};
use super::{Dir, ManifestFile, Sink, str_at};

/// Largest manifest accepted (assisted-service's limit, well inside etcd's 1.5 MiB request).
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// Largest file decoded at all: anything bigger is only reported as too large.
const MAX_DECODE_BYTES: u64 = 16 * MAX_FILE_BYTES;

/// A directory could not be read.
#[derive(Debug, thiserror::Error)]
#[error("cannot read {}: {source}", path.display())]
pub struct Error {
    /// The path.
    pub path: PathBuf,
    /// The cause.
    pub source: std::io::Error,
}

/// File names the installer writes itself, with the kind it writes there. A file of that name
/// holding another kind replaces the installer's object (or is loaded as the installer's own
/// asset). From openshift/installer `pkg/asset/manifests/*.go`, `pkg/asset/machines/*.go`.
const RESERVED: &[(Dir, &str, &str)] = &[
    (Dir::Manifests, "cluster-config.yaml", "ConfigMap"),
    (
        Dir::Manifests,
        "cluster-infrastructure-02-config.yml",
        "Infrastructure",
    ),
    (Dir::Manifests, "cluster-network-02-config.yml", "Network"),
    (Dir::Manifests, "cluster-dns-02-config.yml", "DNS"),
    (Dir::Manifests, "cluster-ingress-02-config.yml", "Ingress"),
    (Dir::Manifests, "cluster-proxy-01-config.yaml", "Proxy"),
    (
        Dir::Manifests,
        "cluster-scheduler-02-config.yml",
        "Scheduler",
    ),
    (Dir::Manifests, "cvo-overrides.yaml", "ClusterVersion"),
    (
        Dir::Manifests,
        "openshift-config-secret-pull-secret.yaml",
        "Secret",
    ),
    (
        Dir::Manifests,
        "image-digest-mirror-set.yaml",
        "ImageDigestMirrorSet",
    ),
    (
        Dir::Manifests,
        "kube-system-configmap-root-ca.yaml",
        "ConfigMap",
    ),
    (
        Dir::Manifests,
        "machine-config-server-tls-secret.yaml",
        "Secret",
    ),
    (Dir::Manifests, "cloud-provider-config.yaml", "ConfigMap"),
    (Dir::Manifests, "user-ca-bundle-config.yaml", "ConfigMap"),
    (Dir::Openshift, "99_feature-gate.yaml", "FeatureGate"),
    (
        Dir::Openshift,
        "99_kubeadmin-password-secret.yaml",
        "Secret",
    ),
    (
        Dir::Openshift,
        "openshift-install-manifests.yaml",
        "ConfigMap",
    ),
    (
        Dir::Openshift,
        "99_openshift-cluster-api_master-machines-*",
        "Machine",
    ),
    (
        Dir::Openshift,
        "99_openshift-cluster-api_worker-machineset-*",
        "MachineSet",
    ),
    (
        Dir::Openshift,
        "99_openshift-cluster-api_master-user-data-secret.yaml",
        "Secret",
    ),
    (
        Dir::Openshift,
        "99_openshift-cluster-api_worker-user-data-secret.yaml",
        "Secret",
    ),
    (
        Dir::Openshift,
        "99_openshift-machine-api_master-control-plane-machine-set.yaml",
        "ControlPlaneMachineSet",
    ),
    (
        Dir::Openshift,
        "99_openshift-machineconfig_*",
        "MachineConfig",
    ),
];

fn reserved_kind(dir: Dir, name: &str) -> Option<&'static str> {
    RESERVED.iter().find_map(|(d, pattern, kind)| {
        let hit = match pattern.strip_suffix('*') {
            Some(prefix) => name.starts_with(prefix),
            None => name == *pattern,
        };
        (*d == dir && hit).then_some(*kind)
    })
}

fn manifest_extension(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    [".yaml", ".yml", ".json"]
        .iter()
        .any(|e| lower.ends_with(e))
}

/// Read the files of `dir/manifests` and `dir/openshift` the installer would read, reporting
/// the ones it cannot use (subdirectories, dotfiles, other extensions, oversized files).
pub(crate) fn read_dir(dir: &Path, sink: &mut Sink) -> Result<Vec<ManifestFile>, Error> {
    let mut out = Vec::new();
    for sub in [Dir::Manifests, Dir::Openshift] {
        let path = dir.join(sub.name());
        let entries = match std::fs::read_dir(&path) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(source) => return Err(Error { path, source }),
        };
        let mut names = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|source| Error {
                path: path.clone(),
                source,
            })?;
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
        names.sort();
        for name in names {
            let file_path = path.join(&name);
            let meta = std::fs::metadata(&file_path).map_err(|source| Error {
                path: file_path.clone(),
                source,
            })?;
            let mut file = ManifestFile {
                dir: sub,
                name: name.clone(),
                text: String::new(),
                size: meta.len(),
                operator: None,
                role: None,
                planned: false,
            };
            let read_by_installer = sub == Dir::Manifests || manifest_extension(&name);
            if meta.is_dir() {
                if sub == Dir::Manifests {
                    sink.push("subdirectory", &file, 0, None, "a directory in manifests/: the installer cannot read it as a manifest, and its files are never applied".into());
                } else {
                    sink.push("file-ignored", &file, 0, None, "a directory in openshift/: the installer does not read it, so its files are never applied".into());
                }
                continue;
            }
            if !read_by_installer {
                sink.push("file-ignored", &file, 0, None, "not a .yaml, .yml or .json file: the installer does not read it from openshift/".into());
                continue;
            }
            if name.starts_with('.') {
                sink.push("dotfile", &file, 0, None, "a dotfile: the installer reads it like any manifest, and cluster-bootstrap must decode it as one object".into());
                continue;
            }
            if meta.len() > MAX_DECODE_BYTES {
                sink.push("file-size", &file, 0, None, format!("{} bytes, more than the {MAX_FILE_BYTES} a manifest may have (not read further)", meta.len()));
                continue;
            }
            if !manifest_extension(&name) {
                sink.push("file-type", &file, 0, None, "not a .yaml, .yml or .json file, yet the installer puts every file of manifests/ into the bootstrap and cluster-bootstrap fails on it".into());
                continue;
            }
            let bytes =
                crate::fsread::read(&file_path, MAX_DECODE_BYTES, None).map_err(|source| {
                    Error {
                        path: file_path.clone(),
                        source,
                    }
                })?;
            match String::from_utf8(bytes) {
                Ok(text) => file.text = text,
                Err(e) => {
                    sink.push(
                        "decode",
                        &file,
                        0,
                        None,
                        format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()),
                    );
                    continue;
                }
            }
            out.push(file);
        }
    }
    Ok(out)
}

/// One object that cluster-bootstrap would create: the first document of a file.
#[derive(Debug, Clone)]
pub struct Object<'f> {
    /// Its file.
    pub file: &'f ManifestFile,
    /// The document, with field lines.
    pub doc: Document,
    /// API group (`""` for the core group).
    pub group: String,
    /// Version.
    pub version: String,
    /// Kind.
    pub kind: String,
    /// `metadata.name`.
    pub name: String,
    /// `metadata.namespace`, if set.
    pub namespace: Option<String>,
}

impl Object<'_> {
    /// The object's JSON.
    pub fn value(&self) -> &Value {
        &self.doc.value
    }

    /// `Kind namespace/name` or `Kind name`.
    pub fn label(&self) -> String {
        match &self.namespace {
            Some(ns) => format!("{} {ns}/{}", self.kind, self.name),
            None => format!("{} {}", self.kind, self.name),
        }
    }

    /// The line of a field.
    pub fn line(&self, pointer: &str) -> usize {
        self.doc.line(pointer)
    }
}

/// Split `group/version` (`v1` is the core group).
pub fn split_api_version(api_version: &str) -> (String, String) {
    match api_version.rsplit_once('/') {
        Some((g, v)) => (g.to_string(), v.to_string()),
        None => (String::new(), api_version.to_string()),
    }
}

/// Decode every file as cluster-bootstrap would, reporting what it cannot create, and return the
/// objects it would create. Also reports file names that clash.
pub(crate) fn objects<'f>(files: &'f [ManifestFile], sink: &mut Sink) -> Vec<Object<'f>> {
    let mut out = Vec::new();
    for file in files {
        if file.size > MAX_FILE_BYTES {
            sink.push(
                "file-size",
                file,
                0,
                None,
                format!(
                    "{} bytes, more than the {MAX_FILE_BYTES} a manifest may have",
                    file.size
                ),
            );
        }
        if file.dir == Dir::Manifests
            && files
                .iter()
                .any(|o| o.dir == Dir::Openshift && o.name == file.name)
        {
            sink.push("name-clash", file, 0, None, format!("openshift/{} has the same name: bootkube.sh copies openshift/* over manifests/, so this file is replaced", file.name));
        }
        let docs = match yaml::parse(&file.text) {
            Ok(d) => d,
            Err(message) => {
                sink.push(
                    "decode",
                    file,
                    0,
                    None,
                    format!("does not decode as YAML or JSON: {message}"),
                );
                continue;
            }
        };
        let Some(doc) = docs.first() else {
            sink.push("decode", file, 0, None, "holds no object".into());
            continue;
        };
        if docs.len() > 1 {
            sink.push(
                "one-object-per-file",
                file,
                docs[1].line(""),
                None,
                format!("holds {} YAML documents; cluster-bootstrap creates only the first and drops the others silently: write one object per file", docs.len()),
            );
        }
        let doc = doc.clone();
        if !doc.value.is_object() {
            sink.push(
                "decode",
                file,
                doc.line(""),
                None,
                "the document is not a mapping (an object with apiVersion and kind)".into(),
            );
            continue;
        }
        let v = &doc.value;
        let kind = str_at(v, "/kind").unwrap_or("");
        if kind == "List" || (kind.ends_with("List") && v.get("items").is_some_and(Value::is_array))
        {
            sink.push("list-kind", file, doc.line("/kind"), None, format!("a {kind}: cluster-bootstrap does not expand lists; write each item to its own file"));
            continue;
        }
        let missing: Vec<&str> = [
            ("/apiVersion", "apiVersion"),
            ("/kind", "kind"),
            ("/metadata/name", "metadata.name"),
        ]
        .iter()
        .filter(|(p, _)| str_at(v, p).is_none_or(str::is_empty))
        .map(|(_, f)| *f)
        .collect();
        if !missing.is_empty() {
            sink.push(
                "type-meta",
                file,
                doc.line(""),
                None,
                format!(
                    "missing {}: not an object cluster-bootstrap can create",
                    missing.join(", ")
                ),
            );
            continue;
        }
        let (group, version) = split_api_version(str_at(v, "/apiVersion").unwrap_or(""));
        let name = str_at(v, "/metadata/name").unwrap_or("").to_string();
        let namespace = str_at(v, "/metadata/namespace")
            .filter(|n| !n.is_empty())
            .map(str::to_string);
        if let Some(expected) = reserved_kind(file.dir, &file.name)
            && expected != kind
        {
            sink.push("name-clash", file, doc.line("/kind"), None, format!("{} is a file name the installer writes (a {expected}); this {kind} replaces it or is read as the installer's own: rename the file", file.name));
        }
        out.push(Object {
            file,
            group,
            version,
            kind: kind.to_string(),
            name,
            namespace,
            doc,
        });
    }
    out
}
