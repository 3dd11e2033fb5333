//! Progress on stderr for work that takes more than a moment (loading catalogs, checking and
//! converting operators, writing). Shown only when stderr is a terminal, never with `--quiet`,
//! so pipes, logs and tests see only diagnostics. The line is redrawn at each stage.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// A spinner, or nothing.
pub(super) struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// Progress for one command; hidden when `quiet` or when stderr is not a terminal.
    pub(super) fn new(quiet: bool) -> Progress {
        Progress::on(!quiet && std::io::stderr().is_terminal())
    }

    fn on(shown: bool) -> Progress {
        if !shown {
            return Progress { bar: None };
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{spinner} {msg} [{elapsed}]")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        // No steady tick: `main` holds the stderr lock for the whole run, and a drawing thread
        // would wait on it forever. Drawing from this thread re-enters that lock.
        Progress { bar: Some(bar) }
    }

    /// Start a stage.
    pub(super) fn stage(&self, message: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(message.to_string());
            bar.tick();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quiet_and_pipes_draw_nothing() {
        // Tests run with stderr captured (not a terminal).
        assert!(!Progress::new(false).shown());
        assert!(!Progress::new(true).shown());
        let hidden = Progress::on(false);
        hidden.stage("loading catalogs");
        assert!(!hidden.shown());
    }
}
