//! Write: rendered objects become files in `D/manifests/`, one object per file, named so they
//! sort after the installer's own (`99_po_<operator>_<NN>_<kind>_<name>.yaml`), plus the lock
//! file. All or nothing, even across SIGKILL: new files are staged inside the manifests
//! directory (same filesystem as the files they replace), a journal in the install directory
//! records the change before the first rename, and the next writing run finishes an
//! interrupted change before anything else ([`journal`]). One run at a time writes an install
//! directory ([`install_lock`]).
//!
//! Re-running replaces exactly the files that the previous run recorded in its lock file, and
//! refuses to overwrite a file it did not write.

pub(crate) mod crash;
pub mod install_lock;
pub mod journal;
pub mod lock;
pub mod names;
pub mod yaml;

pub use install_lock::InstallLock;
pub use journal::{Recovery, recover};

use std::fs;
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
    /// Another run holds the install directory and `--no-wait` was given.
    #[error("another po-manifests run is writing {} and --no-wait was given; nothing was written", dir.display())]
    Busy {
        /// The install directory.
        dir: PathBuf,
    },
    /// The journal of an interrupted run cannot be read or does not describe a change that
    /// can be finished.
    #[error("the journal {} of an interrupted po-manifests run {problem}; nothing was changed by this run. Check manifests/ and the lock file, then remove the journal", path.display())]
    Journal {
        /// The journal file.
        path: PathBuf,
        /// What is wrong.
        problem: String,
    },
    /// An object to be written is not a valid Kubernetes object by name or shape (bundle
    /// content is untrusted).
    #[error("operator \"{operator}\": object {index} {problem}; nothing was written")]
    InvalidObject {
        /// The operator the object belongs to.
        operator: String,
        /// Its position among the operator's objects.
        index: usize,
        /// What is wrong.
        problem: String,
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
        matches!(
            self,
            Error::Io { .. } | Error::Busy { .. } | Error::Journal { .. }
        )
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
        names::check_object(&o.object).map_err(|problem| Error::InvalidObject {
            operator: o.operator.clone(),
            index,
            problem,
        })?;
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
/// `lock` (bytes) to `lock_path`, all or nothing, even when the process is killed at any point
/// (see [`journal`]). The caller holds the [`InstallLock`] of the install directory (the parent of
/// `manifests_dir`) and has run [`recover`] first.
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
        .filter(|n| journal::is_our_file_name(n))
        .collect();
    for f in files {
        let path = manifests_dir.join(&f.name);
        if path.symlink_metadata().is_ok() && !previous.iter().any(|p| **p == f.name) {
            return Err(Error::NotOurs { path });
        }
    }
    let existing: Vec<String> = previous
        .iter()
        .filter(|n| manifests_dir.join(n).symlink_metadata().is_ok())
        .map(|n| (*n).clone())
        .collect();
    let plan = journal::Plan::new(manifests_dir, lock_path, files, existing)?;
    plan.run(files, lock)?;
    let written: Vec<String> = files.iter().map(|f| f.name.clone()).collect();
    let removed = plan
        .journal
        .remove
        .iter()
        .filter(|n| !written.contains(n))
        .cloned()
        .collect();
    Ok(Written { written, removed })
}

#[cfg(test)]
mod tests;
