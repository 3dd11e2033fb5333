//! Progress on stderr for work that takes more than a moment (loading catalogs, checking and
//! converting operators, pulling bundles, writing) and a line for each registry or HTTPS retry.
//! Shown only when stderr is a terminal, never with `--quiet`, so pipes, logs and tests see
//! only diagnostics.
//!
//! `main` holds the `std::io::stderr()` lock for the whole run, so nothing else may write
//! through it: a spinner thread, or a retry on a catalog-loading worker thread, would wait on
//! it forever. The progress line is therefore drawn on its own duplicate of file descriptor 2,
//! which no lock guards; the stages and retries of the library arrive through
//! [`crate::notice`] from any thread; and the command's own writes to stdout and stderr go
//! through [`Progress::writer`], which takes the line away while they are written.

use std::io::{IsTerminal, Write};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::notice::{self, Event};

/// A spinner line, or nothing.
pub(super) struct Progress {
    bar: Option<ProgressBar>,
    /// Stages and retries from the library while the line is shown.
    _events: Option<notice::Subscription>,
}

impl Progress {
    /// Progress for one command; hidden when `quiet` or when stderr is not a terminal.
    pub(super) fn new(quiet: bool) -> Progress {
        if quiet || !std::io::stderr().is_terminal() {
            return Progress::hidden();
        }
        match own_stderr() {
            Some(target) => Progress::drawn(target),
            None => Progress::hidden(),
        }
    }

    fn hidden() -> Progress {
        Progress {
            bar: None,
            _events: None,
        }
    }

    fn drawn(target: ProgressDrawTarget) -> Progress {
        let bar = ProgressBar::with_draw_target(None, target);
        bar.set_style(
            ProgressStyle::with_template("{spinner} {msg} [{elapsed}]")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.enable_steady_tick(Duration::from_millis(120));
        let events = {
            let bar = bar.clone();
            notice::subscribe(move |event| match event {
                Event::Stage(message) => bar.set_message(shown(message)),
                Event::Notice(message) => bar.println(shown(message)),
            })
        };
        Progress {
            bar: Some(bar),
            _events: Some(events),
        }
    }

    /// Start a stage.
    pub(super) fn stage(&self, message: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(shown(message));
        }
    }

    /// `inner`, written with the progress line taken away (and drawn again after).
    pub(super) fn writer<'a>(&self, inner: &'a mut dyn Write) -> Suspending<'a> {
        Suspending {
            bar: self.bar.clone(),
            inner,
            pending: Vec::new(),
        }
    }

    /// Whether anything is drawn.
    #[cfg(test)]
    fn shown(&self) -> bool {
        self.bar.is_some()
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// A message as drawn: stages and notices carry catalog text (image references) and
/// registry or server replies, so control characters are escaped before they reach the
/// terminal.
fn shown(message: &str) -> String {
    crate::text::printable(message).into_owned()
}

/// A writer that clears the progress line around each write (see [`Progress::writer`]).
/// Text is passed on in whole lines (a `write!` arrives in pieces, and the line would be
/// drawn between them); the rest on `flush` or when dropped.
pub(super) struct Suspending<'a> {
    bar: Option<ProgressBar>,
    inner: &'a mut dyn Write,
    pending: Vec<u8>,
}

impl Suspending<'_> {
    fn pass_on(&mut self, upto: usize) -> std::io::Result<()> {
        let (inner, pending) = (&mut self.inner, &mut self.pending);
        let mut write = || inner.write_all(&pending[..upto]);
        match &self.bar {
            Some(bar) => bar.suspend(write)?,
            None => write()?,
        }
        self.pending.drain(..upto);
        Ok(())
    }
}

impl Write for Suspending<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.bar.is_none() {
            return self.inner.write(buf);
        }
        self.pending.extend_from_slice(buf);
        if let Some(last) = self.pending.iter().rposition(|b| *b == b'\n') {
            self.pass_on(last + 1)?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if !self.pending.is_empty() {
            self.pass_on(self.pending.len())?;
        }
        self.inner.flush()
    }
}

impl Drop for Suspending<'_> {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

/// A draw target on a duplicate of stderr's file descriptor, outside `std::io::stderr()`'s lock.
#[cfg(unix)]
fn own_stderr() -> Option<ProgressDrawTarget> {
    use std::os::fd::AsFd;
    let fd = std::io::stderr().as_fd().try_clone_to_owned().ok()?;
    let write = std::fs::File::from(fd);
    let read = write.try_clone().ok()?;
    Some(ProgressDrawTarget::term(
        console::Term::read_write_pair(read, write),
        15,
    ))
}

/// Elsewhere no progress is drawn: stderr could only be reached through its lock.
#[cfg(not(unix))]
fn own_stderr() -> Option<ProgressDrawTarget> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quiet_and_pipes_draw_nothing() {
        // Tests run with stderr captured (not a terminal).
        assert!(!Progress::new(false).shown());
        assert!(!Progress::new(true).shown());
        let hidden = Progress::hidden();
        hidden.stage("loading catalogs");
        assert!(!hidden.shown());
        let mut out = Vec::new();
        hidden.writer(&mut out).write_all(b"a line\n").unwrap();
        assert_eq!(out, b"a line\n");
    }

    #[test]
    fn control_characters_in_messages_are_escaped() {
        assert_eq!(
            shown("retrying r: \u{1b}[2Jgone\r"),
            "retrying r: \\u{1b}[2Jgone\\r"
        );
        assert_eq!(shown("pulling quay.io/a/b:1"), "pulling quay.io/a/b:1");
    }

    #[test]
    fn a_drawn_line_hears_the_library_and_passes_writes_through() {
        // Drawn to a hidden target: the events and the writer still run their drawn paths.
        let progress = Progress::drawn(ProgressDrawTarget::hidden());
        assert!(progress.shown());
        progress.stage("loading 1 catalog(s)");
        std::thread::spawn(|| notice::stage(|| "progress-test: pulling".into()))
            .join()
            .unwrap();
        let bar = progress.bar.clone().unwrap();
        // Other tests emit concurrently; this one's stage arrived unless a later one replaced it.
        assert_ne!(bar.message(), "loading 1 catalog(s)");
        let mut out = Vec::new();
        {
            let mut w = progress.writer(&mut out);
            write!(w, "wrote {} manifests", 2).unwrap();
            writeln!(w, " and the lock").unwrap();
            write!(w, "rest").unwrap();
        }
        assert_eq!(out, b"wrote 2 manifests and the lock\nrest");
    }
}
