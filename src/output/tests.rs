use super::*;

/// `body` after [`MARK`]: a file that shows po-manifests wrote it.
fn m(body: &str) -> String {
    format!("{MARK}{body}")
}

fn file(name: &str, body: &str) -> ManifestFile {
    ManifestFile {
        name: name.into(),
        bytes: body.as_bytes().to_vec(),
    }
}

mod file_name {
    use super::*;

    #[test]
    fn sorts_after_the_installer_and_names_the_object() {
        assert_eq!(
            file_name("cm", 1, "BundleDeployment", "cm"),
            "99_po_cm_01_bundledeployment_cm.yaml"
        );
    }

    #[test]
    fn hostile_names_stay_plain_file_names() {
        for hostile in [
            "../../etc/passwd",
            "a/b",
            ".hidden",
            "système:role",
            "x\0y",
            "..",
            "\n",
        ] {
            let n = file_name("op", 0, "ClusterRole", hostile);
            assert!(!n.contains('/') && !n.contains("..") && n.is_ascii(), "{n}");
            assert!(n.starts_with(FILE_PREFIX) && n.ends_with(".yaml"), "{n}");
        }
    }

    #[test]
    fn long_names_are_cut_to_fit() {
        let n = file_name("op", 0, "CustomResourceDefinition", &"x".repeat(400));
        assert!(n.len() <= MAX_FILE_NAME, "{}", n.len());
    }
}

/// How an earlier run's lock records `f`: its name and the sha256 of its bytes.
fn written_by_us(f: &ManifestFile) -> PreviousFile {
    PreviousFile {
        name: f.name.clone(),
        sha256: Some(sha256_hex(&f.bytes)),
    }
}

mod write {
    use super::*;

    #[test]
    fn an_edited_earlier_file_is_refused_and_kept_unless_forced() {
        let (_d, manifests, lock) = setup();
        let first = [
            file("99_po_a_00_x_a.yaml", "1"),
            file("99_po_b_00_x_b.yaml", "1"),
        ];
        write(
            Target::only(&manifests),
            &first,
            &[],
            &lock,
            Some(b"lock1"),
            false,
        )
        .unwrap();
        let previous: Vec<PreviousFile> = first.iter().map(written_by_us).collect();
        // a is replaced, b is removed by the next run: a person edited both.
        std::fs::write(manifests.join("99_po_a_00_x_a.yaml"), "edited a").unwrap();
        std::fs::write(manifests.join("99_po_b_00_x_b.yaml"), "edited b").unwrap();
        let second = [file("99_po_a_00_x_a.yaml", "2")];
        let e = write(
            Target::only(&manifests),
            &second,
            &previous,
            &lock,
            Some(b"lock2"),
            false,
        )
        .unwrap_err();
        let Error::Edited { files } = &e else {
            panic!("{e}")
        };
        assert_eq!(
            files,
            &[
                manifests.join("99_po_a_00_x_a.yaml"),
                manifests.join("99_po_b_00_x_b.yaml")
            ]
        );
        assert!(e.to_string().contains("--force"), "{e}");
        assert!(!e.is_io());
        assert_eq!(
            std::fs::read(manifests.join("99_po_a_00_x_a.yaml")).unwrap(),
            b"edited a"
        );
        assert_eq!(std::fs::read(&lock).unwrap(), b"lock1");
        let w = write(
            Target::only(&manifests),
            &second,
            &previous,
            &lock,
            Some(b"lock2"),
            true,
        )
        .unwrap();
        assert_eq!(w.removed, [manifests.join("99_po_b_00_x_b.yaml")]);
        assert_eq!(
            std::fs::read(manifests.join("99_po_a_00_x_a.yaml")).unwrap(),
            b"2"
        );
    }

    #[test]
    fn a_file_the_lock_names_with_another_digest_is_not_removed() {
        let (_d, manifests, lock) = setup();
        std::fs::write(manifests.join("99_po_user-file.yaml"), "user's").unwrap();
        let tampered = [PreviousFile {
            name: "99_po_user-file.yaml".into(),
            sha256: Some("0".repeat(64)),
        }];
        let e = write(
            Target::only(&manifests),
            &[],
            &tampered,
            &lock,
            Some(b"l"),
            false,
        )
        .unwrap_err();
        assert!(matches!(e, Error::Edited { .. }), "{e}");
        assert_eq!(
            std::fs::read(manifests.join("99_po_user-file.yaml")).unwrap(),
            b"user's"
        );
    }

    /// Issue 34 item 4: a version 2 lock that names a user's file with its true sha256 proves
    /// nothing: the file is left in place (reported) when this run would remove it, refused
    /// when it would overwrite it, and taken out only with `--force`; a file with the label or
    /// [`MARK`] and its recorded digest is taken out as before.
    #[test]
    fn a_forged_lock_with_a_files_true_digest_cannot_remove_or_overwrite_it() {
        let (_d, manifests, lock) = setup();
        let user = manifests.join("99_po_user-file.yaml");
        std::fs::write(&user, "kind: ConfigMap\n").unwrap();
        let marked = manifests.join("99_po_a_01_deployment_x.yaml");
        let marked_text = format!("{MARK}kind: Deployment\n");
        std::fs::write(&marked, &marked_text).unwrap();
        let forged = [
            PreviousFile {
                name: "99_po_user-file.yaml".into(),
                sha256: Some(sha256_hex(b"kind: ConfigMap\n")),
            },
            PreviousFile {
                name: "99_po_a_01_deployment_x.yaml".into(),
                sha256: Some(sha256_hex(marked_text.as_bytes())),
            },
        ];
        let e = write(
            Target::only(&manifests),
            &[file("99_po_user-file.yaml", "ours")],
            &forged,
            &lock,
            Some(b"l"),
            false,
        )
        .unwrap_err();
        assert!(matches!(e, Error::Unproven { .. }), "{e}");
        assert_eq!(std::fs::read(&user).unwrap(), b"kind: ConfigMap\n");
        let w = write(
            Target::only(&manifests),
            &[],
            &forged,
            &lock,
            Some(b"l"),
            false,
        )
        .unwrap();
        assert_eq!(w.left, std::slice::from_ref(&user));
        assert_eq!(w.removed, std::slice::from_ref(&marked));
        assert_eq!(std::fs::read(&user).unwrap(), b"kind: ConfigMap\n");
        assert!(!marked.exists());
        let w = write(
            Target::only(&manifests),
            &[],
            &forged,
            &lock,
            Some(b"l"),
            true,
        )
        .unwrap();
        assert_eq!(w.removed, std::slice::from_ref(&user));
    }

    #[test]
    fn objects_without_the_label_are_written_with_the_mark() {
        let objects = [
            RenderedObject {
                operator: "a".into(),
                object: serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "x"}}),
            },
            RenderedObject {
                operator: "a".into(),
                object: serde_saphyr::from_str::<serde_json::Value>(LABELLED).unwrap(),
            },
        ];
        let files = manifest_files(&objects).unwrap();
        assert!(files[0].bytes.starts_with(MARK.as_bytes()));
        assert!(carries_mark(&files[0].bytes));
        assert!(!files[1].bytes.starts_with(b"#"));
        assert!(carries_mark(&files[1].bytes));
    }

    /// An object rendered from the templates: it carries the po-manifests label.
    const LABELLED: &str = "apiVersion: v1\nkind: Namespace\nmetadata:\n  labels:\n    app.kubernetes.io/managed-by: po-manifests\n  name: x\n";

    #[test]
    fn a_version_1_lock_cannot_make_a_run_remove_a_file_without_the_label() {
        let (_d, manifests, lock) = setup();
        let user = manifests.join("99_po_user-file.yaml");
        std::fs::write(&user, "kind: ConfigMap\n").unwrap();
        let ours = manifests.join("99_po_a_00_namespace_x.yaml");
        std::fs::write(&ours, LABELLED).unwrap();
        let v1 = [
            PreviousFile::named("99_po_user-file.yaml"),
            PreviousFile::named("99_po_a_00_namespace_x.yaml"),
        ];
        let w = write(Target::only(&manifests), &[], &v1, &lock, Some(b"l"), false).unwrap();
        assert_eq!(w.removed, std::slice::from_ref(&ours));
        assert_eq!(w.left, std::slice::from_ref(&user));
        assert!(!ours.exists());
        assert_eq!(std::fs::read(&user).unwrap(), b"kind: ConfigMap\n");
        assert_eq!(std::fs::read(&lock).unwrap(), b"l");
        // --force takes the lock at its word.
        let w = write(Target::only(&manifests), &[], &v1, &lock, Some(b"l2"), true).unwrap();
        assert_eq!(w.removed, std::slice::from_ref(&user));
        assert!(w.left.is_empty());
        assert!(!user.exists());
    }

    #[test]
    fn a_version_1_lock_cannot_make_a_run_overwrite_a_file_without_the_label() {
        let (_d, manifests, lock) = setup();
        let name = "99_po_a_00_configmap_x.yaml";
        std::fs::write(manifests.join(name), "kind: ConfigMap\n").unwrap();
        let v1 = [PreviousFile::named(name)];
        let e = write(
            Target::only(&manifests),
            &[file(name, "ours")],
            &v1,
            &lock,
            Some(b"l"),
            false,
        )
        .unwrap_err();
        let Error::Unproven { files } = &e else {
            panic!("{e}")
        };
        assert_eq!(files, &[manifests.join(name)]);
        let text = e.to_string();
        for needed in [
            "version 1",
            "app.kubernetes.io/managed-by: po-manifests",
            "--force",
        ] {
            assert!(text.contains(needed), "{needed} in {text}");
        }
        assert!(!e.is_io());
        assert_eq!(
            std::fs::read(manifests.join(name)).unwrap(),
            b"kind: ConfigMap\n"
        );
        assert!(!lock.exists());
        // What this run writes anyway needs no proof; nor does a labelled file.
        for (now, new) in [("same\n", "same\n"), (LABELLED, "ours")] {
            std::fs::write(manifests.join(name), now).unwrap();
            write(
                Target::only(&manifests),
                &[file(name, new)],
                &v1,
                &lock,
                Some(b"l"),
                false,
            )
            .unwrap();
            assert_eq!(std::fs::read(manifests.join(name)).unwrap(), new.as_bytes());
        }
        // --force overwrites.
        std::fs::write(manifests.join(name), "kind: ConfigMap\n").unwrap();
        write(
            Target::only(&manifests),
            &[file(name, "ours")],
            &v1,
            &lock,
            Some(b"l"),
            true,
        )
        .unwrap();
        assert_eq!(std::fs::read(manifests.join(name)).unwrap(), b"ours");
    }

    #[test]
    fn only_objects_that_carry_the_label_prove_themselves() {
        assert!(carries_mark(LABELLED.as_bytes()));
        for other in [
            "kind: ConfigMap\n",
            "apiVersion: v1\nkind: Namespace\nmetadata:\n  labels:\n    app.kubernetes.io/managed-by: someone-else\n  name: x\n",
            "# app.kubernetes.io/managed-by: po-manifests\nkind: ConfigMap\n",
            "app.kubernetes.io/managed-by: po-manifests\n",
            "{not yaml",
            "",
            "\u{0}\u{1}",
        ] {
            assert!(!carries_mark(other.as_bytes()), "{other:?}");
        }
        assert!(!carries_mark(b"\xff\xfe"));
    }

    #[test]
    fn earlier_files_in_the_other_folder_are_taken_out_under_the_same_rule() {
        let (d, manifests, lock) = setup();
        let other = d.path().join("openshift");
        std::fs::create_dir(&other).unwrap();
        std::fs::write(other.join("99_openshift-own.yaml"), "installer's").unwrap();
        let first = [
            file("99_po_a_00_x_a.yaml", &m("1")),
            file("99_po_b_00_x_b.yaml", &m("1")),
        ];
        for f in &first {
            std::fs::write(other.join(&f.name), &f.bytes).unwrap();
        }
        let previous: Vec<PreviousFile> = first.iter().map(written_by_us).collect();
        let target = Target {
            dir: &manifests,
            other: Some(&other),
        };
        // Edited there: refused, named by where it is, unless --force.
        std::fs::write(other.join("99_po_b_00_x_b.yaml"), "edited").unwrap();
        let second = [file("99_po_a_00_x_a.yaml", &m("2"))];
        let e = write(target, &second, &previous, &lock, Some(b"l"), false).unwrap_err();
        let Error::Edited { files } = &e else {
            panic!("{e}")
        };
        assert_eq!(files, &[other.join("99_po_b_00_x_b.yaml")]);
        assert!(other.join("99_po_a_00_x_a.yaml").exists());
        assert!(!manifests.join("99_po_a_00_x_a.yaml").exists());
        let edits = edited(target, &second, &previous);
        assert_eq!(edits[0].path, other.join("99_po_b_00_x_b.yaml"));
        assert_eq!(edits[0].new, None, "the other folder's copy is removed");
        // As written: both leave the other folder, a is written here.
        std::fs::write(other.join("99_po_b_00_x_b.yaml"), m("1")).unwrap();
        let w = write(target, &second, &previous, &lock, Some(b"l"), false).unwrap();
        assert_eq!(
            w.removed,
            [
                other.join("99_po_a_00_x_a.yaml"),
                other.join("99_po_b_00_x_b.yaml")
            ]
        );
        assert_eq!(listing(&other), ["99_openshift-own.yaml"]);
        assert_eq!(
            std::fs::read(manifests.join("99_po_a_00_x_a.yaml")).unwrap(),
            m("2").as_bytes()
        );
        // A file in this run's folder is the earlier one: the other folder's copy of the same
        // name is not looked at.
        std::fs::write(other.join("99_po_a_00_x_a.yaml"), m("2")).unwrap();
        let again = [written_by_us(&second[0])];
        let w = write(target, &second, &again, &lock, Some(b"l"), false).unwrap();
        assert!(w.removed.is_empty(), "{w:?}");
        assert!(other.join("99_po_a_00_x_a.yaml").exists());
    }

    #[cfg(unix)]
    #[test]
    fn in_the_other_folder_only_regular_files_count() {
        let (d, manifests, lock) = setup();
        let other = d.path().join("openshift");
        std::fs::create_dir(&other).unwrap();
        std::fs::write(d.path().join("target"), "1").unwrap();
        std::os::unix::fs::symlink(d.path().join("target"), other.join("99_po_a_00_x_a.yaml"))
            .unwrap();
        let previous = [written_by_us(&file("99_po_a_00_x_a.yaml", "1"))];
        let target = Target {
            dir: &manifests,
            other: Some(&other),
        };
        let w = write(target, &[], &previous, &lock, Some(b"l"), true).unwrap();
        assert!(w.removed.is_empty(), "{w:?}");
        assert!(other.join("99_po_a_00_x_a.yaml").symlink_metadata().is_ok());
        assert_eq!(std::fs::read(d.path().join("target")).unwrap(), b"1");
    }

    #[test]
    fn without_a_lock_the_lock_file_is_not_touched() {
        let (_d, manifests, lock) = setup();
        std::fs::write(&lock, "as it was").unwrap();
        write(
            Target::only(&manifests),
            &[file("99_po_a_00_x_a.yaml", "1")],
            &[],
            &lock,
            None,
            false,
        )
        .unwrap();
        assert_eq!(std::fs::read(&lock).unwrap(), b"as it was");
        assert!(manifests.join("99_po_a_00_x_a.yaml").exists());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_installer_files_are_kept_and_nothing_is_left_beside() {
        let (_d, manifests, lock) = setup();
        std::fs::create_dir(manifests.join("sub")).unwrap();
        std::fs::write(manifests.join("sub/x.yaml"), "x").unwrap();
        std::os::unix::fs::symlink("cluster-config.yaml", manifests.join("link.yaml")).unwrap();
        write(
            Target::only(&manifests),
            &[file("99_po_a_00_x_a.yaml", "1")],
            &[],
            &lock,
            Some(b"l"),
            false,
        )
        .unwrap();
        assert_eq!(
            listing(&manifests),
            [
                "99_po_a_00_x_a.yaml",
                "cluster-config.yaml",
                "link.yaml",
                "sub"
            ]
        );
        assert_eq!(std::fs::read(manifests.join("sub/x.yaml")).unwrap(), b"x");
        assert_eq!(
            std::fs::read_link(manifests.join("link.yaml")).unwrap(),
            Path::new("cluster-config.yaml")
        );
        assert_eq!(
            std::fs::read(manifests.join("cluster-config.yaml")).unwrap(),
            b"installer's own"
        );
        assert_eq!(
            listing(manifests.parent().unwrap()),
            ["manifests", "platform-operators.lock.yaml"]
        );
    }

    /// Our files get the installer's own mode, 0640 (openshift/installer `pkg/asset/asset.go`,
    /// `PersistToFile`), the lock file too, and a folder we create gets 0750; whatever the
    /// umask takes away, nothing beyond those bits is ever set (issue 33 item 6).
    #[cfg(unix)]
    #[test]
    fn files_and_folders_get_the_installers_modes() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let dir = tempfile::tempdir().unwrap();
        let manifests = dir.path().join("openshift");
        let lock = dir.path().join("platform-operators.lock.yaml");
        let files = [file("99_po_a_00_x_a.yaml", "1")];
        write(
            Target::only(&manifests),
            &files,
            &[],
            &lock,
            Some(b"lock"),
            false,
        )
        .unwrap();
        for path in [manifests.join("99_po_a_00_x_a.yaml"), lock.clone()] {
            let m = mode(&path);
            assert_eq!(m & !FILE_MODE, 0, "{}: {m:o}", path.display());
            assert_ne!(m & 0o600, 0, "{}: {m:o}", path.display());
        }
        let m = mode(&manifests);
        assert_eq!(m & !DIR_MODE, 0, "{m:o}");
    }

    fn setup() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let manifests = dir.path().join("manifests");
        std::fs::create_dir(&manifests).unwrap();
        std::fs::write(manifests.join("cluster-config.yaml"), "installer's own").unwrap();
        let lock = dir.path().join("platform-operators.lock.yaml");
        (dir, manifests, lock)
    }

    fn listing(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn replaces_exactly_the_previous_files() {
        let (_d, manifests, lock) = setup();
        let first = [
            file("99_po_a_00_x_a.yaml", &m("1")),
            file("99_po_b_00_x_b.yaml", &m("1")),
        ];
        write(
            Target::only(&manifests),
            &first,
            &[],
            &lock,
            Some(b"lock1"),
            false,
        )
        .unwrap();
        let second = [file("99_po_a_00_x_a.yaml", &m("2"))];
        let previous: Vec<PreviousFile> = first.iter().map(written_by_us).collect();
        let w = write(
            Target::only(&manifests),
            &second,
            &previous,
            &lock,
            Some(b"lock2"),
            false,
        )
        .unwrap();
        assert_eq!(w.removed, [manifests.join("99_po_b_00_x_b.yaml")]);
        assert_eq!(
            listing(&manifests),
            ["99_po_a_00_x_a.yaml", "cluster-config.yaml"]
        );
        assert_eq!(
            std::fs::read(manifests.join("99_po_a_00_x_a.yaml")).unwrap(),
            m("2").as_bytes()
        );
        assert_eq!(std::fs::read(&lock).unwrap(), b"lock2");
        // No staging directory is left behind.
        assert_eq!(
            listing(manifests.parent().unwrap()),
            ["manifests", "platform-operators.lock.yaml"]
        );
    }

    #[test]
    fn refuses_to_overwrite_a_file_it_did_not_write() {
        let (_d, manifests, lock) = setup();
        std::fs::write(manifests.join("99_po_a_00_x_a.yaml"), "user's").unwrap();
        let e = write(
            Target::only(&manifests),
            &[file("99_po_a_00_x_a.yaml", "ours")],
            &[],
            &lock,
            Some(b"l"),
            false,
        )
        .unwrap_err();
        assert!(matches!(e, Error::NotOurs { .. }), "{e}");
        assert_eq!(
            std::fs::read(manifests.join("99_po_a_00_x_a.yaml")).unwrap(),
            b"user's"
        );
        assert!(!lock.exists());
    }

    #[test]
    fn failure_restores_the_previous_files() {
        let (_d, manifests, _lock) = setup();
        let previous = [written_by_us(&file("99_po_a_00_x_a.yaml", "old"))];
        std::fs::write(manifests.join(&previous[0].name), "old").unwrap();
        // The lock path is a directory that is not empty: the final rename fails.
        let bad_lock = manifests.parent().unwrap().join("lockdir");
        std::fs::create_dir_all(bad_lock.join("x")).unwrap();
        let e = write(
            Target::only(&manifests),
            &[
                file("99_po_a_00_x_a.yaml", "new"),
                file("99_po_c_00_x_c.yaml", "new"),
            ],
            &previous,
            &bad_lock,
            Some(b"l"),
            false,
        );
        assert!(e.is_err());
        assert_eq!(
            listing(&manifests),
            ["99_po_a_00_x_a.yaml", "cluster-config.yaml"]
        );
        assert_eq!(
            std::fs::read(manifests.join(&previous[0].name)).unwrap(),
            b"old"
        );
        // Nothing staged is left beside manifests/ either.
        assert_eq!(
            listing(manifests.parent().unwrap()),
            ["lockdir", "manifests"]
        );
    }

    #[test]
    fn previous_names_from_a_tampered_lock_cannot_reach_outside() {
        let (d, manifests, lock) = setup();
        std::fs::write(d.path().join("secret"), "keep").unwrap();
        write(
            Target::only(&manifests),
            &[],
            &[
                PreviousFile::named("../secret"),
                PreviousFile::named("cluster-config.yaml"),
            ],
            &lock,
            Some(b"l"),
            false,
        )
        .unwrap();
        assert!(d.path().join("secret").exists());
        assert!(manifests.join("cluster-config.yaml").exists());
    }
}

mod recover {
    use super::*;

    fn setup() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let manifests = dir.path().join("manifests");
        std::fs::create_dir(&manifests).unwrap();
        let lock = dir.path().join("platform-operators.lock.yaml");
        (dir, manifests, lock)
    }

    #[test]
    fn nothing_to_do_is_none() {
        let (_d, manifests, lock) = setup();
        assert_eq!(
            recover(Target::only(&manifests), &lock).unwrap(),
            Recovered::default()
        );
    }

    #[test]
    fn a_journal_naming_other_files_is_refused_and_nothing_is_touched() {
        let (d, manifests, lock) = setup();
        std::fs::write(d.path().join("secret"), "keep").unwrap();
        std::fs::write(
            d.path().join(journal::JOURNAL_FILE),
            format!(
                r#"{{"journalVersion":1,"lock":{:?},"place":[],"remove":["../secret"]}}"#,
                lock.display().to_string()
            ),
        )
        .unwrap();
        let e = recover(Target::only(&manifests), &lock).unwrap_err();
        assert!(matches!(e, Error::Journal { .. }), "{e}");
        assert!(e.to_string().contains("../secret"), "{e}");
        assert!(d.path().join("secret").exists());
    }

    fn v1_journal(d: &Path, lock: &Path, place: &[&str], remove: &[&str]) {
        let j = journal::Journal {
            journal_version: 1,
            token: None,
            pending: false,
            lock: lock.to_path_buf(),
            folder: None,
            place: place.iter().map(|s| s.to_string()).collect(),
            remove: remove.iter().map(|s| s.to_string()).collect(),
            elsewhere: None,
        };
        std::fs::write(
            d.join(journal::JOURNAL_FILE),
            serde_json::to_vec(&j).unwrap(),
        )
        .unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_staged_folder_that_is_a_symlink_is_refused_and_nothing_is_moved() {
        let (d, manifests, lock) = setup();
        let elsewhere = tempfile::tempdir().unwrap();
        std::fs::write(elsewhere.path().join("99_po_a_00_x_a.yaml"), "theirs").unwrap();
        let stage = manifests.join(journal::STAGE_DIR);
        std::fs::create_dir(&stage).unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), stage.join("new")).unwrap();
        v1_journal(d.path(), &lock, &["99_po_a_00_x_a.yaml"], &[]);
        let e = recover(Target::only(&manifests), &lock).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert_eq!(
            std::fs::read(elsewhere.path().join("99_po_a_00_x_a.yaml")).unwrap(),
            b"theirs"
        );
        assert!(!manifests.join("99_po_a_00_x_a.yaml").exists());
    }

    #[cfg(unix)]
    #[test]
    fn a_staged_file_that_is_a_symlink_is_refused_and_not_placed() {
        let (d, manifests, lock) = setup();
        let secret = d.path().join("secret");
        std::fs::write(&secret, "root:x:0:0").unwrap();
        let new = manifests.join(journal::STAGE_DIR).join("new");
        std::fs::create_dir_all(&new).unwrap();
        std::fs::create_dir_all(manifests.join(journal::STAGE_DIR).join("old")).unwrap();
        std::os::unix::fs::symlink(&secret, new.join("99_po_a_00_x_a.yaml")).unwrap();
        v1_journal(d.path(), &lock, &["99_po_a_00_x_a.yaml"], &[]);
        let e = recover(Target::only(&manifests), &lock).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert!(
            manifests
                .join("99_po_a_00_x_a.yaml")
                .symlink_metadata()
                .is_err()
        );
    }

    #[test]
    fn a_journal_naming_another_lock_file_is_refused_and_it_is_not_replaced() {
        let (d, manifests, lock) = setup();
        let other = tempfile::tempdir().unwrap();
        let victim = other.path().join("platform-operators.lock.yaml");
        std::fs::write(&victim, "another install's lock").unwrap();
        std::fs::write(
            other
                .path()
                .join(".platform-operators.lock.yaml.po-manifests-new"),
            "planted",
        )
        .unwrap();
        for named in [
            victim.clone(),
            PathBuf::new(),
            PathBuf::from("/"),
            PathBuf::from("platform-operators.lock.yaml"),
        ] {
            v1_journal(d.path(), &named, &[], &[]);
            let e = recover(Target::only(&manifests), &lock).unwrap_err();
            assert!(matches!(e, Error::Journal { .. }), "{e}");
            assert!(e.to_string().contains("lock file"), "{named:?}: {e}");
            assert_eq!(
                std::fs::read(&victim).unwrap(),
                b"another install's lock",
                "{named:?}"
            );
        }
    }

    /// A v2 journal (the exchange) with its staging folder and marker, as `create` leaves them
    /// when killed before the exchange; returns the staging folder.
    fn staged_exchange(d: &Path, lock: &Path, token: &str) -> PathBuf {
        let stage = d.join(format!("{}{token}", exchange::STAGE_PREFIX));
        std::fs::create_dir_all(stage.join("manifests")).unwrap();
        std::fs::write(stage.join("manifests/99_po_a_00_x_a.yaml"), "new").unwrap();
        let id = exchange::DirId::of(&stage.join("manifests")).unwrap();
        std::fs::write(
            stage.join(exchange::MARKER),
            exchange::marker_text(token, id),
        )
        .unwrap();
        std::fs::write(
            d.join(journal::JOURNAL_FILE),
            format!(
                r#"{{"journalVersion":2,"token":"{token}","lock":{:?},"manifests":["99_po_a_00_x_a.yaml"]}}"#,
                std::path::absolute(lock).unwrap().display().to_string()
            ),
        )
        .unwrap();
        stage
    }

    const TOKEN: &str = "0123456789abcdef0123456789abcdef";

    /// Issue 34 item 10: killed while the staging folder's first marker was being written
    /// (before the tree exists), or after it, the next run removes the folder: the journal's
    /// token and the marker (or a part of it) prove it, and nothing is left to warn about.
    #[test]
    fn a_staging_folder_killed_before_its_tree_or_while_its_marker_was_written_is_removed() {
        let pending = format!(
            "po-manifests staging folder: removed by the next po-manifests run\ntoken {TOKEN}\n"
        );
        for marker in [pending.as_str(), &pending[..30], ""] {
            let (d, manifests, lock) = setup();
            let stage = staged_exchange(d.path(), &lock, TOKEN);
            std::fs::remove_dir_all(stage.join("manifests")).unwrap();
            std::fs::write(stage.join(exchange::MARKER), marker).unwrap();
            let r = recover(Target::only(&manifests), &lock).unwrap();
            assert!(matches!(r.done, Some(Recovery::Discarded { .. })), "{r:?}");
            assert!(!stage.exists(), "{marker:?}: {r:?}");
            assert!(r.left_alone.is_empty(), "{r:?}");
            assert!(
                !r.lines().iter().any(|l| l.starts_with("warning:")),
                "{:?}",
                r.lines()
            );
        }
        // A marker that is not a part of this run's is not ours to remove.
        let (d, manifests, lock) = setup();
        let stage = staged_exchange(d.path(), &lock, TOKEN);
        std::fs::remove_dir_all(stage.join("manifests")).unwrap();
        std::fs::write(stage.join(exchange::MARKER), "someone else's").unwrap();
        recover(Target::only(&manifests), &lock).unwrap();
        assert!(stage.join(exchange::MARKER).exists());
    }

    #[test]
    fn only_the_staging_folder_the_journal_and_its_marker_prove_is_removed() {
        let (d, manifests, lock) = setup();
        let ours = staged_exchange(d.path(), &lock, TOKEN);
        let planted = d.path().join(".po-manifests-stage-zzz");
        std::fs::create_dir_all(planted.join("new")).unwrap();
        std::fs::write(planted.join("new/keep"), "keep").unwrap();
        let r = recover(Target::only(&manifests), &lock).unwrap();
        assert!(matches!(r.done, Some(Recovery::Discarded { .. })), "{r:?}");
        assert!(!ours.exists());
        assert_eq!(r.left_alone, std::slice::from_ref(&planted));
        assert!(
            r.lines()
                .iter()
                .any(|l| l.starts_with("warning:") && l.contains(".po-manifests-stage-zzz")),
            "{:?}",
            r.lines()
        );
        assert_eq!(std::fs::read(planted.join("new/keep")).unwrap(), b"keep");
        assert!(!d.path().join(journal::JOURNAL_FILE).exists());
    }

    #[test]
    fn a_staging_folder_whose_marker_has_another_token_is_left_alone() {
        let (d, manifests, lock) = setup();
        let stage = staged_exchange(d.path(), &lock, TOKEN);
        std::fs::write(
            stage.join(exchange::MARKER),
            exchange::marker_text(
                "ffffffffffffffffffffffffffffffff",
                exchange::DirId::of(&stage).unwrap(),
            ),
        )
        .unwrap();
        let r = recover(Target::only(&manifests), &lock).unwrap();
        assert!(stage.join("manifests/99_po_a_00_x_a.yaml").exists());
        assert_eq!(r.left_alone, [stage]);
    }

    #[cfg(unix)]
    #[test]
    fn a_staging_folder_that_is_a_symlink_is_refused() {
        let (d, manifests, lock) = setup();
        let stage = staged_exchange(d.path(), &lock, TOKEN);
        let elsewhere = tempfile::tempdir().unwrap();
        let moved = elsewhere.path().join("stage");
        std::fs::rename(&stage, &moved).unwrap();
        std::os::unix::fs::symlink(&moved, &stage).unwrap();
        let e = recover(Target::only(&manifests), &lock).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert!(moved.join("manifests/99_po_a_00_x_a.yaml").exists());
    }

    #[cfg(unix)]
    #[test]
    fn after_the_exchange_a_staged_lock_that_is_a_symlink_is_refused() {
        let (d, manifests, lock) = setup();
        let stage = staged_exchange(d.path(), &lock, TOKEN);
        // The exchange happened: manifests/ is the staged tree.
        std::fs::remove_dir(&manifests).unwrap();
        std::fs::rename(stage.join("manifests"), &manifests).unwrap();
        std::fs::create_dir(stage.join("manifests")).unwrap();
        let secret = d.path().join("secret");
        std::fs::write(&secret, "root:x:0:0").unwrap();
        std::os::unix::fs::symlink(
            &secret,
            d.path()
                .join(".platform-operators.lock.yaml.po-manifests-new"),
        )
        .unwrap();
        let e = recover(Target::only(&manifests), &lock).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert!(lock.symlink_metadata().is_err());
    }

    #[test]
    fn after_the_exchange_the_lock_is_put_in_place_and_the_old_tree_removed() {
        let (d, manifests, lock) = setup();
        std::fs::write(manifests.join("99_po_a_00_x_a.yaml"), "old").unwrap();
        let stage = staged_exchange(d.path(), &lock, TOKEN);
        std::fs::write(
            d.path()
                .join(".platform-operators.lock.yaml.po-manifests-new"),
            "new lock",
        )
        .unwrap();
        let old = d.path().join("old-tree");
        std::fs::rename(&manifests, &old).unwrap();
        std::fs::rename(stage.join("manifests"), &manifests).unwrap();
        std::fs::rename(&old, stage.join("manifests")).unwrap();
        let r = recover(Target::only(&manifests), &lock).unwrap();
        assert!(matches!(r.done, Some(Recovery::Finished { .. })), "{r:?}");
        assert_eq!(std::fs::read(&lock).unwrap(), b"new lock");
        assert_eq!(
            std::fs::read(manifests.join("99_po_a_00_x_a.yaml")).unwrap(),
            b"new"
        );
        let mut top: Vec<_> = std::fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        top.sort();
        assert_eq!(top, ["manifests", "platform-operators.lock.yaml"]);
    }

    #[test]
    fn a_corrupt_journal_is_an_error_naming_it() {
        let (d, manifests, lock) = setup();
        std::fs::write(d.path().join(journal::JOURNAL_FILE), "{not json").unwrap();
        let e = recover(Target::only(&manifests), &lock).unwrap_err();
        assert!(e.to_string().contains(journal::JOURNAL_FILE), "{e}");
        assert!(e.is_io());
    }

    #[test]
    fn a_committed_change_is_finished() {
        let (d, manifests, lock) = setup();
        std::fs::write(manifests.join("99_po_a_00_x_a.yaml"), "old").unwrap();
        std::fs::write(manifests.join("99_po_b_00_x_b.yaml"), "old").unwrap();
        let stage = manifests.join(journal::STAGE_DIR);
        std::fs::create_dir_all(stage.join("new")).unwrap();
        std::fs::create_dir_all(stage.join("old")).unwrap();
        std::fs::write(stage.join("new/99_po_a_00_x_a.yaml"), "new").unwrap();
        std::fs::write(
            d.path()
                .join(".platform-operators.lock.yaml.po-manifests-new"),
            "lock",
        )
        .unwrap();
        let j = journal::Journal {
            journal_version: 1,
            token: None,
            pending: false,
            lock: lock.clone(),
            folder: None,
            place: vec!["99_po_a_00_x_a.yaml".into()],
            remove: vec!["99_po_a_00_x_a.yaml".into(), "99_po_b_00_x_b.yaml".into()],
            elsewhere: None,
        };
        std::fs::write(
            d.path().join(journal::JOURNAL_FILE),
            serde_json::to_vec(&j).unwrap(),
        )
        .unwrap();
        let r = recover(Target::only(&manifests), &lock)
            .unwrap()
            .done
            .unwrap();
        assert!(
            matches!(
                r,
                Recovery::Finished {
                    placed: 1,
                    removed: 1,
                    ..
                }
            ),
            "{r:?}"
        );
        assert_eq!(
            std::fs::read(manifests.join("99_po_a_00_x_a.yaml")).unwrap(),
            b"new"
        );
        assert!(!manifests.join("99_po_b_00_x_b.yaml").exists());
        assert_eq!(std::fs::read(&lock).unwrap(), b"lock");
        let mut top: Vec<_> = std::fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        top.sort();
        assert_eq!(top, ["manifests", "platform-operators.lock.yaml"]);
        assert_eq!(std::fs::read_dir(&manifests).unwrap().count(), 1);
    }

    /// A version 1 journal (the fallback) with a token, and its staging folder inside
    /// `manifests` holding a staged file and a marker naming `marker_token`; returns the folder.
    fn staged_fallback(
        d: &Path,
        manifests: &Path,
        lock: &Path,
        pending: bool,
        marker_token: Option<&str>,
    ) -> PathBuf {
        let stage = manifests.join(format!("{}-{TOKEN}", journal::STAGE_DIR));
        std::fs::create_dir_all(stage.join("new")).unwrap();
        std::fs::create_dir_all(stage.join("old")).unwrap();
        std::fs::write(stage.join("new/99_po_a_00_x_a.yaml"), "new").unwrap();
        if let Some(t) = marker_token {
            std::fs::write(stage.join(journal::MARKER), format!("token {t}\n")).unwrap();
        }
        let j = journal::Journal {
            journal_version: 1,
            token: Some(TOKEN.into()),
            pending,
            lock: std::path::absolute(lock).unwrap(),
            folder: Some("manifests".into()),
            place: vec!["99_po_a_00_x_a.yaml".into()],
            remove: vec![],
            elsewhere: None,
        };
        std::fs::write(
            d.join(journal::JOURNAL_FILE),
            serde_json::to_vec(&j).unwrap(),
        )
        .unwrap();
        stage
    }

    #[test]
    fn without_a_journal_a_staging_folder_inside_manifests_is_left_and_refuses_the_run() {
        for name in [
            journal::STAGE_DIR.to_string(),
            format!("{}-{TOKEN}", journal::STAGE_DIR),
        ] {
            let (_d, manifests, lock) = setup();
            let planted = manifests.join(&name);
            std::fs::create_dir_all(planted.join("new")).unwrap();
            std::fs::write(planted.join("new/99_po_a_00_x_a.yaml"), "theirs").unwrap();
            std::fs::write(planted.join(journal::MARKER), format!("token {TOKEN}\n")).unwrap();
            let e = recover(Target::only(&manifests), &lock).unwrap_err();
            let Error::StagingNotOurs { paths, folder } = &e else {
                panic!("{e}")
            };
            assert_eq!(paths, std::slice::from_ref(&planted));
            assert_eq!(folder, &manifests);
            assert!(!e.is_io());
            assert!(e.to_string().contains("nothing was changed"), "{e}");
            assert_eq!(
                std::fs::read(planted.join("new/99_po_a_00_x_a.yaml")).unwrap(),
                b"theirs",
                "{name}"
            );
        }
    }

    #[test]
    fn a_pending_fallback_journal_removes_the_staging_folder_its_marker_proves() {
        let (d, manifests, lock) = setup();
        let stage = staged_fallback(d.path(), &manifests, &lock, true, Some(TOKEN));
        std::fs::write(
            d.path()
                .join(".platform-operators.lock.yaml.po-manifests-new"),
            "staged lock",
        )
        .unwrap();
        let r = recover(Target::only(&manifests), &lock).unwrap();
        assert!(matches!(r.done, Some(Recovery::Discarded { .. })), "{r:?}");
        assert!(!stage.exists());
        assert_eq!(std::fs::read_dir(&manifests).unwrap().count(), 0);
        let mut top: Vec<_> = std::fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        top.sort();
        assert_eq!(top, ["manifests"]);
    }

    #[test]
    fn a_pending_fallback_journal_leaves_a_staging_folder_it_cannot_prove_and_refuses() {
        for marker in [None, Some("ffffffffffffffffffffffffffffffff")] {
            let (d, manifests, lock) = setup();
            let stage = staged_fallback(d.path(), &manifests, &lock, true, marker);
            let e = recover(Target::only(&manifests), &lock).unwrap_err();
            assert!(matches!(e, Error::StagingNotOurs { .. }), "{marker:?}: {e}");
            assert!(stage.join("new/99_po_a_00_x_a.yaml").exists());
            assert!(d.path().join(journal::JOURNAL_FILE).exists());
        }
    }

    #[test]
    fn a_committed_fallback_journal_is_finished_only_in_the_staging_folder_it_proves() {
        let (d, manifests, lock) = setup();
        staged_fallback(
            d.path(),
            &manifests,
            &lock,
            false,
            Some("ffffffffffffffffffffffffffffffff"),
        );
        let e = recover(Target::only(&manifests), &lock).unwrap_err();
        assert!(matches!(e, Error::Journal { .. }), "{e}");
        assert!(e.to_string().contains("marker"), "{e}");
        assert!(!manifests.join("99_po_a_00_x_a.yaml").exists());

        let (d, manifests, lock) = setup();
        let stage = staged_fallback(d.path(), &manifests, &lock, false, Some(TOKEN));
        let r = recover(Target::only(&manifests), &lock).unwrap();
        assert!(
            matches!(r.done, Some(Recovery::Finished { placed: 1, .. })),
            "{r:?}"
        );
        assert_eq!(
            std::fs::read(manifests.join("99_po_a_00_x_a.yaml")).unwrap(),
            b"new"
        );
        assert!(!stage.exists());
        assert!(!d.path().join(journal::JOURNAL_FILE).exists());
    }

    #[test]
    fn a_fallback_journal_with_a_token_it_does_not_make_is_refused() {
        let (d, manifests, lock) = setup();
        std::fs::write(
            d.path().join(journal::JOURNAL_FILE),
            format!(
                r#"{{"journalVersion":1,"token":"../..","pending":true,"lock":{:?},"place":[],"remove":[]}}"#,
                std::path::absolute(&lock).unwrap().display().to_string()
            ),
        )
        .unwrap();
        let e = recover(Target::only(&manifests), &lock).unwrap_err();
        assert!(matches!(e, Error::Journal { .. }), "{e}");
        assert!(d.path().join(journal::JOURNAL_FILE).exists());
    }

    /// A v2 journal, exchanged, whose change also takes `files` (name, recorded digest) out of
    /// `openshift/`; `folder` is the folder it names.
    fn exchanged_with_elsewhere(
        d: &Path,
        lock: &Path,
        folder: &str,
        files: &[(&str, &str)],
    ) -> PathBuf {
        let stage = d.join(format!("{}{TOKEN}", exchange::STAGE_PREFIX));
        std::fs::create_dir_all(stage.join("manifests")).unwrap();
        let m = d.join(folder);
        let id = exchange::DirId::of(&m).unwrap();
        std::fs::write(
            stage.join(exchange::MARKER),
            exchange::marker_text(TOKEN, id),
        )
        .unwrap();
        let elsewhere: Vec<String> = files
            .iter()
            .map(|(n, digest)| format!(r#"{{"name":"{n}","sha256":"{digest}"}}"#))
            .collect();
        std::fs::write(
            d.join(journal::JOURNAL_FILE),
            format!(
                r#"{{"journalVersion":2,"token":"{TOKEN}","lock":{:?},"folder":"{folder}","manifests":[],"elsewhere":{{"folder":"openshift","files":[{}]}}}}"#,
                std::path::absolute(lock).unwrap().display().to_string(),
                elsewhere.join(",")
            ),
        )
        .unwrap();
        stage
    }

    #[test]
    fn recovery_takes_out_of_the_other_folder_only_what_still_has_its_digest() {
        let (d, manifests, lock) = setup();
        let other = d.path().join("openshift");
        std::fs::create_dir(&other).unwrap();
        std::fs::write(other.join("99_po_a_00_x_a.yaml"), "1").unwrap();
        std::fs::write(other.join("99_po_b_00_x_b.yaml"), "edited since").unwrap();
        let digest = sha256_hex(b"1");
        exchanged_with_elsewhere(
            d.path(),
            &lock,
            "manifests",
            &[
                ("99_po_a_00_x_a.yaml", &digest),
                ("99_po_b_00_x_b.yaml", &digest),
            ],
        );
        let target = Target {
            dir: &manifests,
            other: Some(&other),
        };
        let r = recover(target, &lock).unwrap();
        assert!(
            matches!(r.done, Some(Recovery::Finished { removed: 1, .. })),
            "{r:?}"
        );
        assert!(!other.join("99_po_a_00_x_a.yaml").exists());
        assert_eq!(r.kept, [other.join("99_po_b_00_x_b.yaml")]);
        assert!(
            r.lines()
                .iter()
                .any(|l| l.starts_with("warning:") && l.contains("99_po_b_00_x_b.yaml")),
            "{:?}",
            r.lines()
        );
        assert_eq!(
            std::fs::read(other.join("99_po_b_00_x_b.yaml")).unwrap(),
            b"edited since"
        );
    }

    #[test]
    fn a_journal_naming_a_folder_this_run_does_not_know_is_refused() {
        for (folder, elsewhere) in [
            ("..", "openshift"),
            ("manifests", "../x"),
            ("manifests", "manifests"),
        ] {
            let (d, manifests, lock) = setup();
            let other = d.path().join("openshift");
            std::fs::create_dir(&other).unwrap();
            std::fs::write(
                d.path().join(journal::JOURNAL_FILE),
                format!(
                    r#"{{"journalVersion":1,"lock":{:?},"folder":"{folder}","place":[],"remove":[],"elsewhere":{{"folder":"{elsewhere}","files":[]}}}}"#,
                    std::path::absolute(&lock).unwrap().display().to_string(),
                ),
            )
            .unwrap();
            let target = Target {
                dir: &manifests,
                other: Some(&other),
            };
            let e = recover(target, &lock).unwrap_err();
            assert!(
                matches!(e, Error::Journal { .. }),
                "{folder} {elsewhere}: {e}"
            );
            assert!(d.path().join(journal::JOURNAL_FILE).exists());
        }
    }

    #[test]
    fn a_journal_of_a_run_for_the_other_folder_is_finished_there() {
        let (d, manifests, lock) = setup();
        let other = d.path().join("openshift");
        std::fs::create_dir(&other).unwrap();
        // The interrupted run wrote openshift/ (the Agent-based installer); this one writes
        // manifests/.
        let stage = exchanged_with_elsewhere(d.path(), &lock, "openshift", &[]);
        std::fs::write(
            d.path().join(journal::JOURNAL_FILE),
            format!(
                r#"{{"journalVersion":2,"token":"{TOKEN}","lock":{:?},"folder":"openshift","manifests":[]}}"#,
                std::path::absolute(&lock).unwrap().display().to_string(),
            ),
        )
        .unwrap();
        std::fs::write(
            d.path()
                .join(".platform-operators.lock.yaml.po-manifests-new"),
            "new lock",
        )
        .unwrap();
        let target = Target {
            dir: &manifests,
            other: Some(&other),
        };
        let r = recover(target, &lock).unwrap();
        assert!(matches!(r.done, Some(Recovery::Finished { .. })), "{r:?}");
        assert_eq!(std::fs::read(&lock).unwrap(), b"new lock");
        assert!(!stage.exists());
    }
}
