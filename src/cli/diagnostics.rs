//! User-facing diagnostics with miette: errors about the configuration point at the line and
//! column in the file; resolution failures list the candidates merged into sentences, then hints.
//! Rendering is deterministic (no colour unless stderr is a terminal) so tests can snapshot it.

use std::fmt::{self, Display};

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, Severity,
};

use super::Error;
use super::invocation::Outcome;
use crate::config::{self, SourceFile, Span};
use crate::resolve::{self, explain};

/// A diagnostic built at run time: a message, optional source with labels, help text.
#[derive(Debug)]
pub struct Report {
    message: String,
    source: Option<NamedSource<String>>,
    labels: Vec<LabeledSpan>,
    help: Option<String>,
    severity: Severity,
}

impl Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Report {}

impl Diagnostic for Report {
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.source.as_ref().map(|s| s as &dyn miette::SourceCode)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        (!self.labels.is_empty())
            .then(|| Box::new(self.labels.iter().cloned()) as Box<dyn Iterator<Item = LabeledSpan>>)
    }
    fn help<'a>(&'a self) -> Option<Box<dyn Display + 'a>> {
        self.help.as_ref().map(|h| Box::new(h) as Box<dyn Display>)
    }
    fn severity(&self) -> Option<Severity> {
        Some(self.severity)
    }
}

impl Report {
    /// An error with only a message.
    pub fn message(message: impl Into<String>) -> Report {
        Report {
            message: message.into(),
            source: None,
            labels: Vec::new(),
            help: None,
            severity: Severity::Error,
        }
    }

    /// A warning.
    pub fn warning(message: impl Into<String>) -> Report {
        Report {
            severity: Severity::Warning,
            ..Report::message(message)
        }
    }

    fn with_source(mut self, file: &SourceFile) -> Report {
        self.source = Some(NamedSource::new(
            file.path.display().to_string(),
            file.text.clone(),
        ));
        self
    }

    fn label(mut self, span: Span, text: impl Into<String>) -> Report {
        self.labels.push(LabeledSpan::new(
            Some(text.into()),
            span.offset,
            span.len.max(1),
        ));
        self
    }

    /// Add help text (ignored when empty).
    pub fn help(mut self, help: impl Into<String>) -> Report {
        let help = help.into();
        if !help.is_empty() {
            self.help = Some(help);
        }
        self
    }

    /// Render as text; colour only when `color` is set.
    pub fn render(&self, color: bool) -> String {
        let theme = if color {
            GraphicalTheme::unicode()
        } else {
            GraphicalTheme::unicode_nocolor()
        };
        let handler = GraphicalReportHandler::new_themed(theme)
            .with_width(100)
            .with_wrap_lines(false)
            .with_links(false);
        let mut out = String::new();
        if handler.render_report(&mut out, self).is_err() {
            out = format!("error: {}\n", self.message);
        }
        out
    }
}

/// Diagnostics for a configuration error (one per problem).
pub fn config_error(e: &config::Error) -> Vec<Report> {
    match e {
        config::Error::Syntax {
            file,
            message,
            span,
        } => {
            let at = match span {
                Some(s) => format!("{}:{}:{}", file.path.display(), s.line, s.column),
                None => file.path.display().to_string(),
            };
            let mut r = Report::message(format!("{at}: {message}")).with_source(file);
            if let Some(span) = span {
                r = r.label(*span, "here");
            }
            vec![r]
        }
        config::Error::Invalid { file, problems } => problems
            .iter()
            .map(|p| {
                Report::message(format!(
                    "{}:{}:{}: {}: {}",
                    file.path.display(),
                    p.span.line,
                    p.span.column,
                    p.field,
                    p.message
                ))
                .with_source(file)
                .label(p.span, p.field.clone())
                .help(p.help.clone().unwrap_or_default())
            })
            .collect(),
        other => vec![Report::message(other.to_string())],
    }
}

/// One warning diagnostic per warning of an operator's outcome.
pub fn operator_warnings<'a>(outcome: &'a Outcome<'_>) -> impl Iterator<Item = Report> + 'a {
    outcome
        .warnings
        .iter()
        .map(move |w| Report::warning(format!("operator \"{}\": {w}", outcome.operator.name.value)))
}

/// Diagnostics for an operator that cannot be installed.
pub fn operator_failure(file: &SourceFile, outcome: &Outcome<'_>) -> Option<Report> {
    let op = outcome.operator;
    let at = format!(
        "{}:{}:{}",
        file.path.display(),
        op.package.span.line,
        op.package.span.column
    );
    let (message, help) = match &outcome.resolution {
        Err(e) => (
            format!("{at}: operator \"{}\": {e}", op.name.value),
            resolution_help(e),
        ),
        Ok(r) if !outcome.problems.is_empty() => (
            format!(
                "{at}: operator \"{}\": {} {} from catalog {} cannot be installed",
                op.name.value, r.bundle.name, r.bundle.version_text, r.catalog.name
            ),
            outcome
                .problems
                .iter()
                .map(|p| format!("- {p}"))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        Ok(_) => return None,
    };
    let label = match &outcome.resolution {
        Err(resolve::Error::NoCandidate { .. })
            if op.version.is_some() || !op.channels.is_empty() =>
        {
            "no bundle matches this request"
        }
        Err(resolve::Error::UnknownPackage { .. }) => "unknown package",
        _ => "this operator",
    };
    Some(
        Report::message(message)
            .with_source(file)
            .label(op.package.span, label)
            .help(help),
    )
}

fn resolution_help(e: &resolve::Error) -> String {
    match e {
        resolve::Error::UnknownPackage { suggestions, .. } if !suggestions.is_empty() => {
            format!("did you mean {}?", suggestions.iter().map(|s| format!("\"{s}\"")).collect::<Vec<_>>().join(" or "))
        }
        resolve::Error::UnknownPackage { .. } => "check the package name with `opm alpha list packages` or `po-manifests resolve --explain`".into(),
        resolve::Error::NoCandidate { candidates, hints, .. } => {
            let mut lines: Vec<String> = explain::summary(candidates);
            lines.extend(hints.iter().map(|h| format!("hint: {h}")));
            lines.join("\n")
        }
        resolve::Error::Ambiguous { .. } => "give the operator a `catalog:`, or give the catalogs different priorities".into(),
        resolve::Error::UnparsableVersion { .. } => "give the operator a `version:` range, which such a bundle never matches, or fix the bundle's olm.package version in the catalog".into(),
    }
}

/// The diagnostic for a top-level error.
pub fn error(e: &Error) -> Vec<Report> {
    match e {
        Error::Config(c) => config_error(c),
        Error::Catalog { source, .. } => {
            vec![Report::message(crate::error_chain(e)).help(catalog_help(source))]
        }
        Error::DigestMismatch { .. } => vec![Report::message(e.to_string()).help(
            "the catalog changed since it was pinned: re-check its origin, then update `sha256` in the configuration",
        )],
        Error::Fetch { source, .. } => {
            vec![Report::message(crate::error_chain(e)).help(source.hint())]
        }
        Error::BundleSource(source) => {
            let report = Report::message(crate::error_chain(e));
            vec![match source.hint() {
                Some(h) => report.help(h),
                None => report,
            }]
        }
        Error::CaFile { .. } => vec![Report::message(crate::error_chain(e))
            .help("give a readable PEM file of CA certificates")],
        Error::Mirror { findings, .. } => {
            let mut message = e.to_string();
            for f in findings {
                message.push_str("\n- ");
                message.push_str(&f.to_string().replace('\n', "\n    "));
            }
            vec![Report::message(message).help(
                "mirror the images (see `po-manifests mirror-config`), add the rules to install-config `imageDigestSources`, or pass --no-mirror-check",
            )]
        }
        _ => vec![Report::message(crate::error_chain(e))],
    }
}

fn catalog_help(e: &crate::catalog::Error) -> String {
    if e.is_io() {
        "check that `source` points at an existing File-Based Catalog directory or file (relative paths are relative to the configuration file)".into()
    } else {
        "check the catalog with `po-manifests catalog validate PATH`".into()
    }
}
