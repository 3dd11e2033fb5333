//! Bundle images: catalogs in the OpenShift 4.17+ shape (only `olm.csv.metadata`) whose bundle
//! content is pulled from a real registry on loopback (Debian's `docker-registry`, with TLS
//! from a CA made by the test and htpasswd basic auth), from an OCI image layout with no
//! network at all, and through a mirror rule; and hostile images refused.
//!
//! The bundle images are built here from `../shared/realdata/platform-bundles`, read in place:
//! one gzip layer holding `manifests/` and `metadata/`, an OCI config and manifest. Tests that
//! need the registry skip with a note when `docker-registry` is not installed (`.ci/run`
//! installs it), except in CI (`CI=true`), where they fail.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command as StdCommand, Stdio};
use std::time::{Duration, Instant};

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

use crate::common::{cmd, realdata, tree};

const USER: &str = "tester";
const PASSWORD: &str = "s3cret-pw";

/// The `Authorization` header of the test registry's user.
fn basic_auth() -> String {
    use base64::Engine as _;
    let pair = base64::engine::general_purpose::STANDARD.encode(format!("{USER}:{PASSWORD}"));
    format!("Basic {pair}")
}

pub(crate) fn sha(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

// ---------------------------------------------------------------- images

/// One image: its manifest and every blob.
#[derive(Clone)]
pub(crate) struct Image {
    pub(crate) manifest: Vec<u8>,
    pub(crate) digest: String,
    pub(crate) blobs: Vec<(String, Vec<u8>)>,
}

/// A tar entry for hand-made (possibly hostile) layers.
enum Entry<'a> {
    File(&'a str, &'a [u8]),
    Symlink(&'a str, &'a str),
}

fn raw_tar(entries: &[Entry<'_>]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for e in entries {
        let mut h = tar::Header::new_gnu();
        let (name, data, link): (&str, &[u8], Option<&str>) = match e {
            Entry::File(n, d) => {
                h.set_entry_type(tar::EntryType::Regular);
                (n, d, None)
            }
            Entry::Symlink(n, t) => {
                h.set_entry_type(tar::EntryType::Symlink);
                (n, &[], Some(t))
            }
        };
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_mtime(0);
        // The raw name, so hostile paths reach the reader unchanged.
        h.as_gnu_mut().unwrap().name[..name.len()].copy_from_slice(name.as_bytes());
        if let Some(l) = link {
            h.set_link_name(l).unwrap();
        }
        h.set_cksum();
        b.append(&h, data).unwrap();
    }
    b.into_inner().unwrap()
}

pub(crate) fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap()
}

/// The bundle directory's `manifests/` and `metadata/` as one tar (sorted, no times).
fn bundle_tar(dir: &Path) -> Vec<u8> {
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for sub in ["manifests", "metadata"] {
        for e in walkdir::WalkDir::new(dir.join(sub)).sort_by_file_name() {
            let e = e.unwrap();
            if e.file_type().is_file() {
                let rel = e
                    .path()
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                files.push((rel, std::fs::read(e.path()).unwrap()));
            }
        }
    }
    let entries: Vec<Entry<'_>> = files
        .iter()
        .map(|(n, d)| Entry::File(n.as_str(), d.as_slice()))
        .collect();
    raw_tar(&entries)
}

/// An OCI image with these (already compressed) layers.
pub(crate) fn image(layers: Vec<Vec<u8>>) -> Image {
    let config = serde_json::to_vec(&json!({
        "architecture": "amd64", "os": "linux",
        "config": {"Labels": {"operators.operatorframework.io.bundle.mediatype.v1": "registry+v1"}},
        "rootfs": {"type": "layers", "diff_ids": []}
    }))
    .unwrap();
    let mut blobs = vec![(sha(&config), config.clone())];
    let mut descs = Vec::new();
    for l in layers {
        descs.push(json!({"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": sha(&l), "size": l.len()}));
        blobs.push((sha(&l), l));
    }
    let manifest = serde_json::to_vec(&json!({
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": sha(&config), "size": config.len()},
        "layers": descs
    }))
    .unwrap();
    Image {
        digest: sha(&manifest),
        manifest,
        blobs,
    }
}

fn bundle_image(dir: &Path) -> Image {
    image(vec![gzip(&bundle_tar(dir))])
}

/// Write an OCI image layout holding these images (tagged by name).
fn write_layout(root: &Path, images: &[(&str, &Image)]) {
    let blobs = root.join("blobs/sha256");
    std::fs::create_dir_all(&blobs).unwrap();
    std::fs::write(root.join("oci-layout"), r#"{"imageLayoutVersion":"1.0.0"}"#).unwrap();
    let mut manifests = Vec::new();
    for (name, img) in images {
        let mut all = img.blobs.clone();
        all.push((img.digest.clone(), img.manifest.clone()));
        for (d, bytes) in all {
            std::fs::write(blobs.join(d.trim_start_matches("sha256:")), bytes).unwrap();
        }
        manifests.push(json!({"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": img.digest, "size": img.manifest.len(),
            "annotations": {"org.opencontainers.image.ref.name": name}}));
    }
    std::fs::write(
        root.join("index.json"),
        serde_json::to_vec(&json!({"schemaVersion": 2, "manifests": manifests})).unwrap(),
    )
    .unwrap();
}

// ---------------------------------------------------------------- catalog

/// A catalog in the 4.17+ shape: one package per bundle, channel `stable`, and bundles with
/// `olm.package`, `olm.gvk` and `olm.csv.metadata` only.
fn csvmeta_catalog(bundles: &[(&Path, String)]) -> String {
    let mut out = String::new();
    for (dir, image) in bundles {
        let b = po_manifests::bundle::RegistryV1::from_dir(dir).unwrap();
        let csv = &b.csv;
        let name = csv["metadata"]["name"].as_str().unwrap();
        let version = csv["spec"]["version"].as_str().unwrap();
        let mut meta = serde_json::Map::new();
        for (key, field) in [
            ("installModes", "installModes"),
            ("crdDescriptions", "customresourcedefinitions"),
            ("apiServiceDefinitions", "apiservicedefinitions"),
            ("minKubeVersion", "minKubeVersion"),
            ("displayName", "displayName"),
            ("provider", "provider"),
            ("keywords", "keywords"),
            ("maturity", "maturity"),
        ] {
            if let Some(v) = csv["spec"].get(field) {
                meta.insert(key.into(), v.clone());
            }
        }
        if let Some(a) = csv["metadata"].get("annotations") {
            meta.insert("annotations".into(), a.clone());
        }
        let mut props = vec![
            json!({"type": "olm.package", "value": {"packageName": b.package, "version": version}}),
        ];
        for crd in csv["spec"]["customresourcedefinitions"]["owned"]
            .as_array()
            .into_iter()
            .flatten()
        {
            let full = crd["name"].as_str().unwrap();
            let group = full.split_once('.').unwrap().1;
            props.push(json!({"type": "olm.gvk", "value": {"group": group, "kind": crd["kind"], "version": crd["version"]}}));
        }
        props.push(json!({"type": "olm.csv.metadata", "value": meta}));
        for blob in [
            json!({"schema": "olm.package", "name": b.package, "defaultChannel": "stable"}),
            json!({"schema": "olm.channel", "package": b.package, "name": "stable", "entries": [{"name": name}]}),
            json!({"schema": "olm.bundle", "package": b.package, "name": name, "image": image, "properties": props}),
        ] {
            out.push_str(&serde_json::to_string(&blob).unwrap());
            out.push('\n');
        }
    }
    out
}

pub(crate) const CATALOG_IMAGE: &str = "registry.example.com/test/index@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/// An install directory for OpenShift 4.18: the catalog, `platform-operators.yaml` with a
/// bootstrap operator (limitador) and a ClusterExtension (dns-operator), and install-config.
fn install_dir(catalog: &str, install_config: &str) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("catalog.json"), catalog).unwrap();
    std::fs::write(
        d.path().join("platform-operators.yaml"),
        format!(
            "platformOperators:\n  clusterVersion: \"4.18.2\"\n  catalogs:\n  - name: test\n    source: catalog.json\n    image: {CATALOG_IMAGE}\n  operators:\n  - name: limitador\n    package: limitador-operator\n    namespace: limitador-system\n    bootstrap: true\n  - name: dns\n    package: dns-operator\n    namespace: dns-system\n"
        ),
    )
    .unwrap();
    std::fs::write(d.path().join("install-config.yaml"), install_config).unwrap();
    d
}

pub(crate) fn indent(text: &str) -> String {
    text.lines().map(|l| format!("  {l}\n")).collect()
}

pub(crate) fn auth_json(registry: &str) -> String {
    use base64::Engine as _;
    let auth = base64::engine::general_purpose::STANDARD.encode(format!("{USER}:{PASSWORD}"));
    format!(r#"{{"auths":{{"{registry}":{{"auth":"{auth}"}}}}}}"#)
}

fn manifests(dir: &Path) -> Vec<(String, Value)> {
    tree(&dir.join("manifests"))
        .into_iter()
        .map(|(n, t)| (n, serde_saphyr::from_str(&t).unwrap()))
        .collect()
}

/// What `create` wrote is what a 4.18 install needs: limitador's own objects (bootstrap), and
/// dns-operator's ClusterExtension with its installer ServiceAccount and RBAC.
fn check_created(dir: &Path) {
    let written = manifests(dir);
    let kinds = |prefix: &str| -> Vec<String> {
        written
            .iter()
            .filter(|(n, _)| n.starts_with(prefix))
            .map(|(_, o)| o["kind"].as_str().unwrap().to_string())
            .collect()
    };
    let limitador = kinds("99_po_limitador_");
    assert!(
        limitador.contains(&"Deployment".to_string()),
        "{limitador:?}"
    );
    assert!(
        limitador.contains(&"CustomResourceDefinition".to_string()),
        "{limitador:?}"
    );
    let dns = kinds("99_po_dns_");
    for k in [
        "ServiceAccount",
        "ClusterRole",
        "ClusterRoleBinding",
        "ClusterExtension",
    ] {
        assert!(dns.contains(&k.to_string()), "{k} missing from {dns:?}");
    }
    let ext = written
        .iter()
        .find(|(_, o)| o["kind"] == "ClusterExtension")
        .unwrap();
    assert_eq!(ext.1["spec"]["source"]["catalog"]["version"], "0.6.0");
    // The installer may create the bundle's CRDs: the RBAC comes from the pulled content.
    let rbac = serde_json::to_string(&written).unwrap();
    assert!(
        rbac.contains("dnsrecords.kuadrant.io") || rbac.contains("managedzones.kuadrant.io"),
        "the installer RBAC names the bundle's CRDs"
    );
}

// ---------------------------------------------------------------- registry

/// `docker-registry`, or `None` with a note. In CI (`CI` set to anything but `false` or `0`,
/// as CI services set `CI=true`) a missing registry fails the test instead: there, a silent skip
/// would count as a pass.
pub(crate) fn registry_binary(test: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path).chain([PathBuf::from("/usr/bin")]) {
        let p = dir.join("docker-registry");
        if p.is_file() {
            return Some(p);
        }
    }
    let reason =
        "docker-registry is not installed (apt-get install docker-registry; .ci/run does it)";
    assert!(
        !in_ci(),
        "{test}: {reason}; CI is set, so the test fails instead of skipping"
    );
    eprintln!("skipped {test}: {reason}");
    None
}

/// Whether the `CI` environment variable says this is a CI run.
fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// A registry on 127.0.0.1 with TLS and htpasswd auth, stopped when dropped.
pub(crate) struct Registry {
    child: Child,
    port: u16,
    pub(crate) ca_pem: String,
    _dir: tempfile::TempDir,
    client: ureq::Agent,
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Registry {
    pub(crate) fn start(binary: &Path) -> Registry {
        let dir = tempfile::tempdir().unwrap();
        let ca_key = KeyPair::generate().unwrap();
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params
            .distinguished_name
            .push(DnType::CommonName, "po-manifests registry test CA");
        let ca_cert = ca_params.self_signed(&ca_key).unwrap();
        let issuer = Issuer::new(ca_params, ca_key);
        let leaf_key = KeyPair::generate().unwrap();
        let leaf = CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".to_string()])
            .unwrap()
            .signed_by(&leaf_key, &issuer)
            .unwrap();
        let p = dir.path();
        std::fs::write(p.join("cert.pem"), leaf.pem()).unwrap();
        std::fs::write(p.join("key.pem"), leaf_key.serialize_pem()).unwrap();
        let hash = bcrypt::hash_with_result(PASSWORD, 4)
            .unwrap()
            .format_for_version(bcrypt::Version::TwoY);
        std::fs::write(p.join("htpasswd"), format!("{USER}:{hash}\n")).unwrap();
        let ca_pem = ca_cert.pem();
        // ring, as the program uses; every status is an answer, not an error.
        let tls = ureq::tls::TlsConfig::builder()
            .root_certs(ureq::tls::RootCerts::new_with_certs(&[
                ureq::tls::Certificate::from_pem(ca_pem.as_bytes()).unwrap(),
            ]))
            .unversioned_rustls_crypto_provider(std::sync::Arc::new(
                rustls::crypto::ring::default_provider(),
            ))
            .build();
        let client = ureq::Agent::config_builder()
            .tls_config(tls)
            .timeout_global(Some(Duration::from_secs(20)))
            .http_status_as_error(false)
            .build()
            .new_agent();
        // The port is free when chosen but may be taken before the registry binds it: a
        // registry that exits is started again on another port.
        for _attempt in 0..3 {
            let port = free_port();
            std::fs::write(
                p.join("config.yml"),
                format!(
                    "version: 0.1\nlog:\n  level: error\n  accesslog:\n    disabled: true\nstorage:\n  filesystem:\n    rootdirectory: {root}/data\nhttp:\n  addr: 127.0.0.1:{port}\n  secret: po-manifests-test\n  tls:\n    certificate: {root}/cert.pem\n    key: {root}/key.pem\nauth:\n  htpasswd:\n    realm: test\n    path: {root}/htpasswd\n",
                    root = p.display()
                ),
            )
            .unwrap();
            let mut child = StdCommand::new(binary)
                .arg("serve")
                .arg(p.join("config.yml"))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            let started = Instant::now();
            loop {
                let ok = client
                    .get(format!("https://127.0.0.1:{port}/v2/"))
                    .call()
                    .is_ok_and(|r| r.status().as_u16() == 401);
                if ok {
                    return Registry {
                        child,
                        port,
                        ca_pem,
                        _dir: dir,
                        client,
                    };
                }
                if child.try_wait().unwrap().is_some() {
                    break;
                }
                assert!(
                    started.elapsed() < Duration::from_secs(15),
                    "docker-registry did not come up on port {port}"
                );
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        panic!("docker-registry exited three times on start");
    }

    pub(crate) fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// Push an image to `repo` (monolithic blob uploads, then the manifest by digest).
    pub(crate) fn push(&self, repo: &str, img: &Image) -> String {
        let base = format!("https://{}/v2/{repo}", self.host());
        for (digest, bytes) in &img.blobs {
            let r = self
                .client
                .post(format!("{base}/blobs/uploads/"))
                .header("authorization", basic_auth())
                .send_empty()
                .unwrap();
            assert_eq!(r.status().as_u16(), 202, "upload start");
            let location = r.headers()["location"].to_str().unwrap().to_string();
            let url = if location.starts_with("http") {
                location
            } else {
                format!("https://{}{location}", self.host())
            };
            let sep = if url.contains('?') { '&' } else { '?' };
            let r = self
                .client
                .put(format!("{url}{sep}digest={digest}"))
                .header("authorization", basic_auth())
                .header("content-type", "application/octet-stream")
                .send(&bytes[..])
                .unwrap();
            assert_eq!(r.status().as_u16(), 201, "blob upload {digest}");
        }
        self.push_manifest(
            repo,
            &img.manifest,
            "application/vnd.oci.image.manifest.v1+json",
        )
    }

    /// Push a manifest or index by its digest; returns the reference.
    fn push_manifest(&self, repo: &str, bytes: &[u8], media_type: &str) -> String {
        let digest = sha(bytes);
        let mut r = self
            .client
            .put(format!(
                "https://{}/v2/{repo}/manifests/{digest}",
                self.host()
            ))
            .header("authorization", basic_auth())
            .header("content-type", media_type)
            .send(bytes)
            .unwrap();
        assert_eq!(
            r.status().as_u16(),
            201,
            "manifest upload: {:?}",
            r.body_mut().read_to_string()
        );
        format!("{}/{repo}@{digest}", self.host())
    }
}

fn bundles(rd: &Path) -> (PathBuf, PathBuf) {
    let pb = rd.join("platform-bundles");
    (
        pb.join("limitador-operator/0.11.0"),
        pb.join("dns-operator/0.6.0"),
    )
}

pub(crate) fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// stderr with miette's line wrapping undone (one space between words).
fn flat_stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr)
        .replace('│', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn csv_metadata_catalog_pulls_bundles_from_a_tls_registry_with_basic_auth() {
    let Some(rd) = realdata("csv_metadata_catalog_pulls_bundles_from_a_tls_registry") else {
        return;
    };
    let Some(bin) = registry_binary("csv_metadata_catalog_pulls_bundles_from_a_tls_registry")
    else {
        return;
    };
    let reg = Registry::start(&bin);
    let (limitador, dns) = bundles(&rd);
    let limitador_ref = reg.push("bundles/limitador", &bundle_image(&limitador));
    let dns_ref = reg.push("bundles/dns", &bundle_image(&dns));
    let catalog = csvmeta_catalog(&[(&limitador, limitador_ref.clone()), (&dns, dns_ref.clone())]);
    assert!(!catalog.contains("olm.bundle.object"));
    let install = format!(
        "apiVersion: v1\nadditionalTrustBundle: |\n{}pullSecret: '{}'\n",
        indent(&reg.ca_pem),
        auth_json(&reg.host())
    );
    let dir = install_dir(&catalog, &install);
    let cache = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let out = cmd()
        .args(["create", "--dir"])
        .arg(dir.path())
        .arg("--cache-dir")
        .arg(cache.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    eprintln!("create with two bundle pulls took {:?}", started.elapsed());
    check_created(dir.path());
    let first = tree(&dir.path().join("manifests"));

    // Offline, with the registry gone: the cache alone gives byte-identical output.
    drop(reg);
    std::fs::remove_dir_all(dir.path().join("manifests")).unwrap();
    std::fs::remove_file(dir.path().join("platform-operators.lock.yaml")).unwrap();
    let out = cmd()
        .args(["create", "--offline", "--dir"])
        .arg(dir.path())
        .arg("--cache-dir")
        .arg(cache.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(tree(&dir.path().join("manifests")), first);

    // Offline with an empty cache names the image and what to try; exit 3.
    let empty = tempfile::tempdir().unwrap();
    std::fs::remove_dir_all(dir.path().join("manifests")).unwrap();
    std::fs::remove_file(dir.path().join("platform-operators.lock.yaml")).unwrap();
    let out = cmd()
        .args(["create", "--offline", "--dir"])
        .arg(dir.path())
        .arg("--cache-dir")
        .arg(empty.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let e = stderr(&out);
    assert!(e.contains(&dns_ref) && e.contains("--offline"), "{e}");
    assert!(!dir.path().join("manifests").exists());
}

#[test]
fn bundle_pull_and_render_from_the_registry_need_credentials_and_trust() {
    let Some(rd) = realdata("bundle_pull_and_render_from_the_registry") else {
        return;
    };
    let Some(bin) = registry_binary("bundle_pull_and_render_from_the_registry") else {
        return;
    };
    let reg = Registry::start(&bin);
    let (_, dns) = bundles(&rd);
    let image = reg.push("bundles/dns", &bundle_image(&dns));
    let work = tempfile::tempdir().unwrap();
    let ca = work.path().join("ca.pem");
    std::fs::write(&ca, &reg.ca_pem).unwrap();
    let authfile = work.path().join("auth.json");
    std::fs::write(&authfile, auth_json(&reg.host())).unwrap();
    let cache = work.path().join("cache");

    // Without credentials: access denied, exit 3, with the hint.
    let out = cmd()
        .args(["bundle", "pull", &image, "--retries", "0", "--output-dir"])
        .arg(work.path().join("nocreds"))
        .arg("--ca-file")
        .arg(&ca)
        .arg("--cache-dir")
        .arg(&cache)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("access denied"), "{}", stderr(&out));
    assert!(stderr(&out).contains("--authfile"), "{}", stderr(&out));

    // Without the CA: TLS, exit 3.
    let out = cmd()
        .args(["bundle", "pull", &image, "--retries", "0", "--output-dir"])
        .arg(work.path().join("notrust"))
        .arg("--authfile")
        .arg(&authfile)
        .arg("--cache-dir")
        .arg(&cache)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("TLS"), "{}", stderr(&out));

    // With both: the bundle's files, byte for byte.
    let pulled = work.path().join("pulled");
    let out = cmd()
        .args(["bundle", "pull", &image, "--output-dir"])
        .arg(&pulled)
        .arg("--authfile")
        .arg(&authfile)
        .arg("--ca-file")
        .arg(&ca)
        .arg("--cache-dir")
        .arg(&cache)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let expected: Vec<(String, String)> = tree(&dns)
        .into_iter()
        .filter(|(n, _)| n.starts_with("manifests/") || n.starts_with("metadata/"))
        .collect();
    assert_eq!(tree(&pulled), expected);

    // An OCI index (two platforms) resolves to its linux/amd64 image.
    let (limitador, _) = bundles(&rd);
    let other = bundle_image(&limitador);
    reg.push("bundles/dns", &other);
    let dns_img = bundle_image(&dns);
    let index = serde_json::to_vec(&json!({
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.index.v1+json",
        "manifests": [
            {"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": other.digest, "size": other.manifest.len(), "platform": {"os": "linux", "architecture": "arm64"}},
            {"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": dns_img.digest, "size": dns_img.manifest.len(), "platform": {"os": "linux", "architecture": "amd64"}}
        ]
    }))
    .unwrap();
    let index_ref = reg.push_manifest(
        "bundles/dns",
        &index,
        "application/vnd.oci.image.index.v1+json",
    );
    let from_index = work.path().join("from-index");
    let out = cmd()
        .args(["bundle", "pull", &index_ref, "--output-dir"])
        .arg(&from_index)
        .arg("--authfile")
        .arg(&authfile)
        .arg("--ca-file")
        .arg(&ca)
        .arg("--cache-dir")
        .arg(&cache)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(tree(&from_index), expected);

    // `bundle render IMAGE` equals `bundle render DIR`.
    let from_image = work.path().join("r-image");
    let out = cmd()
        .args([
            "bundle",
            "render",
            &image,
            "--namespace",
            "dns-system",
            "--output-dir",
        ])
        .arg(&from_image)
        .arg("--authfile")
        .arg(&authfile)
        .arg("--ca-file")
        .arg(&ca)
        .arg("--cache-dir")
        .arg(&cache)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let from_dir = work.path().join("r-dir");
    cmd()
        .args(["bundle", "render"])
        .arg(&dns)
        .args(["--namespace", "dns-system", "--output-dir"])
        .arg(&from_dir)
        .assert()
        .success();
    assert_eq!(tree(&from_image), tree(&from_dir));
}

#[test]
fn a_mirror_rule_sends_the_pull_to_the_mirror() {
    let Some(rd) = realdata("a_mirror_rule_sends_the_pull_to_the_mirror") else {
        return;
    };
    let Some(bin) = registry_binary("a_mirror_rule_sends_the_pull_to_the_mirror") else {
        return;
    };
    let reg = Registry::start(&bin);
    let (limitador, dns) = bundles(&rd);
    // Pushed to the mirror only; the catalog names the unreachable source registry.
    let l = bundle_image(&limitador);
    let d = bundle_image(&dns);
    reg.push("mirror/kuadrant/limitador-bundle", &l);
    reg.push("mirror/kuadrant/dns-bundle", &d);
    let source = "registry.source.invalid/kuadrant";
    let catalog = csvmeta_catalog(&[
        (
            &limitador,
            format!("{source}/limitador-bundle@{}", l.digest),
        ),
        (&dns, format!("{source}/dns-bundle@{}", d.digest)),
    ]);
    let install = format!(
        "apiVersion: v1\nadditionalTrustBundle: |\n{}pullSecret: '{}'\nimageDigestSources:\n- source: {source}\n  mirrors:\n  - {}/mirror/kuadrant\n  sourcePolicy: NeverContactSource\n",
        indent(&reg.ca_pem),
        auth_json(&reg.host()),
        reg.host()
    );
    let dir = install_dir(&catalog, &install);
    let cache = tempfile::tempdir().unwrap();
    let create = || {
        cmd()
            .args(["create", "--no-mirror-check", "--dir"])
            .arg(dir.path())
            .arg("--cache-dir")
            .arg(cache.path())
            .output()
            .unwrap()
    };
    // The bundle came through the mirror, but limitador's own Deployment pulls its operator
    // image by tag, which the digest-only mirror rules never redirect: the check says so
    // and nothing is written.
    let out = create();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("image-tag-disconnected"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.path().join("manifests").exists());
    // Waived (the operator image is mirrored by tag elsewhere), the pull through the mirror
    // is what this test is about.
    let config = dir.path().join("platform-operators.yaml");
    let text = std::fs::read_to_string(&config).unwrap().replace(
        "    bootstrap: true\n",
        "    bootstrap: true\n    waive:\n    - rule: image-tag-disconnected\n      reason: the operator image is mirrored by tag\n",
    );
    std::fs::write(&config, text).unwrap();
    let out = create();
    assert!(out.status.success(), "{}", stderr(&out));
    check_created(dir.path());
    // The ClusterExtension names the source, as the cluster resolves it through the IDMS.
    let lock = std::fs::read_to_string(dir.path().join("platform-operators.lock.yaml")).unwrap();
    assert!(lock.contains(source), "{lock}");
}

#[test]
fn an_oci_layout_needs_no_network() {
    let Some(rd) = realdata("an_oci_layout_needs_no_network") else {
        return;
    };
    let (limitador, dns) = bundles(&rd);
    let l = bundle_image(&limitador);
    let d = bundle_image(&dns);
    let work = tempfile::tempdir().unwrap();
    let layout = work.path().join("layout");
    write_layout(&layout, &[("limitador", &l), ("dns", &d)]);
    // Names that cannot resolve: any connection attempt would fail the test.
    let catalog = csvmeta_catalog(&[
        (
            &limitador,
            format!("registry.source.invalid/k/limitador@{}", l.digest),
        ),
        (&dns, format!("registry.source.invalid/k/dns@{}", d.digest)),
    ]);
    let dir = install_dir(&catalog, "apiVersion: v1\n");
    let cache = work.path().join("cache");
    let out = cmd()
        .args(["create", "--offline", "--dir"])
        .arg(dir.path())
        .arg("--oci-layout")
        .arg(&layout)
        .arg("--cache-dir")
        .arg(&cache)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    check_created(dir.path());

    // `images` lists the bootstrap operator's workload images from the same content.
    let out = cmd()
        .args(["images", "--offline", "--dir"])
        .arg(dir.path())
        .arg("--oci-layout")
        .arg(&layout)
        .arg("--cache-dir")
        .arg(&cache)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(
        listed.contains("quay.io/kuadrant/limitador-operator:v0.11.0"),
        "{listed}"
    );

    // `bundle render --catalog` of a csv.metadata-only bundle pulls it the same way.
    let rendered = work.path().join("rendered");
    let out = cmd()
        .args(["bundle", "render", "--catalog"])
        .arg(dir.path().join("catalog.json"))
        .args([
            "--bundle",
            "dns-operator.v0.6.0",
            "--namespace",
            "dns-system",
        ])
        .args(["--offline", "--output-dir"])
        .arg(&rendered)
        .arg("--oci-layout")
        .arg(&layout)
        .arg("--cache-dir")
        .arg(work.path().join("cache-render"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        tree(&rendered)
            .iter()
            .any(|(n, _)| n.contains("customresourcedefinition_dnsrecords")),
        "{:?}",
        tree(&rendered).iter().map(|(n, _)| n).collect::<Vec<_>>()
    );

    // `--bundles` with the unpacked directories gives the same objects.
    let first = tree(&dir.path().join("manifests"));
    let dir2 = install_dir(&catalog, "apiVersion: v1\n");
    let out = cmd()
        .args(["create", "--offline", "--dir"])
        .arg(dir2.path())
        .arg("--bundles")
        .arg(rd.join("platform-bundles"))
        .arg("--cache-dir")
        .arg(work.path().join("cache2"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(tree(&dir2.path().join("manifests")), first);

    // Without any source: exit 3, naming the image and the fixes.
    let dir3 = install_dir(&catalog, "apiVersion: v1\n");
    let out = cmd()
        .args(["create", "--offline", "--dir"])
        .arg(dir3.path())
        .arg("--cache-dir")
        .arg(work.path().join("cache3"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("--oci-layout"), "{}", stderr(&out));
}

/// What `skopeo copy --all --preserve-digests docker://REF oci:DIR:NAME` writes (skopeo 1.9.3,
/// checked by hand against a local registry): the image as the registry serves it, its
/// manifest unchanged under its digest, named NAME in `DIR/index.json`. `images` are the
/// registry's. Each line must be exactly the form `create` prints.
fn skopeo_copy(line: &str, cwd: &Path, images: &[(&str, &Image)]) {
    let words: Vec<&str> = line.split_whitespace().collect();
    let [
        "skopeo",
        "copy",
        "--all",
        "--preserve-digests",
        source,
        destination,
    ] = words.as_slice()
    else {
        panic!("not a skopeo line create prints: {line}");
    };
    let reference = source.strip_prefix("docker://").unwrap();
    let (dir, name) = destination
        .strip_prefix("oci:")
        .unwrap()
        .split_once(':')
        .unwrap();
    let image = images
        .iter()
        .find(|(r, _)| *r == reference)
        .map(|(_, i)| *i)
        .unwrap_or_else(|| panic!("{reference} is in no registry"));
    let root = cwd.join(dir);
    let blobs = root.join("blobs/sha256");
    std::fs::create_dir_all(&blobs).unwrap();
    std::fs::write(root.join("oci-layout"), r#"{"imageLayoutVersion":"1.0.0"}"#).unwrap();
    for (d, bytes) in image
        .blobs
        .iter()
        .chain([&(image.digest.clone(), image.manifest.clone())])
    {
        std::fs::write(blobs.join(d.trim_start_matches("sha256:")), bytes).unwrap();
    }
    let index = root.join("index.json");
    let mut manifests: Vec<Value> = std::fs::read(&index)
        .ok()
        .map(|b| {
            serde_json::from_slice::<Value>(&b).unwrap()["manifests"]
                .as_array()
                .unwrap()
                .clone()
        })
        .unwrap_or_default();
    manifests.push(json!({"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": image.digest, "size": image.manifest.len(),
        "annotations": {"org.opencontainers.image.ref.name": name}}));
    std::fs::write(
        &index,
        serde_json::to_vec(&json!({"schemaVersion": 2, "manifests": manifests})).unwrap(),
    )
    .unwrap();
}

/// OpenShift 4.20 with two ClusterExtensions whose bundle content is only in their images,
/// `--offline` with neither image at hand: one list of the missing images, each with a ready
/// `skopeo copy` line, and the way out said once (not once per operator). The lines, run as
/// skopeo runs them, give the OCI layout the next run reads with the `--oci-layout` named.
#[test]
fn offline_missing_bundle_images_are_listed_once_with_skopeo_lines() {
    let ccm_dir = crate::common::root().join("testdata/bootstrap/ccm-bundle");
    let mapi_dir = crate::common::root().join("testdata/bootstrap/mapi-bundle");
    let (ccm, mapi) = (bundle_image(&ccm_dir), bundle_image(&mapi_dir));
    let ccm_ref = format!("registry.source.invalid/acme/ccm-bundle@{}", ccm.digest);
    let mapi_ref = format!("registry.source.invalid/acme/mapi-bundle@{}", mapi.digest);
    let work = tempfile::tempdir().unwrap();
    let dir = work.path().join("install");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(
        dir.join("catalog.json"),
        csvmeta_catalog(&[(&ccm_dir, ccm_ref.clone()), (&mapi_dir, mapi_ref.clone())]),
    )
    .unwrap();
    std::fs::write(
        dir.join("platform-operators.yaml"),
        format!(
            "platformOperators:\n  clusterVersion: \"4.20.3\"\n  catalogs:\n  - name: test\n    source: catalog.json\n    image: {CATALOG_IMAGE}\n  operators:\n  - name: ccm\n    package: acme-ccm\n    namespace: acme-ccm\n  - name: mapi\n    package: acme-machine-api\n    namespace: acme-mapi\n"
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("install-config.yaml"),
        "apiVersion: v1\nplatform:\n  none: {}\n",
    )
    .unwrap();
    let create = |extra: &[&str]| {
        cmd()
            .current_dir(work.path())
            .args([
                "create",
                "--offline",
                "--dir",
                "install",
                "--cache-dir",
                "cache",
            ])
            .args(extra)
            .output()
            .unwrap()
    };
    let out = create(&[]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let err = stderr(&out);
    let flat = flat_stderr(&out);
    assert!(
        flat.contains(&format!("2 bundle images are in neither the cache (cache) nor any --oci-layout, and --offline forbids pulling them: {ccm_ref} (operator \"ccm\") {mapi_ref} (operator \"mapi\")")),
        "{err}"
    );
    assert_eq!(
        flat.matches("run once without --offline").count(),
        1,
        "{err}"
    );
    assert_eq!(
        flat.matches("--oci-layout bundle-images").count(),
        1,
        "{err}"
    );
    let lines: Vec<&str> = err
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("skopeo copy"))
        .collect();
    assert_eq!(
        lines,
        [ccm_ref.as_str(), mapi_ref.as_str()].map(|r| format!(
            "skopeo copy --all --preserve-digests docker://{r} oci:bundle-images:{r}"
        )),
        "{err}"
    );
    assert!(!dir.join("manifests").exists());
    for line in lines {
        skopeo_copy(line, work.path(), &[(&ccm_ref, &ccm), (&mapi_ref, &mapi)]);
    }
    let out = create(&["--oci-layout", "bundle-images"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let written = manifests(&dir);
    for name in ["ccm", "mapi"] {
        assert!(
            written
                .iter()
                .any(|(n, o)| n.starts_with(&format!("99_po_{name}_"))
                    && o["kind"] == "ClusterExtension"),
            "{name}: {:?}",
            written.iter().map(|(n, _)| n).collect::<Vec<_>>()
        );
    }
}

/// Pull one hostile image from a layout; it must fail with exit 1 and `want` in the message,
/// writing nothing but the cache's staging area.
fn refused(img: &Image, extra: &[&str], want: &str) {
    let work = tempfile::tempdir().unwrap();
    let layout = work.path().join("layout");
    write_layout(&layout, &[("evil", img)]);
    let cache = work.path().join("cache");
    let out_dir = work.path().join("out");
    let image = format!("registry.source.invalid/evil@{}", img.digest);
    let out = cmd()
        .args(["bundle", "pull", &image, "--offline", "--output-dir"])
        .arg(&out_dir)
        .arg("--oci-layout")
        .arg(&layout)
        .arg("--cache-dir")
        .arg(&cache)
        .args(extra)
        .output()
        .unwrap();
    let e = flat_stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{e}");
    assert!(e.contains(want), "expected {want:?} in: {e}");
    assert!(e.contains(&image), "{e}");
    assert!(!out_dir.exists());
    // Nothing outside the cache, and nothing left unpacked in it.
    let mut top: Vec<String> = std::fs::read_dir(work.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    top.sort();
    assert_eq!(top, ["cache", "layout"]);
    assert!(
        !cache.join("bundles").exists()
            || std::fs::read_dir(cache.join("bundles"))
                .unwrap()
                .next()
                .is_none()
    );
    for entry in walkdir::WalkDir::new(&cache) {
        let entry = entry.unwrap();
        assert!(
            !entry.file_type().is_symlink(),
            "no link is ever created: {}",
            entry.path().display()
        );
        let name = entry.file_name().to_string_lossy();
        assert!(
            name != "escaped.yaml" && name != "passwd",
            "{}",
            entry.path().display()
        );
    }
}

const ANNOTATIONS: &[u8] =
    b"annotations:\n  operators.operatorframework.io.bundle.package.v1: evil\n";

/// The smallest ClusterServiceVersion a bundle may have.
const CSV: &[u8] = b"apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: evil.v1.0.0\nspec:\n  version: 1.0.0\n";

#[test]
fn hostile_images_are_refused() {
    let layer = |entries: &[Entry<'_>]| gzip(&raw_tar(entries));
    refused(
        &image(vec![layer(&[
            Entry::File("metadata/annotations.yaml", ANNOTATIONS),
            Entry::File("manifests/../../escaped.yaml", b"kind: x\n"),
        ])]),
        &[],
        "contains a \"..\" component",
    );
    refused(
        &image(vec![layer(&[Entry::File("/tmp/escaped.yaml", b"x")])]),
        &[],
        "absolute path",
    );
    refused(
        &image(vec![layer(&[Entry::Symlink(
            "manifests/passwd",
            "../../../../../../etc/passwd",
        )])]),
        &[],
        "outside the image",
    );
    // A layer whose bytes do not match the digest the manifest gives.
    let mut tampered = image(vec![layer(&[Entry::File(
        "metadata/annotations.yaml",
        ANNOTATIONS,
    )])]);
    let evil = layer(&[Entry::File(
        "metadata/annotations.yaml",
        b"annotations: {}\n",
    )]);
    tampered.blobs[1].1 = evil;
    refused(&tampered, &[], "but sha256:");
    // A compressed bomb: 8 MiB of zeros in a few KiB, over a 1 MiB limit.
    let zeros = vec![0u8; 8 * 1024 * 1024];
    refused(
        &image(vec![layer(&[Entry::File("manifests/big.yaml", &zeros)])]),
        &["--max-bundle-size", "1048576"],
        "more than 1048576 bytes",
    );
    // A layer whose declared size is already over the limit is not even read.
    let big: Vec<u8> = (0..2_000_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    refused(
        &image(vec![big]),
        &["--max-bundle-size", "1048576"],
        "larger than 1048576 bytes",
    );
}

#[test]
fn hostile_image_from_the_registry_is_refused() {
    let Some(bin) = registry_binary("hostile_image_from_the_registry_is_refused") else {
        return;
    };
    let reg = Registry::start(&bin);
    let img = image(vec![gzip(&raw_tar(&[Entry::File(
        "manifests/../../../escaped.yaml",
        b"x",
    )]))]);
    let image = reg.push("evil/bundle", &img);
    let work = tempfile::tempdir().unwrap();
    let ca = work.path().join("ca.pem");
    std::fs::write(&ca, &reg.ca_pem).unwrap();
    let authfile = work.path().join("auth.json");
    std::fs::write(&authfile, auth_json(&reg.host())).unwrap();
    let out = cmd()
        .args(["bundle", "pull", &image, "--output-dir"])
        .arg(work.path().join("out"))
        .arg("--authfile")
        .arg(&authfile)
        .arg("--ca-file")
        .arg(&ca)
        .arg("--cache-dir")
        .arg(work.path().join("cache"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("\"..\""), "{}", stderr(&out));
    assert!(!work.path().join("escaped.yaml").exists());
    assert!(!work.path().join("out").exists());
}

/// A scripted registry (anonymous) serving one image; `blob` answers layer requests.
fn scripted(
    img: &Image,
    manifest_failures: usize,
    blob: impl Fn(&[u8]) -> Vec<u8> + Send + Sync + 'static,
) -> (crate::net::Tls, crate::net::Server) {
    use crate::net::{Reply, serve, tls};
    let t = tls();
    let img = img.clone();
    let failures = std::sync::atomic::AtomicUsize::new(0);
    let server = serve(&t, move |_, path| {
        if path.contains("/manifests/") {
            if failures.fetch_add(1, std::sync::atomic::Ordering::SeqCst) < manifest_failures {
                return Reply::Status(503);
            }
            return Reply::Body {
                body: img.manifest.clone(),
                gzip: false,
            };
        }
        if let Some(d) = path.split("/blobs/").nth(1)
            && let Some((_, bytes)) = img.blobs.iter().find(|(digest, _)| digest == d)
        {
            return Reply::Body {
                body: blob(bytes),
                gzip: false,
            };
        }
        if path == "/v2/" {
            return Reply::Body {
                body: b"{}".to_vec(),
                gzip: false,
            };
        }
        Reply::Status(404)
    });
    (t, server)
}

fn pull_from(
    server: &crate::net::Server,
    ca_pem: &str,
    img: &Image,
    retries: &str,
) -> (std::process::Output, tempfile::TempDir) {
    let work = tempfile::tempdir().unwrap();
    let ca = work.path().join("ca.pem");
    std::fs::write(&ca, ca_pem).unwrap();
    let image = format!("127.0.0.1:{}/scripted/bundle@{}", server.port, img.digest);
    let out = cmd()
        .args(["bundle", "pull", &image, "--retries", retries])
        .args(["--retry-backoff", "10ms", "--output-dir"])
        .arg(work.path().join("out"))
        .arg("--ca-file")
        .arg(&ca)
        .arg("--cache-dir")
        .arg(work.path().join("cache"))
        .output()
        .unwrap();
    (out, work)
}

#[test]
fn registry_errors_are_retried_a_bounded_number_of_times() {
    let img = image(vec![gzip(&raw_tar(&[
        Entry::File("metadata/annotations.yaml", ANNOTATIONS),
        Entry::File("manifests/a.yaml", b"kind: ConfigMap\n"),
        Entry::File("manifests/csv.yaml", CSV),
    ]))]);
    // Two 503s, then the manifest: three attempts succeed.
    let (t, server) = scripted(&img, 2, <[u8]>::to_vec);
    let (out, work) = pull_from(&server, &t.ca_pem, &img, "2");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(work.path().join("out/manifests/a.yaml").is_file());
    let manifest_requests = server
        .paths()
        .iter()
        .filter(|p| p.contains("/manifests/"))
        .count();
    assert_eq!(manifest_requests, 3);
    // Always 503: exactly 1 + retries requests, then exit 3 naming the status.
    let (t, server) = scripted(&img, usize::MAX, <[u8]>::to_vec);
    let (out, _work) = pull_from(&server, &t.ca_pem, &img, "1");
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("HTTP 503"), "{}", stderr(&out));
    let manifest_requests = server
        .paths()
        .iter()
        .filter(|p| p.contains("/manifests/"))
        .count();
    assert_eq!(manifest_requests, 2);
}

/// A `bundle pull` with stderr on a terminal announces each registry retry above its
/// progress line and finishes; `-q` draws nothing.
#[cfg(target_os = "linux")]
#[test]
fn registry_retries_are_announced_on_a_terminal() {
    let img = image(vec![gzip(&raw_tar(&[
        Entry::File("metadata/annotations.yaml", ANNOTATIONS),
        Entry::File("manifests/a.yaml", b"kind: ConfigMap\n"),
        Entry::File("manifests/csv.yaml", CSV),
    ]))]);
    for quiet in [false, true] {
        let (t, server) = scripted(&img, 2, <[u8]>::to_vec);
        let work = tempfile::tempdir().unwrap();
        let ca = work.path().join("ca.pem");
        std::fs::write(&ca, &t.ca_pem).unwrap();
        let image = format!("127.0.0.1:{}/scripted/bundle@{}", server.port, img.digest);
        let mut c = crate::common::terminal_cmd();
        c.args(["bundle", "pull", &image, "--retries", "3"])
            .args(["--retry-backoff", "100ms", "--output-dir"])
            .arg(work.path().join("out"))
            .arg("--ca-file")
            .arg(&ca)
            .arg("--cache-dir")
            .arg(work.path().join("cache"));
        if quiet {
            c.arg("-q");
        }
        let (code, _, terminal) = crate::common::run_on_terminal(c);
        assert_eq!(code, Some(0), "{terminal}");
        let repo = format!("https://127.0.0.1:{}/v2/scripted/bundle/", server.port);
        let first =
            format!("retrying {repo} in 100ms (attempt 2 of 4): the registry answered HTTP 503");
        let second =
            format!("retrying {repo} in 200ms (attempt 3 of 4): the registry answered HTTP 503");
        if quiet {
            assert!(!terminal.contains("retrying"), "{terminal}");
            assert!(!terminal.contains("pulling"), "{terminal}");
        } else {
            assert!(
                terminal.contains(&first) && terminal.contains(&second),
                "{terminal}"
            );
            assert!(
                terminal.contains(&format!("pulling {image} from registry")),
                "{terminal}"
            );
        }
    }
}

#[test]
fn a_registry_serving_other_bytes_than_the_digest_is_refused() {
    let img = image(vec![gzip(&raw_tar(&[Entry::File(
        "metadata/annotations.yaml",
        ANNOTATIONS,
    )]))]);
    // Same length, different bytes.
    let (t, server) = scripted(&img, 0, |b| b.iter().map(|x| x ^ 0x55).collect());
    let (out, work) = pull_from(&server, &t.ca_pem, &img, "0");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("is expected"), "{}", stderr(&out));
    assert!(!work.path().join("out").exists());
    assert!(!work.path().join("cache/bundles").exists());
}

#[test]
fn install_config_proxy_and_trust_bundle_carry_the_pull() {
    let img = image(vec![gzip(&raw_tar(&[
        Entry::File("metadata/annotations.yaml", ANNOTATIONS),
        Entry::File("manifests/a.yaml", b"kind: ConfigMap\n"),
        Entry::File("manifests/csv.yaml", CSV),
    ]))]);
    let (t, server) = scripted(&img, 0, <[u8]>::to_vec);
    let proxy = crate::net::proxy();
    let work = tempfile::tempdir().unwrap();
    std::fs::write(
        work.path().join("install-config.yaml"),
        format!(
            "apiVersion: v1\nadditionalTrustBundle: |\n{}proxy:\n  httpsProxy: {}\n",
            indent(&t.ca_pem),
            proxy.url()
        ),
    )
    .unwrap();
    let image = format!("127.0.0.1:{}/scripted/bundle@{}", server.port, img.digest);
    let out = cmd()
        .args(["bundle", "pull", &image, "--dir"])
        .arg(work.path())
        .arg("--output-dir")
        .arg(work.path().join("out"))
        .arg("--cache-dir")
        .arg(work.path().join("cache"))
        .env_remove("HTTPS_PROXY")
        .env_remove("https_proxy")
        .env_remove("NO_PROXY")
        .env_remove("no_proxy")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!proxy.tunnels().is_empty());
    assert!(
        proxy
            .tunnels()
            .iter()
            .all(|t| *t == format!("127.0.0.1:{}", server.port))
    );
}

#[test]
fn bearer_token_challenges_are_followed() {
    use crate::net::{Reply, serve, tls};
    let img = image(vec![gzip(&raw_tar(&[
        Entry::File("metadata/annotations.yaml", ANNOTATIONS),
        Entry::File("manifests/a.yaml", b"kind: ConfigMap\n"),
        Entry::File("manifests/csv.yaml", CSV),
    ]))]);
    let t = tls();
    let port = std::sync::Arc::new(std::sync::atomic::AtomicU16::new(0));
    let served = img.clone();
    let p = port.clone();
    let server = serve(&t, move |_, path| {
        let port = p.load(std::sync::atomic::Ordering::SeqCst);
        if path == "/v2/" {
            return Reply::Challenge(format!(
                "Bearer realm=\"https://127.0.0.1:{port}/token\",service=\"test-registry\""
            ));
        }
        if path.starts_with("/token") {
            return Reply::Body {
                body: br#"{"token":"t0k3n","expires_in":300}"#.to_vec(),
                gzip: false,
            };
        }
        if path.contains("/manifests/") {
            return Reply::Body {
                body: served.manifest.clone(),
                gzip: false,
            };
        }
        if let Some(d) = path.split("/blobs/").nth(1)
            && let Some((_, bytes)) = served.blobs.iter().find(|(digest, _)| digest == d)
        {
            return Reply::Body {
                body: bytes.clone(),
                gzip: false,
            };
        }
        Reply::Status(404)
    });
    port.store(server.port, std::sync::atomic::Ordering::SeqCst);
    let (out, work) = pull_from(&server, &t.ca_pem, &img, "0");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(work.path().join("out/manifests/a.yaml").is_file());
    let paths = server.paths();
    let token = paths.iter().find(|p| p.starts_with("/token")).unwrap();
    assert!(
        token.contains("scope=repository%3Ascripted%2Fbundle%3Apull"),
        "{token}"
    );
    assert!(token.contains("service=test-registry"), "{token}");
}

// ------------------------------------------- token services (issue 34 items 1 and 2)

/// A registry on loopback whose `/v2/` asks for a bearer token from `realm(port)` and whose
/// `/token` answers `token(port)`; manifests and blobs of `img` are served to anyone.
fn token_registry(
    img: &Image,
    realm: impl Fn(u16) -> String + Send + Sync + 'static,
    token: impl Fn(u16) -> crate::net::Reply + Send + Sync + 'static,
) -> (crate::net::Tls, crate::net::Server) {
    use crate::net::{Reply, serve, tls};
    let t = tls();
    let port = std::sync::Arc::new(std::sync::atomic::AtomicU16::new(0));
    let served = img.clone();
    let p = port.clone();
    let server = serve(&t, move |_, path| {
        let port = p.load(std::sync::atomic::Ordering::SeqCst);
        if path == "/v2/" {
            return Reply::Challenge(format!(
                "Bearer realm=\"{}\",service=\"test-registry\"",
                realm(port)
            ));
        }
        if path.starts_with("/token") {
            return token(port);
        }
        if path.contains("/manifests/") {
            return body(&served.manifest);
        }
        if let Some(d) = path.split("/blobs/").nth(1)
            && let Some((_, bytes)) = served.blobs.iter().find(|(digest, _)| digest == d)
        {
            return body(bytes);
        }
        Reply::Status(404)
    });
    port.store(server.port, std::sync::atomic::Ordering::SeqCst);
    (t, server)
}

/// `bundle pull` from `server` with `--authfile` credentials for it, and these extra flags.
fn pull_with_credentials(
    server: &crate::net::Server,
    ca_pem: &str,
    img: &Image,
    extra: &[&str],
) -> (std::process::Output, tempfile::TempDir) {
    let work = tempfile::tempdir().unwrap();
    let ca = work.path().join("ca.pem");
    std::fs::write(&ca, ca_pem).unwrap();
    let auth = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, "puller:s3cret");
    std::fs::write(
        work.path().join("auth.json"),
        format!(
            r#"{{"auths":{{"127.0.0.1:{}":{{"auth":"{auth}"}}}}}}"#,
            server.port
        ),
    )
    .unwrap();
    let image = format!("127.0.0.1:{}/scripted/bundle@{}", server.port, img.digest);
    let out = cmd()
        .args(["bundle", "pull", &image, "--retries", "0"])
        .args(extra)
        .arg("--authfile")
        .arg(work.path().join("auth.json"))
        .arg("--output-dir")
        .arg(work.path().join("out"))
        .arg("--ca-file")
        .arg(&ca)
        .arg("--cache-dir")
        .arg(work.path().join("cache"))
        .output()
        .unwrap();
    (out, work)
}

#[test]
fn the_token_service_gets_the_credentials_over_https() {
    let img = small_bundle();
    let (t, server) = token_registry(
        &img,
        |port| format!("https://127.0.0.1:{port}/token"),
        |_| body(br#"{"token":"t0k3n"}"#),
    );
    let (out, work) = pull_with_credentials(&server, &t.ca_pem, &img, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(work.path().join("out/manifests/csv.yaml").is_file());
}

/// Issue 34 item 1: a token answer that never ends stops at the cap, at once.
#[test]
fn an_endless_token_answer_stops_at_the_cap() {
    let img = small_bundle();
    let (t, server) = token_registry(
        &img,
        |port| format!("https://127.0.0.1:{port}/token"),
        |_| crate::net::Reply::Endless,
    );
    let (out, work) = pull_with_credentials(&server, &t.ca_pem, &img, &["--timeout", "20s"]);
    let e = flat_stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{e}");
    assert!(e.contains("token service"), "{e}");
    assert!(e.contains("larger than 32768 bytes"), "{e}");
    let sent = server.sent();
    assert!(sent < 16 * 1024 * 1024, "{sent} bytes sent");
    assert!(!work.path().join("out").exists());
}

/// Issue 34 item 1: a token answer that trickles in is bounded by `--timeout` as a whole.
#[test]
fn a_trickling_token_answer_is_bounded_by_the_timeout() {
    let img = small_bundle();
    let (t, server) = token_registry(
        &img,
        |port| format!("https://127.0.0.1:{port}/token"),
        |_| crate::net::Reply::Drip,
    );
    let (out, _work) = pull_with_credentials(&server, &t.ca_pem, &img, &["--timeout", "1s"]);
    let e = flat_stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{e}");
    assert!(e.contains("timeout") && e.contains("token service"), "{e}");
    // A byte every 100 ms: the answer was cut well before its 30 s.
    assert!(server.sent() < 150, "{}", server.sent());
}

/// Issue 34 item 2: a realm that is not https:// gets no request, so no credentials; the
/// error names it.
#[test]
fn credentials_never_go_to_a_plain_http_realm() {
    let plain = crate::net::serve_plain();
    let realm = plain.url("/token");
    let img = small_bundle();
    let r = realm.clone();
    let (t, server) = token_registry(&img, move |_| r.clone(), |_| body(b"{}"));
    let (out, work) = pull_with_credentials(&server, &t.ca_pem, &img, &[]);
    let e = flat_stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{e}");
    assert!(
        e.contains(&format!(
            "refused to send credentials to the token service \"{realm}\""
        )),
        "{e}"
    );
    assert!(plain.heads().is_empty(), "{:?}", plain.heads());
    assert!(!work.path().join("out").exists());
}

/// Issue 34 item 2: an https:// token service that redirects to plain HTTP is not followed.
#[test]
fn a_token_service_redirecting_to_http_is_not_followed() {
    let plain = crate::net::serve_plain();
    let target = plain.url("/token");
    let img = small_bundle();
    let to = target.clone();
    let (t, server) = token_registry(
        &img,
        |port| format!("https://127.0.0.1:{port}/token"),
        move |_| crate::net::Reply::Redirect(to.clone()),
    );
    let (out, _work) = pull_with_credentials(&server, &t.ca_pem, &img, &[]);
    let e = flat_stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{e}");
    assert!(
        e.contains("refused to send credentials to the token service"),
        "{e}"
    );
    assert!(e.contains("a redirect from"), "{e}");
    assert!(plain.heads().is_empty(), "{:?}", plain.heads());
}

/// A blob that the registry redirects to other storage (as registries do to a CDN or a
/// bucket) is followed over HTTPS, and the registry's credentials stay with the registry.
#[test]
fn a_redirected_blob_is_fetched_without_the_registry_credentials() {
    use crate::net::{Reply, serve, tls};
    let img = small_bundle();
    let t = tls();
    let stored = img.clone();
    let storage = serve(&t, move |_, path| {
        match path
            .strip_prefix("/storage/")
            .and_then(|d| stored.blobs.iter().find(|(digest, _)| digest == d))
        {
            Some((_, bytes)) => body(bytes),
            None => Reply::Status(404),
        }
    });
    let storage_url = storage.url("/storage/");
    let served = img.clone();
    let registry = serve(&t, move |_, path| {
        if path == "/v2/" {
            return Reply::Challenge("Basic realm=\"test\"".into());
        }
        if path.contains("/manifests/") {
            return body(&served.manifest);
        }
        match path.split("/blobs/").nth(1) {
            Some(digest) => Reply::Redirect(format!("{storage_url}{digest}")),
            None => Reply::Status(404),
        }
    });
    let (out, work) = pull_with_credentials(&registry, &t.ca_pem, &img, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(work.path().join("out/manifests/csv.yaml").is_file());
    let has_auth = |head: &String| head.to_ascii_lowercase().contains("\r\nauthorization:");
    let blob_heads: Vec<String> = registry
        .heads()
        .into_iter()
        .filter(|h| h.contains("/blobs/"))
        .collect();
    assert!(
        !blob_heads.is_empty() && blob_heads.iter().all(has_auth),
        "{blob_heads:?}"
    );
    // The layer came from the storage, where the registry sent it.
    assert_eq!(storage.hits(), blob_heads.len(), "{:?}", storage.paths());
    assert!(
        !storage.heads().iter().any(has_auth),
        "{:?}",
        storage.heads()
    );
}

// ------------------------------------- bounded registry answers (issue 26 part 3 item 1)

/// A registry on loopback answering manifest requests with `manifest` and blob requests with
/// `blob` (given the blob's bytes), anonymously.
fn scripted_replies(
    img: &Image,
    manifest: impl Fn(&Image) -> crate::net::Reply + Send + Sync + 'static,
    blob: impl Fn(&[u8]) -> crate::net::Reply + Send + Sync + 'static,
) -> (crate::net::Tls, crate::net::Server) {
    use crate::net::{Reply, serve, tls};
    let t = tls();
    let img = img.clone();
    let server = serve(&t, move |_, path| {
        if path.contains("/manifests/") {
            return manifest(&img);
        }
        if let Some(d) = path.split("/blobs/").nth(1)
            && let Some((_, bytes)) = img.blobs.iter().find(|(digest, _)| digest == d)
        {
            return blob(bytes);
        }
        if path == "/v2/" {
            return Reply::Body {
                body: b"{}".to_vec(),
                gzip: false,
            };
        }
        Reply::Status(404)
    });
    (t, server)
}

fn small_bundle() -> Image {
    image(vec![gzip(&raw_tar(&[
        Entry::File("metadata/annotations.yaml", ANNOTATIONS),
        Entry::File("manifests/csv.yaml", CSV),
    ]))])
}

fn body(bytes: &[u8]) -> crate::net::Reply {
    crate::net::Reply::Body {
        body: bytes.to_vec(),
        gzip: false,
    }
}

/// `bundle pull` from a scripted registry, measured; with a 20 s timeout so that a client that
/// waits for the whole announced body fails the test by its exit status rather than hanging.
#[cfg(target_os = "linux")]
fn pull_measured(
    server: &crate::net::Server,
    ca_pem: &str,
    img: &Image,
) -> (std::process::Output, u64, tempfile::TempDir) {
    let work = tempfile::tempdir().unwrap();
    let ca = work.path().join("ca.pem");
    std::fs::write(&ca, ca_pem).unwrap();
    let image = format!("127.0.0.1:{}/scripted/bundle@{}", server.port, img.digest);
    let mut c = crate::common::std_cmd();
    c.args([
        "bundle",
        "pull",
        &image,
        "--retries",
        "0",
        "--timeout",
        "20s",
    ])
    .arg("--output-dir")
    .arg(work.path().join("out"))
    .arg("--ca-file")
    .arg(&ca)
    .arg("--cache-dir")
    .arg(work.path().join("cache"));
    let (out, rss) = crate::common::run_measured(c);
    (out, rss, work)
}

const MANIFEST_CAP: u64 = 4 * 1024 * 1024;

#[cfg(target_os = "linux")]
#[test]
fn an_endless_manifest_stops_at_4_mib() {
    let img = small_bundle();
    let (t, server) = scripted_replies(&img, |_| crate::net::Reply::Endless, body);
    let (out, rss, work) = pull_measured(&server, &t.ca_pem, &img);
    let e = flat_stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{e}");
    assert!(e.contains("larger than 4194304 bytes"), "{e}");
    let sent = server.sent();
    eprintln!("endless manifest: {sent} bytes sent, peak RSS {rss} bytes");
    assert!(sent < MANIFEST_CAP + 16 * 1024 * 1024, "{sent}");
    assert!(rss < 64 * 1024 * 1024, "peak RSS {rss}");
    assert!(!work.path().join("out").exists());
    assert!(!work.path().join("cache/bundles").exists());
}

#[cfg(target_os = "linux")]
#[test]
fn a_manifest_or_blob_announcing_too_much_is_refused_before_reading() {
    let ten_gib = 10 * 1024 * 1024 * 1024;
    let img = small_bundle();
    let (t, server) = scripted_replies(
        &img,
        move |_| crate::net::Reply::Announce { declared: ten_gib },
        body,
    );
    let (out, _, _work) = pull_measured(&server, &t.ca_pem, &img);
    let e = flat_stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{e}");
    assert!(
        e.contains("manifest") && e.contains("announces 10737418240 bytes (Content-Length)"),
        "{e}"
    );
    assert!(e.contains("larger than 4194304 bytes"), "{e}");
    // A layer whose answer announces more than its descriptor says.
    let (t, server) = scripted_replies(
        &img,
        |i| body(&i.manifest),
        move |_| crate::net::Reply::Announce { declared: ten_gib },
    );
    let (out, _, work) = pull_measured(&server, &t.ca_pem, &img);
    let e = flat_stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{e}");
    assert!(
        e.contains("announces 10737418240 bytes (Content-Length)"),
        "{e}"
    );
    assert!(!work.path().join("cache/bundles").exists());
}

// ------------------------------------------- `bundle pull` edge cases (issue 26 part 3 item 11)

/// A tar with long names (GNU long-name entries), for trees deeper and names longer than a
/// plain header holds.
fn long_tar(files: &[(String, &[u8])]) -> Vec<u8> {
    crate::generate::tar_of(files.iter().map(|(name, data)| (name.as_str(), *data)))
}

#[test]
fn whiteouts_that_remove_the_csv_leave_no_bundle() {
    let layer = |entries: &[Entry<'_>]| gzip(&raw_tar(entries));
    let base = layer(&[
        Entry::File("metadata/annotations.yaml", ANNOTATIONS),
        Entry::File("manifests/csv.yaml", CSV),
    ]);
    for whiteout in [
        ".wh.manifests",
        "manifests/.wh..wh..opq",
        "manifests/.wh.csv.yaml",
    ] {
        refused(
            &image(vec![base.clone(), layer(&[Entry::File(whiteout, b"")])]),
            &[],
            "no ClusterServiceVersion",
        );
    }
}

#[test]
fn a_deep_tree_is_not_kept_in_the_cache() {
    let deep = format!("metadata/{}deep.txt", "d/".repeat(2000));
    let img = image(vec![gzip(&long_tar(&[
        ("metadata/annotations.yaml".into(), ANNOTATIONS),
        ("manifests/csv.yaml".into(), CSV),
        (deep, b"x"),
    ]))]);
    let work = tempfile::tempdir().unwrap();
    let layout = work.path().join("layout");
    write_layout(&layout, &[("deep", &img)]);
    let cache = work.path().join("cache");
    let out_dir = work.path().join("out");
    let reference = format!("registry.source.invalid/deep@{}", img.digest);
    let out = cmd()
        .args(["bundle", "pull", &reference, "--offline", "--output-dir"])
        .arg(&out_dir)
        .arg("--oci-layout")
        .arg(&layout)
        .arg("--cache-dir")
        .arg(&cache)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(out_dir.join("manifests/csv.yaml").is_file());
    // Nothing deeper than what a bundle is read from (`manifests/F`, `metadata/F`) anywhere in
    // the cache: the unpacked bundle and the staging area alike.
    let deepest = walkdir::WalkDir::new(&cache)
        .into_iter()
        .map(|e| e.unwrap().depth())
        .max()
        .unwrap();
    assert!(deepest <= 4, "{deepest} levels in the cache");
    // Below manifests/, a subdirectory is not a registry+v1 bundle: refused, nothing kept.
    refused(
        &image(vec![gzip(&long_tar(&[
            ("metadata/annotations.yaml".into(), ANNOTATIONS),
            ("manifests/csv.yaml".into(), CSV),
            (format!("manifests/{}deep.yaml", "d/".repeat(2000)), b"x"),
        ]))]),
        &[],
        "subdirectories are not allowed",
    );
}

#[test]
fn a_name_over_255_bytes_is_refused_as_content() {
    let long = format!("manifests/{}.yaml", "a".repeat(300));
    refused(
        &image(vec![gzip(&long_tar(&[
            ("metadata/annotations.yaml".into(), ANNOTATIONS),
            ("manifests/csv.yaml".into(), CSV),
            (long, b"kind: ConfigMap\n"),
        ]))]),
        &[],
        "longer than 255 bytes",
    );
}

#[test]
fn an_unresolvable_registry_offline_says_ours_first() {
    let Some(mut c) =
        crate::remote::without_network("an_unresolvable_registry_offline_says_ours_first")
    else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    for v in ["HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy"] {
        c.env_remove(v);
    }
    let image = "registry.example.invalid/a/b@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    let out = c
        .args(["bundle", "pull", image, "--retries", "0", "--output-dir"])
        .arg(work.path().join("out"))
        .arg("--cache-dir")
        .arg(work.path().join("cache"))
        .output()
        .unwrap();
    let e = flat_stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{e}");
    let ours = e
        .find("cannot resolve registry.example.invalid: no network access? use --offline with a cached copy, or ")
        .unwrap_or_else(|| panic!("our sentence is missing: {e}"));
    let resolver = e
        .find("the resolver said: ")
        .unwrap_or_else(|| panic!("the resolver's text is missing: {e}"));
    assert!(ours < resolver, "{e}");
    assert!(!e[..ours].contains("dns error"), "{e}");
}

/// A manifest that trickles in is bounded by `--timeout` as a whole, as a token answer is
/// (one bounded reader for every small answer of a registry).
#[test]
fn a_trickling_manifest_is_bounded_by_the_timeout() {
    use crate::net::{Reply, serve, tls};
    let img = small_bundle();
    let t = tls();
    let server = serve(&t, move |_, path| {
        if path == "/v2/" {
            return body(b"{}");
        }
        if path.contains("/manifests/") {
            return Reply::Drip;
        }
        Reply::Status(404)
    });
    let (out, work) = pull_with_credentials(&server, &t.ca_pem, &img, &["--timeout", "1s"]);
    let e = flat_stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{e}");
    assert!(e.contains("--timeout"), "{e}");
    // A byte every 100 ms: the answer was cut well before its 30 s.
    assert!(server.sent() < 150, "{}", server.sent());
    assert!(!work.path().join("out").exists());
}
