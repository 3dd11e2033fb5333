//! The `po-manifests` binary: parse flags, run, map the outcome to an exit status.

use std::process::ExitCode;

use clap::Parser as _;
use po_manifests::cli::{self, EXIT_USAGE, Flags, diagnostics};

fn main() -> ExitCode {
    let flags = match Flags::try_parse() {
        Ok(f) => f,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { EXIT_USAGE } else { 0 });
        }
    };
    let mut stdout = std::io::stdout().lock();
    let mut stderr = std::io::stderr().lock();
    match cli::run(flags, &mut stdout, &mut stderr) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            // A closed pipe on stdout (e.g. `| head`) is not a failure.
            if let cli::Error::Stdout(io) = &e
                && io.kind() == std::io::ErrorKind::BrokenPipe
            {
                return ExitCode::SUCCESS;
            }
            use std::io::Write as _;
            let color = std::io::IsTerminal::is_terminal(&std::io::stderr())
                && std::env::var_os("NO_COLOR").is_none();
            for report in diagnostics::error(&e) {
                let _ = write!(stderr, "{}", report.render(color));
            }
            ExitCode::from(e.exit_code())
        }
    }
}
