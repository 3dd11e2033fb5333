//! Write: rendered objects become files in `D/manifests/`, one object per file, named so they
//! sort after the installer's own (`99_po_<operator>_<NN>_<kind>_<name>.yaml`), plus the lock
//! file. `manifests/` is the old or the new set at every instant, even across SIGKILL: the
//! complete new `manifests/` is built beside it and the two directories are exchanged in one
//! `renameat2(RENAME_EXCHANGE)` ([`exchange`]); where the filesystem cannot exchange, files are
//! moved one by one under a journal ([`journal`]). Either way the next writing run finishes or
//! undoes an interrupted change before anything else ([`recover`]), and one run at a time
//! writes an install directory ([`install_lock`]).
//!
//! Re-running replaces exactly the files that the previous run recorded in its lock file, and
//! only while they still have the digest it recorded: it refuses to overwrite a file it did not
//! write, and a file a person edited since unless `--force`. The lock is no proof: anyone can
//! write one, with the true digest of any file (issue 34 item 4). So a file it names must also
//! show by itself that po-manifests wrote it ([`Survey`]): it carries the label [`MANAGED_BY`]
//! (every object rendered from the templates does) or starts with the line [`MARK`] (every
//! file written without the label: converted bundle objects of bootstrap operators, which are
//! written as the bundle has them), or it already holds what this run writes under its name.
//! A file that shows nothing is left in place and reported when this run would remove it, and
//! refused when this run would overwrite it, unless `--force` (which takes the lock at its
//! word).
//!
//! The lock records names, not folders, so an earlier file is looked for in the folder this
//! run writes and, when it is not there, in the other one ([`Target::other`]: `openshift/`
//! and `manifests/` are the folders of different installers); found there, it is taken out
//! under the same rule, after the commit, as a step the journal covers.

pub(crate) mod crash;
pub mod exchange;
pub mod install_lock;
pub mod journal;
pub mod lock;
pub mod names;
pub mod recovery;
mod steps;
pub mod yaml;

pub use install_lock::InstallLock;
pub use recovery::{Recovered, recover};
pub use steps::{DIR_MODE, FILE_MODE, Recovery};

use std::path::{Path, PathBuf};

use crate::render::RenderedObject;

/// Prefix of every manifest file po-manifests writes.
pub const FILE_PREFIX: &str = "99_po_";
/// The label (key, value) on every object po-manifests renders from its templates: what shows
/// that a file a version 1 lock names (no digest) was written by po-manifests.
pub const MANAGED_BY: (&str, &str) = ("app.kubernetes.io/managed-by", "po-manifests");
/// The first line of every file whose object does not carry [`MANAGED_BY`] (a bootstrap
/// operator's converted bundle objects): a YAML comment, which the installer and
/// cluster-bootstrap skip, that shows the file is po-manifests'.
pub const MARK: &str = "# Written by po-manifests for a bootstrap operator. Do not edit: the next run replaces this file.\n";
/// Longest file name written (most filesystems allow 255 bytes).
const MAX_FILE_NAME: usize = 200;
/// Largest earlier manifest read to check its digest (ours are a few KB; a CRD may be a few MB).
const MAX_MANIFEST_BYTES: u64 = 64 << 20;

/// A file an earlier run wrote, as its lock records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreviousFile {
    /// File name (no directory).
    pub name: String,
    /// The sha256 of the bytes written (lowercase hex); `None` in a version 1 lock.
    pub sha256: Option<String>,
}

impl PreviousFile {
    /// A file recorded by name only (a version 1 lock).
    pub fn named(name: &str) -> PreviousFile {
        PreviousFile {
            name: name.to_string(),
            sha256: None,
        }
    }
}

/// The sha256 of `bytes`, lowercase hex (as the lock records it).
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    hex::encode(sha2::Sha256::digest(bytes))
}

/// An earlier file that no longer has the digest the lock recorded for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditedFile {
    /// File name (no directory).
    pub name: String,
    /// Where it is.
    pub path: PathBuf,
    /// What it holds now (`None` when it is no longer a regular file or cannot be read).
    pub now: Option<Vec<u8>>,
    /// What this run would write in its place (`None` when this run removes it, as it does
    /// every earlier file of the other folder).
    pub new: Option<Vec<u8>>,
}

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
    /// Folders named like the fallback's staging folder inside the folder the installer reads,
    /// that no journal and marker show po-manifests made: left alone, and nothing is written.
    #[error("{}", staging_not_ours_message(paths, folder))]
    StagingNotOurs {
        /// The folders.
        paths: Vec<PathBuf>,
        /// The folder they are in (`manifests/`, or `openshift/` for the Agent-based
        /// installer).
        folder: PathBuf,
    },
    /// Files the lock names that show nothing of po-manifests (no [`MANAGED_BY`] label, no
    /// [`MARK`], not what this run writes) would be overwritten, and `--force` was not given.
    /// The digest a lock records does not count: a forged lock may carry a file's true one.
    #[error("{}", unproven_message(files))]
    Unproven {
        /// The files.
        files: Vec<PathBuf>,
    },
    /// Files an earlier run wrote were edited since (their digest is not the one the lock
    /// records), and `--force` was not given.
    #[error("{} written by an earlier po-manifests run {} edited since (the content differs from the sha256 the lock file records): {}; nothing was written. Keep the edit elsewhere (a file of your own in manifests/), or pass --force to overwrite; --explain shows the differences", if files.len() == 1 { "a manifest" } else { "manifests" }, if files.len() == 1 { "was" } else { "were" }, files.iter().map(|p| crate::text::printable(&p.display().to_string()).into_owned()).collect::<Vec<_>>().join(", "))]
    Edited {
        /// The edited files.
        files: Vec<PathBuf>,
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

fn staging_not_ours_message(paths: &[PathBuf], folder: &Path) -> String {
    let (it, it_is) = if paths.len() == 1 {
        ("it", "it is")
    } else {
        ("them", "they are")
    };
    let folder = crate::text::printable(&folder.display().to_string()).into_owned();
    format!(
        "{}: named like a po-manifests staging folder, but no journal and marker show that po-manifests made {it}, so {it_is} left alone; {it_is} inside {folder}/, which the installer reads (openshift-install cannot read a folder there, and cluster-bootstrap would create every object in it), so nothing was changed. Look inside, then remove {it} or move {it} out of {folder}/",
        paths
            .iter()
            .map(|p| crate::text::printable(&p.display().to_string()).into_owned())
            .collect::<Vec<_>>()
            .join(", ")
    )
}

fn unproven_message(files: &[PathBuf]) -> String {
    let one = files.len() == 1;
    let (label, value) = MANAGED_BY;
    format!(
        "{} named by the lock file {} neither the `{label}: {value}` label nor po-manifests' first line and {} not what this run writes, so nothing shows that po-manifests wrote {} (the lock's word is no proof: a version 1 lock records names only, and a digest shows only what a file holds, not who wrote it): {}; this run would overwrite {}, so nothing was written. Move {} away if {} yours, or pass --force to overwrite",
        if one { "a manifest" } else { "manifests" },
        if one { "carries" } else { "carry" },
        if one { "is" } else { "are" },
        if one { "it" } else { "them" },
        files
            .iter()
            .map(|p| crate::text::printable(&p.display().to_string()).into_owned())
            .collect::<Vec<_>>()
            .join(", "),
        if one { "it" } else { "them" },
        if one { "it" } else { "them" },
        if one { "it is" } else { "they are" },
    )
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
        let mut bytes = yaml::to_yaml(&o.object).map_err(|message| Error::Serialize {
            kind: o.kind().to_string(),
            name: o.name().to_string(),
            message,
        })?;
        if !labelled(&o.object) {
            bytes.insert_str(0, MARK);
        }
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

/// Where a run writes: the folder the installer reads, and the one an earlier run may have
/// written for another installer (`--installer agent` writes `openshift/`, the others
/// `manifests/`), whose earlier files this run takes out.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    /// The folder this run writes.
    pub dir: &'a Path,
    /// The other folder, beside it, if there is one to look in.
    pub other: Option<&'a Path>,
}

impl<'a> Target<'a> {
    /// Only `dir`: no other folder is looked in.
    pub fn only(dir: &'a Path) -> Target<'a> {
        Target { dir, other: None }
    }
}

/// What a write did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Written {
    /// Files written (names inside the folder written).
    pub written: Vec<String>,
    /// Files of an earlier run that were removed (not written again), in the folder written
    /// or the other one.
    pub removed: Vec<PathBuf>,
    /// Files the lock names that nothing in them shows po-manifests wrote, left in place
    /// (say it once).
    pub left: Vec<PathBuf>,
    /// Why `manifests/` could not be exchanged whole and was written file by file under the
    /// journal instead (say it once).
    pub fallback: Option<String>,
}

/// Whether a run may replace or remove an earlier file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ownership {
    /// It has the digest the lock records (a version 1 lock records none) and carries
    /// [`MANAGED_BY`] or [`MARK`]; or it already holds what this run writes under its name.
    Proven,
    /// It no longer has the digest the lock records (or is no longer a regular file).
    Edited,
    /// Nothing in it shows po-manifests wrote it (no [`MANAGED_BY`], no [`MARK`], not what
    /// this run writes), whatever digest the lock records for it.
    Unproven,
}

/// An earlier file, one the lock names, as it is now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Earlier {
    /// File name (no directory).
    pub name: String,
    /// Where it is.
    pub path: PathBuf,
    /// It is in [`Target::other`] (an earlier run for another installer wrote it there).
    pub elsewhere: bool,
    /// Whether this run may replace or remove it.
    pub ownership: Ownership,
    /// What it holds (`None` when it is not a regular file or cannot be read).
    pub now: Option<Vec<u8>>,
    /// What this run writes under its name (`None` when it writes no file of that name).
    pub new: Option<Vec<u8>>,
}

/// Every earlier file a lock names that is still there, and whether this run may take it out.
/// A file is looked for in [`Target::dir`], and only when it is not there in [`Target::other`]
/// (where only regular files count: po-manifests writes nothing else).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Survey {
    /// The earlier files, in lock order.
    pub earlier: Vec<Earlier>,
}

impl Survey {
    /// Look at the earlier files `previous` names, with `files` what this run writes.
    pub fn new(target: Target<'_>, files: &[ManifestFile], previous: &[PreviousFile]) -> Survey {
        let mut earlier = Vec::new();
        for p in previous {
            if !journal::is_our_file_name(&p.name) {
                continue;
            }
            let here = target.dir.join(&p.name);
            let (path, elsewhere, meta) = match here.symlink_metadata() {
                Ok(meta) => (here, false, meta),
                Err(_) => {
                    let Some(there) = target.other.map(|o| o.join(&p.name)) else {
                        continue;
                    };
                    match there.symlink_metadata() {
                        Ok(meta) if meta.is_file() => (there, true, meta),
                        _ => continue,
                    }
                }
            };
            let now = if meta.is_file() {
                crate::fsread::read(&path, MAX_MANIFEST_BYTES, None).ok()
            } else {
                None
            };
            let new = files
                .iter()
                .find(|f| f.name == p.name)
                .map(|f| f.bytes.clone());
            // A digest alone proves nothing (a forged lock may carry a file's true one): the
            // file shows it is ours, or is exactly what this run writes.
            let ownership = match (&p.sha256, &now) {
                (_, Some(b)) if new.as_ref() == Some(b) => Ownership::Proven,
                (Some(recorded), Some(b)) if sha256_hex(b) != *recorded => Ownership::Edited,
                (Some(_), None) => Ownership::Edited,
                (_, Some(b)) if carries_mark(b) => Ownership::Proven,
                (_, _) => Ownership::Unproven,
            };
            earlier.push(Earlier {
                name: p.name.clone(),
                path,
                elsewhere,
                ownership,
                now,
                new,
            });
        }
        Survey { earlier }
    }

    /// The earlier files this run takes out (replaces or removes): the proven ones, and with
    /// `force` every one.
    pub fn taken_out(&self, force: bool) -> impl Iterator<Item = &Earlier> {
        self.earlier
            .iter()
            .filter(move |e| force || e.ownership == Ownership::Proven)
    }

    /// The earlier files this run leaves in place: without `force`, the unproven ones it does
    /// not overwrite.
    pub fn left(&self, force: bool) -> Vec<&Earlier> {
        self.earlier
            .iter()
            .filter(|e| !force && e.ownership == Ownership::Unproven && e.new.is_none())
            .collect()
    }

    /// The earlier files a person edited since, with what they hold and what this run would
    /// write in their place.
    pub fn edited(&self) -> Vec<EditedFile> {
        self.earlier
            .iter()
            .filter(|e| e.ownership == Ownership::Edited)
            .map(|e| EditedFile {
                name: e.name.clone(),
                path: e.path.clone(),
                now: e.now.clone(),
                // One in the other folder is removed (this run writes its own folder).
                new: if e.elsewhere { None } else { e.new.clone() },
            })
            .collect()
    }

    /// The unproven earlier files this run would overwrite (or, in the other folder, write
    /// again beside): refused without `force`.
    pub fn unproven_overwritten(&self) -> Vec<&Earlier> {
        self.earlier
            .iter()
            .filter(|e| e.ownership == Ownership::Unproven && e.new.is_some())
            .collect()
    }
}

/// Whether `bytes` shows po-manifests wrote it: it starts with [`MARK`], or is an object
/// carrying the [`MANAGED_BY`] label.
fn carries_mark(bytes: &[u8]) -> bool {
    if bytes.starts_with(MARK.as_bytes()) {
        return true;
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        return false;
    };
    let Ok(object) = serde_saphyr::from_str::<serde_json::Value>(text) else {
        return false;
    };
    labelled(&object)
}

/// Whether `object` carries the [`MANAGED_BY`] label.
fn labelled(object: &serde_json::Value) -> bool {
    let (label, value) = MANAGED_BY;
    object["metadata"]["labels"][label].as_str() == Some(value)
}

/// The earlier files (`previous`, from the lock) that no longer have their recorded digest,
/// with what they hold and what `files` would put in their place ([`Survey::edited`]). Files
/// the lock records by name only (a version 1 lock), files no longer there and files that
/// already hold what would be written are not edits.
pub fn edited(
    target: Target<'_>,
    files: &[ManifestFile],
    previous: &[PreviousFile],
) -> Vec<EditedFile> {
    Survey::new(target, files, previous).edited()
}

/// Replace the files of an earlier run (`previous`, from its lock) with `files` in
/// `target.dir`, take the earlier files out of `target.other`, and write `lock` (bytes;
/// `None` leaves the lock file as it is) to `lock_path`, all or nothing, even when the
/// process is killed at any point: by exchanging `manifests/` for a complete new one
/// ([`exchange`]), or where that cannot be done, under the [`journal`] ([`Written::fallback`]
/// says why). An earlier file that a person edited since is refused ([`Error::Edited`]), and
/// one a version 1 lock names that shows nothing of po-manifests is refused when it would be
/// overwritten ([`Error::Unproven`]) and left in place when it would be removed
/// ([`Written::left`]), unless `force`. The caller holds the [`InstallLock`] of the install
/// directory (the parent of `target.dir`) and has run [`recover`] first.
pub fn write(
    target: Target<'_>,
    files: &[ManifestFile],
    previous: &[PreviousFile],
    lock_path: &Path,
    lock: Option<&[u8]>,
    force: bool,
) -> Result<Written, Error> {
    let manifests_dir = target.dir;
    // Only plain file names that we could have written count as previous files.
    let previous: Vec<PreviousFile> = previous
        .iter()
        .filter(|p| journal::is_our_file_name(&p.name))
        .cloned()
        .collect();
    for f in files {
        let path = manifests_dir.join(&f.name);
        if path.symlink_metadata().is_ok() && !previous.iter().any(|p| p.name == f.name) {
            return Err(Error::NotOurs { path });
        }
    }
    let survey = Survey::new(target, files, &previous);
    if !force {
        let edits = survey.edited();
        if !edits.is_empty() {
            return Err(Error::Edited {
                files: edits.into_iter().map(|e| e.path).collect(),
            });
        }
        let unproven = survey.unproven_overwritten();
        if !unproven.is_empty() {
            return Err(Error::Unproven {
                files: unproven.iter().map(|e| e.path.clone()).collect(),
            });
        }
    }
    let existing: Vec<String> = survey
        .taken_out(force)
        .filter(|e| !e.elsewhere)
        .map(|e| e.name.clone())
        .collect();
    let other_files: Vec<&Earlier> = survey.taken_out(force).filter(|e| e.elsewhere).collect();
    let elsewhere = match (target.other, other_files.is_empty()) {
        (Some(other), false) => Some((
            other,
            steps::Elsewhere {
                folder: other
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                files: other_files
                    .iter()
                    .map(|e| steps::ElsewhereFile {
                        name: e.name.clone(),
                        sha256: e.now.as_deref().map(sha256_hex),
                    })
                    .collect(),
            },
        )),
        _ => None,
    };
    let elsewhere = elsewhere.as_ref().map(|(x, e)| (*x, e));
    let written: Vec<String> = files.iter().map(|f| f.name.clone()).collect();
    let removed = existing
        .iter()
        .filter(|n| !written.contains(n))
        .map(|n| manifests_dir.join(n))
        .chain(other_files.iter().map(|e| e.path.clone()))
        .collect();
    let left = survey.left(force).iter().map(|e| e.path.clone()).collect();
    let fallback =
        match exchange::write(manifests_dir, files, &existing, elsewhere, lock_path, lock)? {
            exchange::Outcome::Done => None,
            exchange::Outcome::Refused(why) => {
                if !manifests_dir.is_dir() {
                    steps::create_dir(manifests_dir).map_err(io("cannot create", manifests_dir))?;
                }
                let plan =
                    journal::Plan::new(manifests_dir, lock_path, files, existing, elsewhere)?;
                plan.run(files, lock)?;
                Some(why)
            }
        };
    Ok(Written {
        written,
        removed,
        left,
        fallback,
    })
}

#[cfg(test)]
mod tests;
