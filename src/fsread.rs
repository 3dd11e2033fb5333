//! Bounded, checked reads of input files: the configuration, install-config, catalogs, the lock
//! file and templates all come through here.
//!
//! - The cap counts bytes actually read, never the length the filesystem reports (0 for a pipe
//!   or a device, and a file may grow while it is read). A regular file that already reports
//!   more than the cap is refused before its first byte is read ([`open_capped`]).
//! - Only regular files are read (no command reads a stream such as `-` for stdin). A FIFO, a
//!   device or a socket is refused before any byte is read; the file is opened with
//!   `O_NONBLOCK` so opening a FIFO cannot block either.
//! - Under a root (a catalog, template or install folder), a symbolic link is followed only when its
//!   target stays inside the root. A link that leaves it is refused naming the link, never its
//!   target, so no error quotes a file the user did not point at.
//! - The folders of an install directory D that po-manifests writes (`manifests/`,
//!   `openshift/`) are D's own: one that is a symbolic link leaving D is refused, for reading
//!   and writing alike, unless the user asks for it (`--follow-links`): [`own_folder`].
//!
//! Errors are [`std::io::Error`]s with a message that says what is wrong, so each caller keeps
//! its own error type (with the path) around them.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// Cap for one file of a bundle directory (a CSV with its embedded icon, a CRD with a large
/// schema): well above any real bundle file, far below what would exhaust memory.
pub const BUNDLE_FILE_LIMIT: u64 = 64 << 20;

/// Cap for a small credentials or certificate file (`--authfile`, `--ca-file`).
pub const SMALL_FILE_LIMIT: u64 = 16 << 20;

/// Open `path` for reading, refusing what is not a regular file and, when `root` is given, a
/// symbolic link whose target is outside `root`.
pub fn open(path: &Path, root: Option<&Path>) -> io::Result<File> {
    if let Some(root) = root {
        check_confined(path, root)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = options.open(path)?;
    let file_type = file.metadata()?.file_type();
    if !file_type.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "is {}, not a regular file; only regular files are read",
                kind_of(&file_type)
            ),
        ));
    }
    Ok(file)
}

/// [`open`], capped at `limit` bytes: a file whose reported length is already over the cap is
/// refused at once, before anything is read (the cap still counts the bytes read, for a file
/// that grows).
pub fn open_capped(path: &Path, limit: u64, root: Option<&Path>) -> io::Result<Capped<File>> {
    let file = open(path, root)?;
    if file.metadata()?.len() > limit {
        return Err(too_large(limit));
    }
    Ok(Capped::new(file, limit))
}

/// Read all of `path` (see [`open_capped`]), failing once more than `limit` bytes have been
/// read.
pub fn read(path: &Path, limit: u64, root: Option<&Path>) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    open_capped(path, limit, root)?.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// [`read`], as UTF-8 text.
pub fn read_to_string(path: &Path, limit: u64, root: Option<&Path>) -> io::Result<String> {
    utf8(read(path, limit, root)?)
}

/// Turn bytes into text, naming the first byte that is not UTF-8.
pub fn utf8(bytes: Vec<u8>) -> io::Result<String> {
    String::from_utf8(bytes).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("not UTF-8 (byte {})", e.utf8_error().valid_up_to()),
        )
    })
}

#[cfg(test)]
fn read_capped(reader: impl Read, limit: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    Capped::new(reader, limit).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// A reader that fails with "more than `limit` bytes" once more than `limit` bytes have come
/// through it, for inputs that are streamed rather than read whole (catalogs).
#[derive(Debug)]
pub struct Capped<R> {
    inner: R,
    limit: u64,
    read: u64,
}

impl<R> Capped<R> {
    /// Cap `inner` at `limit` bytes.
    pub fn new(inner: R, limit: u64) -> Capped<R> {
        Capped {
            inner,
            limit,
            read: 0,
        }
    }
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // Allow one byte past the limit, so reaching exactly `limit` bytes is not an error.
        let room = (self.limit + 1 - self.read.min(self.limit + 1)).min(buf.len() as u64);
        let n = self.inner.read(&mut buf[..room as usize])?;
        self.read += n as u64;
        if self.read > self.limit {
            return Err(too_large(self.limit));
        }
        Ok(n)
    }
}

fn too_large(limit: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::FileTooLarge,
        format!("is larger than {limit} bytes, the most read from such a file"),
    )
}

/// What a file system entry is, in words ("a FIFO (named pipe)", "a directory"), for an
/// entry that is not read as a file.
pub fn kind_of(t: &std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// A folder of an install directory, where it is read and written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Folder {
    /// The folder: `D/NAME` itself, or where the link `D/NAME` leads when it is followed.
    pub path: PathBuf,
    /// What its entries must stay inside: `D`, or the followed folder itself.
    pub root: PathBuf,
    /// It is a symbolic link out of `D`, followed because the user asked.
    pub followed: bool,
}

/// The folder `name` of the install directory `dir` (`manifests`, `openshift`), under the one
/// rule for the folders po-manifests writes: they are `dir`'s own. A real folder, a missing
/// one and a symbolic link that stays inside `dir` are `dir/name`; a link that leaves `dir` is
/// refused, naming the link and never its target, unless `follow` (`--follow-links`), when the
/// folder is where it leads.
pub fn own_folder(dir: &Path, name: &str, follow: bool) -> io::Result<Folder> {
    let path = dir.join(name);
    let own = Folder {
        path: path.clone(),
        root: dir.to_path_buf(),
        followed: false,
    };
    match path.symlink_metadata() {
        Ok(meta) if meta.file_type().is_symlink() => {}
        _ => return Ok(own),
    }
    let real_root = dir.canonicalize()?;
    match path.canonicalize() {
        Ok(real) if real.starts_with(&real_root) => Ok(own),
        Ok(real) if follow => Ok(Folder {
            path: real.clone(),
            root: real,
            followed: true,
        }),
        Ok(_) => Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{} is a symbolic link that leaves {}: po-manifests reads and writes only the install directory's own folders, so it is not followed; pass --follow-links to use the folder it leads to",
                path.display(),
                dir.display()
            ),
        )),
        // A link to nothing: what opens it reports that.
        Err(_) => Ok(own),
    }
}

/// Whether there is an entry at `path`, of any type (a symbolic link is not followed, so a
/// link to nothing is there too). A caller that finds one reads it, and [`open`] refuses what
/// is not a regular file: a FIFO or a folder where a file belongs is an error, never "absent".
pub fn is_there(path: &Path) -> bool {
    path.symlink_metadata().is_ok()
}

/// Refuse `path` when it, or a directory between `root` and it, is a symbolic link whose
/// target is outside `root`. The message names the link only.
pub fn check_confined(path: &Path, root: &Path) -> io::Result<()> {
    let Ok(rel) = path.strip_prefix(root) else {
        return Ok(());
    };
    let real_root = root.canonicalize()?;
    let mut at = root.to_path_buf();
    for part in rel.components() {
        at.push(part);
        let Ok(meta) = at.symlink_metadata() else {
            // Missing: opening reports it.
            return Ok(());
        };
        if meta.file_type().is_symlink() {
            let inside = at
                .canonicalize()
                .map(|real| real.starts_with(&real_root))
                .unwrap_or(false);
            if !inside {
                return Err(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    format!(
                        "{} is a symbolic link that leaves {}; links in a catalog, template or install folder must stay inside it",
                        at.display(),
                        root.display()
                    ),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_file_up_to_the_cap_and_no_further() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("f");
        std::fs::write(&p, b"12345").unwrap();
        assert_eq!(read(&p, 5, None).unwrap(), b"12345");
        let e = read(&p, 4, None).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::FileTooLarge);
        assert!(e.to_string().contains("larger than 4 bytes"), "{e}");
    }

    #[test]
    fn a_file_reporting_more_than_the_cap_is_refused_before_reading() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("sparse");
        // A sparse file: it reports 1 GiB but holds no data, so reading it would take seconds.
        std::fs::File::create(&p).unwrap().set_len(1 << 30).unwrap();
        // Refused by the open, which reads nothing.
        let e = open_capped(&p, 1 << 20, None).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::FileTooLarge);
        assert!(e.to_string().contains("larger than 1048576 bytes"), "{e}");
        let e = read(&p, 1 << 20, None).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::FileTooLarge);
        assert_eq!(open_capped(&p, 1 << 30, None).unwrap().limit, 1 << 30);
    }

    #[test]
    fn an_endless_device_is_refused_before_reading() {
        let e = read(Path::new("/dev/zero"), 1 << 20, None).unwrap_err();
        assert!(e.to_string().contains("character device"), "{e}");
    }

    #[test]
    fn the_cap_counts_bytes_read_from_a_stream() {
        let endless = io::repeat(b'y');
        let e = read_capped(endless, 1000).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::FileTooLarge);
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("fifo");
        let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = read(&p, 10, None).unwrap_err();
        assert!(e.to_string().contains("FIFO"), "{e}");
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_leaving_the_root_is_refused_naming_the_link_only() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("catalog");
        std::fs::create_dir(&root).unwrap();
        std::fs::write(d.path().join("secret.yaml"), "password: hunter2\n").unwrap();
        std::fs::write(root.join("inside.yaml"), "a: 1\n").unwrap();
        std::os::unix::fs::symlink(d.path().join("secret.yaml"), root.join("link.yaml")).unwrap();
        std::os::unix::fs::symlink("inside.yaml", root.join("ok.yaml")).unwrap();
        let e = read(&root.join("link.yaml"), 100, Some(&root)).unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("link.yaml") && text.contains("leaves"),
            "{text}"
        );
        assert!(
            !text.contains("secret") && !text.contains("hunter2"),
            "{text}"
        );
        assert_eq!(
            read(&root.join("ok.yaml"), 100, Some(&root)).unwrap(),
            b"a: 1\n"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_symlinked_directory_leaving_the_root_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("catalog");
        let outside = d.path().join("outside");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("x.yaml"), "a: 1\n").unwrap();
        std::os::unix::fs::symlink(&outside, root.join("sub")).unwrap();
        let e = read(&root.join("sub/x.yaml"), 100, Some(&root)).unwrap_err();
        assert!(e.to_string().contains("sub"), "{e}");
    }

    proptest::proptest! {
        #[test]
        fn capped_reads_exactly_up_to_the_limit(len in 0usize..3000, limit in 0u64..3000) {
            let data = vec![7u8; len];
            let r = read_capped(&data[..], limit);
            if len as u64 <= limit {
                proptest::prop_assert_eq!(r.unwrap(), data);
            } else {
                proptest::prop_assert_eq!(r.unwrap_err().kind(), io::ErrorKind::FileTooLarge);
            }
        }
    }
}
