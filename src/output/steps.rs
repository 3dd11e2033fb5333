//! The filesystem steps both write protocols ([`super::exchange`], [`super::journal`]) and
//! [`super::recovery`] are made of: each rename and fsync is a crash point; new files are
//! created, never opened through a symlink or over an existing file; small files read by
//! recovery are read with `O_NOFOLLOW`. Also the names they share (the journal file, the staged
//! lock beside the lock file), the random tokens that name their staging folders, and what a
//! recovery did ([`Recovery`]).

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Error, FILE_PREFIX, MAX_MANIFEST_BYTES, crash, io, sha256_hex};

/// Journal file name, in the install directory.
pub const JOURNAL_FILE: &str = ".po-manifests-journal.json";
/// Whether `name` is a plain manifest file name po-manifests could have written (so a tampered
/// lock or journal cannot make a run touch anything else).
pub fn is_our_file_name(name: &str) -> bool {
    name.starts_with(FILE_PREFIX)
        && !name.contains(['/', '\\', '\0'])
        && name != "."
        && name != ".."
}

/// Bytes of randomness in a token (hex: twice as many characters).
const TOKEN_BYTES: usize = 16;

/// Whether `token` has the shape [`new_token`] makes (so it is a plain file-name part).
pub(super) fn is_token(token: &str) -> bool {
    token.len() == 2 * TOKEN_BYTES
        && token
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// A fresh token: `getrandom(2)` where there is one, else the time and process.
pub(super) fn new_token() -> String {
    let mut bytes = [0u8; TOKEN_BYTES];
    #[cfg(target_os = "linux")]
    {
        // SAFETY: the buffer is valid for `bytes.len()` bytes; getrandom writes at most that.
        let n = unsafe { libc::getrandom(bytes.as_mut_ptr().cast(), bytes.len(), 0) };
        if usize::try_from(n).is_ok_and(|n| n == bytes.len()) {
            return hex::encode(bytes);
        }
    }
    use sha2::Digest as _;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let h = sha2::Sha256::digest(format!("{}:{nanos}:{:p}", std::process::id(), &bytes));
    bytes.copy_from_slice(&h[..TOKEN_BYTES]);
    hex::encode(bytes)
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

/// Earlier files a change takes out of the other folder (an earlier run for another installer
/// wrote them there), after its commit; both journals record them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Elsewhere {
    /// The folder's name, inside the install directory (`manifests` or `openshift`).
    pub folder: String,
    /// The files.
    pub files: Vec<ElsewhereFile>,
}

/// One file of [`Elsewhere`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ElsewhereFile {
    /// File name (no directory).
    pub name: String,
    /// The sha256 it had when the run checked it: recovery removes it only while it still
    /// has it (`None`: it could not be read, and recovery leaves it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

/// The folder a journal names by `name` (a folder of the install directory): one of `allowed`
/// (this run's folder and the other one), never anything else a tampered journal could name.
pub(super) fn journal_folder<'a>(name: &str, allowed: &[&'a Path]) -> Result<&'a Path, String> {
    allowed
        .iter()
        .find(|p| p.file_name().is_some_and(|n| n == name))
        .copied()
        .ok_or_else(|| {
            format!(
                "names the folder {}, which is not one this run writes or takes files out of ({}); recovery touches no other. Run po-manifests create with the installer that run was for, or check the folders and remove the journal",
                crate::text::escape(name),
                allowed
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
}

/// The other folder of a journal's change and what it takes out of it.
pub(super) type OtherFolder<'a, 'e> = Option<(&'a Path, &'e Elsewhere)>;

/// The folders a journal's change touches: the one it writes (`folder`; this run's own, the
/// first of `allowed`, for an older journal that names none) and, with what it takes out of
/// it, the other one. Both must be among `allowed`, and what it says of the other is checked.
pub(super) fn journal_folders<'a, 'e>(
    folder: Option<&str>,
    elsewhere: Option<&'e Elsewhere>,
    allowed: &[&'a Path],
) -> Result<(&'a Path, OtherFolder<'a, 'e>), String> {
    let m = match folder {
        Some(name) => journal_folder(name, allowed)?,
        None => *allowed
            .first()
            .ok_or("names no folder, and this run writes none")?,
    };
    let elsewhere = match elsewhere {
        Some(e) => {
            let written = m
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            check_elsewhere(e, &written)?;
            Some((journal_folder(&e.folder, allowed)?, e))
        }
        None => None,
    };
    Ok((m, elsewhere))
}

/// Largest staging-folder marker read.
const MAX_MARKER_BYTES: u64 = 4096;

/// The text of a staging folder's marker: `None` when there is none or it cannot be read,
/// an error naming it when it is not a regular file (a link is never followed).
pub(super) fn read_marker_text(marker: &Path) -> Result<Option<String>, String> {
    match marker.symlink_metadata() {
        Err(_) => return Ok(None),
        Ok(meta) if !meta.is_file() => {
            return Err(format!(
                "goes with the marker {}, which is {}; po-manifests follows no link and changed nothing",
                marker.display(),
                describe(&meta)
            ));
        }
        Ok(_) => {}
    }
    Ok(read_no_follow(marker, MAX_MARKER_BYTES)
        .ok()
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned()))
}

/// Check what a journal says about the other folder: names po-manifests writes, digests in
/// the lock's form, a folder that is not the one the change writes.
pub(super) fn check_elsewhere(e: &Elsewhere, folder: &str) -> Result<(), String> {
    if e.folder == folder {
        return Err(format!(
            "takes files out of {}, the folder it writes",
            crate::text::escape(&e.folder)
        ));
    }
    if let Some(f) = e.files.iter().find(|f| {
        !is_our_file_name(&f.name)
            || f.sha256.as_ref().is_some_and(|d| {
                d.len() != 64
                    || !d
                        .bytes()
                        .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
            })
    }) {
        return Err(format!(
            "names a file po-manifests does not write, or a digest it does not make: {}",
            crate::text::escape(&f.name)
        ));
    }
    Ok(())
}

/// Take the files `files` of the other folder `x` out, each a regular file (never a link).
/// With `check` (recovery), a file is removed only while it has the recorded digest: one that
/// changed since, or whose digest is unknown, is left and returned. Also how many were removed.
pub(super) fn remove_elsewhere(
    x: &Path,
    files: &[ElsewhereFile],
    check: bool,
) -> Result<(usize, Vec<PathBuf>), Error> {
    let (mut removed, mut kept) = (0, Vec::new());
    for f in files {
        let path = x.join(&f.name);
        match path.symlink_metadata() {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(io("cannot read", &path)(e)),
            Ok(meta) if !meta.is_file() => {
                kept.push(path);
                continue;
            }
            Ok(_) => {}
        }
        if check {
            let same = f.sha256.as_ref().is_some_and(|d| {
                read_no_follow(&path, MAX_MANIFEST_BYTES).is_ok_and(|b| sha256_hex(&b) == *d)
            });
            if !same {
                kept.push(path);
                continue;
            }
        }
        crash::point("remove an earlier file from the other folder");
        remove_file_if_present(&path)?;
        removed += 1;
    }
    if removed > 0 {
        sync_dir(x)?;
    }
    Ok((removed, kept))
}

/// What [`super::recover`] did.
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

/// The lock file's path as a journal records it: absolute, its folder with symlinks resolved
/// (so `--dir x` and `--dir ./x`, or another working directory, name the same file).
pub(super) fn canonical_lock(lock: &Path) -> std::io::Result<PathBuf> {
    let abs = std::path::absolute(lock)?;
    Ok(match (abs.parent(), abs.file_name()) {
        (Some(parent), Some(name)) => fs::canonicalize(parent)
            .map(|p| p.join(name))
            .unwrap_or(abs),
        _ => abs,
    })
}

/// Refuse a journal whose lock file (`named`) is not exactly this run's (`ours`): recovery
/// writes only the lock file of the install it runs for, and always by its own path.
pub(super) fn check_lock_path(named: &Path, ours: &Path) -> Result<(), String> {
    let ours =
        canonical_lock(ours).map_err(|e| format!("cannot resolve {}: {e}", ours.display()))?;
    if named.is_absolute()
        && named.file_name().is_some()
        && canonical_lock(named).is_ok_and(|n| n == ours)
    {
        return Ok(());
    }
    let named = crate::text::escape(&named.display().to_string());
    Err(format!(
        "names the lock file {named}, not this run's lock file {}; recovery writes no other lock file. Run po-manifests create with the configuration whose lock that is to finish it, or check manifests/ and remove the journal",
        ours.display(),
    ))
}

/// What an entry is, for an error.
pub(super) fn describe(meta: &fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_symlink() {
        "a symbolic link"
    } else if t.is_dir() {
        "a folder"
    } else if t.is_file() {
        "a file"
    } else {
        "neither a file nor a folder"
    }
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

/// The mode of every file po-manifests writes into an install directory: the installer's own
/// (openshift/installer `pkg/asset/asset.go`, `PersistToFile` writes `os.WriteFile(path, data,
/// 0o640)`), less the umask as for the installer.
pub const FILE_MODE: u32 = 0o640;

/// The mode of a folder po-manifests creates in an install directory: the installer's
/// (`PersistToFile`'s `os.MkdirAll(dir, 0750)`), less the umask.
pub const DIR_MODE: u32 = 0o750;

/// Create a new folder with [`DIR_MODE`].
pub(super) fn create_dir(path: &Path) -> std::io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(DIR_MODE);
    }
    builder.create(path)
}

/// Write a new file with [`FILE_MODE`] (never through a symlink, never over an existing file)
/// and fsync it.
pub(super) fn write_synced(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    use std::io::Write as _;
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW).mode(FILE_MODE);
    }
    let mut f = options.open(path).map_err(io("cannot create", path))?;
    f.write_all(bytes).map_err(io("cannot write", path))?;
    crash::point("fsync a staged file");
    f.sync_all().map_err(io("cannot sync", path))
}

/// Write each of `files` as a new file in `dir` with [`write_synced`], several at once: the
/// fsyncs of a staging folder's files then share the filesystem's journal commits instead of
/// waiting for one each. A writer mostly waits for the disk, not for a core, so there are
/// [`SYNC_WRITERS`] of them whatever the number of cores (with one a core, two cores meant two
/// commits in flight and a journalled ext4 spent 50 ms on 141 small files). The error reported
/// is the first in `files`' order, whichever write failed first.
pub(super) fn write_all_synced(dir: &Path, files: &[super::ManifestFile]) -> Result<(), Error> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    let writers = files.len().clamp(1, SYNC_WRITERS);
    let mut failures: Vec<(usize, Error)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..writers)
            .map(|_| {
                s.spawn(|| {
                    let mut failed = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(f) = files.get(i) else { break };
                        if let Err(e) = write_synced(&dir.join(&f.name), &f.bytes) {
                            failed.push((i, e));
                        }
                    }
                    failed
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    failures.sort_by_key(|(i, _)| *i);
    match failures.into_iter().next() {
        Some((_, e)) => Err(e),
        None => Ok(()),
    }
}

/// How many files [`write_all_synced`] writes at once.
const SYNC_WRITERS: usize = 16;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_fresh_hex() {
        let (a, b) = (new_token(), new_token());
        assert!(is_token(&a) && is_token(&b), "{a} {b}");
        assert_ne!(a, b);
        assert!(!is_token("../x"));
    }

    /// Many files written at once all land with their bytes; when several cannot be written,
    /// the error names the first of them in the files' order, whichever thread failed first.
    #[test]
    fn files_written_at_once_land_and_fail_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let files: Vec<super::super::ManifestFile> = (0..40)
            .map(|i| super::super::ManifestFile {
                name: format!("{i:02}.yaml"),
                bytes: format!("n: {i}\n").into_bytes(),
            })
            .collect();
        write_all_synced(dir.path(), &files).unwrap();
        for f in &files {
            assert_eq!(fs::read(dir.path().join(&f.name)).unwrap(), f.bytes);
        }
        // Files that exist already are never written over: every later one fails too.
        for _ in 0..5 {
            let again = tempfile::tempdir().unwrap();
            for name in ["07.yaml", "21.yaml", "39.yaml"] {
                fs::write(again.path().join(name), "taken").unwrap();
            }
            let e = write_all_synced(again.path(), &files).unwrap_err();
            assert!(e.to_string().contains("07.yaml"), "{e}");
            assert_eq!(
                fs::read_to_string(again.path().join("21.yaml")).unwrap(),
                "taken"
            );
        }
    }
}
