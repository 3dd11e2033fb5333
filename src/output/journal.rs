//! The fallback write protocol, where `manifests/` cannot be exchanged for a new directory
//! (a symlink, a mount point, a filesystem without `RENAME_EXCHANGE`; see [`super::exchange`]):
//! how `create` replaces an earlier run's manifests and lock file file by file so that a kill
//! at any instruction leaves either the old set or, after the next run's recovery, the new one,
//! and the lock always names what `manifests/` holds. Here `manifests/` may hold a mix while a
//! run is killed, until the next run's recovery; the exchange has no such window.
//!
//! [`roll_forward`] finishes a committed version 1 journal for [`super::recovery`], and
//! `undo` removes what an uncommitted one staged. They follow no symlink inside `D`: the
//! staging folders, staged files, the marker and the staged lock must be real folders and
//! regular files (`lstat`), else they refuse; they write this run's own lock file, and a
//! journal naming another is refused. They delete a staging folder only when the journal and
//! the marker inside it carry the same token (or it is empty).
//!
//! With `D` the install directory, `M = D/manifests` (possibly a symlink to another
//! filesystem) and `L` the lock file (beside the configuration, possibly elsewhere):
//!
//! 1. **Journal.** `D/.po-manifests-journal.json` (version 1, `pending`) records a fresh random
//!    token, `L`, the folder `M` is, the files to place, the earlier files to take out, and
//!    those to take out of the other folder with their digests; written to a temporary name,
//!    fsynced, renamed into place, `D` fsynced.
//! 2. **Stage.** `S = M/.po-manifests-stage-<token>/` is made with a marker file
//!    `S/po-manifests-stage` naming the token; new files go to `S/new/`, the new lock to `L`'s
//!    directory as `.<lock name>.po-manifests-new`; each file is fsynced, then its directory.
//!    Staging is inside `M` so every later rename stays on one filesystem.
//! 3. **Commit.** The journal is written again without `pending` (temporary name, fsync,
//!    rename, fsync `D`). This rename is the commit: before it nothing outside the staging
//!    area has changed.
//! 4. **Apply.** Earlier files are moved to `S/old/`, new files are moved into `M`, `M` is
//!    fsynced, the staged lock is renamed over `L` and `L`'s directory fsynced.
//! 5. **Clean.** The earlier files the journal lists in the other folder (an earlier run for
//!    another installer wrote them there) are removed one by one; then `S/old/` and `S/new/`,
//!    the marker and `S`, then the journal, then `D` is fsynced.
//!
//! Every file of the new set is at any time in exactly one of `S/new/` and `M`, and every
//! earlier file in `M` or `S/old/`, so [`super::recover`] can always finish a committed change
//! (*roll forward*). Before the commit, recovery only removes the staging (*undo*), which the
//! pending journal and the marker prove are this run's. An error while applying (not a kill)
//! moves everything back and removes the journal. A journal of an older po-manifests (no
//! token) is committed and names `M/.po-manifests-stage/`. [`super::recover`] runs at the
//! start of every writing command, under the [`super::InstallLock`].

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::steps::{
    self, Elsewhere, Recovery, canonical_lock, check_lock_path, describe, install_dir, is_token,
    lock_dir, new_token, remove_dir_all_if_present, remove_file_if_present, rename,
    staged_lock_path, sync_dir, write_all_synced, write_synced,
};
pub use super::steps::{JOURNAL_FILE, is_our_file_name};
use super::{Error, ManifestFile, crash, io};

/// Staging folder name, inside the manifests directory: the token follows (`-<token>`); an
/// older po-manifests used the name alone.
pub const STAGE_DIR: &str = ".po-manifests-stage";
/// The marker file inside a staging folder (beside `new/` and `old/`).
pub const MARKER: &str = "po-manifests-stage";
/// Schema of the journal.
pub(super) const JOURNAL_VERSION: u32 = 1;

/// What a change does: recorded in the journal before anything is staged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Journal {
    /// Schema version.
    pub journal_version: u32,
    /// The token of the staging folder (`M/.po-manifests-stage-<token>`) and its marker; an
    /// older po-manifests wrote none (its staging folder is `M/.po-manifests-stage`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
    /// Set until the change is committed: recovery then undoes it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pending: bool,
    /// The lock file the change writes.
    pub lock: PathBuf,
    /// The folder written (`manifests` or `openshift`, in the install directory); absent in
    /// an older journal: the folder of the recovering run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder: Option<String>,
    /// File names moved into the manifests directory from `stage/new/`.
    pub place: Vec<String>,
    /// Earlier file names taken out of the manifests directory (into `stage/old/`).
    pub remove: Vec<String>,
    /// Earlier files of ours taken out of the other folder once the change is applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elsewhere: Option<Elsewhere>,
}

/// The staging folder a journal names, inside `m`.
pub(super) fn stage_of(m: &Path, token: Option<&str>) -> PathBuf {
    match token {
        Some(token) => m.join(format!("{STAGE_DIR}-{token}")),
        None => m.join(STAGE_DIR),
    }
}

fn marker_text(token: &str) -> String {
    format!("po-manifests staging folder: removed by the next po-manifests run\ntoken {token}\n")
}

/// Whether the staging folder `stage` is the one of `token`: a real folder whose marker (a
/// regular file) names that token. `Ok(false)` when it is not (no marker, another token);
/// an error naming what is a link or not a file.
fn proven(stage: &Path, token: &str) -> Result<bool, String> {
    Ok(
        steps::read_marker_text(&stage.join(MARKER))?.is_some_and(|text| {
            text.lines()
                .any(|l| l.strip_prefix("token ") == Some(token))
        }),
    )
}

/// Whether `dir` is a folder with nothing in it.
fn is_empty_dir(dir: &Path) -> bool {
    fs::read_dir(dir)
        .map(|mut e| e.next().is_none())
        .unwrap_or(false)
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
    /// The other folder, where [`Journal::elsewhere`]'s files are.
    other: Option<PathBuf>,
}

impl Plan {
    /// A plan to place `files` into `manifests` (taking out `existing`, earlier files now
    /// there), take `elsewhere`'s files out of its folder (the path given with it) and write
    /// the lock at `lock`.
    pub fn new(
        manifests: &Path,
        lock: &Path,
        files: &[ManifestFile],
        existing: Vec<String>,
        elsewhere: Option<(&Path, &Elsewhere)>,
    ) -> Result<Plan, Error> {
        let manifests = std::path::absolute(manifests).map_err(io("cannot resolve", manifests))?;
        let lock = canonical_lock(lock).map_err(io("cannot resolve", lock))?;
        let token = new_token();
        let folder = manifests
            .file_name()
            .map(|n| n.to_string_lossy().into_owned());
        Ok(Plan {
            dir: install_dir(&manifests),
            stage: stage_of(&manifests, Some(&token)),
            manifests,
            lock_staged: staged_lock_path(&lock),
            writes_lock: true,
            other: elsewhere.map(|(x, _)| x.to_path_buf()),
            journal: Journal {
                journal_version: JOURNAL_VERSION,
                token: Some(token),
                pending: true,
                lock,
                folder,
                place: files.iter().map(|f| f.name.clone()).collect(),
                remove: existing,
                elsewhere: elsewhere.map(|(_, e)| e.clone()),
            },
        })
    }

    /// Journal, stage, commit, apply and clean (see the module comment); `lock` `None` leaves
    /// the lock file as it is.
    pub fn run(mut self, files: &[ManifestFile], lock: Option<&[u8]>) -> Result<(), Error> {
        self.writes_lock = lock.is_some();
        self.write_journal("write the journal")?;
        if let Err(e) = self.stage_files(files, lock) {
            return Err(self.undo_or(e));
        }
        self.journal.pending = false;
        if let Err(e) = self.write_journal("commit the journal") {
            return Err(self.undo_or(e));
        }
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
        let elsewhere = self.other.as_deref().zip(self.journal.elsewhere.as_ref());
        finish(&self.dir, &self.stage, true, elsewhere, false).map(|_| ())
    }

    /// Write the journal as it is now: to a temporary name, fsynced, renamed into place (the
    /// crash point `what`), `D` fsynced.
    fn write_journal(&self, what: &'static str) -> Result<(), Error> {
        let journal = self.dir.join(JOURNAL_FILE);
        let tmp = self.dir.join(format!("{JOURNAL_FILE}.new"));
        let mut text = serde_json::to_vec_pretty(&self.journal).map_err(|e| Error::Journal {
            path: journal.clone(),
            problem: format!("cannot be written: {e}"),
        })?;
        text.push(b'\n');
        if let Err(e) = remove_file_if_present(&tmp)
            .and_then(|()| write_synced(&tmp, &text))
            .and_then(|()| rename(&tmp, &journal, what))
        {
            let _ = fs::remove_file(&tmp);
            return Err(e);
        }
        sync_dir(&self.dir)
    }

    fn stage_files(&self, files: &[ManifestFile], lock: Option<&[u8]>) -> Result<(), Error> {
        let token = self.journal.token.as_deref().unwrap_or_default();
        let new = self.stage.join("new");
        let old = self.stage.join("old");
        fs::create_dir(&self.stage).map_err(io("cannot create", &self.stage))?;
        write_synced(&self.stage.join(MARKER), marker_text(token).as_bytes())?;
        fs::create_dir(&new).map_err(io("cannot create", &new))?;
        fs::create_dir(&old).map_err(io("cannot create", &old))?;
        write_all_synced(&new, files)?;
        sync_dir(&new)?;
        sync_dir(&self.stage)?;
        sync_dir(&self.manifests)?;
        let Some(lock) = lock else { return Ok(()) };
        remove_file_if_present(&self.lock_staged)?;
        write_synced(&self.lock_staged, lock)?;
        sync_dir(&lock_dir(&self.lock_staged))
    }

    /// After an error before the commit: remove the staging folder (only when its marker, or
    /// its emptiness, shows it is this run's), the staged lock and the journal, returning `e`
    /// (or, when that fails too, both).
    fn undo_or(&self, e: Error) -> Error {
        let token = self.journal.token.as_deref().unwrap_or_default();
        let undone = (|| {
            if self.stage.symlink_metadata().is_ok() {
                if proven(&self.stage, token).unwrap_or(false) {
                    remove_dir_all_if_present(&self.stage)?;
                } else if is_empty_dir(&self.stage) {
                    fs::remove_dir(&self.stage).map_err(io("cannot remove", &self.stage))?;
                }
            }
            remove_file_if_present(&self.lock_staged)?;
            remove_file_if_present(&self.dir.join(JOURNAL_FILE))?;
            sync_dir(&self.dir)
        })();
        match undone {
            Ok(()) => e,
            Err(undo) => Error::Journal {
                path: self.dir.join(JOURNAL_FILE),
                problem: format!(
                    "describes a change that failed ({e}) and could not be undone ({undo}); the next po-manifests create in this directory undoes it"
                ),
            },
        }
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

/// Take the earlier files out of the other folder (`elsewhere`, with `check` in recovery: only
/// while they have the recorded digest), then remove the staging folder (its contents first
/// and the marker last, so a kill in between still leaves a folder the marker proves is ours;
/// `marked` is false for an older po-manifests' folder, which has none), then the journal: the
/// change is complete. Returns how many files left the other folder and the ones kept.
fn finish(
    dir: &Path,
    stage: &Path,
    marked: bool,
    elsewhere: Option<(&Path, &Elsewhere)>,
    check: bool,
) -> Result<(usize, Vec<PathBuf>), Error> {
    let out = match elsewhere {
        Some((x, e)) => steps::remove_elsewhere(x, &e.files, check)?,
        None => (0, Vec::new()),
    };
    if marked {
        remove_dir_all_if_present(&stage.join("old"))?;
        remove_dir_all_if_present(&stage.join("new"))?;
        remove_file_if_present(&stage.join(MARKER))?;
        match fs::remove_dir(stage) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(io("cannot remove", stage)(e));
            }
            _ => {}
        }
    } else {
        remove_dir_all_if_present(stage)?;
    }
    crash::point("remove the journal");
    remove_file_if_present(&dir.join(JOURNAL_FILE))?;
    sync_dir(dir)?;
    Ok(out)
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

/// Finish (committed) or undo (pending) the change a version 1 journal (`journal`, read from
/// `path`) describes, in install directory `dir`; `folders` are this run's folder (the one an
/// older journal means) and the other one, the only folders a journal may name; `lock` is this
/// run's lock file (see the module comment). Also the files of the other folder left because
/// they changed since the interrupted run checked them.
pub(super) fn recover(
    dir: &Path,
    folders: &[&Path],
    path: &Path,
    journal: &Journal,
    lock: &Path,
) -> Result<(Recovery, Vec<PathBuf>), Error> {
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
    if let Some(token) = journal.token.as_deref().filter(|t| !is_token(t)) {
        return Err(bad(format!(
            "has a token {} that po-manifests does not make",
            crate::text::escape(token)
        )));
    }
    check_lock_path(&journal.lock, lock).map_err(bad)?;
    let (m, elsewhere) = steps::journal_folders(
        journal.folder.as_deref(),
        journal.elsewhere.as_ref(),
        folders,
    )
    .map_err(bad)?;
    // This run's own lock file, never the journal's path.
    let lock = &canonical_lock(lock).map_err(io("cannot resolve", lock))?;
    let stage = stage_of(m, journal.token.as_deref());
    check_real_dir(&stage, &bad)?;
    let present = stage.symlink_metadata().is_ok();
    let ours = match journal.token.as_deref() {
        Some(token) if present => proven(&stage, token).map_err(&bad)? || is_empty_dir(&stage),
        // An older po-manifests' journal: the journal alone names its folder.
        _ => true,
    };
    if journal.pending {
        if journal.token.is_none() {
            return Err(bad(
                "is marked pending but names no staging folder token".to_string()
            ));
        }
        if !ours {
            // Left as it is: it is inside manifests/, so it refuses the run.
            return Err(Error::StagingNotOurs {
                paths: vec![stage],
                folder: m.to_path_buf(),
            });
        }
        return Ok((
            undo(dir, m, path, present.then_some(stage.as_path()), lock)?,
            Vec::new(),
        ));
    }
    if !ours {
        return Err(bad(format!(
            "names the staging folder {}, whose marker does not carry the journal's token; po-manifests changed nothing",
            stage.display()
        )));
    }
    roll_forward(dir, m, path, journal, &stage, elsewhere, lock)
}

/// Undo an uncommitted change: remove its staging folder (`stage`, proven this run's), the
/// staged lock and the journal.
fn undo(
    dir: &Path,
    m: &Path,
    path: &Path,
    stage: Option<&Path>,
    lock: &Path,
) -> Result<Recovery, Error> {
    let mut paths = Vec::new();
    if let Some(stage) = stage {
        remove_dir_all_if_present(stage)?;
        paths.push(stage.to_path_buf());
    }
    remove_file_if_present(&staged_lock_path(lock))?;
    remove_file_if_present(path)?;
    paths.push(path.to_path_buf());
    sync_dir(m).or_else(|e| if m.exists() { Err(e) } else { Ok(()) })?;
    sync_dir(dir)?;
    Ok(Recovery::Discarded { paths })
}

/// Finish a committed change whose staging folder is `stage` (proven, or absent), and take
/// `elsewhere`'s files out of the other folder.
fn roll_forward(
    dir: &Path,
    m: &Path,
    path: &Path,
    journal: &Journal,
    stage: &Path,
    elsewhere: Option<(&Path, &Elsewhere)>,
    lock: &Path,
) -> Result<(Recovery, Vec<PathBuf>), Error> {
    let bad = |problem: String| Error::Journal {
        path: path.to_path_buf(),
        problem,
    };
    let lock_staged = staged_lock_path(lock);
    // Check everything before changing anything: no link is followed.
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
    let (elsewhere_removed, kept) = finish(dir, stage, journal.token.is_some(), elsewhere, true)?;
    let recovery = Recovery::Finished {
        lock: lock.to_path_buf(),
        placed: journal.place.len(),
        removed: journal
            .remove
            .iter()
            .filter(|n| !journal.place.contains(n))
            .count()
            + elsewhere_removed,
    };
    Ok((recovery, kept))
}
