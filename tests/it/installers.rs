//! `check --installer` and `create --installer`: a directory read the way openshift-install, the
//! Agent-based installer or the Assisted Installer will read it (issue 28), and `check` on
//! hostile directories (issue 26 part 3 item 10).

use std::path::Path;

use serde_json::Value;

use crate::common::{cmd, copy_dir, normalize, root, tree};

fn fixture(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&root().join("testdata/bootstrap").join(name), dir.path());
    dir
}

fn check_json(dir: &Path, extra: &[&str]) -> (Option<i32>, Vec<Value>, String) {
    let out = cmd()
        .arg("check")
        .arg("--dir")
        .arg(dir)
        .args(["-o", "json"])
        .args(extra)
        .output()
        .unwrap();
    let stderr = normalize(&out.stderr, dir);
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{stderr}", String::from_utf8_lossy(&out.stdout)));
    let problems = report["problems"].as_array().cloned().unwrap_or_default();
    (out.status.code(), problems, stderr)
}

fn with_rule<'a>(problems: &'a [Value], rule: &str) -> Vec<&'a Value> {
    problems.iter().filter(|p| p["rule"] == rule).collect()
}

/// The 1-based line of the first line of `file` containing `needle`.
fn line_of(file: &Path, needle: &str) -> u64 {
    let text = std::fs::read_to_string(file).unwrap();
    text.lines()
        .position(|l| l.contains(needle))
        .map(|i| i as u64 + 1)
        .unwrap_or_else(|| panic!("{needle} not in {}", file.display()))
}

const CCM_FILE: &str = "manifests/01-acme-ccm.yaml";
const DAEMONSET: &str = "DaemonSet acme-ccm/acme-ccm";

#[test]
fn assisted_splits_a_partners_multi_document_file_and_finds_its_ccm() {
    let dir = fixture("partner-multidoc");
    let (code, problems, stderr) = check_json(dir.path(), &["--installer", "assisted"]);
    assert_eq!(code, Some(1), "{problems:#?}\n{stderr}");
    // The split is a note, never an error.
    let split = with_rule(&problems, "one-object-per-file");
    assert_eq!(split.len(), 1, "{problems:#?}");
    assert_eq!(split[0]["severity"], "note", "{split:#?}");
    assert_eq!(split[0]["file"], CCM_FILE);
    // The CCM (document 5) was found by itself, and says how.
    let found = with_rule(&problems, "role-recognised");
    assert_eq!(found.len(), 1, "{problems:#?}");
    assert_eq!(found[0]["object"], DAEMONSET);
    assert_eq!(found[0]["severity"], "note");
    let how = found[0]["message"].as_str().unwrap();
    assert!(how.contains("cloud controller manager"), "{how}");
    assert!(how.contains("acme-cloud-controller-manager"), "{how}");
    assert_eq!(
        found[0]["line"],
        line_of(&dir.path().join(CCM_FILE), "command:")
    );
    assert!(with_rule(&problems, "external-without-ccm").is_empty());
    // Every ccm-* rule ran on it: the ones it breaks are reported on it, at lines inside its own
    // document; the ones it keeps (tolerations, host network, references, cloud config) are not.
    let daemonset_line = line_of(&dir.path().join(CCM_FILE), "kind: DaemonSet");
    let mut ccm: Vec<&str> = problems
        .iter()
        .filter(|p| p["rule"].as_str().unwrap().starts_with("ccm-"))
        .inspect(|p| {
            if p["object"] == DAEMONSET {
                assert!(p["line"].as_u64().unwrap() > daemonset_line, "{p:#?}");
            }
        })
        .map(|p| p["rule"].as_str().unwrap())
        .collect();
    ccm.sort();
    ccm.dedup();
    assert_eq!(
        ccm,
        [
            "ccm-apiserver-url",
            "ccm-container-ports",
            "ccm-control-plane-selector",
            "ccm-host-kubernetes-volume",
            "ccm-leader-election",
            "ccm-lease-rbac",
            "ccm-namespace-admission",
            "ccm-priority-class",
            "ccm-termination-message",
            "ccm-workload-management",
        ]
    );
    // Its tag-only image, at the image line.
    let tags = with_rule(&problems, "image-tag");
    assert_eq!(tags.len(), 1, "{problems:#?}");
    assert_eq!(tags[0]["object"], DAEMONSET);
    assert_eq!(
        tags[0]["line"],
        line_of(&dir.path().join(CCM_FILE), "image: ghcr.io/acme")
    );
    // The placeholder in the other file.
    let placeholders = with_rule(&problems, "placeholder");
    assert_eq!(placeholders.len(), 1, "{problems:#?}");
    assert_eq!(placeholders[0]["file"], "manifests/02-acme-config.yaml");
    assert!(
        placeholders[0]["message"]
            .as_str()
            .unwrap()
            .contains("$ACME_REGION")
    );
    // Nothing is an error for being in a multi-document file.
    assert!(
        problems
            .iter()
            .all(|p| p["rule"] != "decode" && p["rule"] != "type-meta"),
        "{problems:#?}"
    );
}

#[test]
fn openshift_install_still_reports_the_dropped_documents_by_name() {
    let dir = fixture("partner-multidoc");
    for extra in [&["--installer", "openshift-install"][..], &[]] {
        let (code, problems, _) = check_json(dir.path(), extra);
        assert_eq!(code, Some(1));
        let split = with_rule(&problems, "one-object-per-file");
        assert_eq!(split.len(), 1, "{problems:#?}");
        assert_eq!(split[0]["severity"], "error");
        let message = split[0]["message"].as_str().unwrap();
        for dropped in [
            "ServiceAccount acme-ccm/acme-cloud-controller-manager",
            "ClusterRole acme:cloud-controller-manager",
            "ClusterRoleBinding acme:cloud-controller-manager",
            DAEMONSET,
        ] {
            assert!(message.contains(dropped), "{dropped} in {message}");
        }
        assert!(!message.contains("Namespace acme-ccm"), "{message}");
        // The CCM is not in the set openshift-install creates.
        assert_eq!(with_rule(&problems, "external-without-ccm").len(), 1);
        assert!(with_rule(&problems, "role-recognised").is_empty());
        assert!(with_rule(&problems, "image-tag").is_empty());
    }
}

#[test]
fn the_agent_installer_reads_openshift_yaml_only() {
    let dir = fixture("partner-multidoc");
    let d = dir.path();
    std::fs::create_dir(d.join("openshift")).unwrap();
    std::fs::rename(
        d.join("manifests/01-acme-ccm.yaml"),
        d.join("openshift/01-acme-ccm.yaml"),
    )
    .unwrap();
    std::fs::rename(
        d.join("manifests/02-acme-config.yaml"),
        d.join("openshift/02-acme-config.yml"),
    )
    .unwrap();
    std::fs::write(d.join("openshift/03-extra.json"), "{}").unwrap();
    std::fs::write(d.join("manifests/04-left.yaml"), "kind: Namespace\n").unwrap();
    let (_, problems, _) = check_json(d, &["--installer", "agent"]);
    assert_eq!(with_rule(&problems, "role-recognised").len(), 1);
    assert_eq!(with_rule(&problems, "placeholder").len(), 1);
    let ignored: Vec<&str> = with_rule(&problems, "file-ignored")
        .iter()
        .map(|p| p["file"].as_str().unwrap())
        .collect();
    assert_eq!(
        ignored,
        ["manifests/04-left.yaml", "openshift/03-extra.json"]
    );
    assert_eq!(
        with_rule(&problems, "one-object-per-file")[0]["severity"],
        "note"
    );
}

#[test]
fn the_installer_can_be_set_in_the_configuration() {
    let dir = fixture("partner-multidoc");
    std::fs::write(
        dir.path().join("platform-operators.yaml"),
        "platformOperators:\n  installer: assisted\n  catalogs:\n  - name: c\n    source: catalog\n  operators:\n  - name: a\n    package: a\n",
    )
    .unwrap();
    let (_, problems, _) = check_json(dir.path(), &[]);
    assert_eq!(
        with_rule(&problems, "one-object-per-file")[0]["severity"],
        "note"
    );
    // The flag wins.
    let (_, problems, _) = check_json(dir.path(), &["--installer", "openshift-install"]);
    assert_eq!(
        with_rule(&problems, "one-object-per-file")[0]["severity"],
        "error"
    );
    let out = cmd()
        .args(["check", "--installer", "ipi", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_role_given_by_flag_overrides_what_is_recognised() {
    let dir = fixture("partner-multidoc");
    let (_, problems, _) = check_json(
        dir.path(),
        &[
            "--installer",
            "assisted",
            "--role",
            "acme-ccm/acme-ccm=other",
        ],
    );
    assert!(with_rule(&problems, "role-recognised").is_empty());
    assert!(
        problems
            .iter()
            .all(|p| !p["rule"].as_str().unwrap().starts_with("ccm-")),
        "{problems:#?}"
    );
    // The general image rule still applies to it.
    assert_eq!(with_rule(&problems, "image-tag").len(), 1);
}

fn create(dir: &Path, extra: &[&str]) -> std::process::Output {
    cmd()
        .args(["create", "--offline", "--dir"])
        .arg(dir)
        .arg("--bundles")
        .arg(root().join("testdata/bootstrap/ccm-bundle"))
        .arg("--cache-dir")
        .arg(dir.join(".cache"))
        .args(extra)
        .output()
        .unwrap()
}

fn po_files(dir: &Path) -> Vec<String> {
    if !dir.is_dir() {
        return Vec::new();
    }
    tree(dir)
        .into_iter()
        .map(|(n, _)| n)
        .filter(|n| n.starts_with("99_po_"))
        .collect()
}

#[test]
fn create_for_the_agent_installer_writes_into_openshift() {
    let dir = fixture("external");
    let out = create(dir.path(), &["--installer", "agent"]);
    assert!(
        out.status.success(),
        "{}",
        normalize(&out.stderr, dir.path())
    );
    let written = po_files(&dir.path().join("openshift"));
    assert!(!written.is_empty());
    assert!(po_files(&dir.path().join("manifests")).is_empty());
    let lock = std::fs::read_to_string(dir.path().join("platform-operators.lock.yaml")).unwrap();
    for name in &written {
        assert!(lock.contains(name.as_str()), "{name} in {lock}");
    }
    let stdout = normalize(&out.stdout, dir.path());
    assert!(stdout.contains("/openshift/99_po_"), "{stdout}");
    // Again: the same files, replaced in place.
    let again = create(dir.path(), &["--installer", "agent"]);
    assert!(again.status.success());
    assert_eq!(po_files(&dir.path().join("openshift")), written);
    // And check reads them where the Agent-based installer does.
    let _ = std::fs::remove_dir_all(dir.path().join(".cache"));
    let (code, problems, _) = check_json(dir.path(), &["--installer", "agent"]);
    assert_eq!(code, Some(0), "{problems:#?}");
}

#[test]
fn create_for_assisted_keeps_names_unique_across_both_folders() {
    let dir = fixture("external");
    let out = create(dir.path(), &["--installer", "assisted"]);
    assert!(
        out.status.success(),
        "{}",
        normalize(&out.stderr, dir.path())
    );
    let written = po_files(&dir.path().join("manifests"));
    assert!(!written.is_empty());
    // A file of the same name in openshift/ refuses the run (assisted-service refuses the upload).
    let dir = fixture("external");
    let out = create(dir.path(), &["--installer", "assisted"]);
    assert!(out.status.success());
    let name = po_files(&dir.path().join("manifests")).remove(0);
    std::fs::write(
        dir.path().join("openshift").join(&name),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: default\n",
    )
    .unwrap();
    let lock = dir.path().join("platform-operators.lock.yaml");
    let before = std::fs::read(&lock).unwrap();
    let out = create(dir.path(), &["--installer", "assisted"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = normalize(&out.stderr, dir.path());
    assert!(stderr.contains("name-clash"), "{stderr}");
    assert_eq!(std::fs::read(&lock).unwrap(), before);
}

// Issue 26 part 3 item 10: hostile directories.

#[cfg(unix)]
#[test]
fn check_reports_each_unreadable_entry_and_follows_no_link_out_of_the_directory() {
    use std::os::unix::ffi::OsStrExt;
    let dir = fixture("partner-multidoc");
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("shadow");
    std::fs::write(
        &secret,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: SECRET-CONTENT-1234\n",
    )
    .unwrap();
    let m = dir.path().join("manifests");
    let fifo = m.join("10-fifo.yaml");
    let c = std::ffi::CString::new(fifo.as_os_str().as_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    std::os::unix::fs::symlink("/dev/zero", m.join("11-zero.yaml")).unwrap();
    std::os::unix::fs::symlink("/proc/self/mem", m.join("12-mem.yaml")).unwrap();
    std::os::unix::fs::symlink(&secret, m.join("13-outside.yaml")).unwrap();
    std::fs::write(
        m.join(std::ffi::OsStr::from_bytes(b"14-bad-\xff\x1b[31m.yaml")),
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n",
    )
    .unwrap();
    // A link that stays inside the directory is read like the file it names.
    std::os::unix::fs::symlink("02-acme-config.yaml", m.join("15-inside.yaml")).unwrap();
    std::fs::remove_file(dir.path().join("install-config.yaml")).unwrap();
    std::os::unix::fs::symlink(&secret, dir.path().join("install-config.yaml")).unwrap();

    let out = cmd()
        .args(["check", "--installer", "assisted", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(!stdout.contains("SECRET-CONTENT"), "{stdout}");
    assert!(!stderr.contains("SECRET-CONTENT"), "{stderr}");
    assert!(!stdout.contains('\u{1b}'), "{stdout:?}");
    assert!(!stderr.contains('\u{1b}'), "{stderr:?}");

    let (code, problems, _) = check_json(dir.path(), &["--installer", "assisted"]);
    assert_eq!(code, Some(1));
    let mut unreadable: Vec<String> = with_rule(&problems, "unreadable")
        .iter()
        .map(|p| p["file"].as_str().unwrap().to_string())
        .collect();
    unreadable.sort();
    assert_eq!(
        unreadable,
        [
            "install-config.yaml",
            "manifests/10-fifo.yaml",
            "manifests/11-zero.yaml",
            "manifests/12-mem.yaml",
            "manifests/13-outside.yaml",
            "manifests/14-bad-\u{fffd}\u{1b}[31m.yaml",
        ],
        "{problems:#?}"
    );
    // The rest of the directory is still checked, the link inside it included.
    assert_eq!(with_rule(&problems, "role-recognised").len(), 1);
    let placeholders: Vec<&str> = with_rule(&problems, "placeholder")
        .iter()
        .map(|p| p["file"].as_str().unwrap())
        .collect();
    assert_eq!(
        placeholders,
        ["manifests/02-acme-config.yaml", "manifests/15-inside.yaml"]
    );
    assert!(
        !serde_json::to_string(&problems)
            .unwrap()
            .contains("SECRET-CONTENT")
    );
}

/// Issue 34 item 12: a FIFO where the lock file or install-config.yaml belongs is the one
/// `unreadable` finding every other file gets: `check` neither stops (exit 3) nor takes the
/// FIFO for "no install-config", and never blocks opening it.
#[cfg(unix)]
#[test]
fn check_reports_a_fifo_lock_or_install_config_as_unreadable() {
    use std::os::unix::ffi::OsStrExt;
    let mkfifo = |p: &Path| {
        let c = std::ffi::CString::new(p.as_os_str().as_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    };
    for file in ["platform-operators.lock.yaml", "install-config.yaml"] {
        let dir = fixture("partner-multidoc");
        let path = dir.path().join(file);
        let _ = std::fs::remove_file(&path);
        mkfifo(&path);
        let (code, problems, stderr) = check_json(dir.path(), &["--installer", "assisted"]);
        assert_eq!(code, Some(1), "{file}: {stderr}");
        let unreadable: Vec<&str> = with_rule(&problems, "unreadable")
            .iter()
            .map(|p| p["file"].as_str().unwrap())
            .collect();
        assert_eq!(unreadable, [file], "{problems:#?}");
        let message = with_rule(&problems, "unreadable")[0]["message"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(message.contains("FIFO"), "{message}");
    }
}

// Files a version 1 lock names (issue 26, item 5 follow-up): converted bundle objects carry no
// po-manifests label.

#[test]
fn a_version_1_lock_of_a_bootstrap_operator_proves_its_files_by_what_create_writes() {
    let dir = fixture("external");
    let d = dir.path();
    assert!(create(d, &[]).status.success());
    let manifests = d.join("manifests");
    let deployment = po_files(&manifests)
        .into_iter()
        .find(|n| n.contains("_deployment_"))
        .unwrap();
    let text = std::fs::read_to_string(manifests.join(&deployment)).unwrap();
    assert!(!text.contains("app.kubernetes.io/managed-by"), "{text}");
    // Unlabelled, but holding what create writes: replaced without a word.
    crate::edits::as_version_1(d, &[]);
    let before = tree(&manifests);
    let out = create(d, &[]);
    let stderr = normalize(&out.stderr, d);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("version 1"), "{stderr}");
    assert_eq!(tree(&manifests), before);
    // Edited, without po-manifests' first line, it proves nothing: refused, naming it, unless
    // --force. (With the line kept, the file still shows it is po-manifests', as a labelled
    // one does: a version 1 lock has no digest to see the edit by.)
    crate::edits::as_version_1(d, &[]);
    let unmarked = text.strip_prefix(po_manifests::output::MARK).unwrap();
    std::fs::write(manifests.join(&deployment), format!("{unmarked}# edited\n")).unwrap();
    let out = create(d, &[]);
    let stderr = normalize(&out.stderr, d);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("[DIR]/manifests/{deployment}")) && stderr.contains("version 1"),
        "{stderr}"
    );
    let out = create(d, &["--force"]);
    assert!(out.status.success(), "{}", normalize(&out.stderr, d));
    assert_eq!(tree(&manifests), before);
}

// Switching `--installer` between runs (issue 26, item 6 follow-up): the earlier run's files
// leave the other folder, under the same ownership rule.

/// The installer's own files of `openshift/` (not po-manifests').
fn installer_files(dir: &Path) -> Vec<String> {
    tree(dir)
        .into_iter()
        .map(|(n, _)| n)
        .filter(|n| !n.starts_with("99_po_") && !n.starts_with('.'))
        .collect()
}

#[test]
fn switching_from_agent_to_openshift_install_takes_the_earlier_files_out_of_openshift() {
    let dir = fixture("external");
    let d = dir.path();
    let (manifests, openshift) = (d.join("manifests"), d.join("openshift"));
    let own = installer_files(&openshift);
    assert!(!own.is_empty());
    let out = create(d, &["--installer", "agent"]);
    assert!(out.status.success(), "{}", normalize(&out.stderr, d));
    let agent = po_files(&openshift);
    assert!(!agent.is_empty());
    let out = create(d, &[]);
    let stderr = normalize(&out.stderr, d);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(po_files(&manifests), agent);
    assert!(po_files(&openshift).is_empty(), "{stderr}");
    assert_eq!(installer_files(&openshift), own);
    for name in &agent {
        assert!(
            stderr.contains(&format!("removed [DIR]/openshift/{name}")),
            "{name}: {stderr}"
        );
    }
    // And back.
    let out = create(d, &["--installer", "agent"]);
    let stderr = normalize(&out.stderr, d);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(po_files(&openshift), agent);
    assert!(po_files(&manifests).is_empty(), "{stderr}");
    assert_eq!(installer_files(&openshift), own);
}

#[test]
fn switching_from_agent_to_assisted_moves_the_files_without_a_name_clash() {
    let dir = fixture("external");
    let d = dir.path();
    assert!(create(d, &["--installer", "agent"]).status.success());
    let agent = po_files(&d.join("openshift"));
    let out = create(d, &["--installer", "assisted"]);
    let stderr = normalize(&out.stderr, d);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("name-clash"), "{stderr}");
    assert_eq!(po_files(&d.join("manifests")), agent);
    assert!(po_files(&d.join("openshift")).is_empty());
    // The clash check itself still holds: a file of another's of the same name refuses it.
    let name = &agent[0];
    std::fs::write(
        d.join("openshift").join(name),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  namespace: default\n",
    )
    .unwrap();
    let out = create(d, &["--installer", "assisted"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(normalize(&out.stderr, d).contains("name-clash"));
}

#[test]
fn switching_installer_refuses_an_edited_file_in_the_other_folder_unless_force() {
    let dir = fixture("external");
    let d = dir.path();
    assert!(create(d, &["--installer", "agent"]).status.success());
    let openshift = d.join("openshift");
    let deployment = po_files(&openshift)
        .into_iter()
        .find(|n| n.contains("_deployment_"))
        .unwrap();
    let path = openshift.join(&deployment);
    let edited = format!("{}# edited\n", std::fs::read_to_string(&path).unwrap());
    std::fs::write(&path, &edited).unwrap();
    let _ = std::fs::remove_dir_all(d.join(".cache"));
    let before = tree(d);
    let out = create(d, &[]);
    let stderr = normalize(&out.stderr, d);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("[DIR]/openshift/{deployment}")) && stderr.contains("edited"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(d.join(".cache"));
    assert_eq!(tree(d), before, "nothing may be written");
    // --explain shows it as removed from openshift/.
    let out = create(d, &["--explain"]);
    let stdout = normalize(&out.stdout, d);
    assert!(
        stdout.contains(&format!("--- [DIR]/openshift/{deployment} (edited)"))
            && stdout.contains("+++ /dev/null (create would remove it)"),
        "{stdout}"
    );
    let out = create(d, &["--force"]);
    assert!(out.status.success(), "{}", normalize(&out.stderr, d));
    assert!(!path.exists());
    assert!(d.join("manifests").join(&deployment).exists());
}

#[test]
fn a_staging_folder_in_the_other_folder_is_left_alone_with_a_warning() {
    let dir = fixture("external");
    let d = dir.path();
    let planted = d.join("openshift/.po-manifests-stage");
    std::fs::create_dir_all(&planted).unwrap();
    std::fs::write(planted.join("x"), "x").unwrap();
    let out = create(d, &[]);
    let stderr = normalize(&out.stderr, d);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("warning:") && stderr.contains("[DIR]/openshift/.po-manifests-stage"),
        "{stderr}"
    );
    assert!(planted.join("x").exists());
    // In the folder this run writes, it refuses the run.
    let out = create(d, &["--installer", "agent"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(normalize(&out.stderr, d).contains("nothing was changed"));
    assert!(planted.join("x").exists());
}
