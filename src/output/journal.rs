//! The fallback write protocol, where `manifests/` cannot be exchanged for a new directory
//! (a symlink, a mount point, a filesystem without `RENAME_EXCHANGE`; see [`super::exchange`]):
//! how `create` replaces an earlier run's manifests and lock file file by file so that a kill
//! at any instruction leaves either the old set or, after the next run's recovery, the new one,
//! and the lock always names what `manifests/` holds. Here `manifests/` may hold a mix while a
//! run is killed, until the next run's recovery; the exchange has no such window.
//!
//! Recovery ([`recover`]) also lives here: it reads the journal and hands a version 2 journal
//! to [`super::exchange`]. It follows no symlink inside `D`: the staging folders, staged files
//! and the staged lock must be real folders and regular files (`lstat`), else it refuses; the
//! lock file it writes is this run's own, and a journal naming another is refused; and it
//! deletes only staging folders it can prove it made (any other `D/.po-manifests-stage-*` is
//! left alone with a warning).
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
//! earlier file in `M` or `stage/old/`, so [`recover`] can always finish a committed change
//! (*roll forward*). Before the commit nothing outside the staging area has changed, so recovery
//! only removes the staging (*undo*). An error while applying (not a kill) moves everything back
//! and removes the journal. [`recover`] runs at the start of every writing command, under the
//! [`super::InstallLock`].

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::crash;
use super::exchange;
use super::{Error, FILE_PREFIX, ManifestFile, io};

/// Journal file name, in the install directory.
pub const JOURNAL_FILE: &str = ".po-manifests-journal.json";
/// Staging directory name, inside the manifests directory.
pub const STAGE_DIR: &str = ".po-manifests-stage";
/// Largest journal read (it lists file names; a few hundred KB at most).
const MAX_JOURNAL_BYTES: u64 = 16 * 1024 * 1024;
/// Schema of the journal.
const JOURNAL_VERSION: u32 = 1;

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

/// Whether `name` is a plain manifest file name po-manifests could have written (so a tampered
/// lock or journal cannot make a run touch anything else).
pub fn is_our_file_name(name: &str) -> bool {
    name.starts_with(FILE_PREFIX)
        && !name.contains(['/', '\\', '\0'])
        && name != "."
        && name != ".."
}

/// The staged lock file's path: hidden, beside the lock file, so its rename stays in one
/// directory.
pub(super) fn staged_lock_path(lock: &Path) -> PathBuf {
    let name = lock
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| super::lock::LOCK_FILE.to_string());
    lock_dir(lock).join(format!(".{name}.po-manifests-new"))
}

pub(super) fn lock_dir(lock: &Path) -> PathBuf {
    lock.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf()
}

pub(super) fn install_dir(manifests: &Path) -> PathBuf {
    manifests
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf()
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
        let lock = std::path::absolute(lock).map_err(io("cannot resolve", lock))?;
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

/// What [`recover`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recovery {
    /// A committed change was finished: these files are in place and the lock names them.
    Finished {
        /// The lock file written.
        lock: PathBuf,
        /// Files placed.
        placed: usize,
        /// Earlier files taken out.
        removed: usize,
    },
    /// An uncommitted change's staging was removed; nothing else had changed.
    Discarded {
        /// What was removed.
        paths: Vec<PathBuf>,
    },
    /// Only the journal was left (killed before staging began or after cleaning up): removed.
    Cleared {
        /// The journal removed.
        journal: PathBuf,
    },
}

/// What [`recover`] did, and the staging folders it left alone.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Recovered {
    /// The interrupted change it finished or undid, if any.
    pub done: Option<Recovery>,
    /// Folders named like po-manifests staging that nothing proves it made: left alone.
    pub left_alone: Vec<PathBuf>,
}

impl Recovered {
    /// What to tell the user, one line each: what was done, then a warning per folder left.
    pub fn lines(&self) -> Vec<String> {
        let mut out: Vec<String> = self.done.iter().map(|d| d.to_string()).collect();
        for p in &self.left_alone {
            out.push(format!(
                "warning: {} is named like a po-manifests staging folder, but no journal and marker show that po-manifests made it; left alone (remove it yourself if it is not needed)",
                crate::text::printable(&p.display().to_string())
            ));
        }
        out
    }
}

impl std::fmt::Display for Recovery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Recovery::Finished {
                lock,
                placed,
                removed,
            } => write!(
                f,
                "finished the change an interrupted po-manifests run had committed: {placed} manifest{} in place, {removed} earlier file{} taken out, lock file {}",
                if *placed == 1 { "" } else { "s" },
                if *removed == 1 { "" } else { "s" },
                lock.display()
            ),
            Recovery::Cleared { journal } => write!(
                f,
                "removed the journal {} of an interrupted po-manifests run (manifests/ and the lock file already agreed)",
                journal.display()
            ),
            Recovery::Discarded { paths } => write!(
                f,
                "removed what an interrupted po-manifests run had staged (it had not changed anything yet): {}",
                paths
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// Finish or undo a change an interrupted run left in the install directory that holds
/// `manifests` (see the module comment and [`super::exchange`]). `lock` is this run's lock file:
/// the only lock file recovery writes (a journal naming another is refused), and its staged
/// copy is removed when no journal is left. Call it holding the [`super::InstallLock`].
pub fn recover(manifests: &Path, lock: &Path) -> Result<Recovered, Error> {
    let dir = install_dir(manifests);
    let path = dir.join(JOURNAL_FILE);
    let mut recovered = Recovered::default();
    let mut ours = None;
    match read_no_follow(&path, MAX_JOURNAL_BYTES) {
        Ok(bytes) => {
            let bad = |problem: String| Error::Journal {
                path: path.clone(),
                problem,
            };
            let version = serde_json::from_slice::<serde_json::Value>(&bytes)
                .map_err(|e| bad(format!("is not valid: {e}")))?
                .get("journalVersion")
                .and_then(serde_json::Value::as_u64);
            if version == Some(u64::from(exchange::JOURNAL_VERSION)) {
                let r = exchange::recover(&dir, manifests, &path, &bytes, lock)?;
                recovered.done = Some(r.done);
                recovered.left_alone.extend(r.unproven);
                ours = Some(r.stage);
            } else {
                let journal: Journal = serde_json::from_slice(&bytes)
                    .map_err(|e| bad(format!("is not valid: {e}")))?;
                recovered.done = Some(roll_forward(&dir, manifests, &path, &journal, lock)?);
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            recovered.done = discard(&dir, manifests, lock)?;
        }
        Err(source) => {
            return Err(Error::Io {
                action: "cannot read",
                path,
                source,
            });
        }
    }
    for folder in exchange::staging_folders(&dir) {
        if Some(&folder) != ours.as_ref() && !recovered.left_alone.contains(&folder) {
            recovered.left_alone.push(folder);
        }
    }
    Ok(recovered)
}

/// Read a small file that must be a regular file, not through a symlink (`O_NOFOLLOW`).
pub(super) fn read_no_follow(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    let meta = path.symlink_metadata()?;
    if meta.file_type().is_symlink() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "is a symbolic link; po-manifests follows no link here",
        ));
    }
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "is not a regular file",
        ));
    }
    use std::io::Read as _;
    let mut bytes = Vec::new();
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("is larger than {limit} bytes"),
        ));
    }
    Ok(bytes)
}

/// Refuse a journal whose lock file is not exactly this run's (`ours`): recovery writes only
/// the lock file of the install it runs for.
pub(super) fn check_lock_path(named: &Path, ours: &Path) -> Result<(), String> {
    let ours =
        std::path::absolute(ours).map_err(|e| format!("cannot resolve {}: {e}", ours.display()))?;
    if named.is_absolute() && named == ours {
        return Ok(());
    }
    Err(format!(
        "names the lock file {}, not this run's lock file {}; recovery writes no other lock file. Run po-manifests create with the configuration beside {} to finish it, or check manifests/ and remove the journal",
        crate::text::escape(&named.display().to_string()),
        ours.display(),
        crate::text::escape(&named.display().to_string()),
    ))
}

/// A folder recovery moves files out of must be a real folder (not a symlink) when present.
fn check_real_dir(dir: &Path, bad: &dyn Fn(String) -> Error) -> Result<(), Error> {
    match dir.symlink_metadata() {
        Ok(meta) if !meta.is_dir() || meta.file_type().is_symlink() => Err(bad(format!(
            "goes with {}, which is {}, not a folder po-manifests made; po-manifests follows no link and changed nothing",
            dir.display(),
            exchange::describe(&meta)
        ))),
        _ => Ok(()),
    }
}

fn roll_forward(
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
            "has journalVersion {} (expected {JOURNAL_VERSION} or {})",
            journal.journal_version,
            exchange::JOURNAL_VERSION
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
    let lock = journal.lock.as_path();
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
                exchange::describe(&meta)
            )));
        }
    }
    if let Ok(meta) = lock_staged.symlink_metadata()
        && !meta.is_file()
    {
        return Err(bad(format!(
            "goes with the staged lock file {}, which is {}; po-manifests follows no link and changed nothing",
            lock_staged.display(),
            exchange::describe(&meta)
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

/// No journal: whatever is staged in `manifests/` belongs to a run killed before its commit.
/// Staging folders beside `manifests/` are not removed: without a journal nothing proves
/// po-manifests made them ([`recover`] warns about them).
fn discard(dir: &Path, manifests: &Path, lock: &Path) -> Result<Option<Recovery>, Error> {
    let mut paths = Vec::new();
    let stage = manifests.join(STAGE_DIR);
    if let Ok(meta) = stage.symlink_metadata() {
        if !meta.is_dir() || meta.file_type().is_symlink() {
            return Err(Error::Io {
                action: "cannot remove",
                path: stage,
                source: std::io::Error::other(format!(
                    "it is {}, not a staging folder po-manifests made; remove it yourself",
                    exchange::describe(&meta)
                )),
            });
        }
        remove_dir_all_if_present(&stage)?;
        paths.push(stage);
    }
    for staged in [
        staged_lock_path(lock),
        dir.join(format!("{JOURNAL_FILE}.new")),
    ] {
        if staged.symlink_metadata().is_ok() {
            remove_file_if_present(&staged)?;
            paths.push(staged);
        }
    }
    if paths.is_empty() {
        return Ok(None);
    }
    sync_dir(manifests).or_else(|e| if manifests.exists() { Err(e) } else { Ok(()) })?;
    sync_dir(dir)?;
    Ok(Some(Recovery::Discarded { paths }))
}

pub(super) fn rename(from: &Path, to: &Path, what: &'static str) -> Result<(), Error> {
    crash::point(what);
    fs::rename(from, to).map_err(|source| Error::Io {
        action: "cannot move",
        path: from.to_path_buf(),
        source: std::io::Error::new(
            source.kind(),
            format!("to {} ({what}): {source}", to.display()),
        ),
    })
}

/// Write a new file (never through a symlink, never over an existing file) and fsync it.
pub(super) fn write_synced(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    use std::io::Write as _;
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    let mut f = options.open(path).map_err(io("cannot create", path))?;
    f.write_all(bytes).map_err(io("cannot write", path))?;
    crash::point("fsync a staged file");
    f.sync_all().map_err(io("cannot sync", path))
}

/// fsync a directory, so the renames and removals in it are durable. Filesystems that cannot
/// sync a directory (EINVAL) are taken as they are.
pub(super) fn sync_dir(dir: &Path) -> Result<(), Error> {
    crash::point("fsync a directory");
    let d = fs::File::open(dir).map_err(io("cannot open", dir))?;
    match d.sync_all() {
        Err(e) if e.kind() != std::io::ErrorKind::InvalidInput => Err(io("cannot sync", dir)(e)),
        _ => Ok(()),
    }
}

pub(super) fn remove_file_if_present(path: &Path) -> Result<(), Error> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io("cannot remove", path)(e)),
        _ => Ok(()),
    }
}

pub(super) fn remove_dir_all_if_present(path: &Path) -> Result<(), Error> {
    match fs::remove_dir_all(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io("cannot remove", path)(e)),
        _ => Ok(()),
    }
}
