//! The write protocol end to end (issues 14 and 26): `create` killed at every rename and fsync
//! leaves `manifests/` exactly the old or the new set and recovers on the next run to exactly
//! what an uninterrupted run writes, with the exchange and with the journal fallback; two runs
//! on one install directory never mix; the lock file may live on another filesystem.

use std::path::Path;
use std::process::Output;

use crate::common::{cmd, copy_dir, example, tree};

const CRASH_ENV: &str = "PO_MANIFESTS_TEST_CRASH_AT";

fn create(dir: &Path) -> Output {
    cmd().arg("create").arg("--dir").arg(dir).output().unwrap()
}

/// Entry names of a directory, sorted.
fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// The example after one run, with its operators then renamed in the config, so the next run
/// takes every earlier cert-operator file out and replaces the cloud-controller ones.
fn renamed_example() -> tempfile::TempDir {
    let dir = example();
    assert!(create(dir.path()).status.success());
    let config = dir.path().join("platform-operators.yaml");
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("name: cert-operator", "name: cert-operator-b");
    std::fs::write(&config, text).unwrap();
    dir
}

/// The environment variable that makes a debug build act as if the filesystem refused
/// `renameat2(RENAME_EXCHANGE)` (EINVAL), so the journal fallback is tested on any filesystem.
const NO_EXCHANGE_ENV: &str = "PO_MANIFESTS_TEST_NO_EXCHANGE";

/// `renamed_example`, with a file of the installer's own in `manifests/` that every run keeps.
fn renamed_example_with_installer_file() -> tempfile::TempDir {
    let dir = renamed_example();
    std::fs::write(
        dir.path().join("manifests/cluster-config.yaml"),
        "installer's own\n",
    )
    .unwrap();
    dir
}

/// Kill `create` at every crash point (with `env` set), check `manifests/` at that instant
/// with `at_kill`, then check that the next run (itself killed once) recovers to exactly what
/// an uninterrupted run writes. Returns the labels of the points reached.
fn kill_at_every_point(
    env: &[(&str, &str)],
    at_kill: &dyn Fn(usize, &str, &Path),
) -> std::collections::BTreeSet<String> {
    let start = renamed_example_with_installer_file();
    let expected_dir = tempfile::tempdir().unwrap();
    copy_dir(start.path(), expected_dir.path());
    assert!(create(expected_dir.path()).status.success());
    let expected = tree(expected_dir.path());
    let expected_top = entries(expected_dir.path());
    assert_eq!(
        expected_top,
        [
            "catalog",
            "install-config.yaml",
            "manifests",
            "openshift",
            "platform-operators.lock.yaml",
            "platform-operators.yaml"
        ]
    );
    let mut labels = std::collections::BTreeSet::new();
    let mut k = 1;
    loop {
        let d = tempfile::tempdir().unwrap();
        copy_dir(start.path(), d.path());
        let out = create_killed_at(d.path(), k, env);
        if out.status.success() {
            // Past the last crash point: the run completed.
            assert_eq!(tree(d.path()), expected);
            break;
        }
        let stderr = String::from_utf8_lossy(&out.stderr);
        let label = stderr
            .lines()
            .find_map(|l| l.split_once("killed before ").map(|(_, r)| r.to_string()))
            .unwrap_or_else(|| panic!("run {k} failed without reaching a crash point: {stderr}"));
        assert_eq!(out.status.code(), None, "run {k} was not killed: {stderr}");
        at_kill(k, &label, d.path());
        labels.insert(label.clone());
        // The recovering run is itself killed once, at its second crash point.
        let again = cmd()
            .arg("create")
            .arg("--dir")
            .arg(d.path())
            .env(CRASH_ENV, "2")
            .envs(env.iter().copied())
            .output()
            .unwrap();
        let rerun = cmd()
            .arg("create")
            .arg("--dir")
            .arg(d.path())
            .envs(env.iter().copied())
            .output()
            .unwrap();
        let rerun_err = String::from_utf8_lossy(&rerun.stderr);
        assert!(
            rerun.status.success(),
            "re-run after crash {k} ({label}) failed: {rerun_err}"
        );
        assert_eq!(
            tree(d.path()),
            expected,
            "after a kill at point {k} ({label}) and recovery (interrupted: {})",
            !again.status.success()
        );
        assert_eq!(entries(d.path()), expected_top, "point {k} ({label})");
        assert_eq!(
            entries(&d.path().join("manifests")),
            entries(&expected_dir.path().join("manifests")),
            "point {k} ({label})"
        );
        k += 1;
        assert!(k < 500, "no end to the crash points");
    }
    labels
}

#[test]
fn killed_at_every_rename_and_fsync_the_next_run_recovers_byte_for_byte() {
    let labels = kill_at_every_point(&[], &|_, _, _| {});
    for needed in [
        "fsync a staged file",
        "fsync a directory",
        "commit the journal",
        "exchange the manifests directories",
        "write the lock",
        "remove the old manifests",
        "remove the journal",
    ] {
        assert!(labels.contains(needed), "no crash at {needed}: {labels:?}");
    }
}

#[test]
fn at_every_crash_point_manifests_is_exactly_the_old_or_the_new_set() {
    let start = renamed_example_with_installer_file();
    let old = tree(&start.path().join("manifests"));
    let done = tempfile::tempdir().unwrap();
    copy_dir(start.path(), done.path());
    assert!(create(done.path()).status.success());
    let new = tree(&done.path().join("manifests"));
    assert_ne!(old, new);
    let old_names = entries(&start.path().join("manifests"));
    let new_names = entries(&done.path().join("manifests"));
    kill_at_every_point(&[], &|k, label, d| {
        let m = d.join("manifests");
        let now = tree(&m);
        let names = entries(&m);
        assert!(
            (now == old && names == old_names) || (now == new && names == new_names),
            "killed at point {k} ({label}): manifests/ holds neither the old nor the new set: {names:?}"
        );
        assert!(
            !names.iter().any(|n| n.starts_with('.')),
            "killed at point {k} ({label}): a hidden entry in manifests/: {names:?}"
        );
    });
}

#[test]
fn where_the_exchange_is_refused_the_journal_is_used_and_said_so_once() {
    let d = renamed_example_with_installer_file();
    let out = cmd()
        .arg("create")
        .arg("--dir")
        .arg(d.path())
        .env(NO_EXCHANGE_ENV, "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        stderr.matches("cannot exchange two directories").count(),
        1,
        "{stderr}"
    );
    let expected = tempfile::tempdir().unwrap();
    copy_dir(
        renamed_example_with_installer_file().path(),
        expected.path(),
    );
    assert!(create(expected.path()).status.success());
    assert_eq!(tree(d.path()), tree(expected.path()));
    // Killed anywhere in the fallback, the next run still recovers byte for byte.
    let labels = kill_at_every_point(&[(NO_EXCHANGE_ENV, "1")], &|_, _, _| {});
    for needed in [
        "write the journal",
        "commit the journal",
        "move aside",
        "place",
        "write the lock",
    ] {
        assert!(labels.contains(needed), "no crash at {needed}: {labels:?}");
    }
}

/// Run `create` in `dir` with `flags` and `env`, which must succeed.
fn create_with(dir: &Path, flags: &[&str], env: &[(&str, &str)]) {
    let out = cmd()
        .arg("create")
        .arg("--dir")
        .arg(dir)
        .args(flags)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "create {flags:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `99_po_` files of a folder, sorted.
fn po_entries(dir: &Path) -> Vec<String> {
    if !dir.is_dir() {
        return Vec::new();
    }
    entries(dir)
        .into_iter()
        .filter(|n| n.starts_with("99_po_"))
        .collect()
}

/// `create` on `dir`, killed at its crash point `k`, with `env` set.
fn create_killed_at(dir: &Path, k: usize, env: &[(&str, &str)]) -> std::process::Output {
    cmd()
        .arg("create")
        .arg("--dir")
        .arg(dir)
        .env(CRASH_ENV, k.to_string())
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

/// After a run with `--installer agent` (files in `openshift/`), kill a run for openshift-install
/// (files to `manifests/`) at every crash point: at each kill our files are in one folder or, between
/// the exchange and the last removal from `openshift/`, in both; the next run (for `next`)
/// recovers to exactly what uninterrupted runs leave.
fn kill_at_every_point_while_switching(env: &[(&str, &str)]) {
    let start = crate::common::agent_example();
    create_with(start.path(), &["--installer", "agent"], env);
    let agent = po_entries(&start.path().join("openshift"));
    assert!(!agent.is_empty());
    for next in [&[][..], &["--installer", "agent"][..]] {
        let expected = tempfile::tempdir().unwrap();
        copy_dir(start.path(), expected.path());
        create_with(expected.path(), &[], env);
        create_with(expected.path(), next, env);
        let expected = tree(expected.path());
        let mut k = 1;
        loop {
            let d = tempfile::tempdir().unwrap();
            copy_dir(start.path(), d.path());
            let out = create_killed_at(d.path(), k, env);
            if out.status.success() {
                break;
            }
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(stderr.contains("killed before"), "run {k}: {stderr}");
            let (m, o) = (
                po_entries(&d.path().join("manifests")),
                po_entries(&d.path().join("openshift")),
            );
            assert!(
                (m.is_empty() && o == agent) || m == agent,
                "killed at point {k}: manifests/ {m:?}, openshift/ {o:?}"
            );
            create_with(d.path(), next, env);
            assert_eq!(
                tree(d.path()),
                expected,
                "killed at point {k}, then {next:?}"
            );
            k += 1;
            assert!(k < 500, "no end to the crash points");
        }
    }
}

#[test]
fn killed_while_switching_installers_the_next_run_recovers_byte_for_byte() {
    kill_at_every_point_while_switching(&[]);
}

#[test]
fn killed_while_switching_installers_in_the_fallback_the_next_run_recovers_byte_for_byte() {
    kill_at_every_point_while_switching(&[(NO_EXCHANGE_ENV, "1")]);
}

/// Kill `create` in `dir` at the first crash point labelled `label`; false when no run reaches
/// one (the run that completes ends the search).
fn kill_before(dir: &Path, label: &str) -> bool {
    for k in 1..500 {
        let probe = tempfile::tempdir().unwrap();
        copy_dir(dir, probe.path());
        let out = cmd()
            .arg("create")
            .arg("--dir")
            .arg(probe.path())
            .env(CRASH_ENV, k.to_string())
            .output()
            .unwrap();
        if out.status.success() {
            return false;
        }
        if String::from_utf8_lossy(&out.stderr).contains(&format!("killed before {label}")) {
            // Kill the real directory at the same point.
            let out = cmd()
                .arg("create")
                .arg("--dir")
                .arg(dir)
                .env(CRASH_ENV, k.to_string())
                .output()
                .unwrap();
            assert_eq!(out.status.code(), None);
            return true;
        }
    }
    false
}

#[test]
fn a_kill_after_the_exchange_is_finished_and_said_so() {
    let d = renamed_example();
    let expected = tempfile::tempdir().unwrap();
    copy_dir(d.path(), expected.path());
    assert!(create(expected.path()).status.success());
    assert!(kill_before(d.path(), "write the lock"));
    assert!(d.path().join(".po-manifests-journal.json").exists());
    // manifests/ is already the new set; the lock is still the old one.
    assert_eq!(
        tree(&d.path().join("manifests")),
        tree(&expected.path().join("manifests"))
    );
    let rerun = create(d.path());
    let text = String::from_utf8_lossy(&rerun.stderr);
    assert!(rerun.status.success(), "{text}");
    assert!(
        text.contains("finished the change an interrupted po-manifests run had committed"),
        "{text}"
    );
    assert_eq!(tree(d.path()), tree(expected.path()));
}

/// Issue 34 item 10: killed after the staging folder and its marker are made, before the new
/// tree is: the next run removes the folder and warns about nothing, then or later.
#[test]
fn a_kill_before_the_new_tree_is_made_leaves_nothing_behind() {
    let d = renamed_example();
    let expected = tempfile::tempdir().unwrap();
    copy_dir(d.path(), expected.path());
    assert!(create(expected.path()).status.success());
    assert!(kill_before(d.path(), "create the new manifests tree"));
    for _ in 0..2 {
        let rerun = create(d.path());
        let text = String::from_utf8_lossy(&rerun.stderr);
        assert!(rerun.status.success(), "{text}");
        assert!(!text.contains("warning"), "{text}");
        assert!(
            !entries(d.path())
                .iter()
                .any(|n| n.starts_with(".po-manifests")),
            "{:?}",
            entries(d.path())
        );
    }
    assert_eq!(tree(d.path()), tree(expected.path()));
}

#[test]
fn a_kill_before_the_exchange_is_undone_and_said_so() {
    let d = renamed_example();
    let before = tree(d.path());
    assert!(kill_before(d.path(), "exchange the manifests directories"));
    // Nothing but the staging beside manifests/ changed.
    assert_eq!(tree(&d.path().join("manifests")), {
        let mut m: Vec<(String, String)> = before
            .iter()
            .filter_map(|(n, t)| Some((n.strip_prefix("manifests/")?.to_string(), t.clone())))
            .collect();
        m.sort();
        m
    });
    assert!(
        entries(d.path())
            .iter()
            .any(|n| n.starts_with(".po-manifests-stage-"))
    );
    let rerun = create(d.path());
    let text = String::from_utf8_lossy(&rerun.stderr);
    assert!(rerun.status.success(), "{text}");
    assert!(
        text.contains("removed what an interrupted po-manifests run had staged"),
        "{text}"
    );
    assert!(
        !entries(d.path())
            .iter()
            .any(|n| n.starts_with(".po-manifests-"))
    );
}

#[test]
fn staging_folders_it_cannot_prove_it_made_are_left_alone_with_a_warning() {
    let d = example();
    let planted = d.path().join(".po-manifests-stage-abc123");
    std::fs::create_dir_all(planted.join("new")).unwrap();
    std::fs::write(planted.join("new/x"), "x").unwrap();
    let out = create(d.path());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(std::fs::read(planted.join("new/x")).unwrap(), b"x");
    assert!(
        stderr.contains("warning:") && stderr.contains(".po-manifests-stage-abc123"),
        "{stderr}"
    );
    assert!(stderr.contains("left alone"), "{stderr}");
}

#[test]
fn a_fallback_staging_folder_no_journal_proves_is_left_and_refuses_the_run() {
    for name in [
        ".po-manifests-stage",
        ".po-manifests-stage-0123456789abcdef0123456789abcdef",
    ] {
        let d = example();
        assert!(create(d.path()).status.success());
        // Named like the fallback's staging folder, but no journal names it.
        let planted = d.path().join("manifests").join(name);
        std::fs::create_dir_all(planted.join("new")).unwrap();
        std::fs::write(planted.join("new/99_po_x.yaml"), "someone's\n").unwrap();
        std::fs::write(planted.join("po-manifests-stage"), "token 0123\n").unwrap();
        let before = tree(d.path());
        let out = create(d.path());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {stderr}");
        assert!(
            stderr.contains(name) && stderr.contains("manifests/"),
            "{stderr}"
        );
        assert!(stderr.contains("openshift-install"), "{stderr}");
        assert!(stderr.contains("nothing was changed"), "{stderr}");
        assert_eq!(tree(d.path()), before, "{name}: nothing may change");
        // Once a person has moved it out, the run goes on.
        std::fs::remove_dir_all(&planted).unwrap();
        assert!(create(d.path()).status.success());
    }
}

#[test]
fn a_fallback_run_killed_before_its_commit_leaves_a_staging_folder_the_next_run_proves() {
    let start = renamed_example();
    let expected = tempfile::tempdir().unwrap();
    copy_dir(start.path(), expected.path());
    assert!(create(expected.path()).status.success());
    // Killed at the first crash point after the staging folder exists (a staged file's fsync).
    let mut k = 1;
    let d = loop {
        let probe = tempfile::tempdir().unwrap();
        copy_dir(start.path(), probe.path());
        let out = cmd()
            .arg("create")
            .arg("--dir")
            .arg(probe.path())
            .env(CRASH_ENV, k.to_string())
            .env(NO_EXCHANGE_ENV, "1")
            .output()
            .unwrap();
        assert!(
            !out.status.success(),
            "no crash point in the fallback's staging"
        );
        let staged = entries(&probe.path().join("manifests"))
            .into_iter()
            .any(|n| n.starts_with(".po-manifests-stage"));
        if staged {
            break probe;
        }
        k += 1;
        assert!(k < 100, "the fallback never staged");
    };
    let rerun = cmd()
        .arg("create")
        .arg("--dir")
        .arg(d.path())
        .env(NO_EXCHANGE_ENV, "1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&rerun.stderr);
    assert!(rerun.status.success(), "{text}");
    assert!(
        text.contains("removed what an interrupted po-manifests run had staged"),
        "{text}"
    );
    assert_eq!(tree(d.path()), tree(expected.path()));
}

#[cfg(unix)]
#[test]
fn a_second_run_waits_for_the_first_or_fails_with_no_wait() {
    use std::fs::File;
    let d = example();
    // Hold the install directory's lock as a running po-manifests would.
    let held = File::open(d.path()).unwrap();
    held.lock().unwrap();
    let out = cmd()
        .arg("create")
        .arg("--dir")
        .arg(d.path())
        .arg("--no-wait")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{text}");
    assert!(
        text.contains("another po-manifests run is writing") && text.contains("--no-wait"),
        "{text}"
    );
    assert!(!d.path().join("manifests").exists());
    assert!(!d.path().join("platform-operators.lock.yaml").exists());

    let bin = assert_cmd::cargo::cargo_bin("po-manifests");
    let mut waiting = std::process::Command::new(bin)
        .arg("create")
        .arg("--dir")
        .arg(d.path())
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(waiting.try_wait().unwrap().is_none(), "did not wait");
    assert!(!d.path().join("platform-operators.lock.yaml").exists());
    drop(held);
    let out = waiting.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("waiting for another po-manifests run to finish writing"),
        "{text}"
    );
}

#[test]
fn two_concurrent_creates_leave_one_complete_set() {
    let d = example();
    let a = d.path().join("platform-operators.yaml");
    let text = std::fs::read_to_string(&a).unwrap();
    let b = d.path().join("b.yaml");
    std::fs::write(&b, text.replace("name: cert-operator", "name: other-cert")).unwrap();
    // Each config alone, for the expected sets.
    let expect = |config: &Path| {
        let e = tempfile::tempdir().unwrap();
        copy_dir(d.path(), e.path());
        let config = e.path().join(config.file_name().unwrap());
        let out = cmd()
            .arg("create")
            .arg("--dir")
            .arg(e.path())
            .arg("--config")
            .arg(&config)
            .output()
            .unwrap();
        assert!(out.status.success());
        tree(&e.path().join("manifests"))
    };
    let (set_a, set_b) = (expect(&a), expect(&b));
    for round in 0..5 {
        let _ = std::fs::remove_dir_all(d.path().join("manifests"));
        let _ = std::fs::remove_file(d.path().join("platform-operators.lock.yaml"));
        let bin = assert_cmd::cargo::cargo_bin("po-manifests");
        let spawn = |config: &Path| {
            std::process::Command::new(&bin)
                .arg("create")
                .arg("--dir")
                .arg(d.path())
                .arg("--config")
                .arg(config)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (pa, pb) = (spawn(&a), spawn(&b));
        let (oa, ob) = (
            pa.wait_with_output().unwrap(),
            pb.wait_with_output().unwrap(),
        );
        assert!(oa.status.success() && ob.status.success(), "round {round}");
        let got = tree(&d.path().join("manifests"));
        let lock = std::fs::read_to_string(d.path().join("platform-operators.lock.yaml")).unwrap();
        // Both wrote the same lock path (beside their configs); the later one's set is there,
        // the earlier one's files were taken out, and the lock names exactly what is there.
        if lock.contains("other-cert") {
            assert_eq!(got, set_b, "round {round}");
        } else {
            assert_eq!(got, set_a, "round {round}");
        }
    }
}

#[cfg(target_os = "linux")]
#[test]
fn manifests_on_another_filesystem_are_written() {
    // /dev/shm is a tmpfs on Linux; the temporary directory is usually elsewhere.
    let shm = Path::new("/dev/shm");
    let d = example();
    if !shm.is_dir() || same_device(shm, d.path()) {
        eprintln!(
            "skipped manifests_on_another_filesystem_are_written: no second filesystem (/dev/shm) here"
        );
        return;
    }
    let other = tempfile::tempdir_in(shm).unwrap();
    std::os::unix::fs::symlink(other.path(), d.path().join("manifests")).unwrap();
    // A folder linked out of D is written only when asked (issue 34 item 3).
    let out = create(d.path());
    assert_eq!(out.status.code(), Some(3));
    assert!(entries(other.path()).is_empty());
    let follow = |dir: &Path| {
        cmd()
            .args(["create", "--follow-links", "--dir"])
            .arg(dir)
            .output()
            .unwrap()
    };
    let out = follow(d.path());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        entries(other.path())
            .iter()
            .any(|n| n.starts_with("99_po_"))
    );
    // A second run replaces them, also across the filesystems.
    assert!(follow(d.path()).status.success());
    assert!(!entries(other.path()).iter().any(|n| n.starts_with('.')));
}

#[cfg(target_os = "linux")]
#[test]
fn a_config_on_another_filesystem_gets_its_lock_beside_it() {
    let shm = Path::new("/dev/shm");
    let d = example();
    if !shm.is_dir() || same_device(shm, d.path()) {
        eprintln!(
            "skipped a_config_on_another_filesystem_gets_its_lock_beside_it: no second filesystem (/dev/shm) here"
        );
        return;
    }
    let other = tempfile::tempdir_in(shm).unwrap();
    let config = other.path().join("po.yaml");
    let text = std::fs::read_to_string(d.path().join("platform-operators.yaml"))
        .unwrap()
        .replace(
            "source: catalog",
            &format!("source: {}", d.path().join("catalog").display()),
        );
    std::fs::write(&config, text).unwrap();
    let out = cmd()
        .arg("create")
        .arg("--dir")
        .arg(d.path())
        .arg("--config")
        .arg(&config)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        entries(other.path()),
        ["platform-operators.lock.yaml", "po.yaml"]
    );
}

#[cfg(target_os = "linux")]
fn same_device(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.metadata().unwrap().dev() == b.metadata().unwrap().dev()
}
