//! What the lock records about the files it wrote (issue 26 items 6 and 7, issue 22 part 4):
//! each manifest's sha256, so that `create` never removes or overwrites a file a person edited
//! or that a tampered lock names, unless `--force`; and `--locked`, which refuses any difference
//! (catalog content included) and never rewrites the lock.

use std::path::Path;

use crate::common::{cmd, example, normalize, tree};

fn create(dir: &Path) -> assert_cmd::assert::Assert {
    cmd().arg("create").arg("--dir").arg(dir).assert()
}

fn lock_text(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("platform-operators.lock.yaml")).unwrap()
}

/// The first manifest `create` wrote (the cert operator's PlatformOperator).
const FIRST: &str = "manifests/99_po_cert-operator_00_platformoperator_cert-operator.yaml";

#[test]
fn the_lock_records_the_sha256_of_each_written_file() {
    let d = example();
    create(d.path()).success();
    let lock = lock_text(d.path());
    let bytes = std::fs::read(d.path().join(FIRST)).unwrap();
    let digest = {
        use sha2::Digest as _;
        hex::encode(sha2::Sha256::digest(&bytes))
    };
    assert!(lock.contains("lockVersion: 3"), "{lock}");
    assert!(
        lock.contains(&format!(
            "- name: 99_po_cert-operator_00_platformoperator_cert-operator.yaml\n  sha256: {digest}\n"
        )),
        "{lock}"
    );
}

#[test]
fn an_edited_manifest_is_refused_named_and_kept_unless_force() {
    let d = example();
    create(d.path()).success();
    let path = d.path().join(FIRST);
    let edited = std::fs::read_to_string(&path)
        .unwrap()
        .replace("name: cert-operator", "name: cert-operator-edited");
    std::fs::write(&path, &edited).unwrap();
    let before = tree(d.path());
    let out = create(d.path()).code(1);
    let stderr = normalize(&out.get_output().stderr, d.path());
    assert!(
        stderr.contains("edited") && stderr.contains("99_po_cert-operator_00_platformoperator"),
        "{stderr}"
    );
    assert!(stderr.contains("--force"), "{stderr}");
    assert_eq!(before, tree(d.path()), "nothing may be written");

    // --explain shows what differs, as a unified diff.
    let out = cmd()
        .arg("create")
        .arg("--dir")
        .arg(d.path())
        .arg("--explain")
        .assert()
        .code(1);
    let stdout = normalize(&out.get_output().stdout, d.path());
    assert!(
        stdout.contains("--- [DIR]/manifests/99_po_cert-operator_00_platformoperator_cert-operator.yaml (edited)"),
        "{stdout}"
    );
    assert!(stdout.contains("@@"), "{stdout}");
    assert!(
        stdout.contains("\n-  name: cert-operator-edited\n"),
        "{stdout}"
    );
    assert!(stdout.contains("\n+  name: cert-operator\n"), "{stdout}");
    assert_eq!(before, tree(d.path()));

    // --force overwrites it with what create writes.
    cmd()
        .arg("create")
        .arg("--dir")
        .arg(d.path())
        .arg("--force")
        .assert()
        .success();
    assert_ne!(std::fs::read_to_string(&path).unwrap(), edited);
    create(d.path()).success();
}

#[test]
fn an_edited_manifest_no_longer_written_is_not_removed_unless_force() {
    let d = example();
    create(d.path()).success();
    let path = d.path().join(FIRST);
    std::fs::write(&path, "kept by a person\n").unwrap();
    // The operator is renamed: its earlier files would be removed.
    let config = d.path().join("platform-operators.yaml");
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("name: cert-operator", "name: cert-operator-b");
    std::fs::write(&config, text).unwrap();
    let before = tree(d.path());
    let out = create(d.path()).code(1);
    let stderr = normalize(&out.get_output().stderr, d.path());
    assert!(stderr.contains("99_po_cert-operator_00"), "{stderr}");
    assert_eq!(before, tree(d.path()));
    cmd()
        .arg("create")
        .arg("--dir")
        .arg(d.path())
        .arg("--force")
        .assert()
        .success();
    assert!(!path.exists());
}

#[test]
fn a_tampered_lock_cannot_make_create_delete_a_user_file() {
    let d = example();
    create(d.path()).success();
    let user = d.path().join("manifests/99_po_user-file.yaml");
    std::fs::write(&user, "the user's own\n").unwrap();
    let lock = lock_text(d.path()).replace(
        "manifests:\n",
        &format!(
            // Quoted: 64 zeros unquoted are a number, and the lock would not read at all.
            "manifests:\n- name: 99_po_user-file.yaml\n  sha256: \"{}\"\n",
            "0".repeat(64)
        ),
    );
    std::fs::write(d.path().join("platform-operators.lock.yaml"), lock).unwrap();
    let out = create(d.path()).code(1);
    let stderr = normalize(&out.get_output().stderr, d.path());
    assert!(stderr.contains("99_po_user-file.yaml"), "{stderr}");
    assert_eq!(std::fs::read(&user).unwrap(), b"the user's own\n");
}

/// Issue 34 item 4: a forged version 2 lock naming a user's file with its true sha256 does
/// not make `create` remove it: the digest shows what the file holds, not who wrote it.
#[test]
fn a_forged_lock_with_a_files_true_digest_cannot_make_create_delete_it() {
    let d = example();
    create(d.path()).success();
    let user = d.path().join("manifests/99_po_user-file.yaml");
    std::fs::write(&user, USER_FILE).unwrap();
    let digest = po_manifests::output::sha256_hex(USER_FILE.as_bytes());
    let lock = lock_text(d.path()).replace(
        "manifests:\n",
        &format!("manifests:\n- name: 99_po_user-file.yaml\n  sha256: {digest}\n"),
    );
    std::fs::write(d.path().join("platform-operators.lock.yaml"), lock).unwrap();
    let out = create(d.path()).success();
    let stderr = normalize(&out.get_output().stderr, d.path());
    assert!(
        stderr.contains("99_po_user-file.yaml") && stderr.contains("left in place"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&user).unwrap(), USER_FILE);
    // The new lock no longer names it.
    assert!(!lock_text(d.path()).contains("99_po_user-file.yaml"));
}

/// A file of the user's own, named like ours: a valid object without the po-manifests label.
const USER_FILE: &str =
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: user\n  namespace: default\n";

/// The lock in `dir` rewritten as version 1 wrote it (names only), naming `extra` files too.
pub fn as_version_1(dir: &Path, extra: &[&str]) {
    let lock = lock_text(dir).replace("lockVersion: 3", "lockVersion: 1");
    let mut v1 = String::new();
    // Version 1 records each catalog's whole digest, without `packages:`.
    let mut in_packages = false;
    for line in lock.lines() {
        if line == "  packages:" || (in_packages && line.starts_with("  - ")) {
            in_packages = true;
            continue;
        }
        in_packages = false;
        if let Some(name) = line.strip_prefix("- name: 99_po_") {
            v1.push_str(&format!("- 99_po_{name}\n"));
        } else if !line.starts_with("  sha256: ") {
            v1.push_str(line);
            v1.push('\n');
        }
        if line == "manifests:" {
            for name in extra {
                v1.push_str(&format!("- {name}\n"));
            }
        }
    }
    std::fs::write(dir.join("platform-operators.lock.yaml"), &v1).unwrap();
}

#[test]
fn an_older_lock_with_names_only_is_still_read() {
    let d = example();
    create(d.path()).success();
    let manifests = tree(&d.path().join("manifests"));
    as_version_1(d.path(), &[]);
    let out = create(d.path()).success();
    assert!(
        !String::from_utf8_lossy(&out.get_output().stderr).contains("warning"),
        "{out:?}"
    );
    assert_eq!(manifests, tree(&d.path().join("manifests")));
    assert!(lock_text(d.path()).contains("lockVersion: 3"));
}

#[test]
fn a_version_1_lock_cannot_make_create_delete_a_user_file() {
    let d = example();
    create(d.path()).success();
    let user = d.path().join("manifests/99_po_user-file.yaml");
    std::fs::write(&user, USER_FILE).unwrap();
    as_version_1(d.path(), &["99_po_user-file.yaml"]);
    let out = create(d.path()).success();
    let stderr = normalize(&out.get_output().stderr, d.path());
    assert_eq!(std::fs::read_to_string(&user).unwrap(), USER_FILE);
    // One warning naming the file, saying why and what to do.
    assert_eq!(stderr.matches("warning:").count(), 1, "{stderr}");
    let warning = stderr.lines().find(|l| l.contains("warning:")).unwrap();
    for needed in [
        "[DIR]/manifests/99_po_user-file.yaml",
        "version 1",
        "app.kubernetes.io/managed-by: po-manifests",
        "left in place",
        "by hand",
        "--force",
    ] {
        assert!(warning.contains(needed), "{needed} in {warning}");
    }
    assert!(
        !stderr.contains("removed [DIR]/manifests/99_po_user-file"),
        "{stderr}"
    );
    // The new lock is version 3 and does not name it: the next run leaves it alone, silently.
    let lock = lock_text(d.path());
    assert!(
        lock.contains("lockVersion: 3") && !lock.contains("user-file"),
        "{lock}"
    );
    let out = create(d.path()).success();
    assert!(
        !String::from_utf8_lossy(&out.get_output().stderr).contains("warning"),
        "{out:?}"
    );
    assert_eq!(std::fs::read_to_string(&user).unwrap(), USER_FILE);
}

/// The example after one run, with a file of the user's named by a version 1 lock and the
/// operator renamed, so the next run would take out every earlier file.
fn version_1_lock_naming_a_user_file() -> tempfile::TempDir {
    let d = example();
    create(d.path()).success();
    std::fs::write(d.path().join("manifests/99_po_user-file.yaml"), USER_FILE).unwrap();
    as_version_1(d.path(), &["99_po_user-file.yaml"]);
    let config = d.path().join("platform-operators.yaml");
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("name: cert-operator", "name: cert-operator-b");
    std::fs::write(&config, text).unwrap();
    d
}

#[test]
fn a_version_1_lock_still_removes_what_carries_the_po_manifests_label() {
    let d = version_1_lock_naming_a_user_file();
    let user = d.path().join("manifests/99_po_user-file.yaml");
    let out = create(d.path()).success();
    let stderr = normalize(&out.get_output().stderr, d.path());
    // The earlier files are rendered from templates, so labelled: they go.
    assert!(!d.path().join(FIRST).exists(), "{stderr}");
    assert!(
        stderr.contains("removed [DIR]/manifests/99_po_cert-operator_00_platformoperator"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&user).unwrap(), USER_FILE);
    assert_eq!(stderr.matches("warning:").count(), 1, "{stderr}");
    assert!(stderr.contains("99_po_user-file.yaml"), "{stderr}");
}

#[test]
fn with_force_a_version_1_lock_is_taken_at_its_word() {
    let d = version_1_lock_naming_a_user_file();
    let out = cmd()
        .arg("create")
        .arg("--dir")
        .arg(d.path())
        .arg("--force")
        .assert()
        .success();
    let stderr = normalize(&out.get_output().stderr, d.path());
    assert!(!d.path().join(FIRST).exists(), "{stderr}");
    assert!(
        !d.path().join("manifests/99_po_user-file.yaml").exists(),
        "{stderr}"
    );
    assert!(
        stderr.contains("removed [DIR]/manifests/99_po_user-file.yaml"),
        "{stderr}"
    );
    assert!(!stderr.contains("warning"), "{stderr}");
}

#[test]
fn a_version_1_lock_cannot_make_create_overwrite_a_user_file() {
    let d = example();
    create(d.path()).success();
    let path = d.path().join(FIRST);
    // Not ours by any sign: no label, not what create writes.
    std::fs::write(&path, "kind: ConfigMap\n").unwrap();
    as_version_1(d.path(), &[]);
    let before = tree(d.path());
    let out = create(d.path()).code(1);
    let stderr = normalize(&out.get_output().stderr, d.path());
    for needed in [
        "99_po_cert-operator_00_platformoperator",
        "version 1",
        "app.kubernetes.io/managed-by: po-manifests",
        "--force",
    ] {
        assert!(stderr.contains(needed), "{needed} in {stderr}");
    }
    assert_eq!(before, tree(d.path()), "nothing may be written");
    cmd()
        .arg("create")
        .arg("--dir")
        .arg(d.path())
        .arg("--force")
        .assert()
        .success();
    assert_ne!(std::fs::read(&path).unwrap(), b"kind: ConfigMap\n");
}

#[test]
fn locked_refuses_an_edited_local_catalog_and_keeps_the_lock() {
    let d = example();
    create(d.path()).success();
    let catalog = d.path().join("catalog/acme-cert-operator/catalog.json");
    let mut text = std::fs::read_to_string(&catalog).unwrap();
    // Same resolution, other content.
    text.push('\n');
    std::fs::write(&catalog, text).unwrap();
    let before = tree(d.path());
    let out = cmd()
        .arg("create")
        .arg("--dir")
        .arg(d.path())
        .arg("--locked")
        .assert()
        .code(1);
    let stderr = normalize(&out.get_output().stderr, d.path());
    assert!(
        stderr.contains("catalog redhat-operators") && stderr.contains("sha256:"),
        "{stderr}"
    );
    assert_eq!(before, tree(d.path()));
}

#[test]
fn locked_refuses_an_edited_catalog_digest_in_the_lock_and_keeps_the_lock() {
    let d = example();
    create(d.path()).success();
    let lock = lock_text(d.path());
    let start = lock.find("digest: sha256:").unwrap() + "digest: sha256:".len();
    let mut tampered = lock.clone();
    tampered.replace_range(start..start + 64, &"0".repeat(64));
    std::fs::write(d.path().join("platform-operators.lock.yaml"), &tampered).unwrap();
    let out = cmd()
        .arg("create")
        .arg("--dir")
        .arg(d.path())
        .arg("--locked")
        .assert()
        .code(1);
    let stderr = normalize(&out.get_output().stderr, d.path());
    assert!(stderr.contains("catalog redhat-operators"), "{stderr}");
    assert_eq!(lock_text(d.path()), tampered);
}

#[test]
fn locked_with_nothing_changed_leaves_the_lock_byte_for_byte() {
    let d = example();
    create(d.path()).success();
    let lock = d.path().join("platform-operators.lock.yaml");
    // A lock that differs from what create writes only in a comment: --locked must not
    // rewrite it.
    let text = lock_text(d.path()).replacen("# Written", "# Kept as it is. Written", 1);
    std::fs::write(&lock, &text).unwrap();
    cmd()
        .arg("create")
        .arg("--dir")
        .arg(d.path())
        .arg("--locked")
        .assert()
        .success();
    assert_eq!(std::fs::read_to_string(&lock).unwrap(), text);
}
