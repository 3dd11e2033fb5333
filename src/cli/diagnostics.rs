//! User-facing diagnostics with miette: errors about the configuration point at the line and
//! column in the file; resolution failures list the candidates merged into sentences, then hints.
//! Rendering is deterministic (no colour unless stderr is a terminal) so tests can snapshot it.

use std::fmt::{self, Display};

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, Severity,
};

use super::Error;
use crate::config::{self, SourceFile, Span};
use crate::install::outcome::Outcome;
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
        let message = message.into();
        Report {
            message: crate::text::printable_lines(&message).into_owned(),
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
        let help = crate::text::printable_lines(&help.into()).into_owned();
        if !help.is_empty() {
            self.help = Some(help);
        }
        self
    }

    /// Render as text; colour only when `color` is set.
    ///
    /// A snippet is drawn only when every label can be: inside the source, on character
    /// boundaries, and on lines (with the context line either side) no longer than
    /// [`MAX_SNIPPET_LINE`] characters. Otherwise the report is drawn without its snippet:
    /// the message already names `file:line:column`. (miette pads labels with a format width,
    /// which panics past column 65,535, and a snippet of a multi-megabyte line helps nobody.)
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
        let drawn = if self.snippet_is_drawable() {
            handler.render_report(&mut out, self)
        } else {
            let bare = Report {
                source: None,
                labels: Vec::new(),
                message: self.message.clone(),
                help: self.help.clone(),
                severity: self.severity,
            };
            handler.render_report(&mut out, &bare)
        };
        if drawn.is_err() {
            out = format!("error: {}\n", self.message);
        }
        out
    }

    /// Whether every label of this report can be drawn as a snippet (see [`Report::render`]).
    fn snippet_is_drawable(&self) -> bool {
        let Some(source) = &self.source else {
            return true;
        };
        let text = source.inner().as_str();
        self.labels
            .iter()
            .all(|l| span_is_drawable(text, l.offset(), l.len()))
    }
}

/// The longest line (in characters) a snippet is drawn for, context lines included.
pub const MAX_SNIPPET_LINE: usize = 1000;

/// Whether the span `offset..offset + len` of `text` can be drawn: inside the text, on
/// character boundaries, and with its lines and the one line either side at most
/// [`MAX_SNIPPET_LINE`] characters long.
fn span_is_drawable(text: &str, offset: usize, len: usize) -> bool {
    let Some(end) = offset.checked_add(len) else {
        return false;
    };
    if end > text.len() || !text.is_char_boundary(offset) || !text.is_char_boundary(end) {
        return false;
    }
    // From the start of the line before the span's first line to the end of the line after
    // its last one.
    let mut start = text[..offset].rfind('\n').map_or(0, |i| i);
    start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let mut stop = text[end..].find('\n').map_or(text.len(), |i| end + i);
    if stop < text.len() {
        stop = text[stop + 1..]
            .find('\n')
            .map_or(text.len(), |i| stop + 1 + i);
    }
    // Byte length bounds the character count from above: most lines are decided without
    // counting.
    text[start..stop]
        .split('\n')
        .all(|line| line.len() <= MAX_SNIPPET_LINE || line.chars().count() <= MAX_SNIPPET_LINE)
}

/// Whether to colour diagnostics: stderr is a terminal and `NO_COLOR` is not set.
pub fn color_stderr() -> bool {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
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
    // A subscription-profile refusal of one setting points at that setting.
    let (span, label) = match &outcome.resolution {
        Err(resolve::Error::Subscription {
            field: Some(field), ..
        }) => (field.0, "OLM v0 cannot take this"),
        // A channel the package does not have: at that `channel:`, with did-you-mean.
        Err(resolve::Error::NoCandidate {
            missing_channel: Some(m),
            ..
        }) if m.index < op.channels.len() => {
            let at = op.channels[m.index].span;
            let message = format!(
                "{}:{}:{}: operator \"{}\": package \"{}\" has no channel \"{}\"",
                file.path.display(),
                at.line,
                at.column,
                op.name.value,
                op.package.value,
                m.wanted
            );
            let known = m.known.join(", ");
            let help = match &m.suggestion {
                Some(s) => format!("did you mean \"{s}\"? its channels: {known}"),
                None => format!("its channels: {known}"),
            };
            return Some(
                Report::message(message)
                    .with_source(file)
                    .label(at, "no such channel")
                    .help(help),
            );
        }
        _ => (op.package.span, ""),
    };
    let at = format!("{}:{}:{}", file.path.display(), span.line, span.column);
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
        _ if !label.is_empty() => label,
        _ => "this operator",
    };
    Some(
        Report::message(message)
            .with_source(file)
            .label(span, label)
            .help(help),
    )
}

fn resolution_help(e: &resolve::Error) -> String {
    match e {
        resolve::Error::UnknownPackage { suggestions, .. } if !suggestions.is_empty() => {
            format!("did you mean {}?", suggestions.iter().map(|s| format!("\"{s}\"")).collect::<Vec<_>>().join(" or "))
        }
        resolve::Error::UnknownPackage { .. } => "list the catalog's packages with `po-manifests catalog list packages CATALOG`".into(),
        resolve::Error::NoCandidate { candidates, hints, .. } => {
            let mut lines: Vec<String> = explain::summary(candidates);
            lines.extend(hints.iter().map(|h| format!("hint: {h}")));
            lines.join("\n")
        }
        resolve::Error::Ambiguous { .. } => "give the operator a `catalog:`, or give the catalogs different priorities".into(),
        resolve::Error::UnparsableVersion { .. } => "give the operator a `version:` range, which such a bundle never matches, or fix the bundle's olm.package version in the catalog".into(),
        resolve::Error::Subscription { hints, .. } => hints.join("\n"),
    }
}

/// The diagnostic for a top-level error.
pub fn error(e: &Error) -> Vec<Report> {
    match e {
        Error::Config(c) => config_error(c),
        Error::Catalog { source, .. } => {
            vec![Report::message(crate::error_chain(e)).help(catalog_help(source))]
        }
        Error::Lock(crate::output::lock::Error::Mismatch { path, .. }) => {
            vec![Report::message(crate::error_chain(e)).help(format!(
                "to accept the new resolution, run the same command without --locked: it rewrites {} (review and commit that change)",
                path.display()
            ))]
        }
        Error::Lock(crate::output::lock::Error::Missing { .. }) => {
            vec![Report::message(crate::error_chain(e)).help(
                "run the same command once without --locked to write the lock file, then commit it",
            )]
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::path::PathBuf;

    fn report(text: &str, offset: usize, len: usize) -> Report {
        let file = SourceFile {
            path: PathBuf::from("config.yaml"),
            text: text.to_string(),
        };
        Report::message("config.yaml:1:1: something is wrong")
            .with_source(&file)
            .label(
                Span {
                    offset,
                    len,
                    line: 1,
                    column: 1,
                },
                "here",
            )
            .help("fix it")
    }

    #[test]
    fn a_label_past_column_65535_is_drawn_without_its_snippet() {
        // One line of JSON, as CI systems write configs, with the label near its end.
        let text = format!("{{\"a\": \"{}\", \"b\": 1}}", "x".repeat(70_000));
        let offset = text.len() - 6;
        let out = report(&text, offset, 3).render(false);
        assert!(out.contains("config.yaml:1:1: something is wrong"), "{out}");
        assert!(out.contains("fix it"), "{out}");
        assert!(
            !out.contains("xxxx"),
            "no snippet of a 70,000-character line: {out}"
        );
    }

    #[test]
    fn a_short_line_keeps_its_snippet() {
        let out = report("a: 1\nb: 2\nc: 3\n", 5, 1).render(false);
        assert!(out.contains("b: 2"), "{out}");
        assert!(out.contains("here"), "{out}");
    }

    #[test]
    fn a_long_context_line_drops_the_snippet() {
        let text = format!("a: 1\nb: {}\nc: 3\n", "y".repeat(2_000));
        let out = report(&text, 0, 1).render(false);
        assert!(!out.contains("yyyy"), "{out}");
        assert!(out.contains("something is wrong"), "{out}");
    }

    #[test]
    fn spans_outside_the_text_or_inside_a_character_are_not_drawn() {
        let text = "näme: x\n";
        for (offset, len) in [(0, 100), (8, 1), (100, 1), (2, 1), (usize::MAX, 2)] {
            let out = report(text, offset, len).render(false);
            assert!(out.contains("something is wrong"), "{offset} {len}: {out}");
        }
    }

    /// Lines of every kind: empty, ASCII, multi-byte, tabs, CR, and a few very long ones.
    fn source() -> impl Strategy<Value = String> {
        let line = prop_oneof![
            4 => "[ -~]{0,40}",
            2 => "[\t\r a-zé€😀:{}\\[\\],\"]{0,30}",
            1 => (1usize..80_000).prop_map(|n| "z".repeat(n)),
        ];
        prop::collection::vec(line, 0..6).prop_map(|lines| lines.join("\n"))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// No source and no span panics the renderer, and the message is always printed.
        #[test]
        fn rendering_never_panics(text in source(), at in 0.0f64..1.2, len in 0usize..200, color: bool) {
            let offset = (text.len() as f64 * at) as usize;
            let out = report(&text, offset, len).render(color);
            prop_assert!(out.contains("something is wrong"));
        }
    }
}
