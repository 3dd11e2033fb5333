//! `platform-operators.lock.yaml`: what a run resolved (per operator the package, bundle,
//! version, image and the catalog's content digest) and which manifest files it wrote, each
//! with the sha256 of its bytes. `--locked` refuses any difference from it; the next run
//! replaces or removes exactly the files listed in it, and only while they still have the
//! recorded digest (a file a person edited since is refused unless `--force`).
//!
//! `lockVersion: 2` lists `manifests:` as `{name, sha256}` entries; a version 1 lock (names
//! only) is still read, but a file it names is replaced or removed only when the file itself
//! shows po-manifests wrote it (see [`super::Survey`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Lock file name, written beside the configuration.
pub const LOCK_FILE: &str = "platform-operators.lock.yaml";
/// Largest lock file read (it lists operators and file names: a few KB).
const MAX_LOCK_BYTES: u64 = 16 * 1024 * 1024;
/// The schema version written in `lockVersion`.
pub const LOCK_VERSION: u32 = 3;
/// The oldest schema version still read (names only under `manifests:`).
const OLDEST_LOCK_VERSION: u32 = 1;

/// The lock file's content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "LockFile", into = "LockFile")]
pub struct Lock {
    /// Schema version.
    pub lock_version: u32,
    /// Target release, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_version: Option<String>,
    /// Profile used for non-bootstrap operators.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// Catalogs used, with their content digests.
    #[serde(default)]
    pub catalogs: Vec<LockedCatalog>,
    /// What each operator resolved to.
    #[serde(default)]
    pub operators: Vec<LockedOperator>,
    /// Files written into the manifests directory.
    pub manifests: Vec<String>,
    /// The sha256 (lowercase hex) of each written file's bytes, by file name; files of a
    /// version 1 lock have none.
    pub digests: BTreeMap<String, String>,
    /// What lands of each written file where the installer re-serializes it (the Agent-based
    /// installer: one file per document, renamed, other bytes), by written file name.
    pub lands: BTreeMap<String, Vec<Landed>>,
}

/// One file as it lands after the installer re-serialized it: its name there and the digest
/// of its object, not of bytes the installer chooses (see [`object_sha256`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Landed {
    /// The file's name where it lands (`/etc/assisted/extra-manifests/NAME`).
    pub name: String,
    /// [`object_sha256`] of the object it holds.
    pub object_sha256: String,
}

/// The sha256 of an object as it lands through a JSON decode into Go's `interface{}`: JSON with
/// every object's keys sorted, no spaces, strings escaped as serde_json escapes them, and every
/// number read as a 64-bit float (an integral one written as an integer, another in its
/// shortest round-trip form). Any copy of the object, whatever its bytes (the agent's
/// re-serialized file, or ours), has this digest when it means the same.
pub fn object_sha256(value: &serde_json::Value) -> String {
    fn write(v: &serde_json::Value, out: &mut String) {
        use serde_json::Value;
        match v {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                out.push('{');
                for (i, k) in keys.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&Value::String((*k).clone()).to_string());
                    out.push(':');
                    write(&map[*k], out);
                }
                out.push('}');
            }
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write(item, out);
                }
                out.push(']');
            }
            Value::Number(n) => {
                let f = n.as_f64().unwrap_or(0.0);
                if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e21 {
                    out.push_str(&format!("{}", f as i128));
                } else {
                    out.push_str(&format!("{f}"));
                }
            }
            other => out.push_str(&other.to_string()),
        }
    }
    let mut text = String::new();
    write(value, &mut text);
    super::sha256_hex(text.as_bytes())
}

impl Lock {
    /// The files an earlier run wrote, with their recorded digests.
    pub fn previous_files(&self) -> Vec<super::PreviousFile> {
        self.manifests
            .iter()
            .map(|name| super::PreviousFile {
                name: name.clone(),
                sha256: self.digests.get(name).cloned(),
            })
            .collect()
    }
}

/// The lock as it is written: `manifests:` entries carry their digest.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct LockFile {
    lock_version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cluster_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    profile: Option<String>,
    #[serde(default)]
    catalogs: Vec<LockedCatalog>,
    #[serde(default)]
    operators: Vec<LockedOperator>,
    #[serde(default)]
    manifests: Vec<LockedManifest>,
}

/// One written file: its name and digest (version 2), or its name alone (version 1).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(untagged)]
enum LockedManifest {
    Digested(DigestedManifest),
    Name(String),
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct DigestedManifest {
    name: String,
    sha256: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    lands: Vec<Landed>,
}

impl From<LockFile> for Lock {
    fn from(f: LockFile) -> Lock {
        let mut digests = BTreeMap::new();
        let mut lands = BTreeMap::new();
        let manifests = f
            .manifests
            .into_iter()
            .map(|m| match m {
                LockedManifest::Name(name) => name,
                LockedManifest::Digested(d) => {
                    digests.insert(d.name.clone(), d.sha256);
                    if !d.lands.is_empty() {
                        lands.insert(d.name.clone(), d.lands);
                    }
                    d.name
                }
            })
            .collect();
        Lock {
            lock_version: f.lock_version,
            cluster_version: f.cluster_version,
            profile: f.profile,
            catalogs: f.catalogs,
            operators: f.operators,
            manifests,
            digests,
            lands,
        }
    }
}

impl From<Lock> for LockFile {
    fn from(l: Lock) -> LockFile {
        let manifests = l
            .manifests
            .into_iter()
            .map(|name| match l.digests.get(&name) {
                Some(sha256) => LockedManifest::Digested(DigestedManifest {
                    lands: l.lands.get(&name).cloned().unwrap_or_default(),
                    name,
                    sha256: sha256.clone(),
                }),
                None => LockedManifest::Name(name),
            })
            .collect();
        LockFile {
            lock_version: l.lock_version,
            cluster_version: l.cluster_version,
            profile: l.profile,
            catalogs: l.catalogs,
            operators: l.operators,
            manifests,
        }
    }
}

/// A catalog's identity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LockedCatalog {
    /// Configured name.
    pub name: String,
    /// Content digest (`sha256:…`): of the files that held these `packages`' documents when
    /// they are given (version 3), else of the whole catalog (versions 1 and 2, and a run of
    /// the subscription profile, which reads every package).
    pub digest: String,
    /// The packages read, when `digest` covers their files only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packages: Option<Vec<String>>,
}

/// One operator's resolution.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LockedOperator {
    /// Config name.
    pub name: String,
    /// Package.
    pub package: String,
    /// Catalog it came from.
    pub catalog: String,
    /// Bundle name.
    pub bundle: String,
    /// Bundle version.
    pub version: String,
    /// Bundle image.
    pub image: String,
    /// Written as its own objects.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub bootstrap: bool,
    /// Install namespace, for bootstrap operators.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// Set when `image` is a tag written with `--allow-tags`: says that it is not a pin.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_a_pin: Option<String>,
    /// Check rules waived for this operator's objects, with the reasons (config `waive:`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub waivers: Vec<LockedWaiver>,
    /// For the subscription profile: what the Subscription names, where it ends and what OLM
    /// v0 pulls in (`bundle` and `version` above are what it installs first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscription: Option<LockedSubscription>,
}

/// The subscription profile's record of one operator.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LockedSubscription {
    /// The CatalogSource the Subscription names, `name/namespace`.
    pub catalog_source: String,
    /// The channel it names (none: every channel).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    /// Its `startingCSV`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        rename = "startingCSV"
    )]
    pub starting_csv: Option<String>,
    /// `installPlanApproval`.
    pub install_plan_approval: String,
    /// The OperatorGroup's install mode.
    pub install_mode: String,
    /// Where Automatic approval ends, when past the first bundle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ends_at: Option<LockedBundle>,
    /// What OLM v0 pulls in.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dependencies: Vec<LockedDependency>,
    /// Set when the catalog is not pinned by digest on the cluster (a tag, or the release's
    /// live default source): says that the resolution is not a pin.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_a_pin: Option<String>,
}

/// A bundle and its version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LockedBundle {
    /// Bundle name.
    pub bundle: String,
    /// Its version.
    pub version: String,
}

/// A bundle OLM v0 pulls in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LockedDependency {
    /// Its package.
    pub package: String,
    /// The bundle.
    pub bundle: String,
    /// Its version.
    pub version: String,
    /// The channel OLM v0 picks it in.
    pub channel: String,
    /// The configured catalog.
    pub catalog: String,
    /// Where Automatic approval takes it, when it moves.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ends_at: Option<LockedBundle>,
}

/// A waived check rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LockedWaiver {
    /// The rule id.
    pub rule: String,
    /// Why.
    pub reason: String,
}

/// Errors reading a lock file.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Unreadable.
    #[error("cannot read lock file {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// Not a lock file.
    #[error("lock file {} is invalid: {message}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// `--locked` and the resolution differs.
    #[error("the resolution differs from the lock file {}:\n{}", path.display(), differences.iter().map(|d| format!("  - {d}")).collect::<Vec<_>>().join("\n"))]
    Mismatch {
        /// The file.
        path: PathBuf,
        /// One line per difference.
        differences: Vec<String>,
    },
    /// `--locked` without a lock file.
    #[error("--locked was given but there is no lock file at {}", path.display())]
    Missing {
        /// Where it was looked for.
        path: PathBuf,
    },
}

impl Error {
    /// Whether this is an I/O failure (exit status 3).
    pub fn is_io(&self) -> bool {
        matches!(self, Error::Io { .. })
    }
}

/// The first line of every lock file po-manifests writes: what shows a file is in the tool's
/// own format, so that a reader error may quote it.
const HEADER: &str =
    "# Written by po-manifests: what each platform operator resolved to. Do not edit.\n";

/// Read a lock file; `Ok(None)` when it does not exist. A symbolic link that leaves the lock
/// file's folder (the install directory, or the folder of `--config`) is refused naming the
/// link, like the configuration and install-config, and never read: nothing outside decides
/// which files a run may remove. A file that does not start with the line po-manifests writes
/// ([`HEADER`]) is refused, when it does not read as a lock, without a word of its content
/// (it may be anything: the reader's messages quote values).
pub fn read(path: &Path) -> Result<Option<Lock>, Error> {
    let root = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let text = match crate::fsread::read_to_string(path, MAX_LOCK_BYTES, Some(root)) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(Error::Io {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    let own = text.starts_with(HEADER);
    let options = serde_saphyr::options! { with_snippet: false };
    let lock: Lock = serde_saphyr::from_str_with_options(&text, options).map_err(|e| {
        let at = e
            .location()
            .map(|l| format!("line {}, column {}: ", l.line(), l.column()))
            .unwrap_or_default();
        let message = if own {
            format!("{at}{}", crate::text::printable(&e.without_snippet().to_string()))
        } else {
            format!(
                "{at}it does not read as a lock file, and it does not start with the line po-manifests writes, so none of it is shown"
            )
        };
        Error::Invalid {
            path: path.to_path_buf(),
            message,
        }
    })?;
    if !(OLDEST_LOCK_VERSION..=LOCK_VERSION).contains(&lock.lock_version) {
        return Err(Error::Invalid {
            path: path.to_path_buf(),
            message: format!(
                "lockVersion {} is not supported (expected {OLDEST_LOCK_VERSION} to {LOCK_VERSION})",
                lock.lock_version
            ),
        });
    }
    if let Some((name, digest)) = lock.digests.iter().find(|(_, d)| {
        d.len() != 64
            || !d
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    }) {
        let message = if own {
            format!(
                "manifests: {}: sha256 {} is not 64 lowercase hex digits",
                crate::text::escape(name),
                crate::text::escape(digest)
            )
        } else {
            "manifests: a sha256 is not 64 lowercase hex digits (the file does not start with the line po-manifests writes, so none of it is shown)".into()
        };
        return Err(Error::Invalid {
            path: path.to_path_buf(),
            message,
        });
    }
    Ok(Some(lock))
}

impl Lock {
    /// The lock as YAML bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut text = String::from(HEADER);
        let value = serde_json::to_value(LockFile::from(self.clone()))
            .expect("the lock serializes to JSON");
        text.push_str(&super::yaml::to_yaml(&value).expect("the lock serializes to YAML"));
        text.into_bytes()
    }

    /// Every difference between `self` (the lock) and `new`, one line each: the release and
    /// profile, each catalog's content digest, each operator's resolution, and the files with
    /// their digests (where the lock records them). `--locked` refuses any.
    pub fn differences(&self, new: &Lock) -> Vec<String> {
        let mut out = Vec::new();
        let or_none = |v: &Option<String>| v.clone().unwrap_or_else(|| "(none)".into());
        let read = |packages: &Option<Vec<String>>| match packages {
            None => "the whole catalog".to_string(),
            Some(p) => format!("the files of packages {}", p.join(", ")),
        };
        if self.cluster_version != new.cluster_version {
            out.push(format!(
                "clusterVersion {} is now {}",
                or_none(&self.cluster_version),
                or_none(&new.cluster_version)
            ));
        }
        if self.profile != new.profile {
            out.push(format!(
                "profile {} is now {}",
                or_none(&self.profile),
                or_none(&new.profile)
            ));
        }
        for old in &self.catalogs {
            match new.catalogs.iter().find(|c| c.name == old.name) {
                None => out.push(format!(
                    "catalog {} is locked but no longer configured",
                    old.name
                )),
                Some(now) if now.packages != old.packages => out.push(format!(
                    "catalog {}: the lock's digest covers {}, this run reads {}",
                    old.name,
                    read(&old.packages),
                    read(&now.packages)
                )),
                Some(now) if now.digest != old.digest => out.push(format!(
                    "catalog {}: the lock records content {}, the catalog now has {}",
                    old.name, old.digest, now.digest
                )),
                Some(_) => {}
            }
        }
        for now in &new.catalogs {
            if !self.catalogs.iter().any(|c| c.name == now.name) {
                out.push(format!(
                    "catalog {} is configured but not in the lock",
                    now.name
                ));
            }
        }
        out.extend(self.operator_differences(new));
        if self.manifests != new.manifests {
            out.push(format!(
                "the files written would change: the lock lists {}, create would write {}",
                self.manifests.len(),
                new.manifests.len()
            ));
        } else {
            for name in &self.manifests {
                if let (Some(old), Some(now)) = (self.digests.get(name), new.digests.get(name))
                    && old != now
                {
                    out.push(format!(
                        "manifest {name}: the lock records sha256:{old}, create would write sha256:{now}"
                    ));
                }
            }
        }
        out
    }

    /// Differences in resolution between `self` (the lock) and `new`, one line each.
    fn operator_differences(&self, new: &Lock) -> Vec<String> {
        let mut out = Vec::new();
        for old in &self.operators {
            match new.operators.iter().find(|o| o.name == old.name) {
                None => out.push(format!(
                    "operator {} is locked but no longer configured",
                    old.name
                )),
                Some(now) if now != old => out.push(operator_difference(old, now)),
                Some(_) => {}
            }
        }
        for now in &new.operators {
            if !self.operators.iter().any(|o| o.name == now.name) {
                out.push(format!(
                    "operator {} is configured but not in the lock",
                    now.name
                ));
            }
        }
        out
    }
}

/// One line saying how `now` differs from the locked `old` (same operator name): the
/// resolution when it changed, otherwise the fields that did (image, bootstrap, namespace,
/// pin, waivers), so that a waiver-only change does not read as a new version.
fn operator_difference(old: &LockedOperator, now: &LockedOperator) -> String {
    if (&old.package, &old.version, &old.bundle, &old.catalog)
        != (&now.package, &now.version, &now.bundle, &now.catalog)
    {
        return format!(
            "operator {}: locked to {} {} ({}) from {}, now resolves to {} {} ({}) from {}",
            old.name,
            old.package,
            old.version,
            old.bundle,
            old.catalog,
            now.package,
            now.version,
            now.bundle,
            now.catalog
        );
    }
    let mut what = Vec::new();
    if old.image != now.image {
        what.push(format!("image {} is now {}", old.image, now.image));
    }
    if old.bootstrap != now.bootstrap {
        what.push(format!(
            "bootstrap {} is now {}",
            old.bootstrap, now.bootstrap
        ));
    }
    if old.namespace != now.namespace {
        let ns = |n: &Option<String>| n.clone().unwrap_or_else(|| "(none)".into());
        what.push(format!(
            "namespace {} is now {}",
            ns(&old.namespace),
            ns(&now.namespace)
        ));
    }
    if old.not_a_pin.is_some() != now.not_a_pin.is_some() {
        what.push(if now.not_a_pin.is_some() {
            "the image is now a tag, not a pin".to_string()
        } else {
            "the image is now pinned by digest".to_string()
        });
    }
    if old.subscription != now.subscription {
        let describe = |s: &Option<LockedSubscription>| match s {
            None => "none".to_string(),
            Some(s) => format!(
                "ends at {}, pulls in [{}]",
                s.ends_at
                    .as_ref()
                    .map_or("its first bundle".to_string(), |e| format!(
                        "{} {}",
                        e.bundle, e.version
                    )),
                s.dependencies
                    .iter()
                    .map(|d| format!("{} {}", d.bundle, d.version))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        what.push(format!(
            "the Subscription's plan ({}) is now ({})",
            describe(&old.subscription),
            describe(&now.subscription)
        ));
    }
    if old.waivers != now.waivers {
        let rules = |w: &[LockedWaiver]| {
            let r: Vec<&str> = w.iter().map(|w| w.rule.as_str()).collect();
            if r.is_empty() {
                "none".to_string()
            } else {
                r.join(", ")
            }
        };
        what.push(format!(
            "waivers ({}) are now ({})",
            rules(&old.waivers),
            rules(&now.waivers)
        ));
    }
    format!(
        "operator {}: still {} {}, but {}",
        old.name,
        old.package,
        old.version,
        what.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_waiver_only_change_is_not_called_a_new_version() {
        let old = lock("1.13.0");
        let mut new = lock("1.13.0");
        new.operators[0].waivers.push(LockedWaiver {
            rule: "ccm-priority-class".into(),
            reason: "set elsewhere".into(),
        });
        assert_eq!(
            old.differences(&new),
            [
                "operator cm: still cert-manager 1.13.0, but waivers (none) are now (ccm-priority-class)"
            ]
        );
        let mut new = lock("1.13.0");
        new.operators[0].namespace = Some("cm-system".into());
        new.operators[0].bootstrap = true;
        assert_eq!(
            old.differences(&new),
            [
                "operator cm: still cert-manager 1.13.0, but bootstrap false is now true; namespace (none) is now cm-system"
            ]
        );
    }

    fn op(version: &str) -> LockedOperator {
        LockedOperator {
            name: "cm".into(),
            package: "cert-manager".into(),
            catalog: "c".into(),
            bundle: format!("cert-manager.v{version}"),
            version: version.into(),
            image: "quay.io/x@sha256:00".into(),
            bootstrap: false,
            namespace: None,
            waivers: Vec::new(),
            not_a_pin: None,
            subscription: None,
        }
    }

    fn lock(version: &str) -> Lock {
        Lock {
            lock_version: LOCK_VERSION,
            cluster_version: Some("4.14.8".into()),
            profile: Some("PlatformOperator".into()),
            catalogs: vec![LockedCatalog {
                name: "c".into(),
                digest: "sha256:ab".into(),
                packages: Some(vec!["p".into()]),
            }],
            operators: vec![op(version)],
            manifests: vec!["99_po_cm_00_platformoperator_cm.yaml".into()],
            digests: [(
                "99_po_cm_00_platformoperator_cm.yaml".to_string(),
                "ab".repeat(32),
            )]
            .into(),
            lands: BTreeMap::new(),
        }
    }

    /// `text` written as a lock file and read back.
    fn read_text(text: &str) -> Result<Option<Lock>, Error> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(LOCK_FILE);
        std::fs::write(&path, text).unwrap();
        read(&path)
    }

    #[test]
    fn a_version_1_lock_with_names_only_is_read() {
        let l = read_text("lockVersion: 1\nmanifests:\n- 99_po_cm_00_platformoperator_cm.yaml\n")
            .unwrap()
            .unwrap();
        assert_eq!(l.manifests, ["99_po_cm_00_platformoperator_cm.yaml"]);
        assert!(l.digests.is_empty());
        assert_eq!(l.previous_files()[0].sha256, None);
    }

    #[test]
    fn manifests_are_written_with_their_digest() {
        let text = String::from_utf8(lock("1.13.0").to_bytes()).unwrap();
        assert!(text.contains("lockVersion: 3\n"), "{text}");
        assert!(
            text.contains("catalogs:\n- name: c\n  digest: sha256:ab\n  packages:\n  - p\n"),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "manifests:\n- name: 99_po_cm_00_platformoperator_cm.yaml\n  sha256: {}\n",
                "ab".repeat(32)
            )),
            "{text}"
        );
    }

    /// A version 2 lock's catalog (no `packages`: its digest is the whole catalog's) reads,
    /// and a digest over other packages is named as such, not as changed content.
    #[test]
    fn a_catalog_digest_says_what_it_covers() {
        let old = read_text(&format!(
            "{HEADER}lockVersion: 2\ncatalogs:\n- name: c\n  digest: sha256:ab\nmanifests: []\n"
        ))
        .unwrap()
        .unwrap();
        assert_eq!(old.catalogs[0].packages, None);
        let new = lock("1.13.0");
        let d = old.differences(&new);
        assert!(
            d.iter().any(|l| l
                == "catalog c: the lock's digest covers the whole catalog, this run reads the files of packages p"),
            "{d:?}"
        );
        let mut same = new.clone();
        same.catalogs[0].digest = "sha256:cd".into();
        assert!(new.differences(&same).iter().any(|l| {
            l.contains("the lock records content sha256:ab, the catalog now has sha256:cd")
        }));
    }

    #[test]
    fn a_digest_that_is_not_hex_is_invalid() {
        let e = read_text(&format!(
            "{HEADER}lockVersion: 2\nmanifests:\n- name: 99_po_a.yaml\n  sha256: zz\n"
        ))
        .unwrap_err();
        assert!(e.to_string().contains("99_po_a.yaml"), "{e}");
    }

    #[test]
    fn any_difference_is_one() {
        let old = lock("1.13.0");
        let mut new = lock("1.13.0");
        new.catalogs[0].digest = "sha256:cd".into();
        assert_eq!(
            old.differences(&new),
            ["catalog c: the lock records content sha256:ab, the catalog now has sha256:cd"]
        );
        let mut new = lock("1.13.0");
        new.cluster_version = Some("4.14.9".into());
        assert_eq!(
            old.differences(&new),
            ["clusterVersion 4.14.8 is now 4.14.9"]
        );
        let mut new = lock("1.13.0");
        new.digests.values_mut().for_each(|d| *d = "cd".repeat(32));
        assert_eq!(old.differences(&new).len(), 1);
        // A version 1 lock records no digests: nothing to compare.
        let mut v1 = lock("1.13.0");
        v1.digests.clear();
        assert!(v1.differences(&new).is_empty());
    }

    #[test]
    fn round_trips() {
        let text = String::from_utf8(lock("1.13.0").to_bytes()).unwrap();
        assert_eq!(read_text(&text).unwrap(), Some(lock("1.13.0")));
    }

    #[test]
    fn differences_name_the_operator_and_both_versions() {
        let d = lock("1.13.0").differences(&lock("1.14.0"));
        assert_eq!(d.len(), 1);
        assert!(
            d[0].contains("1.13.0") && d[0].contains("1.14.0"),
            "{}",
            d[0]
        );
        assert!(lock("1.13.0").differences(&lock("1.13.0")).is_empty());
    }

    /// Issue 34 item 5: a lock file that is a symbolic link out of its folder is refused,
    /// naming the link, and what it points at is never read (a valid lock there is not
    /// trusted either).
    #[cfg(unix)]
    #[test]
    fn a_lock_linked_out_of_its_folder_is_refused_unread() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("d");
        std::fs::create_dir(&d).unwrap();
        let outside = dir.path().join("elsewhere.yaml");
        std::fs::write(&outside, lock("1.13.0").to_bytes()).unwrap();
        std::os::unix::fs::symlink(&outside, d.join(LOCK_FILE)).unwrap();
        let e = read(&d.join(LOCK_FILE)).unwrap_err();
        assert!(e.is_io(), "{e}");
        let text = e.to_string();
        assert!(
            text.contains(LOCK_FILE) && text.contains("leaves"),
            "{text}"
        );
        assert!(!text.contains("elsewhere"), "{text}");
        // A link that stays inside is followed.
        std::fs::write(d.join("kept.yaml"), lock("1.13.0").to_bytes()).unwrap();
        std::fs::remove_file(d.join(LOCK_FILE)).unwrap();
        std::os::unix::fs::symlink("kept.yaml", d.join(LOCK_FILE)).unwrap();
        assert_eq!(read(&d.join(LOCK_FILE)).unwrap(), Some(lock("1.13.0")));
    }

    /// Issue 34 item 5: a file that is not a po-manifests lock (no header line) is refused
    /// without a word of its content, whatever the reader's error would have quoted.
    #[test]
    fn what_is_not_a_lock_is_never_echoed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(LOCK_FILE);
        for text in [
            "root:$6$SECRETHASH$abc:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n",
            "lockVersion: SECRETHASH\n",
            "password: SECRETHASH\n",
            "- SECRETHASH\n",
            "a: [SECRETHASH\n",
            "lockVersion: 2\nmanifests:\n- name: SECRETHASH\n  sha256: SECRETHASH\n",
        ] {
            std::fs::write(&path, text).unwrap();
            let e = read(&path).unwrap_err().to_string();
            assert!(!e.contains("SECRETHASH"), "{text:?} echoed: {e}");
            assert!(e.contains(LOCK_FILE), "{e}");
        }
        // The tool's own format says what is wrong, in its words.
        let mut own = lock("1.13.0").to_bytes();
        own.extend_from_slice(b"surprise: 1\n");
        std::fs::write(&path, own).unwrap();
        let e = read(&path).unwrap_err().to_string();
        assert!(e.contains("surprise"), "{e}");
    }

    #[test]
    fn unknown_lock_version_is_invalid() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(LOCK_FILE);
        std::fs::write(&path, "lockVersion: 9\n").unwrap();
        assert!(matches!(read(&path), Err(Error::Invalid { .. })));
    }
}
