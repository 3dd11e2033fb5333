//! Shared helpers: a temporary install directory, the command, output normalisation.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared/realdata`, or `None` (with a note on stderr) when it is absent.
pub fn realdata(test: &str) -> Option<PathBuf> {
    let p = root().join("../shared/realdata");
    if p.is_dir() {
        Some(p)
    } else {
        eprintln!("skipped {test}: ../shared/realdata is not there");
        None
    }
}

/// A temporary install directory holding a copy of `testdata/example`.
pub fn example() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&root().join("testdata/example"), dir.path());
    let _ = std::fs::remove_dir_all(dir.path().join("manifests"));
    let _ = std::fs::remove_file(dir.path().join("platform-operators.lock.yaml"));
    dir
}

/// Copy a directory tree.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in walkdir::WalkDir::new(from).min_depth(1) {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(from).unwrap();
        let target = to.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The binary, with colour off.
pub fn cmd() -> Command {
    let mut c = Command::cargo_bin("po-manifests").unwrap();
    c.env("NO_COLOR", "1").env_remove("RUST_LOG");
    c
}

/// Every file under a directory with its content, sorted, as `(relative path, text)`.
pub fn tree(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if !dir.exists() {
        return out;
    }
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name().min_depth(1) {
        let entry = entry.unwrap();
        if entry.file_type().is_file() {
            let rel = entry
                .path()
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            out.push((
                rel,
                std::fs::read_to_string(entry.path()).unwrap_or_else(|_| "<binary>".into()),
            ));
        }
    }
    out
}

/// Output with a directory replaced by `[DIR]`.
pub fn normalize(text: &[u8], dir: &Path) -> String {
    String::from_utf8_lossy(text).replace(&dir.display().to_string(), "[DIR]")
}
