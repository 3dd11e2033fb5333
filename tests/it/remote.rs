//! Catalogs over HTTPS against a real TLS server on 127.0.0.1 (see `net`), with a CA made for
//! each test: trust, retries, timeouts, truncation, digest pins, proxies and the offline cache.
//! Exit status 3 for network failures, with the URL, the cause and what to try.

use std::path::Path;

use sha2::{Digest as _, Sha256};

use crate::common::{cmd, root, run_measured, tree};
use crate::net::{self, Reply};

fn catalog_body() -> Vec<u8> {
    std::fs::read(root().join("testdata/example/catalog/acme-cert-operator/catalog.json")).unwrap()
}

fn sha(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// An install directory whose catalog is `url`; `extra` is added to the catalog entry and
/// `install` to install-config.yaml.
fn install_dir(url: &str, extra: &str, install: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("install-config.yaml"),
        format!("apiVersion: v1\nfeatureSet: TechPreviewNoUpgrade\n{install}"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("platform-operators.yaml"),
        format!(
            "platformOperators:\n  clusterVersion: \"4.14.8\"\n  catalogs:\n  - name: redhat-operators\n    source: {url}\n{extra}  operators:\n  - name: cert-operator\n    package: acme-cert-operator\n    channel: stable\n"
        ),
    )
    .unwrap();
    dir
}

/// `po-manifests <command> --dir D --cache-dir C` with short timeouts, the CA file when given,
/// and no proxy variables from the environment.
fn run(
    command: &str,
    dir: &Path,
    cache: &Path,
    ca: Option<&Path>,
    extra: &[&str],
) -> std::process::Output {
    command_for(command, dir, cache, ca, extra)
        .output()
        .unwrap()
}

/// The command [`run`] runs, not started.
fn command_for(
    command: &str,
    dir: &Path,
    cache: &Path,
    ca: Option<&Path>,
    extra: &[&str],
) -> std::process::Command {
    let mut c = crate::common::std_cmd();
    c.arg(command)
        .arg("--dir")
        .arg(dir)
        .arg("--cache-dir")
        .arg(cache);
    for (flag, default) in [
        ("--connect-timeout", "2s"),
        ("--timeout", "5s"),
        ("--retry-backoff", "10ms"),
    ] {
        if !extra.contains(&flag) {
            c.args([flag, default]);
        }
    }
    for v in [
        "HTTPS_PROXY",
        "https_proxy",
        "HTTP_PROXY",
        "http_proxy",
        "ALL_PROXY",
        "all_proxy",
        "NO_PROXY",
        "no_proxy",
        "PO_MANIFESTS_CACHE_DIR",
    ] {
        c.env_remove(v);
    }
    if let Some(ca) = ca {
        c.arg("--ca-file").arg(ca);
    }
    c.args(extra);
    c
}

/// stderr with miette's line wrapping undone (one space between words).
fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr)
        .replace('│', " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

struct Setup {
    tls: net::Tls,
    work: tempfile::TempDir,
}

impl Setup {
    fn new() -> Setup {
        let tls = net::tls();
        let work = tempfile::tempdir().unwrap();
        std::fs::write(work.path().join("ca.pem"), &tls.ca_pem).unwrap();
        Setup { tls, work }
    }
    fn ca(&self) -> std::path::PathBuf {
        self.work.path().join("ca.pem")
    }
    fn cache(&self) -> std::path::PathBuf {
        self.work.path().join("cache")
    }
}

fn ok_body() -> Reply {
    Reply::Body {
        body: catalog_body(),
        gzip: false,
    }
}

#[test]
fn custom_ca_is_accepted_and_the_download_is_cached() {
    let s = Setup::new();
    let server = net::serve(&s.tls, |_, _| ok_body());
    let url = server.url("/catalogs/remote/api/v1/all");
    let dir = install_dir(&url, "", "");
    let o = run(
        "resolve",
        dir.path(),
        &s.cache(),
        Some(&s.ca()),
        &["-o", "json"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("\"bundle\": \"acme-cert-operator.v1.2.0\""),
        "{}",
        stdout(&o)
    );
    assert_eq!(server.paths(), ["/catalogs/remote/api/v1/all"]);
    // Content-addressed: the body is stored under its sha256.
    let cached: Vec<String> = tree(&s.cache()).into_iter().map(|(n, _)| n).collect();
    assert!(
        cached
            .iter()
            .any(|n| n.ends_with(&format!("sha256-{}", sha(&catalog_body())))),
        "{cached:?}"
    );
}

#[test]
fn additional_trust_bundle_is_trusted_too() {
    let s = Setup::new();
    let server = net::serve(&s.tls, |_, _| ok_body());
    let bundle: String = s.tls.ca_pem.lines().map(|l| format!("  {l}\n")).collect();
    let dir = install_dir(
        &server.url("/all"),
        "",
        &format!("additionalTrustBundle: |\n{bundle}"),
    );
    let o = run("resolve", dir.path(), &s.cache(), None, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn unknown_ca_is_refused_with_exit_3_and_a_hint() {
    let s = Setup::new();
    let server = net::serve(&s.tls, |_, _| ok_body());
    let url = server.url("/all");
    let dir = install_dir(&url, "", "");
    let o = run("resolve", dir.path(), &s.cache(), None, &[]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{e}");
    assert!(e.contains(&url), "{e}");
    assert!(e.contains("TLS") && e.contains("unknown issuer"), "{e}");
    assert!(e.contains("--ca-file"), "{e}");
    assert_eq!(
        server.hits(),
        0,
        "no request may go out over an untrusted connection"
    );
    assert!(tree(&s.cache()).is_empty());
}

#[test]
fn not_found_is_exit_3_with_the_status() {
    let s = Setup::new();
    let server = net::serve(&s.tls, |_, _| Reply::Status(404));
    let dir = install_dir(&server.url("/catalogs/nope/api/v1/all"), "", "");
    let o = run("resolve", dir.path(), &s.cache(), Some(&s.ca()), &[]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{e}");
    assert!(e.contains("HTTP status 404"), "{e}");
    assert!(e.contains("api/v1/all"), "{e}");
    // 404 is not retried.
    assert_eq!(server.hits(), 1);
}

#[test]
fn server_error_is_retried_then_succeeds() {
    let s = Setup::new();
    let server = net::serve(
        &s.tls,
        |n, _| {
            if n < 2 { Reply::Status(503) } else { ok_body() }
        },
    );
    let dir = install_dir(&server.url("/all"), "", "");
    let o = run("resolve", dir.path(), &s.cache(), Some(&s.ca()), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(server.hits(), 3);
}

#[test]
fn persistent_server_error_gives_up_after_the_retries() {
    let s = Setup::new();
    let server = net::serve(&s.tls, |_, _| Reply::Status(500));
    let dir = install_dir(&server.url("/all"), "", "");
    let o = run(
        "resolve",
        dir.path(),
        &s.cache(),
        Some(&s.ca()),
        &["--retries", "2"],
    );
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{e}");
    assert!(
        e.contains("HTTP status 500") && e.contains("after 3 attempts"),
        "{e}"
    );
    assert_eq!(server.hits(), 3);
}

#[test]
fn stalled_server_times_out() {
    let s = Setup::new();
    let server = net::serve(&s.tls, |_, _| Reply::Stall);
    let dir = install_dir(&server.url("/all"), "", "");
    let started = std::time::Instant::now();
    let o = run(
        "resolve",
        dir.path(),
        &s.cache(),
        Some(&s.ca()),
        &["--timeout", "400ms", "--retries", "0"],
    );
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{e}");
    assert!(e.contains("timeout"), "{e}");
    assert!(e.contains("--timeout"), "{e}");
    assert!(started.elapsed() < std::time::Duration::from_secs(3));
}

#[test]
fn truncated_body_is_refused_and_not_cached() {
    let s = Setup::new();
    let body = catalog_body();
    let server = net::serve(&s.tls, move |_, _| Reply::Truncated {
        body: body[..body.len() / 2].to_vec(),
        declared: body.len(),
    });
    let dir = install_dir(&server.url("/all"), "", "");
    let o = run("resolve", dir.path(), &s.cache(), Some(&s.ca()), &[]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{e}");
    assert!(e.contains("ended after"), "{e}");
    assert!(
        !tree(&s.cache()).iter().any(|(n, _)| n.contains("sha256-")),
        "a partial body must not be cached"
    );
}

#[test]
fn gzip_content_encoding_is_decoded() {
    let s = Setup::new();
    let server = net::serve(&s.tls, |_, _| Reply::Body {
        body: catalog_body(),
        gzip: true,
    });
    // The pin is over the decoded content.
    let dir = install_dir(
        &server.url("/all"),
        &format!("    sha256: \"{}\"\n", sha(&catalog_body())),
        "",
    );
    let o = run("resolve", dir.path(), &s.cache(), Some(&s.ca()), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn digest_mismatch_writes_nothing() {
    let s = Setup::new();
    let server = net::serve(&s.tls, |_, _| ok_body());
    let wrong = "0".repeat(64);
    let dir = install_dir(
        &server.url("/all"),
        &format!("    sha256: \"{wrong}\"\n"),
        "",
    );
    let o = run("create", dir.path(), &s.cache(), Some(&s.ca()), &[]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(
        e.contains(&sha(&catalog_body())) && e.contains(&wrong),
        "{e}"
    );
    assert!(!dir.path().join("manifests").exists());
    assert!(!dir.path().join("platform-operators.lock.yaml").exists());
    assert!(!tree(&s.cache()).iter().any(|(n, _)| n.contains("sha256-")));
}

#[test]
fn pinned_and_cached_is_used_without_a_connection() {
    let s = Setup::new();
    let server = net::serve(&s.tls, |_, _| ok_body());
    let dir = install_dir(
        &server.url("/all"),
        &format!("    sha256: \"{}\"\n", sha(&catalog_body())),
        "",
    );
    let o = run("resolve", dir.path(), &s.cache(), Some(&s.ca()), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = run("resolve", dir.path(), &s.cache(), Some(&s.ca()), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(server.hits(), 1);
}

#[test]
fn proxy_from_install_config_carries_the_request() {
    let s = Setup::new();
    let server = net::serve(&s.tls, |_, _| ok_body());
    let proxy = net::proxy();
    let dir = install_dir(
        &server.url("/all"),
        "",
        &format!("proxy:\n  httpsProxy: {}\n", proxy.url()),
    );
    let o = run("resolve", dir.path(), &s.cache(), Some(&s.ca()), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(proxy.tunnels(), [format!("127.0.0.1:{}", server.port)]);
    assert_eq!(server.hits(), 1);
}

#[test]
fn proxy_from_the_environment_and_no_proxy() {
    let s = Setup::new();
    let server = net::serve(&s.tls, |_, _| ok_body());
    let proxy = net::proxy();
    let dir = install_dir(&server.url("/all"), "", "");
    let mut c = cmd();
    c.args(["resolve", "--dir"])
        .arg(dir.path())
        .arg("--cache-dir")
        .arg(s.cache())
        .arg("--ca-file")
        .arg(s.ca())
        .env_remove("NO_PROXY")
        .env_remove("no_proxy")
        .env("HTTPS_PROXY", proxy.url());
    let o = c.output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(proxy.tunnels().len(), 1);
    // NO_PROXY sends the request direct.
    let o = cmd()
        .args(["resolve", "--dir"])
        .arg(dir.path())
        .arg("--cache-dir")
        .arg(s.cache())
        .arg("--ca-file")
        .arg(s.ca())
        .env("HTTPS_PROXY", proxy.url())
        .env("NO_PROXY", "127.0.0.1")
        .env_remove("no_proxy")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(proxy.tunnels().len(), 1, "NO_PROXY must bypass the proxy");
    assert_eq!(server.hits(), 2);
}

#[test]
fn proxy_that_refuses_the_tunnel_is_exit_3() {
    let s = Setup::new();
    let proxy = net::proxy();
    // The proxy only tunnels to 127.0.0.1; this host name never resolves or connects.
    let dir = install_dir(
        "https://catalogd.invalid/api/v1/all",
        "",
        &format!("proxy:\n  httpsProxy: {}\n", proxy.url()),
    );
    let o = run(
        "resolve",
        dir.path(),
        &s.cache(),
        Some(&s.ca()),
        &["--retries", "0"],
    );
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{e}");
    assert!(e.contains("https://catalogd.invalid/api/v1/all"), "{e}");
    assert!(e.contains("proxy"), "{e}");
}

#[test]
fn offline_uses_the_cache_and_never_connects() {
    let s = Setup::new();
    let server = net::serve(&s.tls, |_, _| ok_body());
    let dir = install_dir(&server.url("/all"), "", "");
    let o = run("create", dir.path(), &s.cache(), Some(&s.ca()), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let lock = std::fs::read_to_string(dir.path().join("platform-operators.lock.yaml")).unwrap();
    assert!(lock.contains(&sha(&catalog_body())), "{lock}");
    drop(server);
    // The server is gone: offline reads the cache, --locked checks the recorded digest.
    let o = run(
        "create",
        dir.path(),
        &s.cache(),
        None,
        &["--offline", "--locked"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn offline_without_a_cached_copy_names_the_url() {
    let s = Setup::new();
    let server = net::serve(&s.tls, |_, _| ok_body());
    let url = server.url("/all");
    let dir = install_dir(&url, "", "");
    let o = run(
        "resolve",
        dir.path(),
        &s.cache(),
        Some(&s.ca()),
        &["--offline"],
    );
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{e}");
    assert!(e.contains(&url) && e.contains("--offline"), "{e}");
    assert!(e.contains("not in the cache"), "{e}");
    assert_eq!(server.hits(), 0);
}

#[test]
fn locked_refuses_a_catalog_that_changed_on_the_server() {
    let s = Setup::new();
    let body = catalog_body();
    let changed = {
        let mut b = body.clone();
        b.extend_from_slice(b"\n");
        b
    };
    let server = net::serve(&s.tls, move |n, _| Reply::Body {
        body: if n == 0 {
            body.clone()
        } else {
            changed.clone()
        },
        gzip: false,
    });
    let dir = install_dir(&server.url("/all"), "", "");
    let o = run("create", dir.path(), &s.cache(), Some(&s.ca()), &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // The locked content is cached, so --locked needs no download at all.
    let o = run(
        "create",
        dir.path(),
        &s.cache(),
        Some(&s.ca()),
        &["--locked"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(server.hits(), 1);
    // With an empty cache the server's new content does not match the lock.
    let empty = s.work.path().join("empty-cache");
    let o = run("create", dir.path(), &empty, Some(&s.ca()), &["--locked"]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(e.contains("the lock records content"), "{e}");
}

#[test]
fn connection_refused_is_exit_3_and_retried() {
    let s = Setup::new();
    // A port that was just free: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("https://127.0.0.1:{port}/all");
    let dir = install_dir(&url, "", "");
    let o = run(
        "resolve",
        dir.path(),
        &s.cache(),
        Some(&s.ca()),
        &["--retries", "1"],
    );
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{e}");
    assert!(
        e.contains("cannot connect") && e.contains("after 2 attempts"),
        "{e}"
    );
}

/// Timing, not a check: download a generated ~40 MB JSON lines catalog over loopback HTTPS
/// (plain and gzip), then load it from the cache. Run with
/// `cargo test --release --test it measure_large_download -- --ignored --nocapture`.
#[test]
#[ignore = "measurement"]
fn measure_large_download() {
    let s = Setup::new();
    let mut body = catalog_body();
    let filler: String = (0..200_000)
        .map(|i| {
            format!(
                "{{\"schema\":\"olm.package\",\"name\":\"filler-{i:06}\",\"defaultChannel\":\"stable\",\"description\":\"{}\"}}\n",
                "x".repeat(150)
            )
        })
        .collect();
    body.extend_from_slice(b"\n");
    body.extend_from_slice(filler.as_bytes());
    let size = body.len();
    for gzip in [false, true] {
        let b = body.clone();
        let server = net::serve(&s.tls, move |_, _| Reply::Body {
            body: b.clone(),
            gzip,
        });
        let dir = install_dir(&server.url("/all"), "", "");
        let cache = s.work.path().join(format!("cache-{gzip}"));
        let t = std::time::Instant::now();
        let o = run("resolve", dir.path(), &cache, Some(&s.ca()), &[]);
        let online = t.elapsed();
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let t = std::time::Instant::now();
        let o = run("resolve", dir.path(), &cache, None, &["--offline"]);
        let offline = t.elapsed();
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        eprintln!(
            "{} MB (gzip: {gzip}): download + cache + load {online:?}; offline load from cache {offline:?}",
            size / 1_000_000
        );
    }
}

#[test]
fn gzip_file_body_and_yaml_body_are_read() {
    use std::io::Write as _;
    let s = Setup::new();
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(&catalog_body()).unwrap();
    let gz = enc.finish().unwrap();
    // The same catalog as a YAML stream.
    let docs: Vec<serde_json::Value> = serde_json::Deserializer::from_slice(&catalog_body())
        .into_iter()
        .map(Result::unwrap)
        .collect();
    let yaml: String = docs
        .iter()
        .map(|d| format!("---\n{}", po_manifests::output::yaml::to_yaml(d).unwrap()))
        .collect();
    let server = net::serve(&s.tls, move |_, path| Reply::Body {
        body: if path.ends_with(".gz") {
            gz.clone()
        } else {
            yaml.clone().into_bytes()
        },
        gzip: false,
    });
    for path in ["/catalog.jsonl.gz", "/catalog.yaml"] {
        let dir = install_dir(&server.url(path), "", "");
        let o = run(
            "resolve",
            dir.path(),
            &s.cache(),
            Some(&s.ca()),
            &["-o", "wide"],
        );
        assert_eq!(o.status.code(), Some(0), "{path}: {}", stderr(&o));
        assert!(stdout(&o).contains("acme-cert-operator.v1.2.0"), "{path}");
    }
}

/// `po-manifests command` with the remote tests' flags, stderr on a terminal
/// ([`crate::common::run_on_terminal`]).
#[cfg(target_os = "linux")]
fn on_terminal(
    dir: &Path,
    cache: &Path,
    ca: &Path,
    command: &str,
    extra: &[&str],
) -> (Option<i32>, String, String) {
    let mut c = crate::common::terminal_cmd();
    c.args([command, "--dir"])
        .arg(dir)
        .arg("--cache-dir")
        .arg(cache)
        .arg("--ca-file")
        .arg(ca)
        .args(["--retry-backoff", "300ms", "--connect-timeout", "2s"])
        .args(extra);
    for v in ["HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy"] {
        c.env_remove(v);
    }
    crate::common::run_on_terminal(c)
}

/// On a terminal a retry is announced above the progress line, from the worker thread that
/// loads the catalog, while `main` holds the stderr lock; the run finishes. `-q` draws nothing.
#[cfg(target_os = "linux")]
#[test]
fn a_retry_is_announced_on_a_terminal_and_quiet_silences_it() {
    let s = Setup::new();
    let server = net::serve(&s.tls, |n, _| {
        if n % 3 < 2 {
            Reply::Status(503)
        } else {
            ok_body()
        }
    });
    let url = server.url("/all");
    let dir = install_dir(&url, "", "");
    let (code, stdout, terminal) = on_terminal(dir.path(), &s.cache(), &s.ca(), "create", &[]);
    assert_eq!(code, Some(0), "{terminal}");
    assert!(stdout.contains("manifests/"), "{stdout}");
    assert!(
        terminal.contains(&format!(
            "retrying {url} in 300ms (attempt 2 of 4): HTTP status 503 Service Unavailable"
        )) && terminal.contains(&format!(
            "retrying {url} in 600ms (attempt 3 of 4): HTTP status 503 Service Unavailable"
        )),
        "{terminal}"
    );
    assert!(terminal.contains("loading 1 catalog(s)"), "{terminal}");
    assert!(
        terminal.contains(&format!("downloaded {url} (16.")),
        "{terminal}"
    );
    assert!(
        terminal.contains("checking operator \"cert-operator\" (1 of 1)"),
        "{terminal}"
    );
    assert!(terminal.contains("wrote "), "{terminal}");

    let quiet_cache = s.work.path().join("cache-quiet");
    let (code, _, terminal) =
        on_terminal(dir.path(), &quiet_cache, &s.ca(), "resolve", &["--quiet"]);
    assert_eq!(code, Some(0), "{terminal}");
    assert!(!terminal.contains("retrying"), "{terminal}");
    assert!(!terminal.contains("loading"), "{terminal}");
    assert_eq!(server.hits(), 6);
}

// ------------------------------------------------ bounded downloads (issue 26 part 3 item 2)

/// Nothing of a refused download is kept: no entry for the URL (so no `latest`), nothing left
/// in the staging directory; and a later `--offline` run finds nothing to use.
fn assert_nothing_cached(s: &Setup, dir: &Path) {
    let files: Vec<String> = tree(&s.cache()).into_iter().map(|(n, _)| n).collect();
    assert!(files.is_empty(), "{files:?}");
    let o = run("resolve", dir, &s.cache(), None, &["--offline"]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("nothing was ever downloaded from this URL"),
        "{}",
        stderr(&o)
    );
}

/// The peak memory a refused download may take: far below the bytes the server sent.
const FLAT_MEMORY: u64 = 64 * 1024 * 1024;

#[test]
fn a_declared_content_length_over_the_cap_is_refused_before_the_body() {
    let s = Setup::new();
    let server = net::serve(&s.tls, |_, _| Reply::Announce {
        declared: 10 * 1024 * 1024 * 1024,
    });
    let dir = install_dir(&server.url("/all"), "", "");
    let o = run("resolve", dir.path(), &s.cache(), Some(&s.ca()), &[]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(
        e.contains("the server announces 10737418240 bytes (Content-Length), more than --max-catalog-size allows (2147483648 bytes)"),
        "{e}"
    );
    assert!(e.contains("raise --max-catalog-size"), "{e}");
    // Refused content is not retried.
    assert_eq!(server.hits(), 1);
    assert_eq!(server.sent(), 0);
    assert_nothing_cached(&s, dir.path());
}

#[cfg(target_os = "linux")]
#[test]
fn an_endless_body_stops_at_the_cap_in_flat_memory() {
    let s = Setup::new();
    let server = net::serve(&s.tls, |_, _| Reply::Endless);
    let dir = install_dir(&server.url("/all"), "", "");
    let cap: u64 = 96 * 1024 * 1024;
    let (o, rss) = run_measured(command_for(
        "resolve",
        dir.path(),
        &s.cache(),
        Some(&s.ca()),
        &["--max-catalog-size", &cap.to_string(), "--timeout", "120s"],
    ));
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(
        e.contains(&format!("the body goes on past {cap} bytes")),
        "{e}"
    );
    // The client hung up at the cap: the server sent at most the cap and what was in flight.
    let sent = server.sent();
    eprintln!("endless body: {sent} bytes sent, peak RSS {rss} bytes, cap {cap}");
    assert!(sent >= cap && sent < cap + 16 * 1024 * 1024, "{sent}");
    assert!(rss < FLAT_MEMORY, "peak RSS {rss} bytes");
    assert_eq!(server.hits(), 1);
    assert_nothing_cached(&s, dir.path());
}

/// 256 MiB of zeros as 256 gzip members of 1 MiB each: ~260 KB on the wire.
fn gzip_bomb() -> Vec<u8> {
    use std::io::Write as _;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(&vec![0u8; 1024 * 1024]).unwrap();
    enc.finish().unwrap().repeat(256)
}

#[cfg(target_os = "linux")]
#[test]
fn gzip_bombs_are_refused_and_never_cached() {
    let bomb = gzip_bomb();
    for headers in ["", "Content-Encoding: gzip\r\n"] {
        let s = Setup::new();
        let body = bomb.clone();
        let server = net::serve(&s.tls, move |_, _| Reply::Raw {
            headers: headers.to_string(),
            body: body.clone(),
        });
        let dir = install_dir(&server.url("/all"), "", "");
        let (o, rss) = run_measured(command_for(
            "resolve",
            dir.path(),
            &s.cache(),
            Some(&s.ca()),
            &[],
        ));
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{headers:?}: {e}");
        assert!(e.contains("refused as a compression bomb"), "{e}");
        eprintln!(
            "gzip bomb {headers:?}: {} bytes sent, peak RSS {rss} bytes",
            bomb.len()
        );
        assert!(rss < FLAT_MEMORY, "peak RSS {rss} bytes");
        assert_nothing_cached(&s, dir.path());
    }
}

/// Decompressed bytes are capped by --max-catalog-size too, at a ratio no bomb check sees.
#[test]
fn a_body_decompressing_past_the_cap_is_refused() {
    let s = Setup::new();
    let body: Vec<u8> = (0..3_000_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let server = net::serve(&s.tls, move |_, _| Reply::Body {
        body: body.clone(),
        gzip: true,
    });
    let dir = install_dir(&server.url("/all"), "", "");
    let o = run(
        "resolve",
        dir.path(),
        &s.cache(),
        Some(&s.ca()),
        &["--max-catalog-size", "1048576"],
    );
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(
        e.contains("the body decompresses to more than 1048576 bytes"),
        "{e}"
    );
    assert_nothing_cached(&s, dir.path());
}

// ------------------------------------------------ offline DNS (issue 22 part 4)

/// `unshare -rn` (a network namespace of its own: no interface up, no resolver reachable), or
/// `None` with a note when this machine does not allow it.
pub(crate) fn without_network(test: &str) -> Option<std::process::Command> {
    let ok = std::process::Command::new("unshare")
        .args(["-rn", "true"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipped {test}: `unshare -rn` is not allowed here");
        return None;
    }
    let mut c = std::process::Command::new("unshare");
    c.arg("-rn")
        .arg(assert_cmd::cargo::cargo_bin!("po-manifests"));
    c.env("NO_COLOR", "1");
    Some(c)
}

#[test]
fn an_unresolvable_host_offline_says_ours_first() {
    let Some(mut c) = without_network("an_unresolvable_host_offline_says_ours_first") else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let dir = install_dir("https://catalog.example.invalid/api/v1/all", "", "");
    for v in ["HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy"] {
        c.env_remove(v);
    }
    let o = c
        .arg("resolve")
        .arg("--dir")
        .arg(dir.path())
        .arg("--cache-dir")
        .arg(work.path().join("cache"))
        .args(["--retries", "0", "--connect-timeout", "2s"])
        .output()
        .unwrap();
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{e}");
    let ours = e
        .find("cannot resolve catalog.example.invalid: no network access? use --offline with a cached copy, or ")
        .unwrap_or_else(|| panic!("our sentence is missing: {e}"));
    let resolver = e
        .find("the resolver said: ")
        .unwrap_or_else(|| panic!("the resolver's text is missing: {e}"));
    assert!(ours < resolver, "{e}");
    assert!(
        !e[..ours].contains("lookup"),
        "nothing of the resolver before ours: {e}"
    );
}
