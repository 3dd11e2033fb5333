//! Fuzz the catalog loader's YAML road: any bytes as a `catalog.yaml` are loaded (split into
//! documents, read by the fast block-YAML reader or serde-saphyr, linked into the model),
//! digested and validated, giving a catalog or errors, never a panic or a hang.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use po_manifests::catalog::{self, PackageFilter};

fn scratch() -> &'static (tempfile::TempDir, PathBuf) {
    static DIR: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = tempfile::tempdir().expect("a temporary directory");
        let root = d.path().join("catalog");
        std::fs::create_dir_all(root.join("pkg")).expect("the catalog directory");
        (d, root)
    })
}

fuzz_target!(|data: &[u8]| {
    let (_dir, root) = scratch();
    std::fs::write(root.join("pkg/catalog.yaml"), data).expect("write the input");
    if let Ok(c) = catalog::load(root, &PackageFilter::All) {
        for p in &c.packages {
            for ch in &p.channels {
                let _ = catalog::graph::replaces_chain(ch);
                let _ = catalog::graph::replaces_cycles(ch);
            }
        }
    }
    if let Ok(report) = catalog::validate::validate_path(root, &Default::default()) {
        let _ = report.to_string();
    }
    let _ = catalog::content_digest(root);
});
