//! Digest pins: a bundle image the catalog gives by tag only is resolved to its digest for a
//! PlatformOperator's BundleDeployment, or refused, or (with `--allow-tags`) written as a tag
//! that the lock says is not a pin.

use std::path::Path;

use sha2::Digest as _;

use crate::common::{cmd, tree};

const TAGGED: &str = "quay.io/acme-example/cert-operator-bundle:1.2.0";

/// The example, with the chosen bundle's image given by tag.
fn tagged_example() -> tempfile::TempDir {
    let dir = crate::common::example_without_subscriptions();
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

/// An OCI layout holding `TAGGED`; returns the digest's hex.
fn layout_with_tagged(layout: &Path) -> String {
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
    hex
}

/// Run `command --offline` in `dir` with a fresh cache.
fn run_offline(dir: &Path, command: &[&str], extra: &[&std::ffi::OsStr]) -> std::process::Output {
    let cache = tempfile::tempdir().unwrap();
    cmd()
        .args(command)
        .args(["--offline", "--cache-dir"])
        .arg(cache.path())
        .args(extra)
        .arg("--dir")
        .arg(dir)
        .output()
        .unwrap()
}

fn ok_stdout(out: std::process::Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The refusal names the operator and the image, and says how to get past it.
fn assert_refused(out: &std::process::Output, command: &str) {
    assert_eq!(out.status.code(), Some(1), "{command}");
    assert!(out.stdout.is_empty(), "{command}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "operator \"cert-operator\": bundle image {TAGGED} is given by tag only"
        )),
        "{command}: {err}"
    );
    assert!(err.contains("--allow-tags"), "{command}: {err}");
}

#[test]
fn images_pins_a_tag_by_digest_refuses_it_offline_or_marks_it_as_no_pin() {
    let dir = tagged_example();
    let images = ["images", "--no-mirror-check"];
    assert_refused(&run_offline(dir.path(), &images, &[]), "images");

    let out = run_offline(dir.path(), &images, &["--allow-tags".as_ref()]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let table = ok_stdout(out);
    // stdout is one reference a line, for xargs; the tag is named on stderr.
    assert!(table.lines().any(|l| l == TAGGED), "{table}");
    assert!(
        table.lines().all(|l| !l.contains(' ') && !l.contains('#')),
        "{table}"
    );
    let said: Vec<&str> = stderr.lines().filter(|l| l.contains("not a pin")).collect();
    assert_eq!(said.len(), 1, "{stderr}");
    assert!(
        said[0].contains(&format!("{TAGGED}: tag only, not a pin")),
        "{stderr}"
    );
    let json = ok_stdout(run_offline(
        dir.path(),
        &images,
        &["--allow-tags".as_ref(), "-o".as_ref(), "json".as_ref()],
    ));
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    let rows = doc["images"].as_array().unwrap();
    let tagged = rows.iter().find(|r| r["image"] == TAGGED).unwrap();
    assert!(
        tagged["notAPin"].as_str().unwrap().contains("not a pin"),
        "{tagged}"
    );
    assert!(
        rows.iter()
            .filter(|r| r["image"] != TAGGED)
            .all(|r| r.get("notAPin").is_none()),
        "{json}"
    );

    let layout = dir.path().join("layout");
    let hex = layout_with_tagged(&layout);
    let pinned = format!("quay.io/acme-example/cert-operator-bundle@sha256:{hex}");
    let layout_args = ["--oci-layout".as_ref(), layout.as_os_str()];
    let table = ok_stdout(run_offline(dir.path(), &images, &layout_args));
    assert!(table.lines().any(|l| l == pinned), "{table}");
    assert!(!table.contains(TAGGED), "{table}");
    assert!(!table.contains("not a pin"), "{table}");
    let json = ok_stdout(run_offline(
        dir.path(),
        &images,
        &[
            layout_args[0],
            layout_args[1],
            "-o".as_ref(),
            "json".as_ref(),
        ],
    ));
    assert!(
        json.contains(&pinned) && !json.contains("notAPin"),
        "{json}"
    );
}

#[test]
fn mirror_config_mirrors_a_tag_by_digest_refuses_it_offline_or_notes_it() {
    let dir = tagged_example();
    let config = dir.path().join("platform-operators.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    let text = text.replacen(
        "    source: catalog\n",
        "    source: catalog\n    image: quay.io/acme-example/catalog:v1\n",
        1,
    );
    std::fs::write(&config, text).unwrap();
    let command = ["mirror-config"];
    assert_refused(&run_offline(dir.path(), &command, &[]), "mirror-config");

    let yaml = ok_stdout(run_offline(
        dir.path(),
        &command,
        &["--allow-tags".as_ref()],
    ));
    assert!(
        yaml.contains(&format!(
            "# not a pin: operator \"cert-operator\" bundle image {TAGGED} is given by tag only"
        )),
        "{yaml}"
    );
    assert!(!yaml.contains("additionalImages"), "{yaml}");

    let layout = dir.path().join("layout");
    let hex = layout_with_tagged(&layout);
    let yaml = ok_stdout(run_offline(
        dir.path(),
        &command,
        &["--oci-layout".as_ref(), layout.as_os_str()],
    ));
    let doc: serde_json::Value = serde_saphyr::from_str(&yaml).unwrap();
    assert_eq!(
        doc["mirror"]["additionalImages"],
        serde_json::json!([{
            "name": format!("quay.io/acme-example/cert-operator-bundle@sha256:{hex}")
        }]),
        "{yaml}"
    );
    assert!(!yaml.contains("not a pin"), "{yaml}");
}

/// The lock marks a tag-only bundle image as not a pin for every profile, not only for a
/// PlatformOperator: a ClusterExtension, an OLM v0 Subscription and a bootstrap operator's own
/// objects pull or were read from what the catalog gives, and a tag can be moved.
#[test]
fn the_lock_marks_a_tag_as_no_pin_for_every_profile() {
    let work = tempfile::tempdir().unwrap();
    crate::common::copy_dir(&crate::common::root().join("testdata"), work.path());
    for (example, operator, profile) in [
        ("example-4.18", "cert-operator", "ClusterExtension"),
        ("example-subscription", "dns-operator", "Subscription"),
        ("example-ccm", "cloud-controller", "bootstrap"),
    ] {
        let dir = work.path().join(example);
        let _ = std::fs::remove_dir_all(dir.join("manifests"));
        let _ = std::fs::remove_file(dir.join("platform-operators.lock.yaml"));
        let create = || ok_stdout(run_offline(&dir, &["create"], &[]));
        create();
        let locked = lock(&dir);
        assert!(!locked.contains("notAPin"), "{example}: {locked}");
        let entry = locked
            .split("\n- name: ")
            .find(|e| e.starts_with(&format!("{operator}\n")))
            .unwrap();
        let image = entry
            .lines()
            .find_map(|l| l.trim().strip_prefix("image: "))
            .unwrap()
            .to_string();
        let tag = format!("{}:0.0.1", image.split('@').next().unwrap());
        // The catalog now gives the chosen bundle's image by tag.
        for file in walkdir::WalkDir::new(work.path().join("example/catalog")) {
            let file = file.unwrap();
            if file.file_type().is_file() {
                let text = std::fs::read_to_string(file.path()).unwrap();
                std::fs::write(file.path(), text.replace(&image, &tag)).unwrap();
            }
        }
        std::fs::remove_dir_all(dir.join("manifests")).unwrap();
        std::fs::remove_file(dir.join("platform-operators.lock.yaml")).unwrap();
        create();
        let locked = lock(&dir);
        let entry = locked
            .split("\n- name: ")
            .find(|e| e.starts_with(&format!("{operator}\n")))
            .unwrap();
        assert!(
            entry.contains(&format!("image: {tag}\n")) && entry.contains("notAPin: "),
            "{profile}: the lock should record {tag} as not a pin:\n{locked}"
        );
    }
}
