//! Recovery: at the start of every writing run, under the [`super::InstallLock`], finish or
//! undo what an interrupted run left in the install directory. A version 2 journal (the
//! exchange) goes to [`super::exchange`], a version 1 journal (the file-by-file fallback, and
//! older po-manifests) to [`super::journal`]. Recovery follows no symlink, writes only this
//! run's own lock file, and deletes only the staging folder its journal and marker prove it
//! made: any other `D/.po-manifests-stage-*` is left alone and reported
//! ([`Recovered::left_alone`]). A folder named like the fallback's staging folder inside
//! `manifests/` that no journal names is left alone too, and refuses the run
//! ([`Error::StagingNotOurs`]) before anything is changed: the installer reads that folder,
//! and openshift-install fails on a folder in it while cluster-bootstrap would create every
//! object it holds.

use std::fs;
use std::path::{Path, PathBuf};

use super::exchange::{self, STAGE_PREFIX};
use super::journal::{self, STAGE_DIR, stage_of};
use super::steps::{
    self, JOURNAL_FILE, Recovery, install_dir, read_no_follow, remove_file_if_present,
    staged_lock_path, sync_dir,
};
use super::{Error, Target};

/// Largest journal read (it lists file names; a few hundred KB at most).
const MAX_JOURNAL_BYTES: u64 = 16 * 1024 * 1024;
/// What [`recover`] did, and the staging folders it left alone.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Recovered {
    /// The interrupted change it finished or undid, if any.
    pub done: Option<Recovery>,
    /// Folders named like po-manifests staging that nothing proves it made: left alone.
    pub left_alone: Vec<PathBuf>,
    /// Files of the other folder the interrupted run was taking out that changed since: left.
    pub kept: Vec<PathBuf>,
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
        for p in &self.kept {
            out.push(format!(
                "warning: {} was to be taken out by the interrupted po-manifests run, but it changed since; left in place (remove it yourself if it is not needed)",
                crate::text::printable(&p.display().to_string())
            ));
        }
        out
    }
}

/// Finish or undo a change an interrupted run left in the install directory that holds
/// `target.dir` (see the module comment and [`super::exchange`]); a journal may name that
/// folder or `target.other` (an interrupted run for another installer), no other. `lock` is
/// this run's lock file: the only lock file recovery writes (a journal naming another is
/// refused), and its staged copy is removed when no journal is left. Call it holding the
/// [`super::InstallLock`].
pub fn recover(target: Target<'_>, lock: &Path) -> Result<Recovered, Error> {
    let manifests = target.dir;
    let folders: Vec<&Path> = [Some(target.dir), target.other]
        .into_iter()
        .flatten()
        .collect();
    let dir = install_dir(manifests);
    let mut named = None;
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
            if version != Some(u64::from(exchange::JOURNAL_VERSION))
                && version != Some(u64::from(journal::JOURNAL_VERSION))
            {
                return Err(bad(format!(
                    "has journalVersion {} (expected {} or {})",
                    version.map_or("(none)".to_string(), |v| v.to_string()),
                    journal::JOURNAL_VERSION,
                    exchange::JOURNAL_VERSION
                )));
            }
            if version == Some(u64::from(exchange::JOURNAL_VERSION)) {
                refuse_unproven_staging(manifests, None)?;
                let r = exchange::recover(&dir, &folders, &path, &bytes, lock)?;
                recovered.done = Some(r.done);
                recovered.left_alone.extend(r.unproven);
                recovered.kept = r.kept;
                ours = Some(r.stage);
            } else {
                let j: journal::Journal = serde_json::from_slice(&bytes)
                    .map_err(|e| bad(format!("is not valid: {e}")))?;
                let m = j
                    .folder
                    .as_deref()
                    .and_then(|n| steps::journal_folder(n, &folders).ok())
                    .unwrap_or(manifests);
                let stage = stage_of(m, j.token.as_deref());
                refuse_unproven_staging(manifests, Some(&stage))?;
                named = Some(stage);
                let (done, kept) = journal::recover(&dir, &folders, &path, &j, lock)?;
                recovered.done = Some(done);
                recovered.kept = kept;
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            refuse_unproven_staging(manifests, None)?;
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
    for folder in staging_folders(&dir) {
        if Some(&folder) != ours.as_ref() && !recovered.left_alone.contains(&folder) {
            recovered.left_alone.push(folder);
        }
    }
    // In the other folder a stray staging folder does not refuse the run (this run writes
    // nothing there, and that installer reads only *.yaml, *.yml and *.json files of it).
    if let Some(other) = target.other {
        for folder in fallback_staging_in(other, named.as_deref()) {
            if !recovered.left_alone.contains(&folder) {
                recovered.left_alone.push(folder);
            }
        }
    }
    Ok(recovered)
}

/// The folders in `folder` named like the fallback's staging folder, but `named` (the one the
/// journal names, which it proves or refuses), sorted.
fn fallback_staging_in(folder: &Path, named: Option<&Path>) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(STAGE_DIR))
        .map(|e| e.path())
        .filter(|p| Some(p.as_path()) != named)
        .collect();
    paths.sort();
    paths
}

/// Refuse the run, changing nothing, when `manifests` holds a folder named like the fallback's
/// staging folder other than `named` (the one the journal names, which it proves or refuses).
fn refuse_unproven_staging(manifests: &Path, named: Option<&Path>) -> Result<(), Error> {
    let paths = fallback_staging_in(manifests, named);
    if paths.is_empty() {
        return Ok(());
    }
    Err(Error::StagingNotOurs {
        paths,
        folder: manifests.to_path_buf(),
    })
}

/// No journal: remove the staged lock and the temporary journal a run killed before its
/// journal was in place may have left. Staging folders are not removed: without a journal
/// nothing proves po-manifests made them ([`recover`] refuses or warns about them).
fn discard(dir: &Path, manifests: &Path, lock: &Path) -> Result<Option<Recovery>, Error> {
    let mut paths = Vec::new();
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

/// The staging folders in `d` (names starting with [`STAGE_PREFIX`]).
fn staging_folders(d: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(d) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(STAGE_PREFIX))
        .map(|e| e.path())
        .collect();
    out.sort();
    out
}
