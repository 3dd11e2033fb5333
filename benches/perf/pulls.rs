//! The bundle-pull shape: `resolve` (or `create`) for N ClusterExtension operators whose
//! catalog carries only
//! `olm.csv.metadata` (OpenShift 4.17 and later), so every bundle image is pulled, from a real
//! registry on loopback (Debian's `docker-registry`, TLS with a CA made here, anonymous) behind a
//! small TCP proxy that delays every chunk by a one-way latency and may cap the bandwidth the
//! registry sends with, so that the round trips a pull waits on are visible on loopback.
//!
//! ```text
//! cargo bench --bench perf -- pulls [--images 50] [--latency 25ms] [--bandwidth 0]
//!                                   [--jobs 1,6,50] [--runs 3] [--command resolve|create]
//!                                   [--work DIR]
//! ```
//!
//! `PO_MANIFESTS=/path/to/po-manifests` times that build instead of the bench's own.
//!
//! Measured, each as a whole process (wall clock, best and median of `--runs`):
//!
//! * every image alone, `po-manifests bundle pull IMAGE` into an empty cache: the slowest single
//!   pull (and the median);
//! * the command into an empty cache with `--jobs J` for each J;
//! * the command `--offline` with the cache filled: what it costs besides pulling.
//!
//! `resolve` by default: it pulls and converts every bundle as `create` does (the plan is the
//! same) but writes nothing, and `create`'s fsync of every file it writes (about 350 here)
//! costs a time on a shared disk that varies more than the pulls themselves;
//! * the transfer time: the bytes of every manifest and layer over `--bandwidth` (none when the
//!   bandwidth is not capped: loopback moves them in microseconds).
//!
//! The goal it reports: the pulling (cold minus warm) within 1.5× the slowest single pull
//! plus the transfer time.

use std::io::{Read, Write as _};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use serde_json::json;
use sha2::{Digest as _, Sha256};

use super::{Result, clear_set_aside, flag, generate, set_aside, spawn_measured};

/// Cluster version of the bench install: OLM v1, so every operator is a ClusterExtension whose
/// installer RBAC comes from its bundle's content.
const CLUSTER_VERSION: &str = "4.18.0";

pub fn pulls(args: &[String]) -> Result<()> {
    let images: usize = flag(args, "--images")
        .unwrap_or("50")
        .parse()
        .map_err(|e| format!("--images: {e}"))?;
    let latency = duration(flag(args, "--latency").unwrap_or("25ms"))?;
    let bandwidth: f64 = match flag(args, "--bandwidth").unwrap_or("0") {
        "0" => 0.0,
        b => generate::parse_size(b).ok_or_else(|| format!("--bandwidth {b}: not a size"))? as f64,
    };
    let jobs: Vec<usize> = flag(args, "--jobs")
        .unwrap_or("1,6,50")
        .split(',')
        .map(|j| j.parse().map_err(|e| format!("--jobs {j}: {e}")))
        .collect::<Result<_>>()?;
    let command = match flag(args, "--command").unwrap_or("resolve") {
        c @ ("resolve" | "create") => c,
        other => return Err(format!("--command {other}: expected resolve or create")),
    };
    let runs: usize = flag(args, "--runs")
        .unwrap_or("3")
        .parse()
        .map_err(|e| format!("--runs: {e}"))?;
    let work = flag(args, "--work")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("perf-pulls"));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;

    let registry = Registry::start(&work.join("registry"))?;
    let link = Arc::new(Link {
        latency,
        bandwidth,
        free_at: Mutex::new(Instant::now()),
    });
    let proxy = proxy(registry.addr, link)?;
    let host = format!("127.0.0.1:{}", proxy.port());

    // The bundles, their images pushed straight to the registry, the catalog naming them
    // through the proxy.
    let mut catalog = String::new();
    let mut refs = Vec::new();
    let mut bytes = 0usize;
    for (content, docs) in generate::registry_bundles(1, images) {
        let image = Image::of(&content);
        bytes += image.transfer_bytes();
        let repo = format!("bench/{}", content.package);
        registry.push(&repo, &image)?;
        let reference = format!("{host}/{repo}@{}", image.digest);
        for mut doc in docs {
            if doc["schema"] == "olm.bundle" {
                doc["image"] = json!(reference);
                doc["relatedImages"][0]["image"] = json!(reference);
            }
            catalog += &serde_json::to_string(&doc).map_err(|e| e.to_string())?;
            catalog.push('\n');
        }
        refs.push((content.package.clone(), reference));
    }
    let dir = work.join("install");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("catalog.jsonl"), &catalog).map_err(|e| e.to_string())?;
    let mut config = format!(
        "platformOperators:\n  clusterVersion: \"{CLUSTER_VERSION}\"\n  catalogs:\n  - name: bench-operators\n    source: catalog.jsonl\n    image: registry.example.com/bench/catalog@sha256:{}\n  operators:\n",
        "0".repeat(64)
    );
    for (i, (package, _)) in refs.iter().enumerate() {
        config += &format!("  - name: op-{i:02}\n    package: {package}\n    channel: stable\n");
    }
    std::fs::write(dir.join("platform-operators.yaml"), config).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("install-config.yaml"), super::INSTALL_CONFIG)
        .map_err(|e| e.to_string())?;
    let ca = work.join("ca.pem");
    std::fs::write(&ca, &registry.ca_pem).map_err(|e| e.to_string())?;

    // `PO_MANIFESTS` times another build of the same command (to compare builds).
    let po = std::env::var_os("PO_MANIFESTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_po-manifests")));
    let cache = work.join("cache");
    let fresh = |path: &Path| set_aside(&work, path);
    eprintln!(
        "pulls: {images} bundle images, {bytes} bytes of manifests and layers, one-way latency {latency:?}{}",
        if bandwidth > 0.0 {
            format!(", {:.1} MB/s", bandwidth / 1e6)
        } else {
            String::new()
        }
    );

    // Every image alone.
    let mut singles = Vec::with_capacity(refs.len());
    for (_, reference) in &refs {
        fresh(&cache);
        let out = work.join("pulled");
        fresh(&out);
        let (_, _, wall, _) = spawn_measured(
            Command::new(&po)
                .args(["bundle", "pull", reference, "--output-dir"])
                .arg(&out)
                .arg("--cache-dir")
                .arg(&cache)
                .arg("--ca-file")
                .arg(&ca),
        )?;
        singles.push(wall);
    }
    singles.sort_by(f64::total_cmp);
    let slowest = *singles.last().unwrap_or(&0.0);
    let single_median = singles.get(singles.len() / 2).copied().unwrap_or(0.0);
    eprintln!("  single pulls: slowest {slowest:.3}s, median {single_median:.3}s");

    let run = |jobs: Option<usize>| -> Result<(f64, f64)> {
        let mut walls = Vec::with_capacity(runs);
        for _ in 0..runs.max(1) {
            fresh(&dir.join("manifests"));
            let _ = std::fs::remove_file(dir.join("platform-operators.lock.yaml"));
            let mut cmd = Command::new(&po);
            cmd.arg(command)
                .arg("--dir")
                .arg(&dir)
                .arg("--cache-dir")
                .arg(&cache)
                .arg("--ca-file")
                .arg(&ca)
                .env("NO_COLOR", "1");
            match jobs {
                Some(j) => {
                    fresh(&cache);
                    cmd.arg("--jobs").arg(j.to_string());
                }
                None => {
                    cmd.arg("--offline");
                }
            }
            let (_, _, wall, _) = spawn_measured(&mut cmd)?;
            walls.push(wall);
        }
        walls.sort_by(f64::total_cmp);
        Ok((walls[0], walls[walls.len() / 2]))
    };
    let mut cold = Vec::new();
    for &j in &jobs {
        let (best, median) = run(Some(j))?;
        eprintln!("  {command} --jobs {j}: best {best:.3}s, median {median:.3}s");
        cold.push((j, best, median));
    }
    // The cache the last cold run filled: the command without pulling.
    let (warm, warm_median) = run(None)?;
    clear_set_aside(&work);
    eprintln!("  {command} --offline, cache filled: best {warm:.3}s, median {warm_median:.3}s");
    let transfer = if bandwidth > 0.0 {
        bytes as f64 / bandwidth
    } else {
        0.0
    };

    println!(
        "# bundle pulls: {images} images on a loopback registry, one-way latency {latency:?}, {}\n",
        if bandwidth > 0.0 {
            format!("{:.1} MB/s", bandwidth / 1e6)
        } else {
            "bandwidth not capped".to_string()
        }
    );
    println!(
        "{bytes} bytes of manifests and layers; transfer time {transfer:.3} s. Single pulls (`bundle pull`, empty cache): slowest {slowest:.3} s, median {single_median:.3} s. `{command} --offline` with the cache filled: {warm:.3} s (median {warm_median:.3} s).\n"
    );
    // One pull inside the run, from `--jobs 1` (connections kept from pull to pull): with J
    // in flight, n pulls take at least ⌈n/J⌉ of them, and at least the transfer time.
    let one = cold
        .iter()
        .find(|(j, _, _)| *j == 1)
        .map(|(_, best, _)| (best - warm).max(0.0) / images.max(1) as f64);
    println!(
        "| `{command}`, empty cache | best (s) | median (s) | pulling: best − warm (s) | pulling / (slowest single pull + transfer) | pulling / max(⌈n/J⌉ pulls of `--jobs 1`, transfer) |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    for (j, best, median) in cold {
        let pulling = (best - warm).max(0.0);
        let rounds = one
            .map(|one| {
                let floor = (images.div_ceil(j.max(1)) as f64 * one).max(transfer);
                format!("{:.2}×", pulling / floor)
            })
            .unwrap_or_else(|| "-".into());
        println!(
            "| `--jobs {j}` | {best:.3} | {median:.3} | {pulling:.3} | {:.2}× | {rounds} |",
            pulling / (slowest + transfer)
        );
    }
    drop(proxy);
    drop(registry);
    Ok(())
}

fn duration(text: &str) -> Result<Duration> {
    let (n, unit) = text.split_at(
        text.find(|c: char| !c.is_ascii_digit())
            .unwrap_or(text.len()),
    );
    let n: u64 = n.parse().map_err(|e| format!("{text}: {e}"))?;
    match unit {
        "ms" => Ok(Duration::from_millis(n)),
        "s" => Ok(Duration::from_secs(n)),
        "us" => Ok(Duration::from_micros(n)),
        _ => Err(format!("{text}: expected a duration such as 25ms")),
    }
}

fn sha(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

/// A bundle image: one gzip layer holding `manifests/` and `metadata/`, an OCI config and
/// manifest.
struct Image {
    manifest: Vec<u8>,
    digest: String,
    blobs: Vec<(String, Vec<u8>)>,
}

impl Image {
    fn of(content: &generate::BundleContent) -> Image {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&content.layer_tar()).expect("gzip in memory");
        let layer = gz.finish().expect("gzip in memory");
        let config = serde_json::to_vec(&json!({
            "architecture": "amd64", "os": "linux",
            "config": {"Labels": {"operators.operatorframework.io.bundle.mediatype.v1": "registry+v1"}},
            "rootfs": {"type": "layers", "diff_ids": []}
        }))
        .expect("JSON");
        let manifest = serde_json::to_vec(&json!({
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": sha(&config), "size": config.len()},
            "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": sha(&layer), "size": layer.len()}]
        }))
        .expect("JSON");
        Image {
            digest: sha(&manifest),
            manifest,
            blobs: vec![(sha(&config), config), (sha(&layer), layer)],
        }
    }

    /// What a pull moves: the manifest and the layer (the config is not fetched).
    fn transfer_bytes(&self) -> usize {
        self.manifest.len() + self.blobs.last().map_or(0, |(_, b)| b.len())
    }
}

/// `docker-registry` on 127.0.0.1 with TLS, anonymous, stopped when dropped.
struct Registry {
    child: Child,
    addr: SocketAddr,
    ca_pem: String,
    client: ureq::Agent,
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Registry {
    fn start(root: &Path) -> Result<Registry> {
        use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
        let binary = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
            .chain([PathBuf::from("/usr/bin")])
            .map(|d| d.join("docker-registry"))
            .find(|p| p.is_file())
            .ok_or("docker-registry is not installed (apt-get install docker-registry)")?;
        std::fs::create_dir_all(root).map_err(|e| e.to_string())?;
        let e = |e: rcgen::Error| e.to_string();
        let ca_key = KeyPair::generate().map_err(e)?;
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).map_err(e)?;
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params
            .distinguished_name
            .push(DnType::CommonName, "po-manifests bench CA");
        let ca_cert = ca_params.self_signed(&ca_key).map_err(e)?;
        let issuer = Issuer::new(ca_params, ca_key);
        let leaf_key = KeyPair::generate().map_err(e)?;
        let leaf = CertificateParams::new(vec!["127.0.0.1".to_string()])
            .map_err(e)?
            .signed_by(&leaf_key, &issuer)
            .map_err(e)?;
        let write = |name: &str, text: String| {
            std::fs::write(root.join(name), text).map_err(|e| e.to_string())
        };
        write("cert.pem", leaf.pem())?;
        write("key.pem", leaf_key.serialize_pem())?;
        let ca_pem = ca_cert.pem();
        let tls = ureq::tls::TlsConfig::builder()
            .root_certs(ureq::tls::RootCerts::new_with_certs(&[
                ureq::tls::Certificate::from_pem(ca_pem.as_bytes()).map_err(|e| e.to_string())?,
            ]))
            .unversioned_rustls_crypto_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .build();
        let client = ureq::Agent::config_builder()
            .tls_config(tls)
            .timeout_global(Some(Duration::from_secs(30)))
            .http_status_as_error(false)
            .build()
            .new_agent();
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| e.to_string())?
            .port();
        write(
            "config.yml",
            format!(
                "version: 0.1\nlog:\n  level: error\n  accesslog:\n    disabled: true\nstorage:\n  filesystem:\n    rootdirectory: {root}/data\nhttp:\n  addr: 127.0.0.1:{port}\n  secret: po-manifests-bench\n  tls:\n    certificate: {root}/cert.pem\n    key: {root}/key.pem\n",
                root = root.display()
            ),
        )?;
        let child = Command::new(binary)
            .arg("serve")
            .arg(root.join("config.yml"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| e.to_string())?;
        let mut registry = Registry {
            child,
            addr: SocketAddr::from(([127, 0, 0, 1], port)),
            ca_pem,
            client,
        };
        let started = Instant::now();
        loop {
            let up = registry
                .client
                .get(format!("https://127.0.0.1:{port}/v2/"))
                .call()
                .is_ok_and(|r| r.status().is_success());
            if up {
                return Ok(registry);
            }
            if registry
                .child
                .try_wait()
                .map_err(|e| e.to_string())?
                .is_some()
                || started.elapsed() > Duration::from_secs(15)
            {
                return Err(format!("docker-registry did not come up on port {port}"));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Push the image's blobs (monolithic uploads), then its manifest by digest.
    fn push(&self, repo: &str, image: &Image) -> Result<()> {
        let base = format!("https://{}/v2/{repo}", self.addr);
        for (digest, bytes) in &image.blobs {
            let r = self
                .client
                .post(format!("{base}/blobs/uploads/"))
                .send_empty()
                .map_err(|e| e.to_string())?;
            let location = r
                .headers()
                .get("location")
                .and_then(|l| l.to_str().ok())
                .ok_or_else(|| format!("upload of {digest}: no Location ({})", r.status()))?;
            let url = if location.starts_with("http") {
                location.to_string()
            } else {
                format!("https://{}{location}", self.addr)
            };
            let sep = if url.contains('?') { '&' } else { '?' };
            let r = self
                .client
                .put(format!("{url}{sep}digest={digest}"))
                .header("content-type", "application/octet-stream")
                .send(&bytes[..])
                .map_err(|e| e.to_string())?;
            if r.status().as_u16() != 201 {
                return Err(format!("upload of {digest}: {}", r.status()));
            }
        }
        let r = self
            .client
            .put(format!("{base}/manifests/{}", image.digest))
            .header("content-type", "application/vnd.oci.image.manifest.v1+json")
            .send(&image.manifest[..])
            .map_err(|e| e.to_string())?;
        if r.status().as_u16() != 201 {
            return Err(format!("manifest upload: {}", r.status()));
        }
        Ok(())
    }
}

/// The link between the client and the registry: every chunk arrives `latency` after it was
/// sent; what the registry sends also queues for `bandwidth` bytes per second (0: no cap),
/// shared by every connection, as on one access line.
struct Link {
    latency: Duration,
    bandwidth: f64,
    free_at: Mutex<Instant>,
}

/// A TCP proxy on 127.0.0.1 to `upstream` over a [`Link`]; stops accepting when dropped.
struct Proxy {
    port: u16,
    stop: Arc<std::sync::atomic::AtomicBool>,
}

impl Proxy {
    fn port(&self) -> u16 {
        self.port
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn proxy(upstream: SocketAddr, link: Arc<Link>) -> Result<Proxy> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stopped = stop.clone();
    std::thread::spawn(move || {
        for client in listener.incoming() {
            if stopped.load(std::sync::atomic::Ordering::SeqCst) {
                break;
            }
            let Ok(client) = client else { continue };
            let Ok(server) = TcpStream::connect(upstream) else {
                continue;
            };
            let _ = client.set_nodelay(true);
            let _ = server.set_nodelay(true);
            let (Ok(c2), Ok(s2)) = (client.try_clone(), server.try_clone()) else {
                continue;
            };
            pipe(client, server, link.clone(), false);
            pipe(s2, c2, link.clone(), true);
        }
    });
    Ok(Proxy { port, stop })
}

/// Copy `from` to `to` over the link: a reader stamps each chunk with when it is due, a writer
/// sends it then; the end of `from` shuts `to` for writing.
fn pipe(mut from: TcpStream, mut to: TcpStream, reader_link: Arc<Link>, capped: bool) {
    let (tx, rx) = mpsc::channel::<(Instant, Option<Vec<u8>>)>();
    std::thread::spawn(move || {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = from.read(&mut buf).unwrap_or(0);
            let now = Instant::now();
            let sent = if capped && reader_link.bandwidth > 0.0 && n > 0 {
                let mut free = reader_link
                    .free_at
                    .lock()
                    .unwrap_or_else(|e| e.into_inner());
                let start = (*free).max(now);
                *free = start + Duration::from_secs_f64(n as f64 / reader_link.bandwidth);
                *free
            } else {
                now
            };
            let due = sent + reader_link.latency;
            if n == 0 {
                let _ = tx.send((due, None));
                break;
            }
            if tx.send((due, Some(buf[..n].to_vec()))).is_err() {
                break;
            }
        }
    });
    std::thread::spawn(move || {
        for (due, chunk) in rx {
            let now = Instant::now();
            if due > now {
                std::thread::sleep(due - now);
            }
            match chunk {
                Some(bytes) => {
                    if to.write_all(&bytes).is_err() {
                        break;
                    }
                }
                None => break,
            }
        }
        let _ = to.shutdown(Shutdown::Write);
    });
}
