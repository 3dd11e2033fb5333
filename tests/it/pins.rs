//! Digest pins: a bundle image the catalog gives by tag only is resolved to its digest for a
//! PlatformOperator's BundleDeployment, or refused, or (with `--allow-tags`) written as a tag
//! that the lock says is not a pin.

use std::path::Path;

use sha2::Digest as _;

use crate::common::{cmd, example, tree};

const TAGGED: &str = "quay.io/acme-example/cert-operator-bundle:1.2.0";

/// The example, with the chosen bundle's image given by tag.
fn tagged_example() -> tempfile::TempDir {
    let dir = example();
    let cat = dir.path().join("catalog/acme-cert-operator/catalog.json");
    let text = std::fs::read_to_string(&cat).unwrap();
    let start = text
        .find("\"name\": \"acme-cert-operator.v1.2.0\",\n  \"package\"")
        .unwrap();
    let at = start + text[start..].find("\"image\": \"").unwrap() + "\"image\": \"".len();
    let end = at + text[at..].find('"').unwrap();
    let patched = format!("{}{TAGGED}{}", &text[..at], &text[end..]);
    std::fs::write(&cat, patched).unwrap();
    dir
}

fn lock(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("platform-operators.lock.yaml")).unwrap()
}

fn manifests(dir: &Path) -> String {
    tree(&dir.join("manifests"))
        .into_iter()
        .map(|(_, t)| t)
        .collect()
}

#[test]
fn offline_a_tag_is_refused_and_allow_tags_writes_it_as_no_pin() {
    let dir = tagged_example();
    let cache = tempfile::tempdir().unwrap();
    let run = |command: &str, extra: &[&str]| {
        cmd()
            .args([command, "--offline", "--cache-dir"])
            .arg(cache.path())
            .args(extra)
            .arg("--dir")
            .arg(dir.path())
            .output()
            .unwrap()
    };
    for command in ["create", "resolve"] {
        let out = run(command, &[]);
        assert_eq!(out.status.code(), Some(1), "{command}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("bundle image {TAGGED} is given by tag only")),
            "{command}: {err}"
        );
        assert!(err.contains("--allow-tags"), "{command}: {err}");
    }
    assert!(!dir.path().join("manifests").exists());
    let out = run("resolve", &["--allow-tags"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run("create", &["--allow-tags"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lock = lock(dir.path());
    assert!(lock.contains(&format!("image: {TAGGED}")), "{lock}");
    assert!(lock.contains("notAPin: "), "{lock}");
    assert!(manifests(dir.path()).contains(TAGGED));
}

#[test]
fn a_tag_found_in_an_oci_layout_is_written_by_digest() {
    let dir = tagged_example();
    let layout = dir.path().join("layout");
    let manifest = br#"{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{},"layers":[]}"#;
    let hex = hex::encode(sha2::Sha256::digest(manifest));
    std::fs::create_dir_all(layout.join("blobs/sha256")).unwrap();
    std::fs::write(layout.join("blobs/sha256").join(&hex), manifest).unwrap();
    std::fs::write(
        layout.join("oci-layout"),
        r#"{"imageLayoutVersion":"1.0.0"}"#,
    )
    .unwrap();
    std::fs::write(
        layout.join("index.json"),
        format!(
            r#"{{"schemaVersion":2,"manifests":[{{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:{hex}","size":{},"annotations":{{"org.opencontainers.image.ref.name":"{TAGGED}"}}}}]}}"#,
            manifest.len()
        ),
    )
    .unwrap();
    let cache = tempfile::tempdir().unwrap();
    let out = cmd()
        .args(["create", "--offline", "--cache-dir"])
        .arg(cache.path())
        .arg("--oci-layout")
        .arg(&layout)
        .arg("--dir")
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pinned = format!("quay.io/acme-example/cert-operator-bundle@sha256:{hex}");
    let lock = lock(dir.path());
    assert!(lock.contains(&format!("image: {pinned}")), "{lock}");
    assert!(!lock.contains("notAPin"), "{lock}");
    let written = manifests(dir.path());
    assert!(written.contains(&pinned), "{written}");
    assert!(!written.contains(TAGGED), "{written}");
}

#[test]
fn images_reports_a_tag_by_its_digest_when_it_can_be_looked_up() {
    let dir = tagged_example();
    let cache = tempfile::tempdir().unwrap();
    let images = |extra: &[&std::ffi::OsStr]| {
        let out = cmd()
            .args(["images", "--offline", "--no-mirror-check", "--cache-dir"])
            .arg(cache.path())
            .args(extra)
            .arg("--dir")
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    assert!(images(&[]).contains(TAGGED));
    let layout = dir.path().join("layout");
    let manifest = br#"{"schemaVersion":2}"#;
    let hex = hex::encode(sha2::Sha256::digest(manifest));
    std::fs::create_dir_all(layout.join("blobs/sha256")).unwrap();
    std::fs::write(layout.join("blobs/sha256").join(&hex), manifest).unwrap();
    std::fs::write(
        layout.join("index.json"),
        format!(
            r#"{{"schemaVersion":2,"manifests":[{{"digest":"sha256:{hex}","size":1,"annotations":{{"org.opencontainers.image.ref.name":"{TAGGED}"}}}}]}}"#
        ),
    )
    .unwrap();
    let text = images(&["--oci-layout".as_ref(), layout.as_os_str()]);
    assert!(
        text.contains(&format!(
            "quay.io/acme-example/cert-operator-bundle@sha256:{hex}"
        )),
        "{text}"
    );
    assert!(!text.contains(TAGGED), "{text}");
}
