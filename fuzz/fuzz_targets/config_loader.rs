//! Fuzz the configuration loader: any bytes as `platform-operators.yaml` (and as an
//! install-config with a `platformOperators:` key) give a `Config` or an error, never a panic
//! or a hang.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

fn scratch() -> &'static (tempfile::TempDir, PathBuf) {
    static DIR: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = tempfile::tempdir().expect("a temporary directory");
        let p = d.path().join("platform-operators.yaml");
        (d, p)
    })
}

fuzz_target!(|data: &[u8]| {
    let (_dir, path) = scratch();
    std::fs::write(path, data).expect("write the input");
    let _ = po_manifests::config::read_file(path);
    let _ = po_manifests::config::read_install_config_key(path);
});
