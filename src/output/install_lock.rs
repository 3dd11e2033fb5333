//! One writing run per install directory: an exclusive advisory lock (`flock(2)` through
//! [`std::fs::File::lock`]) on the install directory itself, held from before the lock file is
//! read until the process exits. The kernel drops the lock when its holder dies, however it
//! dies, so a crashed run never blocks the next one, and no lock file is left in the directory.

use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};

use super::Error;

/// An exclusive lock on an install directory; released when dropped (or the process ends).
#[derive(Debug)]
pub struct InstallLock {
    _dir: File,
    path: PathBuf,
}

/// What to do when another run holds the lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// Wait for it (after calling the `waiting` callback once).
    Wait,
    /// Fail at once with [`Error::Busy`] (`--no-wait`).
    NoWait,
}

impl InstallLock {
    /// Lock `dir` (which must exist). When another run holds it: with [`Wait::Wait`], call
    /// `waiting` (to say so) and block until it is released; with [`Wait::NoWait`], fail.
    pub fn acquire(dir: &Path, wait: Wait, waiting: impl FnOnce()) -> Result<InstallLock, Error> {
        let file = File::open(dir).map_err(super::io("cannot open", dir))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => match wait {
                Wait::NoWait => {
                    return Err(Error::Busy {
                        dir: dir.to_path_buf(),
                    });
                }
                Wait::Wait => {
                    waiting();
                    file.lock().map_err(super::io("cannot lock", dir))?;
                }
            },
            Err(TryLockError::Error(e)) => return Err(super::io("cannot lock", dir)(e)),
        }
        Ok(InstallLock {
            _dir: file,
            path: dir.to_path_buf(),
        })
    }

    /// The locked directory.
    pub fn dir(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_fails_with_no_wait_and_succeeds_after_release() {
        let d = tempfile::tempdir().unwrap();
        let first = InstallLock::acquire(d.path(), Wait::NoWait, || {}).unwrap();
        let e = InstallLock::acquire(d.path(), Wait::NoWait, || {}).unwrap_err();
        assert!(matches!(e, Error::Busy { .. }), "{e}");
        assert!(e.is_io());
        drop(first);
        InstallLock::acquire(d.path(), Wait::NoWait, || {}).unwrap();
    }

    #[test]
    fn waiting_says_so_then_gets_the_lock() {
        let d = tempfile::tempdir().unwrap();
        let first = InstallLock::acquire(d.path(), Wait::NoWait, || {}).unwrap();
        let path = d.path().to_path_buf();
        let (tx, rx) = std::sync::mpsc::channel();
        let t = std::thread::spawn(move || {
            InstallLock::acquire(&path, Wait::Wait, || tx.send(()).unwrap()).map(|_| ())
        });
        rx.recv().unwrap();
        drop(first);
        t.join().unwrap().unwrap();
    }

    #[test]
    fn leaves_no_file_in_the_directory() {
        let d = tempfile::tempdir().unwrap();
        drop(InstallLock::acquire(d.path(), Wait::NoWait, || {}).unwrap());
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
    }
}
