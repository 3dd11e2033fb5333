//! Errors of the two range grammars and of strict version parsing.
//!
//! A [`RangeParseError`] keeps the input as given, the byte span of the offending token and a
//! private, boxed [`ErrorKind`]. Only [`Display`](std::fmt::Display) turns the byte span into
//! display columns (counted in `char`s, so non-ASCII input lines up) to draw the carets.
//!
//! This file owns the error types only and imports neither grammar: a grammar that refuses a
//! range for one of its limits puts the limit into the [`ErrorKind`] it raises.

use std::fmt;
use std::ops::Range;

/// Which range grammar produced an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Grammar {
    /// Masterminds/semver v3.5 `NewConstraint` (OLM v1 `ClusterExtension` version ranges).
    Masterminds,
    /// blang/semver v4.0.0 `ParseRange` (FBC `skipRange`).
    Blang,
}

/// A range that one of the two grammars rejects.
///
/// Renders as a one-line reason, the input, and carets under the offending bytes:
///
/// ```text
/// invalid range ">=1.2.3,, <2": expected a constraint between the commas
/// >=1.2.3,, <2
///         ^
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RangeParseError {
    input: String,
    span: Range<usize>,
    kind: Box<ErrorKind>,
}

impl RangeParseError {
    pub(crate) fn new(input: &str, span: Range<usize>, kind: ErrorKind) -> Self {
        // Keep the span inside the input whatever the caller computed.
        let end = span.end.min(input.len());
        let start = span.start.min(end);
        RangeParseError {
            input: input.to_owned(),
            span: start..end,
            kind: Box::new(kind),
        }
    }

    /// The range text exactly as given.
    pub fn input(&self) -> &str {
        &self.input
    }

    /// Byte offsets of the offending token in [`input`](Self::input). May be empty (for an
    /// empty input).
    pub fn span(&self) -> Range<usize> {
        self.span.clone()
    }

    /// The grammar that rejected the range.
    pub fn grammar(&self) -> Grammar {
        self.kind.grammar()
    }

    /// The reason alone, without the input or the carets (e.g. `expected a constraint between
    /// the commas`).
    ///
    /// The fragments of the input it quotes are escaped ([`crate::text::printable`]): a
    /// range from a catalog cannot drive the terminal through its error.
    pub fn reason(&self) -> String {
        crate::text::printable(&self.kind.reason()).into_owned()
    }

    /// A suggested fix, when one is obvious (e.g. ``did you mean `=1.2.3`?``).
    pub fn hint(&self) -> Option<String> {
        self.kind
            .hint()
            .map(|h| crate::text::printable(&h).into_owned())
    }

    /// True when the range was rejected only for exceeding Masterminds v3.5's input limits
    /// (512 bytes, 32 `||` groups).
    pub fn is_limit(&self) -> bool {
        matches!(
            *self.kind,
            ErrorKind::TooLong { .. } | ErrorKind::TooManyGroups { .. }
        )
    }

    #[cfg(test)]
    pub(crate) fn kind(&self) -> &ErrorKind {
        &self.kind
    }
}

/// Display column (in `char`s) of byte offset `byte` of `text`. Never slices, so an offset
/// that is not a char boundary cannot panic.
fn column(text: &str, byte: usize) -> usize {
    text.char_indices().take_while(|(i, _)| *i < byte).count()
}

impl fmt::Display for RangeParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "invalid range {}: {}",
            crate::text::escape(&self.input),
            self.reason()
        )?;
        // Characters that must not reach a terminal raw would also break the alignment of the
        // caret line; show each as one space so that one char of input is still one column.
        let shown: String = self
            .input
            .chars()
            .map(|c| if crate::text::is_unsafe(c) { ' ' } else { c })
            .collect();
        writeln!(f, "{}", shown.trim_end())?;
        let start = column(&self.input, self.span.start);
        let width = column(&self.input, self.span.end)
            .saturating_sub(start)
            .max(1);
        write!(f, "{}{}", " ".repeat(start), "^".repeat(width))?;
        if let Some(hint) = self.hint() {
            write!(f, "\nhint: {hint}")?;
        }
        Ok(())
    }
}

impl std::error::Error for RangeParseError {}

/// Where an empty `||` group sits (Masterminds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GroupPlace {
    /// The whole range is empty or blank.
    Whole,
    /// Before the first `||`.
    First,
    /// Between two `||`.
    Middle,
    /// After the last `||`.
    Last,
}

/// What is wrong with a range. Private to the crate; callers use the accessors above.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub(crate) enum ErrorKind {
    // ---- Masterminds ----------------------------------------------------------------------
    /// Input longer than `MaxConstraintLen` (`max`: 512 bytes).
    TooLong { len: usize, max: usize },
    /// More than `MaxConstraintGroups` (`max`: 32) `||` groups.
    TooManyGroups { groups: usize, max: usize },
    /// An `||` group with no constraint in it.
    EmptyGroup { place: GroupPlace },
    /// `,,` (possibly with blanks between).
    EmptyBetweenCommas,
    /// A comma with nothing after it.
    TrailingComma,
    /// A comma before the first constraint of a group.
    LeadingComma,
    /// Two constraints glued together, e.g. `>=1.0.0<2`.
    MissingSeparator,
    /// An operator Masterminds does not know (`==`, `!`, `>~`, ...).
    MmUnknownOperator { op: String, version: Option<String> },
    /// An operator with no version after it.
    MissingVersion { op: String },
    /// Something that is not a version where a version must start.
    ExpectedVersion { found: char },
    /// A version whose text is not valid (`1.2.3a`, `1.`, `1.0.0-`).
    BadVersionSyntax { version: String, problem: String },
    /// A numeric part that is neither digits nor a wildcard (`1x`, `|`).
    BadComponent { component: String },
    /// A numeric part that does not fit in 64 bits.
    NumberTooLarge { component: String },
    /// A prerelease Masterminds rejects (numeric identifier with a leading zero).
    BadPrerelease { prerelease: String },

    // ---- blang ----------------------------------------------------------------------------
    /// `||` as the first token ("First element in range is '||'").
    FirstIsOr,
    /// `||` as the last token ("Last element in range is '||'").
    LastIsOr,
    /// Nothing left after tokenising: empty input, or only one-character tokens, which blang
    /// drops ("Last element in range is '||'").
    NoConstraint { dropped: Option<String> },
    /// A token without any digit ("Could not get version from string").
    NoDigit { token: String },
    /// A comparator blang does not know ("Could not parse comparator").
    BlangUnknownComparator { op: String, version: String },
    /// A version blang `Parse` rejects ("Could not parse version").
    BlangBadVersion {
        version: String,
        problem: String,
        token: String,
    },
    /// A token that blang's wildcard expansion (run on any token containing `x`) turned into
    /// something it then cannot parse.
    BlangBadExpansion {
        token: String,
        expanded: String,
        inner: Box<ErrorKind>,
    },
}

impl ErrorKind {
    fn grammar(&self) -> Grammar {
        use ErrorKind::*;
        match self {
            FirstIsOr
            | LastIsOr
            | NoConstraint { .. }
            | NoDigit { .. }
            | BlangUnknownComparator { .. }
            | BlangBadVersion { .. }
            | BlangBadExpansion { .. } => Grammar::Blang,
            _ => Grammar::Masterminds,
        }
    }

    fn reason(&self) -> String {
        use ErrorKind::*;
        match self {
            TooLong { len, max } => format!(
                "the range is {len} bytes long, Masterminds accepts at most {max}"
            ),
            TooManyGroups { groups, max } => format!(
                "the range has {groups} `||` groups, Masterminds accepts at most {max}"
            ),
            EmptyGroup { place } => match place {
                GroupPlace::Whole => "expected a constraint, found an empty range".to_owned(),
                GroupPlace::First => "expected a constraint before `||`".to_owned(),
                GroupPlace::Middle => "expected a constraint between `||` and `||`".to_owned(),
                GroupPlace::Last => "expected a constraint after `||`".to_owned(),
            },
            EmptyBetweenCommas => "expected a constraint between the commas".to_owned(),
            TrailingComma => "expected a constraint after the comma".to_owned(),
            LeadingComma => "expected a constraint before the comma".to_owned(),
            MissingSeparator => {
                "expected whitespace or a comma between two constraints".to_owned()
            }
            MmUnknownOperator { op, .. } => format!("unknown operator `{op}`"),
            MissingVersion { op } => format!("expected a version after `{op}`"),
            ExpectedVersion { found } => format!("expected a version, found `{found}`"),
            BadVersionSyntax { version, problem } => {
                format!("invalid version `{version}`: {problem}")
            }
            BadComponent { component } => format!(
                "`{component}` is neither a number nor a wildcard (`x`, `X` or `*`)"
            ),
            NumberTooLarge { component } => {
                format!("`{component}` does not fit in a 64-bit version number")
            }
            BadPrerelease { prerelease } => format!(
                "invalid prerelease `{prerelease}`: numeric identifiers must not have leading zeros"
            ),
            FirstIsOr => {
                "expected a constraint before `||` (blang: \"First element in range is '||'\")"
                    .to_owned()
            }
            LastIsOr => {
                "expected a constraint after `||` (blang: \"Last element in range is '||'\")"
                    .to_owned()
            }
            NoConstraint { dropped: None } => {
                "expected a constraint, found an empty range (blang: \"Last element in range is '||'\")"
                    .to_owned()
            }
            NoConstraint { dropped: Some(token) } => format!(
                "expected a constraint; blang ignores one-character tokens such as `{token}` \
                 (blang: \"Last element in range is '||'\")"
            ),
            NoDigit { token } => {
                if token.bytes().all(|b| b"<>=!".contains(&b)) {
                    format!("expected a version after `{token}`")
                } else {
                    format!("expected a version in `{token}`")
                }
            }
            BlangUnknownComparator { op, .. } => format!("unknown comparator `{op}`"),
            BlangBadVersion {
                version, problem, ..
            } => format!("invalid version `{version}`: {problem}"),
            BlangBadExpansion {
                token,
                expanded,
                inner,
            } => format!(
                "blang expands `{token}` (it contains an `x`) to `{expanded}`, then: {}",
                inner.reason()
            ),
        }
    }

    fn hint(&self) -> Option<String> {
        use ErrorKind::*;
        match self {
            MmUnknownOperator {
                op,
                version: Some(version),
            } => match op.as_str() {
                "==" => Some(format!("did you mean `={version}`?")),
                "!" => Some(format!("did you mean `!={version}`?")),
                "=~" | "~=" => Some(format!("did you mean `~{version}`?")),
                "=^" | "^=" => Some(format!("did you mean `^{version}`?")),
                _ => None,
            },
            BadComponent { component } if component.contains('|') => {
                Some("an OR needs two bars: `||`".to_owned())
            }
            NoConstraint {
                dropped: Some(token),
            } if token == "*" || token == "x" => {
                Some("to match any version in blang, write `>=0.0.0`".to_owned())
            }
            BlangUnknownComparator { op, version } => blang_comparator_hint(op, version),
            BlangBadVersion { version, token, .. } => blang_version_hint(version, token),
            BlangBadExpansion { token, .. } if token.contains('-') || token.contains('+') => Some(
                "blang reads every `x` as a wildcard, even in a prerelease or build metadata"
                    .to_owned(),
            ),
            BlangBadExpansion { inner, .. } => inner.hint(),
            _ => None,
        }
    }
}

fn blang_comparator_hint(op: &str, version: &str) -> Option<String> {
    let parsed = semver::Version::parse(version).ok();
    let known = |op: &str| matches!(op, "" | "=" | "==" | "<" | "<=" | ">" | ">=" | "!" | "!=");
    if let Some(bare) = op.strip_suffix('v').filter(|bare| known(bare)) {
        return Some(format!(
            "blang does not accept a `v` prefix; write `{bare}{version}`"
        ));
    }
    if op.contains(['X', '*']) {
        return Some("blang only knows the lowercase `x` wildcard, e.g. `1.2.x`".to_owned());
    }
    match op {
        "~" | "~>" | "^" => {
            let what = if op == "^" { "`^`" } else { "`~`" };
            match parsed {
                Some(v) => {
                    let upper = if op == "^" {
                        if v.major > 0 {
                            format!("{}.0.0", v.major.saturating_add(1))
                        } else if v.minor > 0 {
                            format!("0.{}.0", v.minor.saturating_add(1))
                        } else {
                            format!("0.0.{}", v.patch.saturating_add(1))
                        }
                    } else {
                        format!("{}.{}.0", v.major, v.minor.saturating_add(1))
                    };
                    Some(format!(
                        "blang has no {what} operator; write `>={version} <{upper}`"
                    ))
                }
                None => Some(format!(
                    "blang has no {what} operator; write explicit bounds like `>=1.2.3 <1.3.0`"
                )),
            }
        }
        _ => None,
    }
}

fn blang_version_hint(version: &str, token: &str) -> Option<String> {
    if token.contains("||") {
        return Some("blang needs spaces around `||`".to_owned());
    }
    if version.contains(',') {
        return Some(
            "blang ranges have no commas; separate the constraints with a space".to_owned(),
        );
    }
    if version.contains('X') || version.contains('*') {
        return Some("blang only knows the lowercase `x` wildcard, e.g. `1.2.x`".to_owned());
    }
    let parts: Vec<&str> = version.split('.').collect();
    if parts.len() < 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
    {
        let full = match parts.len() {
            1 => format!("{version}.0.0"),
            _ => format!("{version}.0"),
        };
        return Some(format!(
            "blang needs all three parts: write `{full}`, or `{version}.x` for a wildcard"
        ));
    }
    None
}

/// A version that [`parse_bundle_version`](super::parse_bundle_version) rejects.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid version {}: {}",
    crate::text::escape(input),
    crate::text::printable(problem)
)]
pub struct VersionParseError {
    input: String,
    problem: String,
}

impl VersionParseError {
    pub(crate) fn new(input: &str, problem: String) -> Self {
        VersionParseError {
            input: input.to_owned(),
            problem,
        }
    }

    /// The text that failed to parse.
    pub fn input(&self) -> &str {
        &self.input
    }

    /// What is wrong, e.g. `unexpected character 'v' while parsing major version number`.
    pub fn problem(&self) -> &str {
        &self.problem
    }
}
