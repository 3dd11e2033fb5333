//! Fuzz the catalog loader: any bytes as a File-Based Catalog file are loaded (linked into the
//! model), digested and validated, giving a catalog or errors, never a panic or a hang. The
//! first byte picks the file's name, so both roads are fuzzed: odd, `catalog.yaml` (split into
//! documents, read by the fast block-YAML reader or serde-saphyr); even, `catalog.json`.
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
    let Some((&pick, data)) = data.split_first() else {
        return;
    };
    let (_dir, root) = scratch();
    let (file, other) = if pick & 1 == 1 {
        ("pkg/catalog.yaml", "pkg/catalog.json")
    } else {
        ("pkg/catalog.json", "pkg/catalog.yaml")
    };
    let _ = std::fs::remove_file(root.join(other));
    std::fs::write(root.join(file), data).expect("write the input");
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
