//! The install step called as a library, without the command line (issue 23): `plan` on the
//! shipped example gives exactly the files and lock that `create` writes.

use po_manifests::install::plan::{self, BundleContent, Settings};
use po_manifests::install::{BundleSettings, Inputs, Install, Network};
use po_manifests::render::Templates;

use crate::common::{cmd, example};

#[test]
fn plan_on_the_example_is_what_create_writes() {
    let dir = example();
    let network = Network {
        offline: true,
        cache_dir: Some(dir.path().join("cache")),
        ..Network::default()
    };
    let mut inv = Install::read(
        &Inputs {
            dir: Some(dir.path().to_path_buf()),
            ..Inputs::default()
        },
        network,
    )
    .unwrap();
    inv.load_catalogs().unwrap();
    let cluster_version = inv.cluster_version.clone().unwrap();
    let templates = Templates::load(None).unwrap();
    let content = BundleContent::for_install(&inv, &BundleSettings::default(), false).unwrap();
    let planned = plan::plan(
        &inv,
        &Settings {
            cluster_version: &cluster_version,
            templates: &templates,
            mirror_check: true,
            content: &content,
        },
    )
    .unwrap();
    assert!(!planned.refused());
    assert_eq!(planned.operators.len(), 3);
    let resolved = planned.operators[0].outcome.resolution.as_ref().unwrap();
    assert_eq!(resolved.bundle.version_text, "1.2.0");
    let staged = planned.into_staged().unwrap();
    // Planning wrote nothing.
    assert!(!dir.path().join("manifests").exists());
    assert!(!inv.lock_path.exists());

    cmd()
        .args(["create", "--offline", "--dir"])
        .arg(dir.path())
        .env("PO_MANIFESTS_CACHE_DIR", dir.path().join("cache"))
        .assert()
        .success();
    let mut written: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir.path().join("manifests"))
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    written.sort();
    let mut planned_files: Vec<(String, Vec<u8>)> = staged
        .files
        .iter()
        .map(|f| (f.name.clone(), f.bytes.clone()))
        .collect();
    planned_files.sort();
    assert_eq!(planned_files, written);
    assert_eq!(
        staged.lock.to_bytes(),
        std::fs::read(&inv.lock_path).unwrap()
    );
}
