//! A deterministic generator of large, realistic File-Based Catalogs for benchmarks.
//!
//! The content is synthetic (no upstream data is copied) but shaped like the real catalogs in
//! `../shared/realdata`: packages with several channels (`stable`, one per major, `fast`),
//! `replaces` chains with `skips` (some naming bundles absent from the catalog, as Red Hat's
//! do) and `skipRange`s, `olm.deprecations` for old channels and bundles, `olm.gvk`,
//! `olm.maxOpenShiftVersion` and a few `olm.package.required` properties, related images by
//! digest, and `olm.bundle.object` blobs: a ClusterServiceVersion with deployments,
//! permissions, cluster permissions, `alm-examples` and an icon, CRDs with large
//! `openAPIV3Schema`s, and sometimes a Service.
//!
//! Package `i`'s content depends only on the seed, `i` and the catalog's size class, so the
//! output is byte-identical from run to run. Sizes are approximate: packages are added until
//! the target is reached.
//!
//! Shared by the benchmark harness (`benches/perf/main.rs`) and the smoke test in
//! `tests/it/catalog.rs`, which includes this file by path.

#![allow(dead_code)]

use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use base64::Engine as _;
use serde::Serialize;
use serde_json::{Value, json};

/// How the catalog is laid out on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One `catalog.json` with every package, pretty-printed like `opm render`.
    File,
    /// `<package>/catalog.json` per package, pretty-printed (the layout of catalog images).
    Dir,
    /// One `catalog.jsonl`, one compact document per line (catalogd's `all.json`).
    Lines,
    /// `<package>/catalog.yaml` per package, bundles with `olm.csv.metadata` instead of
    /// `olm.bundle.object`: the shape of the community catalogs for OpenShift 4.17 and later
    /// (`catalogs/v4.20/<package>/catalog.yaml`: 32.6 MB, 1,458 bundles, about 4 bundles of
    /// 20 KB per package).
    Yaml,
    /// The same documents in one `catalog.yaml` (one large multi-document file).
    YamlFile,
    /// `<package>/catalog.yaml` per package, bundles with their manifests embedded as base64
    /// `olm.bundle.object`s (large documents, about 120 KB): the shape of the community and
    /// certified catalogs for OpenShift 4.16 and earlier (72 MB, 582 bundles).
    YamlObjects,
    /// A shape, not a size (issue 26 item 9): one package with `size` channels (the size is
    /// a count), each listing one of [`SHAPE_CHANNEL_BUNDLES`] bundles, in one JSON-lines
    /// `catalog.jsonl`.
    Channels,
    /// A shape: `size` tiny bundles (the size is a count) in packages of
    /// [`SHAPE_PACKAGE_BUNDLES`], each package with one channel whose `replaces` chain lists
    /// them all; about 280 bytes per bundle with its channel entry, like the issue's 1e6
    /// bundles in 278 MB. One JSON-lines `catalog.jsonl`.
    Bundles,
}

impl Layout {
    /// Parse `file`, `dir` or `jsonl`.
    pub fn parse(s: &str) -> Option<Layout> {
        Some(match s {
            "file" => Layout::File,
            "dir" => Layout::Dir,
            "jsonl" | "lines" => Layout::Lines,
            "yaml" => Layout::Yaml,
            "yaml-file" => Layout::YamlFile,
            "yaml-objects" => Layout::YamlObjects,
            "channels" => Layout::Channels,
            "bundles" => Layout::Bundles,
            _ => return None,
        })
    }
    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Layout::File => "file",
            Layout::Dir => "dir",
            Layout::Lines => "jsonl",
            Layout::Yaml => "yaml",
            Layout::YamlFile => "yaml-file",
            Layout::YamlObjects => "yaml-objects",
            Layout::Channels => "channels",
            Layout::Bundles => "bundles",
        }
    }

    /// Whether `size` counts channels or bundles (a shape) rather than bytes.
    pub fn is_shape(self) -> bool {
        matches!(self, Layout::Channels | Layout::Bundles)
    }

    /// Whether documents are written as YAML.
    pub fn is_yaml(self) -> bool {
        matches!(self, Layout::Yaml | Layout::YamlFile | Layout::YamlObjects)
    }

    /// Whether bundles carry `olm.csv.metadata` instead of their manifests.
    pub fn csv_metadata(self) -> bool {
        matches!(self, Layout::Yaml | Layout::YamlFile)
    }

    /// Whether each package is a `<package>/catalog.{json,yaml}` of a directory.
    fn per_package(self) -> bool {
        matches!(self, Layout::Dir | Layout::Yaml | Layout::YamlObjects)
    }

    /// The catalog path under the output directory.
    pub fn catalog_path(self, out: &Path) -> PathBuf {
        match self {
            Layout::Dir | Layout::Yaml | Layout::YamlObjects => out.join("catalog"),
            Layout::File => out.join("catalog.json"),
            Layout::Lines | Layout::Channels | Layout::Bundles => out.join("catalog.jsonl"),
            Layout::YamlFile => out.join("catalog.yaml"),
        }
    }
}

/// What to generate.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    /// Approximate total size in bytes.
    pub size: u64,
    /// Seed.
    pub seed: u64,
    /// Layout.
    pub layout: Layout,
}

/// What was generated.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The catalog path (a file or a directory).
    pub catalog: PathBuf,
    /// Bytes written.
    pub bytes: u64,
    /// Package names, in generation order.
    pub packages: Vec<String>,
    /// Bundles written.
    pub bundles: usize,
    /// Packages whose newest bundle installs everywhere (no dependencies), for benchmarks
    /// that resolve operators.
    pub installable: Vec<String>,
}

impl Generated {
    /// Up to `n` installable packages spread evenly over the catalog.
    pub fn pick_operators(&self, n: usize) -> Vec<String> {
        let all = &self.installable;
        if all.len() <= n {
            return all.clone();
        }
        (0..n).map(|k| all[k * all.len() / n].clone()).collect()
    }
}

/// splitmix64: small, fast and stable across platforms and crate versions.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed` and a stream number.
    pub fn new(seed: u64, stream: u64) -> Rng {
        let mut r = Rng(seed ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        r.next();
        r
    }
    /// Next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }
    /// `true` with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        ((self.next() >> 11) as f64 / (1u64 << 53) as f64) < p
    }
    /// One element.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.next() as usize % items.len()]
    }
    /// 64 hex digits (a sha256 digest).
    pub fn digest(&mut self) -> String {
        let mut s = String::with_capacity(64);
        for _ in 0..4 {
            write!(s, "{:016x}", self.next()).unwrap();
        }
        s
    }
}

const DOMAINS: &[&str] = &[
    "cert",
    "cloud",
    "storage",
    "network",
    "mesh",
    "logging",
    "metrics",
    "backup",
    "secrets",
    "ingress",
    "dns",
    "registry",
    "cache",
    "queue",
    "stream",
    "database",
    "search",
    "gateway",
    "policy",
    "audit",
    "compliance",
    "scheduler",
    "node",
    "gpu",
    "sriov",
    "ptp",
    "nfd",
    "lvm",
    "file",
    "object",
    "block",
    "vault",
    "identity",
    "tracing",
    "console",
    "pipeline",
    "build",
    "serverless",
    "service",
    "quota",
];
const FLAVOURS: &[&str] = &[
    "acme",
    "globex",
    "initech",
    "umbrella",
    "stark",
    "wayne",
    "tyrell",
    "cyberdyne",
    "aperture",
    "soylent",
    "hooli",
    "vandelay",
    "wonka",
    "oscorp",
    "massive",
    "dynamic",
];
const WORDS: &[&str] = &[
    "the",
    "operator",
    "manages",
    "lifecycle",
    "of",
    "cluster",
    "resources",
    "and",
    "reconciles",
    "desired",
    "state",
    "with",
    "observed",
    "configuration",
    "for",
    "each",
    "namespace",
    "when",
    "field",
    "is",
    "set",
    "controller",
    "creates",
    "a",
    "deployment",
    "service",
    "secret",
    "certificate",
    "default",
    "value",
    "must",
    "be",
    "unique",
    "within",
    "specifies",
    "how",
    "many",
    "replicas",
    "should",
    "run",
    "this",
    "selects",
    "nodes",
    "tolerations",
    "applied",
    "to",
    "pods",
    "template",
    "status",
    "conditions",
    "reported",
    "by",
    "latest",
    "generation",
    "endpoint",
    "used",
    "connect",
    "external",
    "storage",
    "backend",
    "retention",
    "period",
    "in",
    "days",
    "after",
    "which",
    "old",
    "data",
    "removed",
    "enables",
    "metrics",
    "exported",
    "via",
    "prometheus",
    "scrape",
    "interval",
    "seconds",
    "TLS",
    "settings",
    "API",
    "server",
];
const FIELD_WORDS: &[&str] = &[
    "replicas",
    "image",
    "resources",
    "storage",
    "size",
    "class",
    "retention",
    "tls",
    "secret",
    "endpoint",
    "port",
    "host",
    "path",
    "labels",
    "annotations",
    "selector",
    "tolerations",
    "affinity",
    "config",
    "mode",
    "level",
    "interval",
    "timeout",
    "enabled",
    "version",
    "name",
    "namespace",
    "policy",
    "rules",
    "targets",
    "backend",
    "bucket",
    "region",
    "credentials",
    "limits",
    "requests",
    "schedule",
    "suspend",
    "paused",
    "strategy",
    "volume",
    "claim",
];

fn sentence(rng: &mut Rng, words: usize) -> String {
    let mut s = String::with_capacity(words * 7);
    for i in 0..words {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(rng.pick(WORDS));
    }
    s.push('.');
    s
}

fn paragraph(rng: &mut Rng, bytes: usize) -> String {
    let mut s = String::with_capacity(bytes + 64);
    while s.len() < bytes {
        if !s.is_empty() {
            s.push(' ');
        }
        let n = rng.range(6, 18) as usize;
        let sen = sentence(rng, n);
        let mut c = sen.chars();
        if let Some(f) = c.next() {
            s.extend(f.to_uppercase());
            s.push_str(c.as_str());
        }
    }
    s
}

fn camel(a: &str, b: &str) -> String {
    let mut s = a.to_owned();
    let mut c = b.chars();
    if let Some(f) = c.next() {
        s.extend(f.to_uppercase());
        s.push_str(c.as_str());
    }
    s
}

fn capitalised(a: &str) -> String {
    camel("", a)
}

/// An `openAPIV3Schema` object of roughly `budget` bytes (descriptions are most of it, as in
/// real CRDs).
fn schema(rng: &mut Rng, budget: &mut isize, depth: usize) -> Value {
    let mut props = serde_json::Map::new();
    let n = rng.range(3, 9);
    for _ in 0..n {
        if *budget <= 0 {
            break;
        }
        let name = camel(rng.pick(FIELD_WORDS), rng.pick(FIELD_WORDS));
        let desc_len = rng.range(40, 400) as usize;
        let description = paragraph(rng, desc_len);
        *budget -= description.len() as isize + 60;
        let v = match rng.range(0, 9) {
            0..=2 if depth < 6 => {
                let mut o = schema(rng, budget, depth + 1);
                o["description"] = Value::String(description);
                o
            }
            3 if depth < 6 => {
                let mut items = schema(rng, budget, depth + 1);
                items["description"] = Value::String(paragraph(rng, 60));
                json!({"type": "array", "description": description, "items": items})
            }
            4 => {
                json!({"type": "integer", "format": "int32", "minimum": 0, "description": description})
            }
            5 => json!({"type": "boolean", "description": description}),
            6 => json!({
                "type": "string",
                "enum": ["Managed", "Unmanaged", "Removed"],
                "description": description,
            }),
            7 => json!({
                "anyOf": [{"type": "integer"}, {"type": "string"}],
                "x-kubernetes-int-or-string": true,
                "pattern": "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$",
                "description": description,
            }),
            _ => json!({"type": "string", "description": description}),
        };
        props.insert(name, v);
    }
    json!({"type": "object", "properties": props})
}

/// One owned API of a package.
#[derive(Debug, Clone)]
struct Api {
    group: String,
    kind: String,
    plural: String,
    version: String,
    /// The CRD, JSON, base64-encoded once and shared by every bundle of a major version.
    crd_b64: String,
}

fn crd(rng: &mut Rng, group: &str, kind: &str, plural: &str, versions: &[&str]) -> Value {
    let size_class = rng.range(0, 99);
    let target = match size_class {
        0..=64 => rng.range(4_000, 30_000),
        65..=94 => rng.range(30_000, 150_000),
        _ => rng.range(150_000, 600_000),
    } as isize;
    let per_version = target / versions.len() as isize;
    let vs: Vec<Value> = versions
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let mut budget = per_version;
            let mut spec = json!({"type": "object", "properties": {}});
            while budget > 0 {
                let part = schema(rng, &mut budget, 1);
                if let (Some(dst), Some(src)) = (
                    spec["properties"].as_object_mut(),
                    part["properties"].as_object(),
                ) {
                    for (k, val) in src {
                        dst.insert(k.clone(), val.clone());
                    }
                }
            }
            let mut status_budget = 2_000;
            let status = schema(rng, &mut status_budget, 3);
            json!({
                "name": v,
                "served": true,
                "storage": i + 1 == versions.len(),
                "schema": {"openAPIV3Schema": {
                    "description": format!("{kind} is the Schema for the {plural} API."),
                    "type": "object",
                    "properties": {
                        "apiVersion": {"type": "string", "description": "APIVersion defines the versioned schema of this representation of an object."},
                        "kind": {"type": "string", "description": "Kind is a string value representing the REST resource this object represents."},
                        "metadata": {"type": "object"},
                        "spec": spec,
                        "status": status,
                    },
                }},
                "subresources": {"status": {}},
                "additionalPrinterColumns": [
                    {"name": "Ready", "type": "string", "jsonPath": ".status.conditions[?(@.type==\"Ready\")].status"},
                    {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
                ],
            })
        })
        .collect();
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {
            "name": format!("{plural}.{group}"),
            "annotations": {"controller-gen.kubebuilder.io/version": "v0.14.0"},
        },
        "spec": {
            "group": group,
            "names": {
                "kind": kind,
                "listKind": format!("{kind}List"),
                "plural": plural,
                "singular": kind.to_lowercase(),
            },
            "scope": "Namespaced",
            "versions": vs,
        },
    })
}

fn b64(v: &Value) -> String {
    base64::engine::general_purpose::STANDARD.encode(serde_json::to_vec(v).unwrap())
}

#[derive(Debug, Clone)]
struct Version {
    major: u64,
    minor: u64,
    patch: u64,
    /// Red Hat style build stamp, `-202310201027`.
    stamp: Option<u64>,
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        if let Some(s) = self.stamp {
            write!(f, "-{s}")?;
        }
        Ok(())
    }
}

/// Everything of one package, as FBC documents in `opm render` order.
struct PackageDocs {
    name: String,
    docs: Vec<Value>,
    bundles: usize,
    installable: bool,
    /// Each bundle's registry+v1 content, when asked for.
    contents: Vec<BundleContent>,
}

/// One bundle's registry+v1 content, as a bundle image or an unpacked bundle holds it.
#[derive(Debug, Clone)]
pub struct BundleContent {
    /// The package.
    pub package: String,
    /// The bundle (CSV) name.
    pub name: String,
    /// The catalog's image reference for it.
    pub image: String,
    /// `manifests/…` (the CSV and its CRDs, as JSON, which is YAML) and
    /// `metadata/annotations.yaml`, relative paths and bytes.
    pub files: Vec<(String, Vec<u8>)>,
}

impl BundleContent {
    /// Write the files below `dir` (created).
    pub fn write(&self, dir: &Path) -> io::Result<()> {
        for (path, bytes) in &self.files {
            let file = dir.join(path);
            if let Some(parent) = file.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(file, bytes)?;
        }
        Ok(())
    }

    /// The files as one uncompressed tar, sorted by path, with fixed modes and times: the
    /// layer of a bundle image holding this content.
    pub fn layer_tar(&self) -> Vec<u8> {
        let mut files: Vec<&(String, Vec<u8>)> = self.files.iter().collect();
        files.sort();
        tar_of(files.into_iter().map(|(p, d)| (p.as_str(), d.as_slice())))
    }
}

/// An uncompressed tar of regular files (mode 0644, time 0) in the order given; GNU headers,
/// so names longer than a plain header holds get long-name entries.
pub fn tar_of<'a>(files: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> Vec<u8> {
    let mut tar = tar::Builder::new(Vec::new());
    for (path, data) in files {
        let mut h = tar::Header::new_gnu();
        h.set_entry_type(tar::EntryType::Regular);
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_mtime(0);
        tar.append_data(&mut h, path, data)
            .expect("a tar in memory");
    }
    tar.into_inner().expect("a tar in memory")
}

/// The registry+v1 files of one generated bundle.
fn bundle_files(package: &str, csv: &Value, apis: &[Api]) -> Vec<(String, Vec<u8>)> {
    let name = csv["metadata"]["name"].as_str().unwrap_or_default();
    let mut files = vec![
        (
            "metadata/annotations.yaml".to_string(),
            format!(
                "annotations:\n  operators.operatorframework.io.bundle.mediatype.v1: registry+v1\n  operators.operatorframework.io.bundle.manifests.v1: manifests/\n  operators.operatorframework.io.bundle.metadata.v1: metadata/\n  operators.operatorframework.io.bundle.package.v1: {package}\n  operators.operatorframework.io.bundle.channels.v1: stable\n"
            )
            .into_bytes(),
        ),
        (
            format!("manifests/{name}.clusterserviceversion.yaml"),
            serde_json::to_vec_pretty(csv).unwrap(),
        ),
    ];
    for a in apis {
        files.push((
            format!("manifests/{}.{}.crd.yaml", a.plural, a.group),
            base64::engine::general_purpose::STANDARD
                .decode(&a.crd_b64)
                .unwrap(),
        ));
    }
    files
}

/// Bytes per bundle, measured on generated catalogs (used to size packages).
const BUNDLE_BYTES: u64 = 260_000;

/// Bytes per bundle of a YAML (`olm.csv.metadata`) catalog.
const YAML_BUNDLE_BYTES: u64 = 20_000;

/// Bytes per bundle of a YAML catalog with embedded manifests.
const YAML_OBJECTS_BUNDLE_BYTES: u64 = 125_000;

/// The `olm.csv.metadata` value of a CSV (operator-registry `property.CSVMetadata`: the CSV's
/// annotations and the descriptive part of its spec; no install strategy, no CRDs, no icon).
fn csv_metadata(csv: &Value) -> Value {
    let spec = &csv["spec"];
    let mut m = serde_json::Map::new();
    m.insert("annotations".into(), csv["metadata"]["annotations"].clone());
    m.insert("apiServiceDefinitions".into(), json!({}));
    m.insert(
        "crdDescriptions".into(),
        spec["customresourcedefinitions"].clone(),
    );
    for k in [
        "description",
        "displayName",
        "installModes",
        "keywords",
        "links",
        "maintainers",
        "maturity",
        "minKubeVersion",
        "provider",
    ] {
        m.insert(k.into(), spec[k].clone());
    }
    Value::Object(m)
}

fn package(
    seed: u64,
    index: u64,
    mean_bundles: f64,
    csv_meta: bool,
    with_contents: bool,
) -> PackageDocs {
    let mut rng = Rng::new(seed, index + 1);
    let domain = rng.pick(DOMAINS);
    let flavour = rng.pick(FLAVOURS);
    let name = format!("{flavour}-{domain}-operator-{index:04}");
    let group = format!("{domain}.{flavour}.example.com");
    let red_hat_style = rng.chance(0.3);
    let has_deps = rng.chance(0.08);

    // Bundle count: 0.25× to 2× the mean, at least one.
    let factor = 0.25 + (rng.next() % 1000) as f64 / 1000.0 * 1.75;
    let n = ((mean_bundles * factor).round() as usize).max(1);
    let mut versions = Vec::with_capacity(n);
    let mut v = Version {
        major: rng.range(0, 2),
        minor: rng.range(0, 12),
        patch: 0,
        stamp: None,
    };
    let mut stamp = 202_301_010_000 + rng.range(0, 9_000_000);
    for k in 0..n {
        if k > 0 {
            match rng.range(0, 99) {
                0..=59 => v.patch += 1,
                60..=91 => {
                    v.minor += 1;
                    v.patch = 0
                }
                _ => {
                    v.major += 1;
                    v.minor = 0;
                    v.patch = 0
                }
            }
        }
        if red_hat_style {
            stamp += rng.range(10_000, 3_000_000);
            v.stamp = Some(stamp);
        }
        versions.push(v.clone());
    }
    let majors: Vec<u64> = {
        let mut m: Vec<u64> = versions.iter().map(|v| v.major).collect();
        m.dedup();
        m
    };

    // APIs: per major version, the same CRDs (content shared between bundles, as in real
    // catalogs where a CRD changes rarely).
    let n_apis = rng.range(1, 5) as usize;
    let api_names: Vec<(String, String)> = (0..n_apis)
        .map(|k| {
            let kind = format!(
                "{}{}",
                capitalised(rng.pick(FIELD_WORDS)),
                capitalised(if k == 0 {
                    domain
                } else {
                    rng.pick(FIELD_WORDS)
                })
            );
            let plural = format!("{}s", kind.to_lowercase());
            (kind, plural)
        })
        .collect::<std::collections::BTreeMap<_, _>>()
        .into_iter()
        .collect();
    let apis_by_major: Vec<Vec<Api>> = majors
        .iter()
        .map(|&major| {
            api_names
                .iter()
                .map(|(kind, plural)| {
                    let served: &[&str] = if major == 0 {
                        &["v1alpha1"]
                    } else if major == 1 {
                        &["v1alpha1", "v1beta1"]
                    } else {
                        &["v1beta1", "v1"]
                    };
                    let crd = crd(&mut rng, &group, kind, plural, served);
                    Api {
                        group: group.clone(),
                        kind: kind.clone(),
                        plural: plural.clone(),
                        version: served.last().unwrap().to_string(),
                        crd_b64: b64(&crd),
                    }
                })
                .collect()
        })
        .collect();

    // The community catalogs' descriptions (csv metadata) are longer than Red Hat's: their
    // bundles average about 20 KB.
    let description_len = if csv_meta {
        rng.range(5_000, 14_000)
    } else {
        rng.range(800, 4_000)
    } as usize;
    let description = paragraph(&mut rng, description_len);
    let icon = base64::engine::general_purpose::STANDARD.encode(format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 64 64\"><title>{name}</title>{}</svg>",
        (0..rng.range(20, 80))
            .map(|k| format!("<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"#{:06x}\"/>", k % 64, (k * 7) % 64, 1 + k % 9, rng.next() & 0xff_ffff))
            .collect::<String>()
    ));
    let bundle_name = |v: &Version| format!("{name}.v{v}");
    let registry = format!("registry.example.com/{flavour}");

    let mut docs = Vec::new();
    let default_channel = "stable".to_string();
    docs.push(json!({
        "schema": "olm.package",
        "name": name,
        "defaultChannel": default_channel,
        "icon": {"base64data": icon, "mediatype": "image/svg+xml"},
        "description": description,
    }));

    // Channels: `stable` (everything), `stable-vN` per major, `fast` (the newest few, plus a
    // skipRange on each entry).
    // A bundle may skip its predecessor (a bad release pulled from the upgrade path) and
    // replace the one before; skips also name bundles no longer in the catalog.
    let skip_bad: Vec<bool> = (0..n).map(|k| k >= 2 && rng.chance(0.12)).collect();
    let entry = |k: usize, first: usize, vs: &[Version], rng: &mut Rng| -> Value {
        let mut e = serde_json::Map::new();
        e.insert("name".into(), json!(bundle_name(&vs[k])));
        let mut skips = Vec::new();
        let pulled = k >= first + 2 && skip_bad[k] && !skip_bad[k - 1];
        if pulled {
            e.insert("replaces".into(), json!(bundle_name(&vs[k - 2])));
            skips.push(bundle_name(&vs[k - 1]));
        } else if k > first {
            e.insert("replaces".into(), json!(bundle_name(&vs[k - 1])));
        }
        if rng.chance(0.2) {
            skips.push(format!(
                "{name}.v{}.{}.{}-{}",
                vs[k].major,
                vs[k].minor,
                99,
                rng.range(1, 9)
            ));
        }
        if !skips.is_empty() {
            e.insert("skips".into(), json!(skips));
        }
        if red_hat_style {
            e.insert(
                "skipRange".into(),
                json!(format!(">={}.0.0 <{}", vs[first].major, vs[k])),
            );
        }
        Value::Object(e)
    };
    let mut channels = vec![("stable".to_string(), 0usize, n)];
    if majors.len() > 1 {
        for &m in &majors {
            let first = versions.iter().position(|v| v.major == m).unwrap();
            let last = versions.iter().rposition(|v| v.major == m).unwrap();
            channels.push((format!("stable-v{m}"), first, last + 1));
        }
    }
    if n > 2 {
        channels.push(("fast".to_string(), n - n.min(3), n));
    }
    channels.sort();
    for (cname, first, end) in &channels {
        let entries: Vec<Value> = (*first..*end)
            .map(|k| entry(k, *first, &versions, &mut rng))
            .collect();
        docs.push(json!({
            "schema": "olm.channel",
            "name": cname,
            "package": name,
            "entries": entries,
        }));
    }

    // Bundles.
    let ns = format!("{domain}-{flavour}-system");
    let sa = format!("{domain}-controller-manager");
    let mut bundle_docs = Vec::with_capacity(n);
    let mut contents = Vec::new();
    for (k, v) in versions.iter().enumerate() {
        let major_idx = majors.iter().position(|m| *m == v.major).unwrap();
        let apis = &apis_by_major[major_idx];
        let operator_digest = rng.digest();
        let operand_images: Vec<(String, String)> = (0..rng.range(1, 3))
            .map(|j| {
                (
                    format!("{domain}-operand-{j}"),
                    format!("{registry}/{domain}-operand-{j}@sha256:{}", rng.digest()),
                )
            })
            .collect();
        let operator_image = format!("{registry}/{domain}-operator@sha256:{operator_digest}");
        let bundle_image = format!(
            "{registry}/{domain}-operator-bundle@sha256:{}",
            rng.digest()
        );
        let csv = csv(
            &mut rng,
            &bundle_name(v),
            &name,
            v,
            k.checked_sub(1).map(|p| bundle_name(&versions[p])),
            apis,
            &operator_image,
            &operand_images,
            &ns,
            &sa,
            &description,
        );
        if with_contents {
            contents.push(BundleContent {
                package: name.clone(),
                name: bundle_name(v),
                image: bundle_image.clone(),
                files: bundle_files(&name, &csv, apis),
            });
        }
        let mut props = vec![
            json!({"type": "olm.package", "value": {"packageName": name, "version": v.to_string()}}),
        ];
        for a in apis {
            props.push(json!({"type": "olm.gvk", "value": {"group": a.group, "kind": a.kind, "version": a.version}}));
        }
        if has_deps {
            props.push(json!({"type": "olm.package.required", "value": {"packageName": format!("{flavour}-secrets-operator-0000"), "versionRange": ">=1.0.0"}}));
            props.push(json!({"type": "olm.gvk.required", "value": {"group": "monitoring.coreos.com", "kind": "ServiceMonitor", "version": "v1"}}));
        }
        // Old bundles stop at an older OpenShift release.
        if k + 2 < n && rng.chance(0.3) {
            props.push(json!({"type": "olm.maxOpenShiftVersion", "value": rng.pick(&["4.12", "4.14", "4.16"])}));
        }
        if csv_meta {
            props.push(json!({"type": "olm.csv.metadata", "value": csv_metadata(&csv)}));
        } else {
            for a in apis {
                props.push(json!({"type": "olm.bundle.object", "value": {"data": a.crd_b64}}));
            }
            props.push(json!({"type": "olm.bundle.object", "value": {"data": b64(&csv)}}));
        }
        if !csv_meta && rng.chance(0.4) {
            let svc = json!({
                "apiVersion": "v1",
                "kind": "Service",
                "metadata": {"name": format!("{domain}-metrics"), "labels": {"control-plane": "controller-manager"}},
                "spec": {"ports": [{"name": "https", "port": 8443, "targetPort": "https"}], "selector": {"control-plane": "controller-manager"}},
            });
            props.push(json!({"type": "olm.bundle.object", "value": {"data": b64(&svc)}}));
        }
        let mut related = vec![json!({"name": "", "image": bundle_image})];
        related.push(json!({"name": format!("{domain}-operator"), "image": operator_image}));
        for (n, i) in &operand_images {
            related.push(json!({"name": n, "image": i}));
        }
        bundle_docs.push(json!({
            "schema": "olm.bundle",
            "name": bundle_name(v),
            "package": name,
            "image": bundle_image,
            "properties": props,
            "relatedImages": related,
        }));
    }
    docs.extend(bundle_docs);

    // Deprecations for about a third of the packages with history.
    if n > 3 && rng.chance(0.35) {
        let mut entries = vec![json!({
            "reference": {"schema": "olm.bundle", "name": bundle_name(&versions[0])},
            "message": format!("{} is deprecated: it has known security issues. Upgrade to {}.", bundle_name(&versions[0]), bundle_name(&versions[n - 1])),
        })];
        if majors.len() > 1 {
            entries.push(json!({
                "reference": {"schema": "olm.channel", "name": format!("stable-v{}", majors[0])},
                "message": format!("channel stable-v{} is no longer maintained; use stable.", majors[0]),
            }));
        }
        docs.push(json!({"schema": "olm.deprecations", "package": name, "entries": entries}));
    }
    PackageDocs {
        name,
        docs,
        bundles: n,
        installable: !has_deps,
        contents,
    }
}

#[allow(clippy::too_many_arguments)]
fn csv(
    rng: &mut Rng,
    csv_name: &str,
    package: &str,
    v: &Version,
    replaces: Option<String>,
    apis: &[Api],
    operator_image: &str,
    operands: &[(String, String)],
    ns: &str,
    sa: &str,
    description: &str,
) -> Value {
    let examples: Vec<Value> = apis
        .iter()
        .map(|a| {
            json!({
                "apiVersion": format!("{}/{}", a.group, a.version),
                "kind": a.kind,
                "metadata": {"name": format!("{}-sample", a.kind.to_lowercase())},
                "spec": {"replicas": 1, "storage": {"size": "10Gi"}, "tls": {"enabled": true}},
            })
        })
        .collect();
    let owned: Vec<Value> = apis
        .iter()
        .map(|a| {
            json!({
                "name": format!("{}.{}", a.plural, a.group),
                "version": a.version,
                "kind": a.kind,
                "displayName": a.kind,
                "description": paragraph(rng, 120),
                "resources": [{"kind": "Deployment", "name": "", "version": "v1"}, {"kind": "Secret", "name": "", "version": "v1"}],
                "specDescriptors": (0..rng.range(2, 8)).map(|j| json!({
                    "path": format!("{}.{}", rng.pick(FIELD_WORDS), rng.pick(FIELD_WORDS)),
                    "displayName": format!("Field {j}"),
                    "description": paragraph(rng, 80),
                    "x-descriptors": ["urn:alm:descriptor:com.tectonic.ui:text"],
                })).collect::<Vec<_>>(),
                "statusDescriptors": [{"path": "conditions", "displayName": "Conditions", "x-descriptors": ["urn:alm:descriptor:io.kubernetes.conditions"]}],
            })
        })
        .collect();
    let rules = |rng: &mut Rng, n: u64| -> Vec<Value> {
        let mut rules: Vec<Value> = apis
            .iter()
            .map(|a| {
                json!({"apiGroups": [a.group], "resources": [a.plural, format!("{}/status", a.plural), format!("{}/finalizers", a.plural)], "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"]})
            })
            .collect();
        let core = [
            ("", "configmaps"),
            ("", "secrets"),
            ("", "services"),
            ("", "pods"),
            ("", "events"),
            ("", "persistentvolumeclaims"),
            ("apps", "deployments"),
            ("apps", "statefulsets"),
            ("apps", "daemonsets"),
            ("batch", "jobs"),
            ("batch", "cronjobs"),
            ("monitoring.coreos.com", "servicemonitors"),
            ("networking.k8s.io", "networkpolicies"),
            ("policy", "poddisruptionbudgets"),
            ("route.openshift.io", "routes"),
            ("coordination.k8s.io", "leases"),
        ];
        for _ in 0..n {
            let (g, r) = rng.pick(&core);
            rules.push(json!({"apiGroups": [g], "resources": [r], "verbs": if rng.chance(0.5) { json!(["get", "list", "watch"]) } else { json!(["create", "delete", "get", "list", "patch", "update", "watch"]) }}));
        }
        rules
    };
    let env: Vec<Value> = (0..rng.range(4, 16))
        .map(|j| json!({"name": format!("RELATED_IMAGE_{}_{j}", rng.pick(FIELD_WORDS).to_uppercase()), "value": operands[j as usize % operands.len()].1}))
        .chain([json!({"name": "WATCH_NAMESPACE", "valueFrom": {"fieldRef": {"fieldPath": "metadata.annotations['olm.targetNamespaces']"}}})])
        .collect();
    let deployment = |name: &str, image: &str, env: &[Value]| {
        json!({
            "name": name,
            "label": {"control-plane": "controller-manager"},
            "spec": {
                "replicas": 1,
                "selector": {"matchLabels": {"control-plane": "controller-manager", "app": name}},
                "strategy": {},
                "template": {
                    "metadata": {"labels": {"control-plane": "controller-manager", "app": name}, "annotations": {"kubectl.kubernetes.io/default-container": "manager"}},
                    "spec": {
                        "serviceAccountName": sa,
                        "securityContext": {"runAsNonRoot": true, "seccompProfile": {"type": "RuntimeDefault"}},
                        "terminationGracePeriodSeconds": 10,
                        "containers": [
                            {
                                "name": "manager",
                                "image": image,
                                "command": ["/manager"],
                                "args": ["--leader-elect", "--health-probe-bind-address=:8081", "--metrics-bind-address=127.0.0.1:8080"],
                                "env": env,
                                "ports": [{"containerPort": 9443, "name": "webhook-server", "protocol": "TCP"}],
                                "livenessProbe": {"httpGet": {"path": "/healthz", "port": 8081}, "initialDelaySeconds": 15, "periodSeconds": 20},
                                "readinessProbe": {"httpGet": {"path": "/readyz", "port": 8081}, "initialDelaySeconds": 5, "periodSeconds": 10},
                                "resources": {"limits": {"cpu": "500m", "memory": "512Mi"}, "requests": {"cpu": "10m", "memory": "64Mi"}},
                                "securityContext": {"allowPrivilegeEscalation": false, "capabilities": {"drop": ["ALL"]}},
                                "volumeMounts": [{"mountPath": "/tmp/k8s-webhook-server/serving-certs", "name": "cert", "readOnly": true}],
                            },
                            {
                                "name": "kube-rbac-proxy",
                                "image": "registry.example.com/openshift/kube-rbac-proxy@sha256:8c8f4a6bd6e3b4e0b6e8f1b0a9b5e4e7e4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9",
                                "args": ["--secure-listen-address=0.0.0.0:8443", "--upstream=http://127.0.0.1:8080/", "--logtostderr=true", "--v=0"],
                                "ports": [{"containerPort": 8443, "name": "https", "protocol": "TCP"}],
                                "resources": {"limits": {"cpu": "500m", "memory": "128Mi"}, "requests": {"cpu": "5m", "memory": "64Mi"}},
                            },
                        ],
                        "volumes": [{"name": "cert", "secret": {"defaultMode": 420, "secretName": format!("{name}-cert")}}],
                    },
                },
            },
        })
    };
    let mut deployments = vec![deployment(
        &format!(
            "{}-controller-manager",
            package.split('-').nth(1).unwrap_or("x")
        ),
        operator_image,
        &env,
    )];
    if rng.chance(0.3) {
        deployments.push(deployment(
            &format!("{}-webhook", package.split('-').nth(1).unwrap_or("x")),
            operator_image,
            &env[..1],
        ));
    }
    let icon_len = rng.range(1_000, 6_000) as usize;
    let icon = base64::engine::general_purpose::STANDARD.encode(paragraph(rng, icon_len));
    let n_rules = rng.range(3, 12);
    let n_cluster_rules = rng.range(4, 20);
    let permissions = json!([{"serviceAccountName": sa, "rules": rules(rng, n_rules)}]);
    let cluster_permissions =
        json!([{"serviceAccountName": sa, "rules": rules(rng, n_cluster_rules)}]);
    let mut spec = json!({
        "displayName": package.replace('-', " "),
        "description": description,
        "version": v.to_string(),
        "minKubeVersion": "1.25.0",
        "maturity": if v.major == 0 { "alpha" } else { "stable" },
        "provider": {"name": "Example Corp"},
        "maintainers": [{"name": "Operators Team", "email": "operators@example.com"}],
        "links": [{"name": "Documentation", "url": format!("https://docs.example.com/{package}")}],
        "keywords": [package.split('-').nth(1).unwrap_or("x"), "operator"],
        "icon": [{"base64data": icon, "mediatype": "image/png"}],
        "installModes": [
            {"type": "OwnNamespace", "supported": true},
            {"type": "SingleNamespace", "supported": true},
            {"type": "MultiNamespace", "supported": false},
            {"type": "AllNamespaces", "supported": true},
        ],
        "customresourcedefinitions": {"owned": owned},
        "install": {"strategy": "deployment", "spec": {
            "deployments": deployments,
            "permissions": permissions,
            "clusterPermissions": cluster_permissions,
        }},
        "relatedImages": operands.iter().map(|(n, i)| json!({"name": n, "image": i})).collect::<Vec<_>>(),
    });
    if let Some(r) = replaces {
        spec["replaces"] = json!(r);
    }
    json!({
        "apiVersion": "operators.coreos.com/v1alpha1",
        "kind": "ClusterServiceVersion",
        "metadata": {
            "name": csv_name,
            "namespace": "placeholder",
            "annotations": {
                "alm-examples": serde_json::to_string_pretty(&examples).unwrap(),
                "capabilities": "Seamless Upgrades",
                "categories": "Integration & Delivery",
                "containerImage": operator_image,
                "createdAt": "2024-05-01T10:00:00Z",
                "description": sentence(rng, 12),
                "operatorframework.io/suggested-namespace": ns,
                "operators.openshift.io/infrastructure-features": "[\"disconnected\", \"proxy-aware\"]",
                "repository": format!("https://github.com/example/{package}"),
                "support": "Example Corp",
            },
        },
        "spec": spec,
    })
}

fn write_doc(out: &mut Vec<u8>, doc: &Value, layout: Layout) {
    match layout {
        Layout::Lines => {
            serde_json::to_writer(&mut *out, doc).unwrap();
        }
        Layout::Yaml | Layout::YamlFile | Layout::YamlObjects => {
            // `opm render -o yaml` style: every document starts with `---`, long strings stay
            // on one line (go-yaml does not fold them), text with line breaks is a literal
            // block.
            out.extend_from_slice(b"---\n");
            let mut options = serde_saphyr::SerializerOptions::default();
            options.folded_wrap_chars = usize::MAX;
            let text = serde_saphyr::to_string_with_options(doc, options).unwrap();
            out.extend_from_slice(text.as_bytes());
            return;
        }
        Layout::File | Layout::Dir | Layout::Channels | Layout::Bundles => {
            let fmt = serde_json::ser::PrettyFormatter::with_indent(b"    ");
            let mut ser = serde_json::Serializer::with_formatter(&mut *out, fmt);
            doc.serialize(&mut ser).unwrap();
        }
    }
    out.push(b'\n');
}

/// The mean number of bundles per package of a catalog of this size and layout. Package count
/// grows with the catalog: at least 30 (so 20 operators can be resolved at every size), else
/// about 2.5 MB each, the average of a full Red Hat index; YAML catalogs about 80 KB per
/// package, like the community catalogs.
fn mean_bundles(spec: &Spec) -> f64 {
    // YAML catalogs with embedded manifests: about 1.5 MB per package (12 bundles).
    let (per_package, bundle_bytes) = match spec.layout {
        Layout::Yaml | Layout::YamlFile => (80_000, YAML_BUNDLE_BYTES),
        Layout::YamlObjects => (1_500_000, YAML_OBJECTS_BUNDLE_BYTES),
        _ => (2_500_000, BUNDLE_BYTES),
    };
    let packages_wanted = (spec.size / per_package).max(30);
    (spec.size as f64 / packages_wanted as f64 / bundle_bytes as f64).max(1.0)
}

/// The registry+v1 content of every bundle of these packages of the catalog [`generate`] writes
/// for `spec` (package names as generated, `<flavour>-<domain>-operator-<index>`), so that a
/// YAML (`olm.csv.metadata`) catalog's bundles can be served from a cache, a directory or a
/// registry.
pub fn bundle_contents(spec: &Spec, packages: &[String]) -> Vec<BundleContent> {
    let mean = mean_bundles(spec);
    packages
        .iter()
        .filter_map(|name| name.rsplit('-').next()?.parse::<u64>().ok())
        .flat_map(|index| {
            package(spec.seed, index, mean, spec.layout.csv_metadata(), true).contents
        })
        .collect()
}

/// `n` single-bundle packages of installable operators with their content, for a registry
/// that serves them: each package's newest bundle, alone in channel `stable`. `docs` gives a
/// package's FBC documents (package, channel, bundle with `olm.csv.metadata`) for the bundle
/// image reference `image`.
pub fn registry_bundles(seed: u64, n: usize) -> Vec<(BundleContent, Vec<Value>)> {
    let mut out = Vec::with_capacity(n);
    let mut index = 0;
    while out.len() < n {
        let p = package(seed, index, 1.0, true, true);
        index += 1;
        if !p.installable {
            continue;
        }
        let Some(content) = p.contents.last().cloned() else {
            continue;
        };
        let Some(bundle) = p
            .docs
            .iter()
            .find(|d| d["schema"] == "olm.bundle" && d["name"] == content.name.as_str())
            .cloned()
        else {
            continue;
        };
        let mut package_doc = p.docs[0].clone();
        package_doc["defaultChannel"] = json!("stable");
        let channel = json!({"schema": "olm.channel", "package": p.name, "name": "stable",
            "entries": [{"name": content.name}]});
        out.push((content, vec![package_doc, channel, bundle]));
    }
    out
}

/// Generate a catalog under `out` (created; an existing catalog there is replaced). The
/// catalog is `out/catalog` (a directory), `out/catalog.json` or `out/catalog.jsonl`.
pub fn generate(spec: &Spec, out: &Path) -> io::Result<Generated> {
    std::fs::create_dir_all(out)?;
    let catalog = spec.layout.catalog_path(out);
    if catalog.is_dir() {
        std::fs::remove_dir_all(&catalog)?;
    } else if catalog.exists() {
        std::fs::remove_file(&catalog)?;
    }
    if spec.layout.is_shape() {
        return generate_shape(spec, &catalog);
    }
    let mean_bundles = mean_bundles(spec);
    let mut single = match spec.layout.per_package() {
        true => None,
        false => Some(io::BufWriter::with_capacity(
            1 << 20,
            std::fs::File::create(&catalog)?,
        )),
    };
    if spec.layout.per_package() {
        std::fs::create_dir_all(&catalog)?;
    }
    let mut g = Generated {
        catalog: catalog.clone(),
        bytes: 0,
        packages: Vec::new(),
        bundles: 0,
        installable: Vec::new(),
    };
    let mut buf = Vec::with_capacity(8 << 20);
    let mut index = 0u64;
    while g.bytes < spec.size {
        let p = package(
            spec.seed,
            index,
            mean_bundles,
            spec.layout.csv_metadata(),
            false,
        );
        index += 1;
        buf.clear();
        for d in &p.docs {
            write_doc(&mut buf, d, spec.layout);
        }
        match &mut single {
            Some(w) => w.write_all(&buf)?,
            None => {
                let dir = catalog.join(&p.name);
                std::fs::create_dir_all(&dir)?;
                let file = if spec.layout.is_yaml() {
                    "catalog.yaml"
                } else {
                    "catalog.json"
                };
                std::fs::write(dir.join(file), &buf)?;
            }
        }
        g.bytes += buf.len() as u64;
        g.bundles += p.bundles;
        if p.installable {
            g.installable.push(p.name.clone());
        }
        g.packages.push(p.name);
    }
    if let Some(mut w) = single {
        w.flush()?;
    }
    Ok(g)
}

/// Bundles of the [`Layout::Channels`] package; channel `i` lists bundle `i % 10`.
pub const SHAPE_CHANNEL_BUNDLES: usize = 10;

/// Bundles per package of the [`Layout::Bundles`] shape.
pub const SHAPE_PACKAGE_BUNDLES: usize = 1000;

/// Write a shape ([`Layout::is_shape`]) as compact JSON lines into `catalog`. The documents
/// are written as text (no `Value`), so a million bundles generate in seconds.
fn generate_shape(spec: &Spec, catalog: &Path) -> io::Result<Generated> {
    let mut w = io::BufWriter::with_capacity(1 << 20, std::fs::File::create(catalog)?);
    let mut g = Generated {
        catalog: catalog.to_path_buf(),
        bytes: 0,
        packages: Vec::new(),
        bundles: 0,
        installable: Vec::new(),
    };
    let mut buf = String::with_capacity(1 << 20);
    let mut flush = |buf: &mut String, g: &mut Generated| -> io::Result<()> {
        w.write_all(buf.as_bytes())?;
        g.bytes += buf.len() as u64;
        buf.clear();
        Ok(())
    };
    let bundle = |buf: &mut String, package: &str, version: &str| {
        writeln!(
            buf,
            r#"{{"schema":"olm.bundle","name":"{package}.v{version}","package":"{package}","image":"registry.example.com/bench/{package}-bundle:v{version}","properties":[{{"type":"olm.package","value":{{"packageName":"{package}","version":"{version}"}}}}]}}"#
        )
        .unwrap();
    };
    let count = spec.size as usize;
    match spec.layout {
        Layout::Channels => {
            let package = "many-channels";
            writeln!(
                buf,
                r#"{{"schema":"olm.package","name":"{package}","defaultChannel":"ch-000000"}}"#
            )
            .unwrap();
            for i in 0..count {
                let k = i % SHAPE_CHANNEL_BUNDLES;
                writeln!(
                    buf,
                    r#"{{"schema":"olm.channel","name":"ch-{i:06}","package":"{package}","entries":[{{"name":"{package}.v1.0.{k}"}}]}}"#
                )
                .unwrap();
                if buf.len() > 1 << 20 {
                    flush(&mut buf, &mut g)?;
                }
            }
            for k in 0..SHAPE_CHANNEL_BUNDLES.min(count) {
                bundle(&mut buf, package, &format!("1.0.{k}"));
            }
            g.bundles = SHAPE_CHANNEL_BUNDLES.min(count);
            g.packages.push(package.to_owned());
            g.installable.push(package.to_owned());
        }
        _ => {
            let packages = count.div_ceil(SHAPE_PACKAGE_BUNDLES);
            for p in 0..packages {
                let package = format!("pkg-{p:05}");
                let n = SHAPE_PACKAGE_BUNDLES.min(count - p * SHAPE_PACKAGE_BUNDLES);
                writeln!(
                    buf,
                    r#"{{"schema":"olm.package","name":"{package}","defaultChannel":"stable"}}"#
                )
                .unwrap();
                write!(
                    buf,
                    r#"{{"schema":"olm.channel","name":"stable","package":"{package}","entries":["#
                )
                .unwrap();
                for k in 0..n {
                    if k > 0 {
                        write!(
                            buf,
                            r#",{{"name":"{package}.v1.0.{k}","replaces":"{package}.v1.0.{}"}}"#,
                            k - 1
                        )
                        .unwrap();
                    } else {
                        write!(buf, r#"{{"name":"{package}.v1.0.0"}}"#).unwrap();
                    }
                }
                buf.push_str("]}\n");
                for k in 0..n {
                    bundle(&mut buf, &package, &format!("1.0.{k}"));
                }
                flush(&mut buf, &mut g)?;
                g.bundles += n;
                g.installable.push(package.clone());
                g.packages.push(package);
            }
        }
    }
    flush(&mut buf, &mut g)?;
    w.flush()?;
    Ok(g)
}

/// Parse a size like `500M`, `1G`, `10MB`, `2000000` (decimal units).
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim().trim_end_matches(['B', 'b']);
    let (num, mult) = match s.chars().last()? {
        'k' | 'K' => (&s[..s.len() - 1], 1_000),
        'm' | 'M' => (&s[..s.len() - 1], 1_000_000),
        'g' | 'G' => (&s[..s.len() - 1], 1_000_000_000),
        _ => (s, 1),
    };
    let n: f64 = num.parse().ok()?;
    Some((n * mult as f64) as u64)
}
