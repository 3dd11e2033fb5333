//! The command-line layer: [`flags`] is what was typed; each command module turns its flags
//! into the library's input ([`crate::install::Install`] for the install step), calls the
//! library and prints; `plan_report` prints an install plan for `create`, `resolve` and
//! `upgrade-plan --write` alike. No command module imports another.
//! Errors are typed ([`Error`]) and know their exit status; [`diagnostics`] renders them with
//! miette, pointing into the configuration file where the error is about it.

mod bundle_cmd;
mod catalog_cmd;
mod check_cmd;
mod create;
pub mod diagnostics;
pub mod flags;
mod images_cmd;
mod plan_report;
mod printer;
mod progress;
mod range;
mod resolve_cmd;
mod upgrade_plan;

use std::io::Write;

pub use flags::Flags;

pub use crate::install::error::{EXIT_INVALID, EXIT_IO, EXIT_OK, EXIT_USAGE, Error};

/// Run a parsed command line. Reports go to `stdout`; warnings and diagnostics to `stderr`.
pub fn run(flags: Flags, stdout: &mut dyn Write, stderr: &mut dyn Write) -> Result<u8, Error> {
    // Text for people goes through the one escaping function ([`crate::text`]), so nothing a
    // catalog, a bundle or a server wrote can drive the terminal; documents (JSON, YAML, the
    // ImageSetConfiguration, a completion script) are written as they are.
    if flags.command.prints_text() {
        let mut escaped = crate::text::EscapingWriter::new(stdout);
        let code = run_command(flags, &mut escaped, stderr);
        escaped.flush()?;
        return code;
    }
    run_command(flags, stdout, stderr)
}

fn run_command(flags: Flags, stdout: &mut dyn Write, stderr: &mut dyn Write) -> Result<u8, Error> {
    match flags.command {
        flags::Command::Create(args) => create::run(&args, stdout, stderr),
        flags::Command::Resolve(args) => resolve_cmd::run(&args, stdout, stderr),
        flags::Command::Range(args) => range::run(&args, stdout),
        flags::Command::Catalog(command) => catalog_cmd::run(&command, stdout, stderr),
        flags::Command::Bundle(command) => bundle_cmd::run(&command, stdout, stderr),
        flags::Command::Images(args) => images_cmd::images(&args, stdout, stderr),
        flags::Command::MirrorConfig(args) => images_cmd::mirror_config(&args, stdout, stderr),
        flags::Command::UpgradePlan(args) => upgrade_plan::run(&args, stdout, stderr),
        flags::Command::Check(args) => check_cmd::run(&args, stdout, stderr),
        flags::Command::Completion(args) => {
            use clap::CommandFactory as _;
            let mut command = Flags::command();
            clap_complete::generate(args.shell, &mut command, "po-manifests", stdout);
            Ok(EXIT_OK)
        }
        flags::Command::Man(args) => man(&args, stdout),
    }
}

/// The manual pages, from the same command definition as `--help` and the completions: the
/// top page first, then one per command and subcommand (`po-manifests-catalog-list.1`).
fn man_pages() -> std::io::Result<Vec<(String, Vec<u8>)>> {
    use clap::CommandFactory as _;
    fn walk(command: &clap::Command, out: &mut Vec<(String, Vec<u8>)>) -> std::io::Result<()> {
        let page = clap_mangen::Man::new(command.clone())
            .source(format!("po-manifests {}", env!("CARGO_PKG_VERSION")));
        let mut text = Vec::new();
        page.render(&mut text)?;
        out.push((page.get_filename(), text));
        for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
            walk(sub, out)?;
        }
        Ok(())
    }
    let mut command = Flags::command().disable_help_subcommand(true);
    command.build();
    let mut pages = Vec::new();
    walk(&command, &mut pages)?;
    Ok(pages)
}

/// `man`: po-manifests(1) on stdout, or every page into `--output-dir`.
fn man(args: &flags::ManArgs, stdout: &mut dyn Write) -> Result<u8, Error> {
    let pages = man_pages()?;
    let Some(dir) = &args.output_dir else {
        stdout.write_all(&pages[0].1)?;
        return Ok(EXIT_OK);
    };
    let io = |action: &'static str, path: &std::path::Path| {
        let path = path.to_path_buf();
        move |source| crate::output::Error::Io {
            action,
            path,
            source,
        }
    };
    std::fs::create_dir_all(dir).map_err(io("cannot create", dir))?;
    for (name, text) in &pages {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(io("cannot write", &path))?;
        writeln!(stdout, "{}", path.display())?;
    }
    Ok(EXIT_OK)
}

/// Take the install directory's lock, saying so when another run holds it and we wait, and say
/// what recovery of an interrupted run did ([`crate::install::Install::lock_dir`]).
fn lock_install_dir(
    inv: &crate::install::Install,
    no_wait: bool,
    stderr: &mut dyn Write,
) -> Result<crate::output::InstallLock, Error> {
    let mut said = Ok(());
    let (held, recovered) = inv.lock_dir(!no_wait, || {
        said = writeln!(
            stderr,
            "waiting for another po-manifests run to finish writing {} (--no-wait fails instead)",
            inv.dir.display()
        );
    })?;
    said?;
    if let Some(recovered) = recovered {
        writeln!(stderr, "{recovered}")?;
    }
    Ok(held)
}
