//! Crash points for the write protocol's tests: each rename and fsync of [`super::journal`]
//! calls [`point`] first. In a debug build (what `cargo test` builds, and runs as the CLI in
//! `tests/it`), `PO_MANIFESTS_TEST_CRASH_AT=N` makes the process kill itself with SIGKILL at
//! the N-th point it reaches, so a test can stop `create` at every step and check that the
//! next run recovers. Release builds compile [`point`] to nothing: the variable is never read.
//!
//! Why debug builds and not a cargo feature: the integration tests run the `po-manifests`
//! binary that `cargo test --locked` builds, without extra flags; a feature would have to be
//! passed by hand (a package cannot dev-depend on itself to turn it on). `debug_assertions` is
//! on exactly in the builds that tests use and off in every build that is shipped.

/// The environment variable a test sets (debug builds only).
#[cfg(debug_assertions)]
pub(crate) const ENV: &str = "PO_MANIFESTS_TEST_CRASH_AT";

/// A point where the process may be killed: `label` says what is about to happen.
#[cfg(debug_assertions)]
pub(crate) fn point(label: &str) {
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicU64, Ordering};
    static AT: OnceLock<Option<u64>> = OnceLock::new();
    static REACHED: AtomicU64 = AtomicU64::new(0);
    let Some(at) = *AT.get_or_init(|| std::env::var(ENV).ok().and_then(|v| v.parse().ok())) else {
        return;
    };
    let n = REACHED.fetch_add(1, Ordering::SeqCst) + 1;
    if n == at {
        let line = format!("po-manifests: test crash point {n}: killed before {label}\n");
        #[cfg(unix)]
        // SAFETY: write(2) of a live buffer to fd 2 and kill(2) on our own pid have no
        // memory-safety preconditions. The line goes straight to fd 2, not through
        // `eprintln!`: `main` holds the standard-error lock for the whole run, so a point
        // reached on a worker thread would wait for it forever.
        unsafe {
            libc::write(2, line.as_ptr().cast(), line.len());
            libc::kill(libc::getpid(), libc::SIGKILL);
        }
        #[cfg(not(unix))]
        eprint!("{line}");
        std::process::abort();
    }
}

/// Release builds: no crash points.
#[cfg(not(debug_assertions))]
#[inline(always)]
pub(crate) fn point(_label: &str) {}
