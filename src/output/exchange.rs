//! The write protocol where the filesystem can exchange two directories (Linux ≥ 3.15:
//! ext4, xfs, btrfs, tmpfs): `manifests/` is exactly the old or the new set at every instant,
//! because the switch is one `renameat2(RENAME_EXCHANGE)`. Nothing of ours ever sits inside
//! `manifests/` half done (openshift-install globs `manifests/*` and cluster-bootstrap reads
//! it recursively).
//!
//! With `D` the install directory, `M = D/manifests` (a directory on `D`'s filesystem, or
//! absent) and `L` the lock file:
//!
//! 1. **Journal.** `D/.po-manifests-journal.json` (version 2) records a fresh random token,
//!    `L`, the folder `M` is (`manifests` or `openshift`), the files placed, the earlier files
//!    taken out, and those taken out of the other folder with their digests; written to a
//!    temporary name, fsynced, renamed into place, `D` fsynced.
//! 2. **Stage.** `S = D/.po-manifests-stage-<token>/` is made, and at once its marker file
//!    `S/po-manifests-stage` naming the token, before anything else is in `S`: from then on
//!    the journal and the marker prove `S` is this run's (issue 34 item 10: a kill between
//!    making the new tree and writing the marker left a folder nothing proved). Then the new
//!    tree `S/manifests/` is made, and the marker is replaced (written beside it, renamed over
//!    it) by one naming the token and the tree's identity (device, inode). The new tree gets every entry of `M` that is not an earlier file of ours
//!    (files hard-linked, or copied where a link is refused; folders and symlinks recreated)
//!    and our new files; each file, folder and `S` are fsynced. The new lock is staged beside
//!    `L` as `.<lock name>.po-manifests-new`.
//! 3. **Exchange.** `S/manifests` and `M` are exchanged (or, when there was no `M`, renamed
//!    into place without replacing anything); `D` is fsynced. This is the commit.
//! 4. **Lock.** The staged lock is renamed over `L` (the step the journal still covers).
//! 5. **Clean.** The earlier files the journal lists in the other folder (`openshift/` when `M`
//!    is `manifests/`, and the reverse: an earlier run for another installer wrote them there)
//!    are removed one by one, then the old tree (now `S/manifests`), the marker and `S`, then
//!    the journal. Two folders cannot change in one step: from the exchange until the last of
//!    those removals both sets are in the install directory, and a kill in between leaves them
//!    so until the next run finishes the change.
//!
//! Recovery ([`recover`]) tells from the marker whether the exchange happened (`M`, the folder
//! the journal names, is the tree the marker names): then it finishes (lock, clean; a file of
//! the other folder only while it still has the digest the journal records), else it undoes
//! (removes `S` and the staged lock). It
//! deletes a staging folder only when the journal and the marker inside it carry the same
//! token (or the folder is empty); any other `D/.po-manifests-stage-*` is left alone, with a
//! warning. It follows no symlink: `S`, `S/manifests`, the marker and the staged lock must be
//! a real folder or regular file, checked with `lstat`, else it refuses. The lock file it
//! writes is this run's own `L`, never one read from the journal (a journal naming another is
//! refused).
//!
//! Where `M` is a symlink or a mount point, or the filesystem refuses the exchange (EINVAL,
//! ENOSYS, EXDEV), [`write`] undoes its staging and says so: the caller falls back to the
//! file-by-file [`super::journal`]. [`super::recovery`] hands version 2 journals to [`recover`].

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::steps::{
    self, Elsewhere, JOURNAL_FILE, Recovery, describe, is_token, lock_dir, new_token,
    remove_dir_all_if_present, remove_file_if_present, rename, staged_lock_path, sync_dir,
    write_all_synced, write_synced,
};
use super::{Error, ManifestFile, crash, io};

/// Prefix of a staging folder, in the install directory; the token follows.
pub const STAGE_PREFIX: &str = ".po-manifests-stage-";
/// The marker file inside a staging folder (beside its `manifests/`).
pub const MARKER: &str = "po-manifests-stage";
/// The new tree inside a staging folder.
const TREE: &str = "manifests";
/// Schema of this protocol's journal.
pub(super) const JOURNAL_VERSION: u32 = 2;

/// The journal of an exchange (version 2), written before anything is staged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Journal {
    /// Schema version (2).
    pub journal_version: u32,
    /// The token of the staging folder (`D/.po-manifests-stage-<token>`) and its marker.
    pub token: String,
    /// The lock file the change writes (this run's own; recovery refuses another).
    pub lock: PathBuf,
    /// The folder exchanged (`manifests` or `openshift`, in the install directory); absent in
    /// an older journal: the folder of the recovering run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder: Option<String>,
    /// Files of ours in the new `manifests/`.
    pub manifests: Vec<String>,
    /// Earlier files of ours taken out.
    #[serde(default)]
    pub remove: Vec<String>,
    /// Earlier files of ours taken out of the other folder after the exchange.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elsewhere: Option<Elsewhere>,
}

/// A directory's identity: device and inode, as `lstat` gives them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DirId {
    dev: u64,
    ino: u64,
}

impl DirId {
    /// The identity of `path` itself (a symlink is not followed).
    pub fn of(path: &Path) -> io::Result<DirId> {
        let m = path.symlink_metadata()?;
        Ok(DirId::from_metadata(&m))
    }

    #[cfg(unix)]
    fn from_metadata(m: &fs::Metadata) -> DirId {
        use std::os::unix::fs::MetadataExt;
        DirId {
            dev: m.dev(),
            ino: m.ino(),
        }
    }

    #[cfg(not(unix))]
    fn from_metadata(_: &fs::Metadata) -> DirId {
        DirId { dev: 0, ino: 0 }
    }
}

/// The marker's content for a staging folder of `token` whose new tree is `tree`.
pub fn marker_text(token: &str, tree: DirId) -> String {
    format!(
        "po-manifests staging folder: removed by the next po-manifests run\ntoken {token}\ntree {}:{}\n",
        tree.dev, tree.ino
    )
}

/// The marker's content for a staging folder of `token` whose new tree is not made yet.
fn pending_marker_text(token: &str) -> String {
    format!("po-manifests staging folder: removed by the next po-manifests run\ntoken {token}\n")
}

/// Where the marker naming the tree is written before it is renamed over the first one.
const MARKER_NEXT: &str = "po-manifests-stage.next";

/// A marker's token and, once the new tree is made, the tree's identity.
fn parse_marker(text: &str) -> Option<(&str, Option<DirId>)> {
    let mut token = None;
    let mut tree = None;
    for line in text.lines() {
        if let Some(t) = line.strip_prefix("token ") {
            token = Some(t);
        } else if let Some(t) = line.strip_prefix("tree ") {
            let (dev, ino) = t.split_once(':')?;
            tree = Some(DirId {
                dev: dev.parse().ok()?,
                ino: ino.parse().ok()?,
            });
        }
    }
    Some((token?, tree))
}

/// What [`write`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The change is complete.
    Done,
    /// Nothing was changed: the exchange cannot be done here, for this reason (the caller
    /// falls back to the journal).
    Refused(String),
}

/// Replace `manifests` with a new tree holding its entries except `existing` (earlier files of
/// ours) plus `files`, then write `lock` (when given) to `lock_path`, then take `elsewhere`'s
/// files out of its folder (the path given with it) (see the module comment).
pub(super) fn write(
    manifests: &Path,
    files: &[ManifestFile],
    existing: &[String],
    elsewhere: Option<(&Path, &Elsewhere)>,
    lock_path: &Path,
    lock: Option<&[u8]>,
) -> Result<Outcome, Error> {
    let m = std::path::absolute(manifests).map_err(io("cannot resolve", manifests))?;
    let lock_path = steps::canonical_lock(lock_path).map_err(io("cannot resolve", lock_path))?;
    let d = steps::install_dir(&m);
    if let Some(why) = cannot_exchange(&d, &m)? {
        return Ok(Outcome::Refused(why));
    }
    let token = new_token();
    let change = Change {
        stage: d.join(format!("{STAGE_PREFIX}{token}")),
        lock_staged: staged_lock_path(&lock_path),
        journal: Journal {
            journal_version: JOURNAL_VERSION,
            token,
            lock: lock_path,
            folder: m.file_name().map(|n| n.to_string_lossy().into_owned()),
            manifests: files.iter().map(|f| f.name.clone()).collect(),
            remove: existing
                .iter()
                .filter(|n| !files.iter().any(|f| &f.name == *n))
                .cloned()
                .collect(),
            elsewhere: elsewhere.map(|(_, e)| e.clone()),
        },
        m,
        d,
    };
    change.commit_journal()?;
    let had_manifests = change.m.symlink_metadata().is_ok();
    if let Err(e) = change.stage(files, existing, lock, had_manifests) {
        return Err(change.undo_or(e));
    }
    crash::point("exchange the manifests directories");
    match exchange(&change.stage.join(TREE), &change.m, had_manifests) {
        Ok(()) => {}
        Err(e) if refused(&e) => {
            change.undo()?;
            return Ok(Outcome::Refused(format!(
                "the filesystem of {} cannot exchange two directories ({e})",
                change.d.display()
            )));
        }
        Err(source) => {
            return Err(change.undo_or(Error::Io {
                action: "cannot exchange",
                path: change.m.clone(),
                source,
            }));
        }
    }
    if let Err(e) = change.after_exchange(lock.is_some()) {
        // Not a kill: put the old tree back, so the run changed nothing.
        let back = exchange(&change.stage.join(TREE), &change.m, had_manifests)
            .or_else(|e| {
                if had_manifests {
                    Err(e)
                } else {
                    fs::rename(&change.m, change.stage.join(TREE))
                }
            })
            .map_err(io("cannot put back", &change.m));
        return Err(match back {
            Ok(()) => change.undo_or(e),
            Err(undo) => Error::Journal {
                path: change.d.join(JOURNAL_FILE),
                problem: format!(
                    "could not be applied ({e}) nor undone ({undo}); the next po-manifests create in this directory finishes it"
                ),
            },
        });
    }
    finish(&change.d, &change.stage, elsewhere, false)?;
    Ok(Outcome::Done)
}

/// Why `m` cannot be exchanged for a new directory beside it, if it cannot.
fn cannot_exchange(d: &Path, m: &Path) -> Result<Option<String>, Error> {
    if !cfg!(target_os = "linux") {
        return Ok(Some(
            "this system has no renameat2(RENAME_EXCHANGE) to exchange two directories".into(),
        ));
    }
    let meta = match m.symlink_metadata() {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io("cannot read", m)(e)),
    };
    if meta.file_type().is_symlink() {
        return Ok(Some(format!(
            "{} is a symbolic link, so it cannot be exchanged for a new directory",
            m.display()
        )));
    }
    if !meta.is_dir() {
        return Err(Error::Io {
            action: "cannot write into",
            path: m.to_path_buf(),
            source: io::Error::other("it is not a directory"),
        });
    }
    let parent = DirId::of(d).map_err(io("cannot read", d))?;
    if parent.dev != DirId::from_metadata(&meta).dev {
        return Ok(Some(format!(
            "{} is a mount point, so it cannot be exchanged for a new directory",
            m.display()
        )));
    }
    Ok(None)
}

/// The errors that say the filesystem cannot exchange (rather than that something failed).
fn refused(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EINVAL) | Some(libc::ENOSYS) | Some(libc::EXDEV)
    )
}

/// Exchange `a` and `b` (both exist), or with `b_exists` false move `a` to `b` without
/// replacing anything.
fn exchange(a: &Path, b: &Path, b_exists: bool) -> io::Result<()> {
    #[cfg(debug_assertions)]
    if b_exists && std::env::var_os(NO_EXCHANGE_ENV).is_some() {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    #[cfg(target_os = "linux")]
    {
        let flags = if b_exists {
            libc::RENAME_EXCHANGE
        } else {
            libc::RENAME_NOREPLACE
        };
        match renameat2(a, b, flags) {
            // Without RENAME_NOREPLACE support, a plain rename does it: `b` does not exist and
            // the install lock keeps other runs out.
            Err(e) if !b_exists && refused(&e) => fs::rename(a, b),
            r => r,
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (a, b, b_exists);
        Err(io::Error::from_raw_os_error(libc::ENOSYS))
    }
}

/// Debug builds only: act as if the filesystem refused `RENAME_EXCHANGE`, so the tests reach
/// the fallback on any filesystem.
#[cfg(debug_assertions)]
const NO_EXCHANGE_ENV: &str = "PO_MANIFESTS_TEST_NO_EXCHANGE";

#[cfg(target_os = "linux")]
fn renameat2(from: &Path, to: &Path, flags: libc::c_uint) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let from = std::ffi::CString::new(from.as_os_str().as_bytes())?;
    let to = std::ffi::CString::new(to.as_os_str().as_bytes())?;
    // SAFETY: both paths are NUL-terminated C strings that live across the call.
    let r = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            from.as_ptr(),
            libc::AT_FDCWD,
            to.as_ptr(),
            flags,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// One exchange in progress.
struct Change {
    d: PathBuf,
    m: PathBuf,
    stage: PathBuf,
    lock_staged: PathBuf,
    journal: Journal,
}

impl Change {
    fn commit_journal(&self) -> Result<(), Error> {
        let path = self.d.join(JOURNAL_FILE);
        let tmp = self.d.join(format!("{}.new", JOURNAL_FILE));
        let mut text = serde_json::to_vec_pretty(&self.journal).map_err(|e| Error::Journal {
            path: path.clone(),
            problem: format!("cannot be written: {e}"),
        })?;
        text.push(b'\n');
        remove_file_if_present(&tmp)?;
        if let Err(e) =
            write_synced(&tmp, &text).and_then(|()| rename(&tmp, &path, "commit the journal"))
        {
            let _ = fs::remove_file(&tmp);
            return Err(e);
        }
        sync_dir(&self.d)
    }

    fn stage(
        &self,
        files: &[ManifestFile],
        existing: &[String],
        lock: Option<&[u8]>,
        had_manifests: bool,
    ) -> Result<(), Error> {
        let tree = self.stage.join(TREE);
        fs::create_dir(&self.stage).map_err(io("cannot create", &self.stage))?;
        // The marker first: nothing is ever in S that the marker does not prove.
        write_synced(
            &self.stage.join(MARKER),
            pending_marker_text(&self.journal.token).as_bytes(),
        )?;
        crash::point("create the new manifests tree");
        steps::create_dir(&tree).map_err(io("cannot create", &tree))?;
        let id = DirId::of(&tree).map_err(io("cannot read", &tree))?;
        let next = self.stage.join(MARKER_NEXT);
        write_synced(&next, marker_text(&self.journal.token, id).as_bytes())?;
        rename(
            &next,
            &self.stage.join(MARKER),
            "record the new tree in the marker",
        )?;
        if had_manifests {
            let perms = self
                .m
                .metadata()
                .map_err(io("cannot read", &self.m))?
                .permissions();
            fs::set_permissions(&tree, perms).map_err(io("cannot set permissions", &tree))?;
            carry(&self.m, &tree, &|name| existing.iter().any(|e| e == name))?;
        }
        write_all_synced(&tree, files)?;
        sync_dir(&tree)?;
        sync_dir(&self.stage)?;
        sync_dir(&self.d)?;
        if let Some(lock) = lock {
            remove_file_if_present(&self.lock_staged)?;
            write_synced(&self.lock_staged, lock)?;
            sync_dir(&lock_dir(&self.lock_staged))?;
        }
        Ok(())
    }

    fn after_exchange(&self, lock: bool) -> Result<(), Error> {
        sync_dir(&self.stage)?;
        sync_dir(&self.d)?;
        if lock {
            rename(&self.lock_staged, &self.journal.lock, "write the lock")?;
            sync_dir(&lock_dir(&self.journal.lock))?;
        }
        Ok(())
    }

    /// Remove the staging folder, the staged lock and the journal: nothing was changed.
    fn undo(&self) -> Result<(), Error> {
        remove_dir_all_if_present(&self.stage)?;
        remove_file_if_present(&self.lock_staged)?;
        remove_file_if_present(&self.d.join(JOURNAL_FILE))?;
        sync_dir(&self.d)
    }

    /// [`Change::undo`] after `e`, returning `e` (or, when the undo fails too, both).
    fn undo_or(&self, e: Error) -> Error {
        match self.undo() {
            Ok(()) => e,
            Err(undo) => Error::Journal {
                path: self.d.join(JOURNAL_FILE),
                problem: format!(
                    "describes a change that failed ({e}) and could not be undone ({undo}); the next po-manifests create in this directory undoes it"
                ),
            },
        }
    }
}

/// Put every entry of `from` (but the top-level names `skip` says) into `to`: files
/// hard-linked (copied where a link is refused), folders made with their permissions and
/// filled, symlinks recreated as they are (never followed); each folder fsynced.
fn carry(from: &Path, to: &Path, skip: &dyn Fn(&str) -> bool) -> Result<(), Error> {
    let entries = fs::read_dir(from).map_err(io("cannot read", from))?;
    for entry in entries {
        let entry = entry.map_err(io("cannot read", from))?;
        let name = entry.file_name();
        if name.to_str().is_some_and(skip) {
            continue;
        }
        let (src, dst) = (entry.path(), to.join(&name));
        let kind = entry.file_type().map_err(io("cannot read", &src))?;
        if kind.is_symlink() {
            let target = fs::read_link(&src).map_err(io("cannot read", &src))?;
            symlink(&target, &dst).map_err(io("cannot create", &dst))?;
        } else if kind.is_dir() {
            fs::create_dir(&dst).map_err(io("cannot create", &dst))?;
            let perms = src
                .metadata()
                .map_err(io("cannot read", &src))?
                .permissions();
            fs::set_permissions(&dst, perms).map_err(io("cannot set permissions", &dst))?;
            carry(&src, &dst, &|_| false)?;
            sync_dir(&dst)?;
        } else if kind.is_file() {
            if fs::hard_link(&src, &dst).is_err() {
                fs::copy(&src, &dst).map_err(io("cannot copy", &src))?;
                fs::File::open(&dst)
                    .and_then(|f| f.sync_all())
                    .map_err(io("cannot sync", &dst))?;
            }
        } else {
            return Err(Error::Io {
                action: "cannot carry into the new manifests directory",
                path: src,
                source: io::Error::other(
                    "it is not a file, a folder or a symbolic link; move it out of manifests/",
                ),
            });
        }
    }
    Ok(())
}

#[cfg(unix)]
fn symlink(target: &Path, link: &Path) -> io::Result<()> {
    std::os::unix::fs::symlink(target, link)
}

#[cfg(not(unix))]
fn symlink(_: &Path, _: &Path) -> io::Result<()> {
    Err(io::Error::other("symbolic links are not supported here"))
}

/// Take the earlier files out of the other folder (`elsewhere`, with `check` in recovery: only
/// while they have the recorded digest), then remove the staging folder (the old tree first,
/// the marker last, so a kill in between still leaves a folder the marker proves is ours),
/// then the journal. Returns how many files left the other folder and the ones kept.
fn finish(
    d: &Path,
    stage: &Path,
    elsewhere: Option<(&Path, &Elsewhere)>,
    check: bool,
) -> Result<(usize, Vec<PathBuf>), Error> {
    let out = match elsewhere {
        Some((x, e)) => steps::remove_elsewhere(x, &e.files, check)?,
        None => (0, Vec::new()),
    };
    crash::point("remove the old manifests");
    remove_dir_all_if_present(&stage.join(TREE))?;
    remove_file_if_present(&stage.join(MARKER))?;
    match fs::remove_dir(stage) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(io("cannot remove", stage)(e)),
        _ => {}
    }
    sync_dir(d)?;
    crash::point("remove the journal");
    remove_file_if_present(&d.join(JOURNAL_FILE))?;
    sync_dir(d)?;
    Ok(out)
}

/// What the recovery of a version 2 journal did, and the staging folder it proved is its own.
pub(super) struct Recovered {
    pub done: Recovery,
    /// The staging folder the journal names when it could not be proven ours (left alone).
    pub unproven: Option<PathBuf>,
    /// The staging folder the journal names (proven or not), so the caller does not warn
    /// about it twice.
    pub stage: PathBuf,
    /// Files of the other folder left because they changed since the interrupted run checked
    /// them.
    pub kept: Vec<PathBuf>,
}

/// Finish or undo the exchange a version 2 journal (`bytes`, read from `path`) describes, in
/// install directory `d`; `folders` are this run's folder (the one an older journal means)
/// and the other one, the only folders a journal may name; `lock` is this run's lock file.
pub(super) fn recover(
    d: &Path,
    folders: &[&Path],
    path: &Path,
    bytes: &[u8],
    lock: &Path,
) -> Result<Recovered, Error> {
    let bad = |problem: String| Error::Journal {
        path: path.to_path_buf(),
        problem,
    };
    let j: Journal =
        serde_json::from_slice(bytes).map_err(|e| bad(format!("is not valid: {e}")))?;
    if !is_token(&j.token) {
        return Err(bad(format!(
            "has a token {} that po-manifests does not make",
            crate::text::escape(&j.token)
        )));
    }
    steps::check_lock_path(&j.lock, lock).map_err(&bad)?;
    let (m, elsewhere) =
        steps::journal_folders(j.folder.as_deref(), j.elsewhere.as_ref(), folders).map_err(&bad)?;
    if let Some(name) = j
        .manifests
        .iter()
        .chain(&j.remove)
        .find(|n| !steps::is_our_file_name(n))
    {
        return Err(bad(format!(
            "names a file po-manifests does not write: {}",
            crate::text::escape(name)
        )));
    }
    let lock = steps::canonical_lock(lock).map_err(io("cannot resolve", lock))?;
    let stage = d.join(format!("{STAGE_PREFIX}{}", j.token));
    let lock_staged = staged_lock_path(&lock);
    let journal_path = d.join(JOURNAL_FILE);
    let meta = match stage.symlink_metadata() {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            // Killed before staging began, or after the staging folder was removed: either
            // way manifests/ and the lock agree; only the journal is left.
            remove_file_if_present(&lock_staged)?;
            remove_file_if_present(&journal_path)?;
            sync_dir(d)?;
            return Ok(Recovered {
                done: Recovery::Cleared {
                    journal: journal_path,
                },
                unproven: None,
                stage,
                kept: Vec::new(),
            });
        }
        Err(e) => return Err(io("cannot read", &stage)(e)),
    };
    if !meta.is_dir() || meta.file_type().is_symlink() {
        return Err(bad(format!(
            "names the staging folder {}, which is {}; po-manifests follows no link and changed nothing",
            stage.display(),
            describe(&meta)
        )));
    }
    let marker = stage.join(MARKER);
    let proof = read_marker(&marker).map_err(&bad)?;
    let tree = stage.join(TREE);
    let proven = proof.as_ref().is_some_and(|(token, _)| *token == j.token);
    if !proven {
        let empty = holds_nothing(&stage, &j.token);
        if empty {
            // Killed between making the folder and finishing its marker: nothing in it to
            // lose (the marker, if any, is a part of the one this run was writing).
            remove_file_if_present(&marker)?;
            fs::remove_dir(&stage).map_err(io("cannot remove", &stage))?;
        }
        remove_file_if_present(&lock_staged)?;
        remove_file_if_present(&journal_path)?;
        sync_dir(d)?;
        return Ok(Recovered {
            done: Recovery::Discarded {
                paths: if empty {
                    vec![stage.clone(), journal_path]
                } else {
                    vec![journal_path]
                },
            },
            unproven: (!empty).then(|| stage.clone()),
            stage,
            kept: Vec::new(),
        });
    }
    if let Ok(t) = tree.symlink_metadata()
        && (!t.is_dir() || t.file_type().is_symlink())
    {
        return Err(bad(format!(
            "names the staging folder {}, whose {TREE} is {}; po-manifests follows no link and changed nothing",
            stage.display(),
            describe(&t)
        )));
    }
    let exchanged = proof
        .and_then(|(_, id)| id)
        .is_some_and(|id| DirId::of(m).is_ok_and(|now| now == id));
    if exchanged {
        match lock_staged.symlink_metadata() {
            Ok(l) if l.is_file() => {
                rename(&lock_staged, &lock, "write the lock")?;
                sync_dir(&lock_dir(&lock))?;
            }
            Ok(l) => {
                return Err(bad(format!(
                    "goes with the staged lock file {}, which is {}; po-manifests follows no link and changed nothing",
                    lock_staged.display(),
                    describe(&l)
                )));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(io("cannot read", &lock_staged)(e)),
        }
        let (elsewhere_removed, kept) = finish(d, &stage, elsewhere, true)?;
        return Ok(Recovered {
            done: Recovery::Finished {
                lock,
                placed: j.manifests.len(),
                removed: j.remove.len() + elsewhere_removed,
            },
            unproven: None,
            stage,
            kept,
        });
    }
    remove_dir_all_if_present(&stage)?;
    remove_file_if_present(&lock_staged)?;
    remove_file_if_present(&journal_path)?;
    sync_dir(d)?;
    Ok(Recovered {
        done: Recovery::Discarded {
            paths: vec![stage.clone(), journal_path],
        },
        unproven: None,
        stage,
        kept: Vec::new(),
    })
}

/// Whether the staging folder `stage` holds nothing: no entry, or only a marker cut short
/// while it was written (a regular file whose text begins the marker of `token`).
fn holds_nothing(stage: &Path, token: &str) -> bool {
    let Ok(entries) = fs::read_dir(stage) else {
        return false;
    };
    let names: Vec<_> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name())
        .collect();
    match names.as_slice() {
        [] => true,
        [only] if only == MARKER => steps::read_marker_text(&stage.join(MARKER))
            .ok()
            .flatten()
            .is_some_and(|text| pending_marker_text(token).starts_with(&text)),
        _ => false,
    }
}

/// The marker's token and tree; `None` when there is none or it is not one this module wrote.
fn read_marker(marker: &Path) -> Result<Option<(String, Option<DirId>)>, String> {
    Ok(steps::read_marker_text(marker)?
        .and_then(|text| parse_marker(&text).map(|(t, id)| (t.to_string(), id))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marker_reads_back() {
        let id = DirId { dev: 3, ino: 77 };
        let text = marker_text("ab", id);
        assert_eq!(parse_marker(&text), Some(("ab", Some(id))));
        assert_eq!(parse_marker(&pending_marker_text("ab")), Some(("ab", None)));
        assert_eq!(parse_marker("tree 1:1\n"), None);
        assert_eq!(parse_marker("token ab\ntree x:1\n"), None);
    }
}
