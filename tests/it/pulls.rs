//! Bundle images pulled several at once (`--jobs`): what `create` writes and reports is the
//! same whatever the number of pulls in flight and whichever finishes first; a failed pull
//! among them writes nothing; and no more than `--jobs` pulls are ever in flight.
//!
//! The bundles are the benchmark generator's (`benches/perf/generate.rs`), one per package,
//! served by Debian's `docker-registry` on loopback (skipped with a note when it is not
//! installed, except in CI) or, to count the pulls in flight, by a scripted registry.

use std::path::Path;
use std::process::Output;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use crate::common::{cmd, tree};
use crate::generate;
use crate::images::{
    CATALOG_IMAGE, Image, Registry, auth_json, gzip, image, indent, registry_binary, stderr,
};

/// A bundle image of generated content: one gzip layer holding its files.
fn bundle_image(content: &generate::BundleContent) -> Image {
    image(vec![gzip(&content.layer_tar())])
}

/// `n` generated bundles and their images.
fn bundles(n: usize) -> Vec<(generate::BundleContent, Vec<serde_json::Value>, Image)> {
    generate::registry_bundles(7, n)
        .into_iter()
        .map(|(content, docs)| {
            let img = bundle_image(&content);
            (content, docs, img)
        })
        .collect()
}

/// An install directory for OpenShift 4.18: one ClusterExtension per `(package, image)`, the
/// catalog (`olm.csv.metadata` only) naming each bundle by that image, and `install_config`.
fn install_dir(
    bundles: &[(generate::BundleContent, Vec<serde_json::Value>, Image)],
    images: &[String],
    install_config: &str,
) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let mut catalog = String::new();
    let mut config = format!(
        "platformOperators:\n  clusterVersion: \"4.18.2\"\n  catalogs:\n  - name: test\n    source: catalog.jsonl\n    image: {CATALOG_IMAGE}\n  operators:\n"
    );
    for (i, ((content, docs, _), reference)) in bundles.iter().zip(images).enumerate() {
        for doc in docs {
            let mut doc = doc.clone();
            if doc["schema"] == "olm.bundle" {
                doc["image"] = reference.as_str().into();
                doc["relatedImages"][0]["image"] = reference.as_str().into();
            }
            catalog.push_str(&serde_json::to_string(&doc).unwrap());
            catalog.push('\n');
        }
        config.push_str(&format!(
            "  - name: op-{i}\n    package: {}\n    channel: stable\n",
            content.package
        ));
    }
    std::fs::write(d.path().join("catalog.jsonl"), catalog).unwrap();
    std::fs::write(d.path().join("platform-operators.yaml"), config).unwrap();
    std::fs::write(d.path().join("install-config.yaml"), install_config).unwrap();
    d
}

/// `create --jobs N` into `dir` with an empty cache; the output, and what was written (the
/// manifests and the lock file), which is then removed for the next run.
fn create(dir: &Path, jobs: usize, extra: &[&str]) -> (Output, Vec<(String, String)>) {
    let cache = tempfile::tempdir().unwrap();
    let out = cmd()
        .args(["create", "--jobs", &jobs.to_string(), "--dir"])
        .arg(dir)
        .arg("--cache-dir")
        .arg(cache.path())
        .args(extra)
        .output()
        .unwrap();
    let mut written = tree(&dir.join("manifests"));
    let lock = dir.join("platform-operators.lock.yaml");
    if let Ok(text) = std::fs::read_to_string(&lock) {
        written.push(("platform-operators.lock.yaml".into(), text));
    }
    let _ = std::fs::remove_dir_all(dir.join("manifests"));
    let _ = std::fs::remove_file(&lock);
    (out, written)
}

/// [`install_dir`] for a scripted registry (anonymous, its CA in the install directory):
/// the directory and the path of the CA file to pass with `--ca-file`.
fn scripted_install_dir(
    bundles: &[(generate::BundleContent, Vec<serde_json::Value>, Image)],
    images: &[String],
    tls: &crate::net::Tls,
) -> (tempfile::TempDir, String) {
    let dir = install_dir(
        bundles,
        images,
        "apiVersion: v1\nbaseDomain: example.com\nmetadata:\n  name: pulls\nplatform:\n  none: {}\npullSecret: ''\n",
    );
    let ca = dir.path().join("ca.pem");
    std::fs::write(&ca, &tls.ca_pem).unwrap();
    let ca = ca.to_str().unwrap().to_owned();
    (dir, ca)
}

fn registry_install_config(reg: &Registry) -> String {
    format!(
        "apiVersion: v1\nbaseDomain: example.com\nmetadata:\n  name: pulls\nplatform:\n  none: {{}}\nadditionalTrustBundle: |\n{}pullSecret: '{}'\n",
        indent(&reg.ca_pem),
        auth_json(&reg.host())
    )
}

#[test]
fn concurrent_pulls_write_what_one_at_a_time_writes() {
    let Some(bin) = registry_binary("concurrent_pulls_write_what_one_at_a_time_writes") else {
        return;
    };
    let reg = Registry::start(&bin);
    let bundles = bundles(8);
    let images: Vec<String> = bundles
        .iter()
        .map(|(content, _, img)| reg.push(&format!("bundles/{}", content.package), img))
        .collect();
    let dir = install_dir(&bundles, &images, &registry_install_config(&reg));

    let (one, written) = create(dir.path(), 1, &[]);
    assert!(one.status.success(), "{}", stderr(&one));
    let extensions = written
        .iter()
        .filter(|(name, _)| name.contains("_clusterextension_"))
        .count();
    assert_eq!(extensions, 8, "{written:#?}");
    for jobs in [8, 3] {
        let (many, again) = create(dir.path(), jobs, &[]);
        assert!(many.status.success(), "{}", stderr(&many));
        assert_eq!(
            again, written,
            "--jobs {jobs} wrote other files than --jobs 1"
        );
        assert_eq!(many.stdout, one.stdout, "--jobs {jobs}");
        assert_eq!(stderr(&many), stderr(&one), "--jobs {jobs}");
    }
}

#[test]
fn a_failed_pull_among_concurrent_ones_writes_nothing_and_reads_alike() {
    let Some(bin) = registry_binary("a_failed_pull_among_concurrent_ones_writes_nothing") else {
        return;
    };
    let reg = Registry::start(&bin);
    let bundles = bundles(6);
    let mut images: Vec<String> = bundles
        .iter()
        .map(|(content, _, img)| reg.push(&format!("bundles/{}", content.package), img))
        .collect();
    // Two of them fail: a digest the repository does not have, a repository that does not
    // exist.
    let absent = format!("sha256:{}", "ab".repeat(32));
    images[1] = images[1].replace(&bundles[1].2.digest, &absent);
    images[4] = format!("{}/bundles/nowhere@{}", reg.host(), bundles[4].2.digest);
    let dir = install_dir(&bundles, &images, &registry_install_config(&reg));

    let (one, written) = create(dir.path(), 1, &["--retries", "0"]);
    assert!(written.is_empty(), "{written:#?}");
    assert_eq!(one.status.code(), Some(3), "{}", stderr(&one));
    let text = stderr(&one);
    assert!(
        text.contains(&images[1]) && text.contains(&images[4]),
        "both failures are named: {text}"
    );
    for jobs in [6, 6, 2] {
        let (many, written) = create(dir.path(), jobs, &["--retries", "0"]);
        assert!(written.is_empty(), "--jobs {jobs}: {written:#?}");
        assert_eq!(many.status.code(), one.status.code(), "--jobs {jobs}");
        assert_eq!(many.stdout, one.stdout, "--jobs {jobs}");
        assert_eq!(stderr(&many), text, "--jobs {jobs}");
    }
}

/// How many manifest requests a registry is answering at once.
#[derive(Default)]
struct InFlight {
    now: usize,
    most: usize,
    seen: usize,
}

/// A scripted registry (anonymous) serving these images that holds every manifest request
/// until `jobs` of them are in flight together (or every image was asked for, or a while has
/// passed): the most seen at once is then the number of pulls `create` runs at once.
fn counting_registry(
    images: &[Image],
    jobs: usize,
) -> (
    crate::net::Tls,
    crate::net::Server,
    Arc<(Mutex<InFlight>, Condvar)>,
) {
    use crate::net::{Reply, serve, tls};
    let t = tls();
    let images = images.to_vec();
    let total = images.len();
    let state = Arc::new((Mutex::new(InFlight::default()), Condvar::new()));
    let shared = state.clone();
    let server = serve(&t, move |_, path| {
        let body = |body: Vec<u8>| Reply::Body { body, gzip: false };
        if path == "/v2/" {
            return body(b"{}".to_vec());
        }
        if let Some(digest) = path.split("/manifests/").nth(1) {
            let Some(img) = images.iter().find(|i| i.digest == digest) else {
                return Reply::Status(404);
            };
            let (lock, changed) = &*shared;
            let mut s = lock.lock().unwrap();
            s.now += 1;
            s.seen += 1;
            s.most = s.most.max(s.now);
            changed.notify_all();
            let (mut s, _) = changed
                .wait_timeout_while(s, Duration::from_secs(20), |s| {
                    s.most < jobs && s.seen < total
                })
                .unwrap();
            s.now -= 1;
            return body(img.manifest.clone());
        }
        if let Some(digest) = path.split("/blobs/").nth(1)
            && let Some((_, bytes)) = images
                .iter()
                .flat_map(|i| i.blobs.iter())
                .find(|(d, _)| d == digest)
        {
            return body(bytes.clone());
        }
        Reply::Status(404)
    });
    (t, server, state)
}

#[test]
fn no_more_than_jobs_pulls_are_in_flight() {
    let bundles = bundles(6);
    let images: Vec<Image> = bundles.iter().map(|(_, _, img)| img.clone()).collect();
    for jobs in [3, 1] {
        let (t, server, state) = counting_registry(&images, jobs);
        let refs: Vec<String> = bundles
            .iter()
            .map(|(content, _, img)| {
                format!(
                    "127.0.0.1:{}/{}@{}",
                    server.port, content.package, img.digest
                )
            })
            .collect();
        let (dir, ca) = scripted_install_dir(&bundles, &refs, &t);
        let (out, written) = create(dir.path(), jobs, &["--ca-file", &ca]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(!written.is_empty());
        let s = state.0.lock().unwrap();
        assert_eq!((s.most, s.seen), (jobs, 6), "--jobs {jobs}");
    }
}

/// A registry's refusal is text from outside: its body reaches the message escaped and cut
/// (terminal controls, a bidi override and C1 controls shown, never sent; a 64 KiB body read no
/// further than the bound and quoted no further than its start), for a 404 and for a 500 alike,
/// and nothing is written.
#[test]
fn a_hostile_refusal_body_is_escaped_and_cut() {
    use crate::net::{Reply, serve, tls};
    let bundles = bundles(2);
    let t = tls();
    let hostile = |code: u16| {
        let mut body =
            format!("error {code}: \u{1b}]0;owned\u{7}\u{1b}[2J\u{9b}31m\u{202e}gnp.exe\r\n")
                .into_bytes();
        body.extend(std::iter::repeat_n(b'x', 64 * 1024));
        body.extend_from_slice(b"END-OF-BODY");
        body
    };
    let server = serve(&t, move |_, path| {
        if path == "/v2/" {
            return Reply::Body {
                body: b"{}".to_vec(),
                gzip: false,
            };
        }
        let code = if path.contains("/manifests/") && path.contains(&"0".repeat(8)) {
            404
        } else {
            500
        };
        Reply::StatusBody {
            code,
            body: hostile(code),
        }
    });
    let refs: Vec<String> = bundles
        .iter()
        .enumerate()
        .map(|(i, (content, _, img))| {
            // The first image names a digest of zeros (answered 404), the second its own (500).
            let digest = if i == 0 {
                format!("sha256:{}", "0".repeat(64))
            } else {
                img.digest.clone()
            };
            format!("127.0.0.1:{}/{}@{digest}", server.port, content.package)
        })
        .collect();
    let (dir, ca) = scripted_install_dir(&bundles, &refs, &t);
    let (out, written) = create(dir.path(), 2, &["--ca-file", &ca, "--retries", "0"]);
    assert!(written.is_empty(), "{written:#?}");
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let raw = String::from_utf8_lossy(&out.stderr).into_owned();
    let text = stderr(&out);
    for c in ['\u{1b}', '\u{7}', '\u{9b}', '\u{202e}', '\r'] {
        assert!(!raw.contains(c), "{c:?} reached the terminal: {raw:?}");
    }
    assert!(
        text.contains("error 404") && text.contains("error 500"),
        "{text}"
    );
    assert!(
        text.contains("gnp.exe"),
        "the text around the controls stays: {text}"
    );
    assert!(!text.contains("END-OF-BODY"), "{text}");
    assert!(raw.len() < 8 * 1024, "{} bytes of stderr: {raw}", raw.len());
}
