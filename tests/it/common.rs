//! Shared helpers: a temporary install directory, the command, output normalisation.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared/realdata`, or `None` (with a note on stderr) when it is absent.
pub fn realdata(test: &str) -> Option<PathBuf> {
    let p = root().join("../shared/realdata");
    if p.is_dir() {
        Some(p)
    } else {
        eprintln!("skipped {test}: ../shared/realdata is not there");
        None
    }
}

/// A temporary install directory holding a copy of `testdata/example`.
pub fn example() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&root().join("testdata/example"), dir.path());
    let _ = std::fs::remove_dir_all(dir.path().join("manifests"));
    let _ = std::fs::remove_file(dir.path().join("platform-operators.lock.yaml"));
    dir
}

/// The example without its subscription-profile operator (`dns-operator`), for tests that break
/// the catalog in ways OLM v1 and the PlatformOperator manager resolve around and `opm serve`
/// (which every catalog of the subscription profile must pass) refuses.
pub fn example_without_subscriptions() -> tempfile::TempDir {
    let d = example();
    let path = d.path().join("platform-operators.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let dns = "  - name: dns-operator\n    package: acme-dns-operator\n    channel: stable\n    profile: subscription\n";
    assert!(text.contains(dns), "{text}");
    std::fs::write(&path, text.replace(dns, "")).unwrap();
    d
}

/// The example as the Agent-based installer can install it on 4.14: no featureSet (which that
/// installer does not carry to the cluster, issue 33 item 5), so no PlatformOperator either;
/// the bootstrap CCM alone.
pub fn agent_example() -> tempfile::TempDir {
    let d = example();
    let path = d.path().join("install-config.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let text: String = text
        .lines()
        .filter(|l| !l.starts_with("featureSet:"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&path, text).unwrap();
    let path = d.path().join("platform-operators.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let cert = "  - name: cert-operator\n    package: acme-cert-operator\n    channel: stable\n    version: \">=1.0.0 <2.0.0\"\n";
    assert!(text.contains(cert), "{text}");
    std::fs::write(&path, text.replace(cert, "")).unwrap();
    d
}

/// The example's install-config without `cloudControllerManager: External`, for tests that
/// take the example's cloud controller manager out: with it, `create` refuses the install
/// (`external-without-ccm`, nodes would never be initialised).
pub fn without_external_ccm(dir: &Path) {
    let path = dir.join("install-config.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let line = "    cloudControllerManager: External\n";
    assert!(text.contains(line), "{text}");
    std::fs::write(&path, text.replace(line, "")).unwrap();
}

/// Copy a directory tree.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in walkdir::WalkDir::new(from).min_depth(1) {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(from).unwrap();
        let target = to.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The binary, with colour off.
pub fn cmd() -> Command {
    let mut c = Command::cargo_bin("po-manifests").unwrap();
    c.env("NO_COLOR", "1").env_remove("RUST_LOG");
    c
}

/// Every file under a directory with its content, sorted, as `(relative path, text)`.
pub fn tree(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if !dir.exists() {
        return out;
    }
    for entry in walkdir::WalkDir::new(dir).sort_by_file_name().min_depth(1) {
        let entry = entry.unwrap();
        if entry.file_type().is_file() {
            let rel = entry
                .path()
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            out.push((
                rel,
                std::fs::read_to_string(entry.path()).unwrap_or_else(|_| "<binary>".into()),
            ));
        }
    }
    out
}

/// Output with a directory replaced by `[DIR]`.
pub fn normalize(text: &[u8], dir: &Path) -> String {
    String::from_utf8_lossy(text).replace(&dir.display().to_string(), "[DIR]")
}

/// The binary as a plain `std::process::Command` (colour off), for [`run_on_terminal`].
#[cfg(target_os = "linux")]
pub fn terminal_cmd() -> std::process::Command {
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin!("po-manifests"));
    c.env("NO_COLOR", "1").env_remove("RUST_LOG");
    c
}

/// Run `command` with stderr on a pseudo-terminal (so progress is drawn) and stdout piped;
/// returns the exit status, stdout and everything the terminal received. Fails rather than
/// hangs when the run does not finish (a progress line waiting on the stderr lock would hang
/// it).
#[cfg(target_os = "linux")]
pub fn run_on_terminal(mut command: std::process::Command) -> (Option<i32>, String, String) {
    use std::io::Read as _;
    use std::os::fd::{FromRawFd as _, OwnedFd};
    let (mut master, mut slave) = (-1, -1);
    // SAFETY: openpty writes two new descriptors into the given ints; the null pointers ask
    // for no name, no termios and no window size.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(rc, 0, "openpty");
    // SAFETY: both descriptors were just opened by openpty and are owned here alone.
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    let mut child = command
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::from(slave))
        .spawn()
        .unwrap();
    // The command holds the terminal's other side until it is dropped; the reader sees EIO
    // only once the child is its last holder.
    drop(command);
    let mut terminal = std::fs::File::from(master);
    let reader = std::thread::spawn(move || {
        let mut seen = Vec::new();
        let mut buf = [0u8; 4096];
        // EIO once the child (the last holder of the other side) has exited.
        while let Ok(n) = terminal.read(&mut buf) {
            if n == 0 {
                break;
            }
            seen.extend_from_slice(&buf[..n]);
        }
        String::from_utf8_lossy(&seen).into_owned()
    });
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > std::time::Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("the command did not finish within 60 s with stderr on a terminal");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    (status.code(), stdout, reader.join().unwrap())
}

/// The binary as a plain `std::process::Command` (for spawning), with colour off.
pub fn std_cmd() -> std::process::Command {
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin!("po-manifests"));
    c.env("NO_COLOR", "1").env_remove("RUST_LOG");
    c
}

/// Run `c` to its end and return its output with its peak resident memory in bytes: the
/// largest `VmHWM` of `/proc/<pid>/status`, read every few milliseconds while it runs (the
/// high-water mark of the program's own memory; `wait4`'s `ru_maxrss` would count the test
/// process the child was spawned from).
#[cfg(target_os = "linux")]
pub fn run_measured(mut c: std::process::Command) -> (std::process::Output, u64) {
    use std::process::Stdio;
    let child = c
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status = format!("/proc/{}/status", child.id());
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let sampler = {
        let done = done.clone();
        std::thread::spawn(move || {
            let mut peak: u64 = 0;
            // Bounded: the command's own timeouts end it; this stops when it has exited.
            while !done.load(std::sync::atomic::Ordering::SeqCst) {
                let Ok(text) = std::fs::read_to_string(&status) else {
                    break;
                };
                let Some(kib) = text
                    .lines()
                    .find_map(|l| l.strip_prefix("VmHWM:"))
                    .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
                else {
                    break; // a zombie has no memory left
                };
                peak = peak.max(kib * 1024);
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            peak
        })
    };
    let output = child.wait_with_output().unwrap();
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    (output, sampler.join().unwrap())
}
