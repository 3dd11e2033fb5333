use super::*;

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

mod write {
    use super::*;

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
            file("99_po_a_00_x_a.yaml", "1"),
            file("99_po_b_00_x_b.yaml", "1"),
        ];
        write(&manifests, &first, &[], &lock, b"lock1").unwrap();
        let second = [file("99_po_a_00_x_a.yaml", "2")];
        let previous: Vec<String> = first.iter().map(|f| f.name.clone()).collect();
        let w = write(&manifests, &second, &previous, &lock, b"lock2").unwrap();
        assert_eq!(w.removed, ["99_po_b_00_x_b.yaml"]);
        assert_eq!(
            listing(&manifests),
            ["99_po_a_00_x_a.yaml", "cluster-config.yaml"]
        );
        assert_eq!(
            std::fs::read(manifests.join("99_po_a_00_x_a.yaml")).unwrap(),
            b"2"
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
            &manifests,
            &[file("99_po_a_00_x_a.yaml", "ours")],
            &[],
            &lock,
            b"l",
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
        let previous = ["99_po_a_00_x_a.yaml".to_string()];
        std::fs::write(manifests.join(&previous[0]), "old").unwrap();
        // The lock path is a directory that is not empty: the final rename fails.
        let bad_lock = manifests.parent().unwrap().join("lockdir");
        std::fs::create_dir_all(bad_lock.join("x")).unwrap();
        let e = write(
            &manifests,
            &[
                file("99_po_a_00_x_a.yaml", "new"),
                file("99_po_c_00_x_c.yaml", "new"),
            ],
            &previous,
            &bad_lock,
            b"l",
        );
        assert!(e.is_err());
        assert_eq!(
            listing(&manifests),
            ["99_po_a_00_x_a.yaml", "cluster-config.yaml"]
        );
        assert_eq!(std::fs::read(manifests.join(&previous[0])).unwrap(), b"old");
    }

    #[test]
    fn previous_names_from_a_tampered_lock_cannot_reach_outside() {
        let (d, manifests, lock) = setup();
        std::fs::write(d.path().join("secret"), "keep").unwrap();
        write(
            &manifests,
            &[],
            &["../secret".into(), "cluster-config.yaml".into()],
            &lock,
            b"l",
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
        assert_eq!(recover(&manifests, &lock).unwrap(), None);
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
        let e = recover(&manifests, &lock).unwrap_err();
        assert!(matches!(e, Error::Journal { .. }), "{e}");
        assert!(e.to_string().contains("../secret"), "{e}");
        assert!(d.path().join("secret").exists());
    }

    #[test]
    fn a_corrupt_journal_is_an_error_naming_it() {
        let (d, manifests, lock) = setup();
        std::fs::write(d.path().join(journal::JOURNAL_FILE), "{not json").unwrap();
        let e = recover(&manifests, &lock).unwrap_err();
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
            lock: lock.clone(),
            place: vec!["99_po_a_00_x_a.yaml".into()],
            remove: vec!["99_po_a_00_x_a.yaml".into(), "99_po_b_00_x_b.yaml".into()],
        };
        std::fs::write(
            d.path().join(journal::JOURNAL_FILE),
            serde_json::to_vec(&j).unwrap(),
        )
        .unwrap();
        let r = recover(&manifests, &lock).unwrap().unwrap();
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
}
