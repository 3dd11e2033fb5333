//! The file rules: what the installer reads from `manifests/` and `openshift/`, and whether each
//! file decodes as exactly one object the way cluster-bootstrap decodes it.
//!
//! openshift-install reads `manifests/*.yaml`, `*.yml` and `*.json` (`Manifests.Load`) and the
//! same globs of `openshift/` (`Openshift.Load`, openshift/installer
//! `pkg/asset/manifests/openshift.go`), case-sensitively; any other file is left out of the
//! bootstrap silently, which `check` reports as `file-ignored`. bootkube.sh copies `openshift/*`
//! over `manifests/`, and cluster-bootstrap decodes each file's first YAML document only
//! (library-go `pkg/assets/create/creater.go`, yaml.v2 `YAMLToJSON`).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::yaml::{self, Document};
use super::{Dir, ManifestFile, Sink, str_at};
use crate::rules::{Installer, Severity};

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

/// The extensions openshift-install reads from `manifests/` and `openshift/`, exactly (Go's
/// `filepath.Glob` is case-sensitive: `x.YAML` is not read).
const READ_EXTENSIONS: [&str; 3] = [".yaml", ".yml", ".json"];

/// Whether openshift-install reads a file of this name: `manifests/*.yaml`, `*.yml`, `*.json`
/// (`Manifests.Load`, openshift/installer `pkg/asset/manifests/operators.go`) and the same three
/// globs of `openshift/` (`Openshift.Load`, `pkg/asset/manifests/openshift.go`, read at commit
/// 025c622). A real 4.15 `openshift-install create ignition-configs` left `probe.txt` and
/// `probe-upper.YAML` out of the bootstrap silently (issue 33). Go's `*` matches a leading dot.
fn read_by_openshift_install(name: &str) -> bool {
    READ_EXTENSIONS.iter().any(|e| name.ends_with(e))
}

/// How the chosen installer treats a file name in a folder.
enum Reading {
    /// The installer reads it.
    Read,
    /// The installer never reads it (rule `file-ignored`, with why).
    Ignored(String),
    /// The installer refuses it (rule and why).
    Refused(&'static str, &'static str),
    /// An assisted-service patch: applied to another manifest, not an object itself.
    Patch,
}

/// Why openshift-install leaves `name` in `dir` out of the bootstrap.
fn ignored_by_openshift_install(dir: Dir, name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    let case = READ_EXTENSIONS
        .iter()
        .find(|e| lower.ends_with(*e))
        .map(|e| format!(" (the extension is matched case-sensitively: rename it to end in {e})"))
        .unwrap_or_default();
    format!(
        "openshift-install reads only {0}/*.yaml, {0}/*.yml and {0}/*.json{case}: this file never reaches the bootstrap and is never applied",
        dir.name()
    )
}

fn reading(installer: Installer, dir: Dir, name: &str) -> Reading {
    match installer {
        Installer::OpenshiftInstall => {
            if read_by_openshift_install(name) {
                Reading::Read
            } else {
                Reading::Ignored(ignored_by_openshift_install(dir, name))
            }
        }
        // Go's filepath.Glob is case-sensitive: `*.yaml` and `*.yml` only.
        Installer::Agent => match dir {
            Dir::Manifests => Reading::Ignored(
                "the Agent-based installer reads extra manifests from openshift/*.yaml and openshift/*.yml only: this file is never applied".into(),
            ),
            Dir::Openshift if name.ends_with(".yaml") || name.ends_with(".yml") => Reading::Read,
            Dir::Openshift => Reading::Ignored(
                "not a .yaml or .yml file (matched case-sensitively): the Agent-based installer embeds only openshift/*.yaml and openshift/*.yml, so this file is never applied".into(),
            ),
        },
        // filepath.Ext is case-sensitive too.
        Installer::Assisted => {
            let ext = name.rfind('.').map(|i| &name[i..]).unwrap_or("");
            if name.contains(' ') {
                Reading::Refused(
                    "file-name",
                    "the name has a space: assisted-service refuses the upload",
                )
            } else if READ_EXTENSIONS.contains(&ext) {
                Reading::Read
            } else if ext.starts_with(".patch") {
                Reading::Patch
            } else {
                Reading::Refused(
                    "file-type",
                    "not a .yaml, .yml, .json or .patch file (extensions are matched case-sensitively): assisted-service refuses to upload it as a custom manifest",
                )
            }
        }
    }
}

/// An entry's metadata without leaving `root`: a symbolic link is followed only when its
/// target is inside `root` (`real_root` is `root` canonicalized); otherwise why not.
fn confined_metadata(
    path: &Path,
    real_root: &Path,
    root: &Path,
) -> Result<std::fs::Metadata, String> {
    let meta = path
        .symlink_metadata()
        .map_err(|e| format!("cannot be read: {e}"))?;
    if !meta.file_type().is_symlink() {
        return Ok(meta);
    }
    match path.canonicalize() {
        Ok(real) if real.starts_with(real_root) => std::fs::metadata(&real)
            .map_err(|e| format!("a symbolic link whose target cannot be read: {e}")),
        Ok(_) => Err(format!(
            "a symbolic link that leaves {}: not followed, not read",
            root.display()
        )),
        Err(_) => Err("a symbolic link to nothing (or to what cannot be reached): not read".into()),
    }
}

/// A placeholder for an entry that has no usable name or is a folder itself.
fn entry(dir: Dir, name: String) -> ManifestFile {
    ManifestFile {
        dir,
        name,
        text: String::new(),
        size: 0,
        operator: None,
        role: None,
        planned: false,
    }
}

/// Read the files of `dir/manifests` and `dir/openshift` the installer would read, reporting
/// the ones it cannot use (subdirectories, dotfiles, other extensions, oversized files) and the
/// ones that cannot be read at all: every entry is looked at with `lstat`, a symbolic link is
/// followed only inside `dir`, and only regular files are opened (never a FIFO or a device).
/// Each such entry is one `unreadable` problem; the rest is still read. `manifests/` or
/// `openshift/` itself, a symbolic link out of `dir`, is read only with `follow_links`, as
/// `create` writes it ([`crate::fsread::own_folder`]); its entries then stay inside it.
pub(crate) fn read_dir(
    dir: &Path,
    installer: Installer,
    follow_links: bool,
    sink: &mut Sink,
) -> Result<Vec<ManifestFile>, Error> {
    let real_dir = dir.canonicalize().map_err(|source| Error {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut out = Vec::new();
    for sub in [Dir::Manifests, Dir::Openshift] {
        let folder = entry(sub, String::new());
        match dir.join(sub.name()).symlink_metadata() {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            _ => {}
        }
        let own = match crate::fsread::own_folder(dir, sub.name(), follow_links) {
            Ok(own) => own,
            Err(e) => {
                sink.push("unreadable", &folder, 0, None, format!("not read: {e}"));
                continue;
            }
        };
        let (path, root) = (own.path, own.root.as_path());
        let real_root = if own.followed {
            path.clone()
        } else {
            real_dir.clone()
        };
        if let Err(why) = confined_metadata(&path, &real_root, root) {
            sink.push("unreadable", &folder, 0, None, why);
            continue;
        }
        let entries = match std::fs::read_dir(&path) {
            Ok(e) => e,
            Err(e) => {
                sink.push(
                    "unreadable",
                    &folder,
                    0,
                    None,
                    format!("the folder cannot be listed: {e}"),
                );
                continue;
            }
        };
        let mut names = Vec::new();
        for e in entries {
            match e {
                Ok(e) => names.push(e.file_name()),
                Err(e) => sink.push(
                    "unreadable",
                    &folder,
                    0,
                    None,
                    format!("the folder cannot be listed: {e}"),
                ),
            }
        }
        names.sort();
        for os_name in names {
            let Some(name) = os_name.to_str().map(str::to_string) else {
                let file = entry(sub, os_name.to_string_lossy().into_owned());
                sink.push("unreadable", &file, 0, None, "the name is not UTF-8: not read (assisted-service and Kubernetes tooling need UTF-8 names; rename it)".into());
                continue;
            };
            let file_path = path.join(&name);
            let mut file = entry(sub, name.clone());
            let meta = match confined_metadata(&file_path, &real_root, root) {
                Ok(m) => m,
                Err(why) => {
                    sink.push("unreadable", &file, 0, None, why);
                    continue;
                }
            };
            file.size = meta.len();
            if meta.is_dir() {
                match installer {
                    // The glob matches a folder named like a manifest, and os.ReadFile fails on it.
                    Installer::OpenshiftInstall if read_by_openshift_install(&name) => sink.push("subdirectory", &file, 0, None, format!("a directory named like a manifest in {}/: openshift-install's glob matches it and reading it fails the ignition assets", sub.name())),
                    Installer::Assisted => sink.push("subdirectory", &file, 0, None, "a directory: custom manifests are files, and assisted-service refuses a name with a folder in it".into()),
                    _ => sink.push("file-ignored", &file, 0, None, format!("a directory in {}/: the installer does not read folders, so its files are never applied", sub.name())),
                }
                continue;
            }
            match reading(installer, sub, &name) {
                Reading::Read => {}
                Reading::Ignored(why) => {
                    sink.push("file-ignored", &file, 0, None, why);
                    continue;
                }
                Reading::Refused(rule, why) => {
                    sink.push(rule, &file, 0, None, why.into());
                    continue;
                }
                Reading::Patch => {
                    sink.push_as("file-ignored", Severity::Note, &file, 0, None, "a patch: assisted-service applies it to the manifest it names; not checked as an object".into());
                    continue;
                }
            }
            if !meta.is_file() {
                sink.push(
                    "unreadable",
                    &file,
                    0,
                    None,
                    format!("{}: not read", crate::fsread::kind_of(&meta.file_type())),
                );
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
            let bytes = match crate::fsread::read(&file_path, MAX_DECODE_BYTES, Some(root)) {
                Ok(b) => b,
                Err(e) => {
                    sink.push("unreadable", &file, 0, None, format!("cannot be read: {e}"));
                    continue;
                }
            };
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

/// Whether the installer splits this file into one file per document: assisted-service splits
/// user manifests whose extension is `.yaml` or `.yml` exactly (Go `filepath.Ext`, so not
/// `.YAML`, and never `.json`), for the Agent-based and the Assisted Installer.
fn split_by(installer: Installer, file: &ManifestFile) -> bool {
    installer.splits_documents() && (file.name.ends_with(".yaml") || file.name.ends_with(".yml"))
}

/// `Kind namespace/name (line N)` of a document, or `a document at line N` when it has none.
fn describe_document(doc: &Document) -> String {
    let v = &doc.value;
    match (str_at(v, "/kind"), str_at(v, "/metadata/name")) {
        (Some(kind), Some(name)) => {
            let ns = str_at(v, "/metadata/namespace")
                .filter(|n| !n.is_empty())
                .map(|n| format!("{n}/"))
                .unwrap_or_default();
            format!("{kind} {ns}{name} (line {})", doc.line(""))
        }
        _ => format!("a document at line {}", doc.line("")),
    }
}

/// Decode every file as the installer would, reporting what it cannot create, and return the
/// objects it would create. With openshift-install that is the first document of each file
/// (cluster-bootstrap); with the Agent-based or the Assisted Installer every non-empty document
/// of a `.yaml`/`.yml` file, as assisted-service's split makes it. Also reports file names that
/// clash.
pub(crate) fn objects<'f>(
    files: &'f [ManifestFile],
    installer: Installer,
    sink: &mut Sink,
) -> Vec<Object<'f>> {
    let mut out = Vec::new();
    // The files are parsed on every core (a run's own manifests are most of the check's
    // time); what they hold is then checked in order.
    let parsed: Vec<Result<Vec<Document>, String>> = {
        use rayon::prelude::*;
        files.par_iter().map(|f| yaml::parse(&f.text)).collect()
    };
    let in_openshift: std::collections::HashSet<&str> = files
        .iter()
        .filter(|f| f.dir == Dir::Openshift)
        .map(|f| f.name.as_str())
        .collect();
    for (file, parsed) in files.iter().zip(parsed) {
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
        if file.dir == Dir::Manifests && in_openshift.contains(file.name.as_str()) {
            let why = if installer == Installer::Assisted {
                "assisted-service refuses a custom manifest whose name is already used in the other folder"
            } else {
                "bootkube.sh copies openshift/* over manifests/, so this file is replaced"
            };
            sink.push(
                "name-clash",
                file,
                0,
                None,
                format!("openshift/{} has the same name: {why}", file.name),
            );
        }
        let docs = match parsed {
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
        if docs.is_empty() {
            sink.push("decode", file, 0, None, "holds no object".into());
            continue;
        }
        let landed = if installer == Installer::Agent && file.dir == Dir::Openshift {
            agent_landing(file, &docs, sink)
        } else {
            docs.len()
        };
        let split = docs.len() > 1 && split_by(installer, file);
        let docs = if split {
            let (who, first) = if installer == Installer::Agent {
                (
                    "the Agent-based installer writes it as",
                    landed_name(&file.name, 0),
                )
            } else {
                (
                    "assisted-service splits it into",
                    file.name
                        .rsplit_once('.')
                        .map(|(s, e)| format!("{s}-<token>-00.{e}"))
                        .unwrap_or_default(),
                )
            };
            sink.push_as(
                "one-object-per-file",
                Severity::Note,
                file,
                docs[1].line(""),
                None,
                format!("holds {} YAML documents; {who} {} files ({first}, …), one object each, and each is checked as the object it is", docs.len(), landed.max(docs.len())),
            );
            docs
        } else {
            if docs.len() > 1 {
                let dropped: Vec<String> = docs[1..].iter().map(describe_document).collect();
                sink.push(
                    "one-object-per-file",
                    file,
                    docs[1].line(""),
                    None,
                    format!("holds {} YAML documents; cluster-bootstrap creates only the first and drops the others silently: {}; write one object per file (or check with --installer agent|assisted if that installer reads this directory)", docs.len(), dropped.join(", ")),
                );
            }
            docs.into_iter().take(1).collect()
        };
        for doc in docs {
            if let Some(o) = object(file, doc, !split, sink) {
                out.push(o);
            }
        }
    }
    out
}

/// The name the Agent-based installer gives document `n` (from 0) of `name` in
/// `/etc/assisted/extra-manifests/`: `STEM-n.EXT`, every document of every file, one alone
/// too (openshift/installer `pkg/asset/agent/image/ignition.go`, `addExtraManifests`: `fmt.Sprintf
/// ("%s-%d%s", base, n, filepath.Ext(name))`).
pub fn landed_name(name: &str, n: usize) -> String {
    match name.rfind('.') {
        Some(i) if i > 0 => format!("{}-{n}{}", &name[..i], &name[i..]),
        _ => format!("{name}-{n}"),
    }
}

/// The largest integer a 64-bit float holds exactly (2^53).
const EXACT_IN_F64: u64 = 1 << 53;

/// What the Agent-based installer does to a file of `openshift/` that a plain read does not
/// show: it reads the file with apimachinery's `YAMLToJSONDecoder` (a document is whatever lies
/// between two `---` lines, so a document of comments or blank lines only is kept, and lands as
/// `{}`), decodes each into `map[string]interface{}` through `encoding/json` (every number a
/// float64) and writes it again with `yaml.Marshal` (keys sorted, comments and quotes gone).
/// The objects keep their meaning but for an integer past 2^53, which lands rounded.
/// Returns how many files the file lands as.
fn agent_landing(file: &ManifestFile, docs: &[Document], sink: &mut Sink) -> usize {
    let mut chunks: Vec<(usize, usize)> = Vec::new();
    let mut start: Option<usize> = None;
    let lines: Vec<&str> = file.text.split_inclusive('\n').collect();
    for (i, line) in lines.iter().enumerate() {
        let n = i + 1;
        if let Some(rest) = line.strip_prefix("---") {
            let rest = rest.trim();
            if rest.is_empty() || rest.starts_with('#') {
                if let Some(s) = start.take() {
                    chunks.push((s, n - 1));
                }
                continue;
            }
        }
        start.get_or_insert(n);
    }
    if let Some(s) = start {
        chunks.push((s, lines.len()));
    }
    for (index, (first, last)) in chunks.iter().enumerate() {
        if !docs.iter().any(|d| (*first..=*last).contains(&d.line(""))) {
            sink.push("type-meta", file, *first, None, format!("lines {first}–{last} hold no object (only comments or blank lines) between two `---`: the Agent-based installer keeps them as a document and writes {} holding `{{}}`, which cluster-bootstrap cannot create; remove them", landed_name(&file.name, index)));
        }
    }
    for doc in docs {
        let mut big = Vec::new();
        large_integers(&doc.value, String::new(), &mut big);
        for pointer in big {
            let value = doc
                .value
                .pointer(&pointer)
                .map(Value::to_string)
                .unwrap_or_default();
            sink.push("reserialized-number", file, doc.line(&pointer), None, format!("{} is {value}, past 2^53: the Agent-based installer reads every number as a 64-bit float and writes it back rounded; quote it if it is text", super::pointer_field(&pointer)));
        }
    }
    chunks.len()
}

fn large_integers(v: &Value, pointer: String, out: &mut Vec<String>) {
    match v {
        Value::Number(n) => {
            let exact = n
                .as_u64()
                .map(|u| u <= EXACT_IN_F64)
                .or_else(|| n.as_i64().map(|i| i.unsigned_abs() <= EXACT_IN_F64));
            if exact == Some(false) {
                out.push(pointer);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                large_integers(item, format!("{pointer}/{i}"), out);
            }
        }
        Value::Object(map) => {
            for (k, item) in map {
                large_integers(item, format!("{pointer}/{}", super::yaml::escape(k)), out);
            }
        }
        _ => {}
    }
}

/// One document as the object it would be created as, or the problem that stops it.
/// `whole_file`: the document is the file (so the file's name counts).
fn object<'f>(
    file: &'f ManifestFile,
    doc: Document,
    whole_file: bool,
    sink: &mut Sink,
) -> Option<Object<'f>> {
    if !doc.value.is_object() {
        sink.push(
            "decode",
            file,
            doc.line(""),
            None,
            "the document is not a mapping (an object with apiVersion and kind)".into(),
        );
        return None;
    }
    let v = &doc.value;
    let kind = str_at(v, "/kind").unwrap_or("");
    if kind == "List" || (kind.ends_with("List") && v.get("items").is_some_and(Value::is_array)) {
        sink.push("list-kind", file, doc.line("/kind"), None, format!("a {kind}: cluster-bootstrap does not expand lists (nor does assisted-service's split); write each item as its own object"));
        return None;
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
        return None;
    }
    let (group, version) = split_api_version(str_at(v, "/apiVersion").unwrap_or(""));
    let name = str_at(v, "/metadata/name").unwrap_or("").to_string();
    let namespace = str_at(v, "/metadata/namespace")
        .filter(|n| !n.is_empty())
        .map(str::to_string);
    if whole_file
        && let Some(expected) = reserved_kind(file.dir, &file.name)
        && expected != kind
    {
        sink.push("name-clash", file, doc.line("/kind"), None, format!("{} is a file name the installer writes (a {expected}); this {kind} replaces it or is read as the installer's own: rename the file", file.name));
    }
    let kind = kind.to_string();
    Some(Object {
        file,
        group,
        version,
        kind,
        name,
        namespace,
        doc,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, text: &str) -> ManifestFile {
        ManifestFile {
            dir: Dir::Manifests,
            name: name.into(),
            text: text.into(),
            size: text.len() as u64,
            operator: None,
            role: None,
            planned: false,
        }
    }

    fn split(
        name: &str,
        text: &str,
        installer: Installer,
    ) -> (Vec<String>, Vec<super::super::Problem>) {
        let files = [file(name, text)];
        let mut sink = Sink::default();
        let objects = objects(&files, installer, &mut sink);
        let labels = objects
            .iter()
            .map(|o| format!("{}@{}", o.label(), o.line("")))
            .collect();
        (labels, sink.problems)
    }

    const CM: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ";

    /// The split rules of assisted-service (`expandMultiDocYaml`: yaml.v2 Decoder, documents
    /// that decode to nil skipped), each against openshift-install's first-document rule.
    #[test]
    fn documents_are_split_as_assisted_service_splits_them() {
        // Empty documents, `---` followed by a comment, a document of comments only, a
        // trailing `---`: only the two objects count.
        let text = format!(
            "# header\n---\n---   # a comment after the marker\n{CM}a\n---\n# only a comment\n---\n\n---\n{CM}b\n---\n"
        );
        for installer in [Installer::Agent, Installer::Assisted] {
            let (objects, problems) = split("x.yaml", &text, installer);
            assert_eq!(objects, ["ConfigMap a@4", "ConfigMap b@13"], "{problems:?}");
            assert_eq!(problems.len(), 1, "{problems:?}");
            assert_eq!(problems[0].rule, "one-object-per-file");
            assert_eq!(problems[0].severity, Severity::Note);
            assert!(
                problems[0].message.contains("2 files"),
                "{}",
                problems[0].message
            );
        }
        let (objects, problems) = split("x.yaml", &text, Installer::OpenshiftInstall);
        assert_eq!(objects, ["ConfigMap a@4"]);
        assert_eq!(problems[0].severity, Severity::Error);
        assert!(
            problems[0].message.contains("ConfigMap b (line 13)"),
            "{}",
            problems[0].message
        );
        // One object among empty documents: not split, no note.
        let (objects, problems) =
            split("x.yml", &format!("---\n{CM}a\n---\n"), Installer::Assisted);
        assert_eq!(objects, ["ConfigMap a@2"]);
        assert!(problems.is_empty(), "{problems:?}");
    }

    #[test]
    fn a_list_is_not_expanded_by_the_split() {
        let text = format!("apiVersion: v1\nkind: List\nitems:\n- {{}}\n---\n{CM}a\n");
        let (objects, problems) = split("x.yaml", &text, Installer::Assisted);
        assert_eq!(objects, ["ConfigMap a@6"]);
        let rules: Vec<&str> = problems.iter().map(|p| p.rule).collect();
        assert_eq!(rules, ["one-object-per-file", "list-kind"]);
    }

    #[test]
    fn only_yaml_and_yml_files_are_split() {
        let text = format!("{CM}a\n---\n{CM}b\n");
        for name in ["x.json", "x.YAML"] {
            let (objects, problems) = split(name, &text, Installer::Assisted);
            assert_eq!(objects, ["ConfigMap a@1"], "{name}");
            assert_eq!(problems[0].severity, Severity::Error, "{name}");
        }
        let (objects, _) = split("x.yml", &text, Installer::Agent);
        assert_eq!(objects.len(), 2);
    }

    #[test]
    fn each_document_is_checked_as_an_object_of_its_own() {
        let text = format!("{CM}a\n---\nkind: Secret\n---\n- 1\n");
        let (objects, problems) = split("x.yaml", &text, Installer::Assisted);
        assert_eq!(objects, ["ConfigMap a@1"]);
        let found: Vec<(&str, usize)> = problems.iter().map(|p| (p.rule, p.line)).collect();
        assert_eq!(
            found,
            [("one-object-per-file", 6), ("type-meta", 6), ("decode", 8)]
        );
    }

    proptest::proptest! {
        /// However objects are separated (empty documents, comment-only documents, comments
        /// after `---`), the split finds exactly the objects, each at the line it starts on; and
        /// openshift-install keeps the first and names every other.
        #[test]
        fn the_split_finds_every_object_at_its_line(
            fillers in proptest::collection::vec(proptest::collection::vec(0u8..3, 0..3), 1..6),
        ) {
            let mut text = String::new();
            let mut expected = Vec::new();
            for (i, filler) in fillers.iter().enumerate() {
                for f in filler {
                    text.push_str(match f {
                        0 => "---\n",
                        1 => "---\n# only a comment\n",
                        _ => "--- # a comment\n\n",
                    });
                }
                text.push_str("---\n");
                expected.push(format!("ConfigMap c{i}@{}", text.lines().count() + 1));
                text.push_str(&format!("{CM}c{i}\n"));
            }
            let (objects, problems) = split("x.yaml", &text, Installer::Assisted);
            proptest::prop_assert_eq!(&objects, &expected);
            proptest::prop_assert!(problems.iter().all(|p| p.severity == Severity::Note));
            let (first, problems) = split("x.yaml", &text, Installer::OpenshiftInstall);
            proptest::prop_assert_eq!(&first[..], &expected[..1]);
            if expected.len() > 1 {
                let message = &problems[0].message;
                for i in 1..expected.len() {
                    let named = format!("ConfigMap c{i} (line");
                    proptest::prop_assert!(message.contains(&named), "{}", message);
                }
            }
        }
    }
}
