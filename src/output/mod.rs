//! Write: rendered objects become files in `D/manifests/`, one object per file, named so they
//! sort after the installer's own (`99_po_<operator>_<NN>_<kind>_<name>.yaml`), plus the lock
//! file. All or nothing: new files are staged beside the manifests directory, earlier files are
//! moved aside, and any failure puts everything back as it was.
//!
//! Re-running replaces exactly the files that the previous run recorded in its lock file, and
//! refuses to overwrite a file it did not write.

pub mod lock;
pub mod yaml;

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::render::RenderedObject;

/// Prefix of every manifest file po-manifests writes.
pub const FILE_PREFIX: &str = "99_po_";
/// Longest file name written (most filesystems allow 255 bytes).
const MAX_FILE_NAME: usize = 200;

/// One file to write into the manifests directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestFile {
    /// File name (no directory).
    pub name: String,
    /// Content.
    pub bytes: Vec<u8>,
}

/// Errors writing.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A filesystem operation failed.
    #[error("{action} {}: {source}", path.display())]
    Io {
        /// What was being done.
        action: &'static str,
        /// The path.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// An object could not be serialized.
    #[error("cannot write {kind} {name} as YAML: {message}")]
    Serialize {
        /// Kind.
        kind: String,
        /// Name.
        name: String,
        /// Why.
        message: String,
    },
    /// A file that po-manifests did not write is in the way.
    #[error("{} already exists and was not written by an earlier po-manifests run (it is not in the lock file); move it away or remove it", path.display())]
    NotOurs {
        /// The file.
        path: PathBuf,
    },
    /// Two objects would get the same file name.
    #[error("two objects map to the same file name {name}")]
    Collision {
        /// The file name.
        name: String,
    },
}

impl Error {
    /// Whether this is an I/O failure (exit status 3).
    pub fn is_io(&self) -> bool {
        matches!(self, Error::Io { .. })
    }
}

fn io(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> Error + use<> {
    let path = path.to_path_buf();
    move |source| Error::Io {
        action,
        path,
        source,
    }
}

/// Lowercase a name component and replace anything but `[a-z0-9.-]` with `-`, so hostile
/// names (`../`, `/`, non-ASCII, control characters) cannot escape or break the file name.
fn sanitize(component: &str) -> String {
    let s: String = component
        .chars()
        .map(|c| {
            let c = c.to_ascii_lowercase();
            if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect();
    // No `..` and no leading dot: the name must stay a plain file name.
    let s = s.replace("..", "-");
    s.trim_start_matches('.').to_string()
}

/// The file name for the `index`-th object of an operator.
pub fn file_name(operator: &str, index: usize, kind: &str, name: &str) -> String {
    let head = format!(
        "{FILE_PREFIX}{}_{index:02}_{}_",
        sanitize(operator),
        sanitize(kind)
    );
    let budget = MAX_FILE_NAME.saturating_sub(head.len() + ".yaml".len());
    let mut tail = sanitize(name);
    tail.truncate(budget);
    format!("{head}{tail}.yaml")
}

/// Turn rendered objects (grouped by operator, in order) into files.
pub fn manifest_files(objects: &[RenderedObject]) -> Result<Vec<ManifestFile>, Error> {
    let mut files = Vec::with_capacity(objects.len());
    let mut index = 0;
    let mut current: Option<&str> = None;
    for o in objects {
        if current != Some(o.operator.as_str()) {
            current = Some(&o.operator);
            index = 0;
        }
        let name = file_name(&o.operator, index, o.kind(), o.name());
        index += 1;
        let bytes = yaml::to_yaml(&o.object).map_err(|message| Error::Serialize {
            kind: o.kind().to_string(),
            name: o.name().to_string(),
            message,
        })?;
        files.push(ManifestFile {
            name,
            bytes: bytes.into_bytes(),
        });
    }
    let mut names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
    names.sort_unstable();
    if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
        return Err(Error::Collision {
            name: w[0].to_string(),
        });
    }
    Ok(files)
}

/// What a write did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Written {
    /// Files written.
    pub written: Vec<String>,
    /// Files of an earlier run that were removed (not written again).
    pub removed: Vec<String>,
}

/// Replace the files of an earlier run (`previous`, from its lock) with `files`, and write
/// `lock` (bytes) to `lock_path`, all or nothing.
pub fn write(
    manifests_dir: &Path,
    files: &[ManifestFile],
    previous: &[String],
    lock_path: &Path,
    lock: &[u8],
) -> Result<Written, Error> {
    fs::create_dir_all(manifests_dir).map_err(io("cannot create", manifests_dir))?;
    // Only plain file names that we could have written count as previous files.
    let previous: Vec<&String> = previous
        .iter()
        .filter(|n| {
            n.starts_with(FILE_PREFIX) && !n.contains(['/', '\\']) && *n != "." && *n != ".."
        })
        .collect();
    for f in files {
        let path = manifests_dir.join(&f.name);
        if path.symlink_metadata().is_ok() && !previous.iter().any(|p| **p == f.name) {
            return Err(Error::NotOurs { path });
        }
    }
    let parent = manifests_dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let stage = tempfile::Builder::new()
        .prefix(".po-manifests-stage-")
        .tempdir_in(parent)
        .map_err(io("cannot create a staging directory in", parent))?;
    let new_dir = stage.path().join("new");
    let old_dir = stage.path().join("old");
    fs::create_dir(&new_dir).map_err(io("cannot create", &new_dir))?;
    fs::create_dir(&old_dir).map_err(io("cannot create", &old_dir))?;
    for f in files {
        write_synced(&new_dir.join(&f.name), &f.bytes)?;
    }
    let lock_staged = stage.path().join("lock");
    write_synced(&lock_staged, lock)?;

    let mut tx = Transaction {
        manifests_dir,
        old_dir: &old_dir,
        moved_aside: Vec::new(),
        placed: Vec::new(),
    };
    let result = (|| {
        for name in &previous {
            let from = manifests_dir.join(name);
            if from.symlink_metadata().is_ok() {
                fs::rename(&from, old_dir.join(name)).map_err(io("cannot move aside", &from))?;
                tx.moved_aside.push((*name).clone());
            }
        }
        for f in files {
            let to = manifests_dir.join(&f.name);
            fs::rename(new_dir.join(&f.name), &to).map_err(io("cannot place", &to))?;
            tx.placed.push(f.name.clone());
        }
        fs::rename(&lock_staged, lock_path).map_err(io("cannot write", lock_path))?;
        Ok(())
    })();
    if let Err(e) = result {
        tx.roll_back();
        return Err(e);
    }
    sync_dir(manifests_dir);
    let written: Vec<String> = files.iter().map(|f| f.name.clone()).collect();
    let removed = tx
        .moved_aside
        .iter()
        .filter(|n| !written.contains(n))
        .cloned()
        .collect();
    Ok(Written { written, removed })
}

struct Transaction<'a> {
    manifests_dir: &'a Path,
    old_dir: &'a Path,
    moved_aside: Vec<String>,
    placed: Vec<String>,
}

impl Transaction<'_> {
    /// Best effort: remove what was placed, put back what was moved aside.
    fn roll_back(&self) {
        for name in &self.placed {
            let _ = fs::remove_file(self.manifests_dir.join(name));
        }
        for name in &self.moved_aside {
            let _ = fs::rename(self.old_dir.join(name), self.manifests_dir.join(name));
        }
    }
}

fn write_synced(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let mut f = fs::File::create(path).map_err(io("cannot create", path))?;
    f.write_all(bytes).map_err(io("cannot write", path))?;
    f.sync_all().map_err(io("cannot sync", path))
}

fn sync_dir(dir: &Path) {
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

#[cfg(test)]
mod tests;
