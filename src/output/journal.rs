//! The fallback write protocol, where `manifests/` cannot be exchanged for a new directory
//! (a symlink, a mount point, a filesystem without `RENAME_EXCHANGE`; see [`super::exchange`]):
//! how `create` replaces an earlier run's manifests and lock file file by file so that a kill
//! at any instruction leaves either the old set or, after the next run's recovery, the new one,
//! and the lock always names what `manifests/` holds. Here `manifests/` may hold a mix while a
//! run is killed, until the next run's recovery; the exchange has no such window.
//!
//! [`roll_forward`] finishes a committed version 1 journal for [`super::recovery`]. It follows
//! no symlink inside `D`: the staging folders, staged files and the staged lock must be real
//! folders and regular files (`lstat`), else it refuses; it writes this run's own lock file,
//! and a journal naming another is refused.
//!
//! With `D` the install directory, `M = D/manifests` (possibly a symlink to another
//! filesystem) and `L` the lock file (beside the configuration, possibly elsewhere):
//!
//! 1. **Stage.** New files go to `M/.po-manifests-stage/new/`, the new lock to
//!    `L`'s directory as `.<lock name>.po-manifests-new`; each file is fsynced, then its
//!    directory. Staging is inside `M` so every later rename stays on one filesystem.
//! 2. **Commit.** The journal (`D/.po-manifests-journal.json`: the lock path, the files to place
//!    and the earlier files to take out) is written to a temporary name, fsynced, renamed into
//!    place, and `D` is fsynced. This rename is the first rename of the run.
//! 3. **Apply.** Earlier files are moved to `M/.po-manifests-stage/old/`, new files are moved
//!    into `M`, `M` is fsynced, the staged lock is renamed over `L` and `L`'s directory fsynced.
//! 4. **Clean.** The staging directory is removed, then the journal, then `D` is fsynced.
//!
//! Every file of the new set is at any time in exactly one of `stage/new/` and `M`, and every
//! earlier file in `M` or `stage/old/`, so [`super::recover`] can always finish a committed change
//! (*roll forward*). Before the commit nothing outside the staging area has changed, so recovery
//! only removes the staging (*undo*). An error while applying (not a kill) moves everything back
//! and removes the journal. [`super::recover`] runs at the start of every writing command, under the
//! [`super::InstallLock`].

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use super::steps::{JOURNAL_FILE, is_our_file_name};
use super::steps::{
    Recovery, canonical_lock, check_lock_path, describe, install_dir, lock_dir,
    remove_dir_all_if_present, remove_file_if_present, rename, staged_lock_path, sync_dir,
    write_synced,
};
use super::{Error, ManifestFile, crash, io};

/// Staging directory name, inside the manifests directory.
pub const STAGE_DIR: &str = ".po-manifests-stage";
/// Schema of the journal.
pub(super) const JOURNAL_VERSION: u32 = 1;

/// What a committed change does: recorded in the journal before the first rename.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Journal {
    /// Schema version.
    pub journal_version: u32,
    /// The lock file the change writes.
    pub lock: PathBuf,
    /// File names moved into the manifests directory from `stage/new/`.
    pub place: Vec<String>,
    /// Earlier file names taken out of the manifests directory (into `stage/old/`).
    pub remove: Vec<String>,
}

/// One write, prepared: where things go and the journal that will describe it.
pub(super) struct Plan {
    /// The journal to commit.
    pub journal: Journal,
    dir: PathBuf,
    manifests: PathBuf,
    stage: PathBuf,
    lock_staged: PathBuf,
    /// Whether a lock is written (`--locked` leaves the lock file as it is).
    writes_lock: bool,
}

impl Plan {
    /// A plan to place `files` into `manifests` (taking out `existing`, earlier files now
    /// there) and write the lock at `lock`.
    pub fn new(
        manifests: &Path,
        lock: &Path,
        files: &[ManifestFile],
        existing: Vec<String>,
    ) -> Result<Plan, Error> {
        let manifests = std::path::absolute(manifests).map_err(io("cannot resolve", manifests))?;
        let lock = canonical_lock(lock).map_err(io("cannot resolve", lock))?;
        Ok(Plan {
            dir: install_dir(&manifests),
            stage: manifests.join(STAGE_DIR),
            manifests,
            lock_staged: staged_lock_path(&lock),
            writes_lock: true,
            journal: Journal {
                journal_version: JOURNAL_VERSION,
                lock,
                place: files.iter().map(|f| f.name.clone()).collect(),
                remove: existing,
            },
        })
    }

    /// Stage, commit, apply and clean (see the module comment); `lock` `None` leaves the lock
    /// file as it is.
    pub fn run(mut self, files: &[ManifestFile], lock: Option<&[u8]>) -> Result<(), Error> {
        self.writes_lock = lock.is_some();
        let staging = Staging {
            stage: &self.stage,
            lock_staged: &self.lock_staged,
        };
        self.stage_files(files, lock)?;
        let journal = self.dir.join(JOURNAL_FILE);
        let tmp = self.dir.join(format!("{JOURNAL_FILE}.new"));
        let mut text = serde_json::to_vec_pretty(&self.journal).map_err(|e| Error::Journal {
            path: journal.clone(),
            problem: format!("cannot be written: {e}"),
        })?;
        text.push(b'\n');
        if let Err(e) = remove_file_if_present(&tmp)
            .and_then(|()| write_synced(&tmp, &text))
            .and_then(|()| rename(&tmp, &journal, "commit the journal"))
        {
            let _ = fs::remove_file(&tmp);
            return Err(e);
        }
        // Committed: from here on the journal, not the guard, owns the staging area.
        std::mem::forget(staging);
        sync_dir(&self.dir)?;
        let mut applied = Applied::default();
        if let Err(e) = self.apply(&mut applied) {
            return Err(match self.roll_back(&applied) {
                Ok(()) => e,
                Err(undo) => Error::Journal {
                    path: self.dir.join(JOURNAL_FILE),
                    problem: format!(
                        "could not be applied ({e}) nor undone ({undo}); the next po-manifests create in this directory finishes it"
                    ),
                },
            });
        }
        finish(&self.dir, &self.stage)
    }

    fn stage_files(&self, files: &[ManifestFile], lock: Option<&[u8]>) -> Result<(), Error> {
        // A staging area left by a run killed before its commit (recover removes it; this is
        // for callers that did not run recover).
        remove_dir_all_if_present(&self.stage)?;
        let new = self.stage.join("new");
        let old = self.stage.join("old");
        fs::create_dir(&self.stage).map_err(io("cannot create", &self.stage))?;
        fs::create_dir(&new).map_err(io("cannot create", &new))?;
        fs::create_dir(&old).map_err(io("cannot create", &old))?;
        for f in files {
            write_synced(&new.join(&f.name), &f.bytes)?;
        }
        sync_dir(&new)?;
        sync_dir(&self.stage)?;
        let Some(lock) = lock else { return Ok(()) };
        remove_file_if_present(&self.lock_staged)?;
        write_synced(&self.lock_staged, lock)?;
        sync_dir(&lock_dir(&self.lock_staged))
    }

    fn apply(&self, applied: &mut Applied) -> Result<(), Error> {
        let m = &self.manifests;
        for name in &self.journal.remove {
            rename(
                &m.join(name),
                &self.stage.join("old").join(name),
                "move aside",
            )?;
            applied.moved_aside.push(name.clone());
        }
        for name in &self.journal.place {
            rename(&self.stage.join("new").join(name), &m.join(name), "place")?;
            applied.placed.push(name.clone());
        }
        sync_dir(m)?;
        if !self.writes_lock {
            return Ok(());
        }
        rename(&self.lock_staged, &self.journal.lock, "write the lock")?;
        sync_dir(&lock_dir(&self.journal.lock))
    }

    /// After an error (not a kill) while applying: put every file back where it was and drop
    /// the journal, so the run changed nothing.
    fn roll_back(&self, applied: &Applied) -> Result<(), Error> {
        let m = &self.manifests;
        for name in applied.placed.iter().rev() {
            rename(
                &m.join(name),
                &self.stage.join("new").join(name),
                "undo place",
            )?;
        }
        for name in applied.moved_aside.iter().rev() {
            rename(
                &self.stage.join("old").join(name),
                &m.join(name),
                "undo move aside",
            )?;
        }
        sync_dir(m)?;
        remove_file_if_present(&self.lock_staged)?;
        remove_file_if_present(&self.dir.join(JOURNAL_FILE))?;
        sync_dir(&self.dir)?;
        remove_dir_all_if_present(&self.stage)
    }
}

#[derive(Default)]
struct Applied {
    moved_aside: Vec<String>,
    placed: Vec<String>,
}

/// Removes the staging area unless the change was committed: every exit path before the
/// commit (an error, a panic) leaves nothing behind.
struct Staging<'a> {
    stage: &'a Path,
    lock_staged: &'a Path,
}

impl Drop for Staging<'_> {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(self.stage);
        let _ = fs::remove_file(self.lock_staged);
    }
}

/// Remove the staging area and the journal: the change is complete.
fn finish(dir: &Path, stage: &Path) -> Result<(), Error> {
    remove_dir_all_if_present(stage)?;
    crash::point("remove the journal");
    remove_file_if_present(&dir.join(JOURNAL_FILE))?;
    sync_dir(dir)
}

/// A folder recovery moves files out of must be a real folder (not a symlink) when present.
fn check_real_dir(dir: &Path, bad: &dyn Fn(String) -> Error) -> Result<(), Error> {
    match dir.symlink_metadata() {
        Ok(meta) if !meta.is_dir() || meta.file_type().is_symlink() => Err(bad(format!(
            "goes with {}, which is {}, not a folder po-manifests made; po-manifests follows no link and changed nothing",
            dir.display(),
            describe(&meta)
        ))),
        _ => Ok(()),
    }
}

pub(super) fn roll_forward(
    dir: &Path,
    m: &Path,
    path: &Path,
    journal: &Journal,
    lock: &Path,
) -> Result<Recovery, Error> {
    let bad = |problem: String| Error::Journal {
        path: path.to_path_buf(),
        problem,
    };
    if journal.journal_version != JOURNAL_VERSION {
        return Err(bad(format!(
            "has journalVersion {} (expected {JOURNAL_VERSION})",
            journal.journal_version
        )));
    }
    if let Some(name) = journal
        .place
        .iter()
        .chain(&journal.remove)
        .find(|n| !is_our_file_name(n))
    {
        return Err(bad(format!(
            "names a file po-manifests does not write: {name:?}"
        )));
    }
    check_lock_path(&journal.lock, lock).map_err(bad)?;
    // This run's own lock file, never the journal's path.
    let lock = &canonical_lock(lock).map_err(io("cannot resolve", lock))?;
    let stage = m.join(STAGE_DIR);
    let lock_staged = staged_lock_path(lock);
    // Check everything before changing anything: no link is followed.
    check_real_dir(&stage, &bad)?;
    check_real_dir(&stage.join("new"), &bad)?;
    check_real_dir(&stage.join("old"), &bad)?;
    for name in &journal.place {
        let staged = stage.join("new").join(name);
        if let Ok(meta) = staged.symlink_metadata()
            && !meta.is_file()
        {
            return Err(bad(format!(
                "lists {name}, whose staged copy {} is {}; po-manifests follows no link and changed nothing",
                staged.display(),
                describe(&meta)
            )));
        }
    }
    if let Ok(meta) = lock_staged.symlink_metadata()
        && !meta.is_file()
    {
        return Err(bad(format!(
            "goes with the staged lock file {}, which is {}; po-manifests follows no link and changed nothing",
            lock_staged.display(),
            describe(&meta)
        )));
    }
    // Earlier files that are not replaced by a new one of the same name go (the change is
    // finished, so they are removed rather than kept aside).
    for name in &journal.remove {
        if !journal.place.contains(name) {
            crash::point("remove an earlier file");
            remove_file_if_present(&m.join(name))?;
        }
    }
    for name in &journal.place {
        let staged = stage.join("new").join(name);
        if staged.symlink_metadata().is_ok() {
            rename(&staged, &m.join(name), "place")?;
        } else if m.join(name).symlink_metadata().is_err() {
            return Err(bad(format!(
                "lists {name}, which is neither staged nor in place"
            )));
        }
    }
    sync_dir(m)?;
    if lock_staged.symlink_metadata().is_ok() {
        rename(&lock_staged, lock, "write the lock")?;
        sync_dir(&lock_dir(lock))?;
    }
    finish(dir, &stage)?;
    Ok(Recovery::Finished {
        lock: lock.to_path_buf(),
        placed: journal.place.len(),
        removed: journal
            .remove
            .iter()
            .filter(|n| !journal.place.contains(n))
            .count(),
    })
}
