//! FBC `skipRange` and OLM v0 `versionRange`: blang/semver v4.0.0 `ParseRange`, quirks and all.
//!
//! Source of truth: blang/semver v4.0.0 `v4/range.go`, as summarised in
//! `reference/catalogs-and-conversion.md` §3.1 and measured in §3.3. opm validation, OLM v0
//! and OLM v1's successor check all read `skipRange` with it, so we must accept, reject and
//! match exactly as it does, bugs included.
//!
//! The steps, in upstream's order:
//! 1. `splitAndTrim`: split on single spaces, except a space right after `>`, `<` or `=`
//!    (so `>= 1.2.3` and `> = 1.2.3` are one token), then delete the spaces inside each token.
//!    **Tokens of one character are dropped** (upstream's `last < i-1` test).
//! 2. `splitORParts`: `||` tokens separate OR groups; `||` first or last is an error.
//! 3. `expandWildcardVersion`: every token containing the letter `x` is rewritten by string
//!    surgery (`1.2.x` → `>=1.2.0 <1.3.0`), including tokens where the `x` is not a wildcard.
//! 4. Each token is split at its first digit into a comparator (`<` `<=` `>` `>=` `=` `==`
//!    none `!` `!=`) and a strict `X.Y.Z[-pre][+build]` version.
//!
//! Matching is plain SemVer precedence: prereleases are not excluded and build metadata is
//! ignored.
//!
//! Deliberate differences: an empty OR group (`<1.0.0 || || >=2.0.0`) matches nothing, where
//! blang would call a nil function and panic once the groups before it are false. Upstream
//! finds "the first digit" with Go's `unicode.IsDigit`, we with ASCII digits; this only
//! changes which error a range with non-ASCII digits gets, never whether it parses.

use std::fmt;
use std::ops::Range as Span;

use semver::Version;

use super::error::{ErrorKind, RangeParseError};

/// A parsed blang range, e.g. `>=4.1.0 <4.14.5`.
///
/// ```
/// use po_manifests::version::blang::Range;
///
/// let skip_range = Range::parse(">=4.1.0 <4.2.0").unwrap();
/// // Prereleases are plain versions to blang.
/// assert!(skip_range.matches(&"4.1.5-rc.1".parse().unwrap()));
/// assert!(!skip_range.matches(&semver::Version::new(4, 2, 0)));
/// // The one-character `|` is dropped, so this is an AND that nothing satisfies.
/// let and = Range::parse("<2.0.0 | >=3.0.0").unwrap();
/// assert!(!and.matches(&semver::Version::new(3, 1, 0)));
/// ```
#[derive(Debug, Clone)]
pub struct Range {
    text: String,
    /// OR of ANDs. A group may be empty (see the module docs); it matches nothing.
    groups: Vec<Vec<Comparator>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Eq,
    Ne,
    Gt,
    Ge,
    Lt,
    Le,
}

#[derive(Debug, Clone)]
struct Comparator {
    op: Op,
    version: Version,
}

impl Comparator {
    fn matches(&self, v: &Version) -> bool {
        let ord = v.cmp_precedence(&self.version);
        match self.op {
            Op::Eq => ord.is_eq(),
            Op::Ne => ord.is_ne(),
            Op::Gt => ord.is_gt(),
            Op::Ge => ord.is_ge(),
            Op::Lt => ord.is_lt(),
            Op::Le => ord.is_le(),
        }
    }
}

/// A token after `splitAndTrim`: its text with spaces removed, and where it came from.
#[derive(Debug, Clone)]
struct Token {
    text: String,
    span: Span<usize>,
    /// For a token produced by wildcard expansion, the token as written.
    expanded_from: Option<String>,
}

impl Range {
    /// Parse a range as blang v4.0.0 `ParseRange` does. Accepts exactly what it accepts; the
    /// error points at the offending token.
    pub fn parse(text: &str) -> Result<Range, RangeParseError> {
        let error = |span: Span<usize>, kind| RangeParseError::new(text, span, kind);
        let (tokens, dropped) = split_and_trim(text);
        let groups = split_or_parts(&tokens).map_err(|(span, kind)| {
            // Point at the one-character token that made the range empty, if any.
            match (&kind, &dropped) {
                (ErrorKind::NoConstraint { .. }, Some(d)) => error(
                    d.clone(),
                    ErrorKind::NoConstraint {
                        dropped: Some(text[d.clone()].to_owned()),
                    },
                ),
                _ => error(span, kind),
            }
        })?;

        // Upstream expands every token before it parses any.
        let mut expanded: Vec<Vec<Token>> = Vec::with_capacity(groups.len());
        for group in &groups {
            let mut out = Vec::with_capacity(group.len());
            for token in *group {
                expand_wildcard(token, &mut out).map_err(|kind| error(token.span.clone(), kind))?;
            }
            expanded.push(out);
        }

        let mut parsed = Vec::with_capacity(expanded.len());
        for group in &expanded {
            let mut comparators = Vec::with_capacity(group.len());
            for token in group {
                comparators
                    .push(parse_comparator(token).map_err(|kind| error(token.span.clone(), kind))?);
            }
            parsed.push(comparators);
        }
        Ok(Range {
            text: text.to_owned(),
            groups: parsed,
        })
    }

    /// Whether `v` satisfies the range.
    pub fn matches(&self, v: &Version) -> bool {
        self.groups
            .iter()
            .any(|g| !g.is_empty() && g.iter().all(|c| c.matches(v)))
    }

    /// The range text as given.
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl std::str::FromStr for Range {
    type Err = RangeParseError;

    fn from_str(text: &str) -> Result<Range, RangeParseError> {
        Range::parse(text)
    }
}

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// `splitAndTrim`. Also returns the first one-character token it dropped, for the error
/// message.
fn split_and_trim(s: &str) -> (Vec<Token>, Option<Span<usize>>) {
    let b = s.as_bytes();
    let mut tokens = Vec::new();
    let mut dropped = None;
    let mut keep = |span: Span<usize>, dropped: &mut Option<Span<usize>>| {
        // Copied on purpose: upstream only keeps a token longer than one byte
        // (`if last < i-1`), so `"<2.0.0 | >=3.0.0"` loses its `|` and becomes an AND, and
        // `"1.0.0 - 2.0.0"` loses its `-`.
        if span.len() >= 2 {
            tokens.push(Token {
                text: s[span.clone()].replace(' ', ""),
                span,
                expanded_from: None,
            });
        } else if span.len() == 1 && dropped.is_none() {
            *dropped = Some(span);
        }
    };
    let mut last = 0;
    let mut last_char = 0u8;
    for (i, &c) in b.iter().enumerate() {
        if c == b' ' && !matches!(last_char, b'>' | b'<' | b'=') {
            if i > last {
                keep(last..i, &mut dropped);
            }
            last = i + 1;
        } else if c != b' ' {
            last_char = c;
        }
    }
    if b.len() > last {
        keep(last..b.len(), &mut dropped);
    }
    (tokens, dropped)
}

type GroupsResult<'a> = Result<Vec<&'a [Token]>, (Span<usize>, ErrorKind)>;

/// `splitORParts`.
fn split_or_parts(tokens: &[Token]) -> GroupsResult<'_> {
    let mut groups = Vec::new();
    let mut last = 0;
    for (i, token) in tokens.iter().enumerate() {
        if token.text == "||" {
            if i == 0 {
                return Err((token.span.clone(), ErrorKind::FirstIsOr));
            }
            // May be empty for `a || || b`; upstream accepts that (see `Range::matches`).
            groups.push(&tokens[last..i]);
            last = i + 1;
        }
    }
    if last == tokens.len() {
        return Err(match tokens.last() {
            Some(token) => (token.span.clone(), ErrorKind::LastIsOr),
            None => (0..0, ErrorKind::NoConstraint { dropped: None }),
        });
    }
    groups.push(&tokens[last..]);
    Ok(groups)
}

/// `splitComparatorVersion`: everything before the first digit (trimmed) is the comparator.
fn split_comparator_version(token: &str) -> Option<(&str, &str)> {
    let i = token.bytes().position(|b| b.is_ascii_digit())?;
    Some((token[..i].trim(), &token[i..]))
}

/// `expandWildcardVersion` for one token. Copied on purpose, string surgery included:
/// - it runs for any token containing `x`, so `=1.2.3-alpha.x` and `1.2.3-xyz` become
///   errors and `^1.x` silently becomes `1.0.0`;
/// - `1.x.x` becomes `>=1.0.0 <1.1.0` (not `<2.0.0`);
/// - `!=1.2.x` becomes `<1.2.0 >=1.3.0` in one AND group, which nothing satisfies.
fn expand_wildcard(token: &Token, out: &mut Vec<Token>) -> Result<(), ErrorKind> {
    if !token.text.contains('x') {
        out.push(token.clone());
        return Ok(());
    }
    let (op, version) =
        split_comparator_version(&token.text).ok_or_else(|| ErrorKind::NoDigit {
            token: token.text.clone(),
        })?;
    let wildcard = wildcard_type(version);
    let flat = flatten_wildcard(version);
    let mut push = |text: String| {
        out.push(Token {
            text,
            span: token.span.clone(),
            expanded_from: Some(token.text.clone()),
        })
    };
    let (result_op, increment) = match op {
        ">" => (">=", true),
        ">=" => (">=", false),
        "<" => ("<", false),
        "<=" => ("<", true),
        "" | "=" | "==" => {
            push(format!(">={flat}"));
            ("<", true)
        }
        "!=" | "!" => {
            push(format!("<{flat}"));
            (">=", true)
        }
        // Unknown comparators lose their operator: `^1.x` is `1.0.0`.
        _ => ("", false),
    };
    let result_version = if increment {
        match wildcard {
            Wildcard::Patch => increment_part(&flat, 1),
            Wildcard::Minor => increment_part(&flat, 0),
            // No increment possible: the token becomes the bare operator, which then fails
            // to parse (upstream leaves the version empty too).
            Wildcard::None => String::new(),
        }
    } else {
        flat
    };
    push(format!("{result_op}{result_version}"));
    Ok(())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wildcard {
    None,
    Minor,
    Patch,
}

/// `getWildcardType`: `x` as the 2nd or 3rd of the dot-separated parts, nothing else.
fn wildcard_type(version: &str) -> Wildcard {
    let parts: Vec<&str> = version.split('.').collect();
    if parts.last() != Some(&"x") {
        return Wildcard::None;
    }
    match parts.len() {
        2 => Wildcard::Minor,
        3 => Wildcard::Patch,
        // One part is a major wildcard upstream, which it never increments; it cannot
        // occur here because the version starts with a digit.
        _ => Wildcard::None,
    }
}

/// `createVersionFromWildcard`.
fn flatten_wildcard(version: &str) -> String {
    let flat = version.replacen(".x.x", ".x", 1).replacen(".x", ".0", 1);
    if flat.split('.').count() == 2 {
        format!("{flat}.0")
    } else {
        flat
    }
}

/// `incrementMajorVersion` / `incrementMinorVersion`, errors ignored as upstream does (an
/// error yields an empty version, which later fails to parse).
fn increment_part(version: &str, index: usize) -> String {
    let mut parts: Vec<String> = version.split('.').map(str::to_owned).collect();
    let Some(part) = parts.get_mut(index) else {
        return String::new();
    };
    let Some(n) = go_atoi(part) else {
        return String::new();
    };
    // Go's `int` wraps on overflow; so do we (the result then fails to parse).
    *part = n.wrapping_add(1).to_string();
    parts.join(".")
}

/// Go `strconv.Atoi` on 64-bit platforms: optional sign, decimal digits, `int64` range.
fn go_atoi(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse::<i64>().ok()
}

/// `splitComparatorVersion`, `parseComparator` and `Parse` for one expanded token; errors
/// of tokens made by wildcard expansion say what the token was rewritten from.
fn parse_comparator(token: &Token) -> Result<Comparator, ErrorKind> {
    parse_comparator_text(token).map_err(|inner| match &token.expanded_from {
        Some(original) => ErrorKind::BlangBadExpansion {
            token: original.clone(),
            expanded: token.text.clone(),
            inner: Box::new(inner),
        },
        None => inner,
    })
}

fn parse_comparator_text(token: &Token) -> Result<Comparator, ErrorKind> {
    let (op_text, version_text) =
        split_comparator_version(&token.text).ok_or_else(|| ErrorKind::NoDigit {
            token: token.text.clone(),
        })?;
    let op = match op_text {
        "" | "=" | "==" => Op::Eq,
        ">" => Op::Gt,
        ">=" => Op::Ge,
        "<" => Op::Lt,
        "<=" => Op::Le,
        "!" | "!=" => Op::Ne,
        _ => {
            return Err(ErrorKind::BlangUnknownComparator {
                op: op_text.to_owned(),
                version: version_text.to_owned(),
            });
        }
    };
    let version =
        super::parse_strict(version_text).map_err(|problem| ErrorKind::BlangBadVersion {
            version: version_text.to_owned(),
            problem,
            token: token.text.clone(),
        })?;
    Ok(Comparator { op, version })
}

#[cfg(test)]
mod tests {
    use super::*;

    range_test_helpers!();

    /// Each row of reference §3.3, "blang" column (measured on blang/semver v4.0.0).
    mod reference_table_blang_v4_0_0 {
        use super::*;

        #[test]
        fn and_by_space() {
            assert!(check(">=1.2.3 <2.0.0", "1.5.0"));
        }

        #[test]
        fn comma_is_an_error() {
            err(">=1.2.3, <2.0.0");
        }

        #[test]
        fn or() {
            assert!(check("<2.0.0 || >=3.0.0", "3.1.0"));
            assert!(!check("<2.0.0 || >=3.0.0", "2.5.0"));
        }

        #[test]
        fn single_bar_is_dropped() {
            // Copied on purpose: the `|` is a one-character token, so this is an AND.
            assert!(!check("<2.0.0 | >=3.0.0", "3.1.0"));
        }

        #[test]
        fn equal_ignores_build() {
            assert!(check("1.2.3", "1.2.3+build.7"));
        }

        #[test]
        fn double_equal_and_bang() {
            assert!(check("==1.2.3", "1.2.3"));
            // `!1.2.3` is "not equal".
            assert!(!check("!1.2.3", "1.2.3"));
            assert!(check("!1.2.3", "1.2.4"));
        }

        #[test]
        fn v_prefix_is_an_error() {
            err("v1.2.3");
        }

        #[test]
        fn partial_version_is_an_error() {
            err("1.2");
        }

        #[test]
        fn x_wildcard() {
            assert!(check("1.2.x", "1.2.9"));
            assert!(!check("1.2.x", "1.3.0"));
        }

        #[test]
        fn upper_x_and_star_are_errors() {
            err("1.2.X");
            err("1.2.*");
        }

        #[test]
        fn x_x_is_minor_only() {
            // Copied on purpose: `1.x.x` expands to `>=1.0.0 <1.1.0`.
            assert!(!check("1.x.x", "1.5.0"));
            assert!(check("1.x.x", "1.0.7"));
        }

        #[test]
        fn not_equal_wildcard_is_always_false() {
            // Copied on purpose: `<1.2.0 >=1.3.0` in one AND group.
            assert!(!check("!=1.2.x", "1.3.0"));
            assert!(!check("!=1.2.x", "1.1.0"));
        }

        #[test]
        fn tilde_and_caret_are_errors() {
            err("~1.2.3");
            err("^0.2.3");
        }

        #[test]
        fn hyphen_range_is_an_and_of_equals() {
            // Copied on purpose: the `-` is dropped, leaving `1.0.0 AND 2.0.0`.
            assert!(!check("1.0.0 - 2.0.0", "2.0.0"));
            assert!(!check("1.0.0 - 2.0.0", "1.0.0"));
        }

        #[test]
        fn prereleases_are_not_excluded() {
            assert!(check(">=1.0.0 <2.0.0", "1.5.0-rc.1"));
            assert!(check(">=1.0.0-0 <2.0.0", "1.5.0-rc.1"));
        }

        #[test]
        fn prerelease_against_bounds() {
            assert!(!check(">=4.1.0 <4.2.0", "4.1.0-rc.1"));
            assert!(check(">=4.1.0-0 <4.2.0", "4.1.0-rc.1"));
            assert!(check(">=4.1.0 <4.2.0", "4.2.0-rc.1"));
            assert!(!check(">=4.1.0 <4.2.0-0", "4.2.0-rc.1"));
            // reference §3.3 prose: 4.1.5-rc.1 matches >=4.1.0 <4.2.0.
            assert!(check(">=4.1.0 <4.2.0", "4.1.5-rc.1"));
        }

        #[test]
        fn greater_ignores_build() {
            assert!(!check(">1.0.0", "1.0.0+build"));
        }

        #[test]
        fn blank_after_operator() {
            assert!(check(">= 1.2.3", "1.2.3"));
            assert!(check("> = 1.2.3", "1.2.3"));
        }

        #[test]
        fn or_needs_blanks() {
            err("<2.0.0||>=3.0.0");
        }

        #[test]
        fn trailing_one_is_dropped() {
            // Copied on purpose: `1` is a one-character token.
            assert!(check(">=1.0.0 1", "1.0.0"));
            assert!(check(">=1.0.0 1", "7.0.0"));
        }

        #[test]
        fn prerelease_on_one_constraint() {
            // `<2` is not a full version.
            err(">1.2.3-rc.1 <2");
        }

        #[test]
        fn empty_range() {
            err("");
        }
    }

    mod quirks {
        use super::*;

        #[test]
        fn one_character_ranges_fail_like_a_trailing_or() {
            for range in ["1", "*", "x", "", " ", "   "] {
                let e = err(range);
                assert!(
                    e.reason().contains("Last element in range is '||'"),
                    "{range:?}: {e}"
                );
            }
        }

        #[test]
        fn wildcard_expansions() {
            assert_matches("1.x", &["1.0.0", "1.9.9"], &["2.0.0", "0.9.9"]);
            assert_matches(">1.2.x", &["1.3.0"], &["1.2.9"]);
            assert_matches(">=1.2.x", &["1.2.0"], &["1.1.9"]);
            assert_matches("<=1.2.x", &["1.2.9"], &["1.3.0"]);
            assert_matches("<1.2.x", &["1.1.9"], &["1.2.0"]);
            assert_matches(">1.x", &["2.0.0"], &["1.9.0"]);
            assert_matches("<=1.x", &["1.9.0"], &["2.0.0"]);
            assert_matches("!=1.x", &[], &["0.1.0", "1.0.0", "2.0.0"]);
        }

        #[test]
        fn any_token_with_x_is_expanded() {
            // Copied on purpose: the `x` in a prerelease triggers expansion.
            err("=1.2.3-alpha.x");
            err("1.2.3-xyz");
            assert_matches(">=1.2.3-xyz", &["1.2.3"], &["1.2.3-abc"]);
            // Unknown comparators lose their operator and `v` too: `^1.x` and `v1.x` are
            // `=1.0.0`.
            assert_matches("^1.x", &["1.0.0"], &["1.5.0"]);
            assert_matches("v1.x", &["1.0.0"], &["1.5.0"]);
        }

        #[test]
        fn tabs_are_not_separators_but_are_trimmed_from_the_operator() {
            assert_matches("\t>=1.0.0", &["1.0.0"], &["0.9.0"]);
            err(">=1.0.0\t<2.0.0");
        }

        #[test]
        fn spaces_after_operators_glue_tokens() {
            // Copied on purpose: the space after `=` does not split, so this is `1.0.0=2.0.0`.
            err("1.0.0= 2.0.0");
        }

        #[test]
        fn empty_or_group_matches_nothing() {
            // blang accepts this and would crash evaluating the empty group once the others
            // are false; we treat it as matching nothing.
            let range = "<1.0.0 || || >=2.0.0";
            assert_matches(range, &["0.5.0", "2.0.0"], &["1.5.0"]);
        }

        #[test]
        fn or_at_the_edges() {
            err("|| 1.0.0");
            err("1.0.0 ||");
        }

        #[test]
        fn overflowing_wildcard_increment() {
            // Go's `int` wraps; the result does not parse.
            err("1.9223372036854775807.x");
            assert_matches(
                "9223372036854775806.x",
                &["9223372036854775806.5.0"],
                &["9223372036854775807.0.0"],
            );
        }

        #[test]
        fn comparators() {
            assert_matches("<1.2.3", &["1.2.2"], &["1.2.3"]);
            assert_matches("<=1.2.3", &["1.2.3"], &["1.2.4"]);
            assert_matches(">1.2.3", &["1.2.4"], &["1.2.3"]);
            assert_matches("=1.2.3", &["1.2.3"], &["1.2.4"]);
            assert_matches("!=1.2.3", &["1.2.4"], &["1.2.3", "1.2.3+b"]);
            err("=>1.2.3");
            err("~>1.2.3");
        }

        #[test]
        fn typical_skip_ranges() {
            assert_matches(
                ">=4.1.0 <4.14.5",
                &["4.1.0", "4.14.4"],
                &["4.14.5", "4.0.9"],
            );
            assert_matches("<6.0.0", &["5.9.9", "0.0.1"], &["6.0.0"]);
        }
    }

    mod errors {
        use super::*;

        #[track_caller]
        fn rendered(range: &str) -> String {
            err(range).to_string()
        }

        #[test]
        fn v_prefix() {
            assert_eq!(
                rendered("v1.2.3"),
                "invalid range \"v1.2.3\": unknown comparator `v`\n\
                 v1.2.3\n\
                 ^^^^^^\n\
                 hint: blang does not accept a `v` prefix; write `1.2.3`"
            );
        }

        #[test]
        fn comma() {
            assert_eq!(
                rendered(">=1.2.3, <2.0.0"),
                "invalid range \">=1.2.3, <2.0.0\": invalid version `1.2.3,`: unexpected character ',' after patch version number\n\
                 >=1.2.3, <2.0.0\n\
                 ^^^^^^^^\n\
                 hint: blang ranges have no commas; separate the constraints with a space"
            );
        }

        #[test]
        fn v_prefix_after_an_operator() {
            assert_eq!(
                err("==v1.0.0").hint().as_deref(),
                Some("blang does not accept a `v` prefix; write `==1.0.0`")
            );
        }

        #[test]
        fn upper_case_wildcards() {
            let hint = Some("blang only knows the lowercase `x` wildcard, e.g. `1.2.x`");
            assert_eq!(err("X.1.2").hint().as_deref(), hint);
            assert_eq!(err("1.2.X").hint().as_deref(), hint);
            assert_eq!(err("1.2.*").hint().as_deref(), hint);
        }

        #[test]
        fn or_without_blanks() {
            assert_eq!(
                err("<2.0.0||>=3.0.0").hint().as_deref(),
                Some("blang needs spaces around `||`")
            );
        }

        #[test]
        fn tilde_hint() {
            assert_eq!(
                err("~1.2.3").hint().as_deref(),
                Some("blang has no `~` operator; write `>=1.2.3 <1.3.0`")
            );
            assert_eq!(
                err("^0.2.3").hint().as_deref(),
                Some("blang has no `^` operator; write `>=0.2.3 <0.3.0`")
            );
        }

        #[test]
        fn partial_version() {
            assert_eq!(
                rendered(">=1.2 <2.0.0"),
                "invalid range \">=1.2 <2.0.0\": invalid version `1.2`: unexpected end of input while parsing minor version number\n\
                 >=1.2 <2.0.0\n\
                 ^^^^^\n\
                 hint: blang needs all three parts: write `1.2.0`, or `1.2.x` for a wildcard"
            );
        }

        #[test]
        fn dropped_token() {
            assert_eq!(
                rendered("1"),
                "invalid range \"1\": expected a constraint; blang ignores one-character tokens such as `1` (blang: \"Last element in range is '||'\")\n\
                 1\n\
                 ^"
            );
            assert_eq!(
                rendered(""),
                "invalid range \"\": expected a constraint, found an empty range (blang: \"Last element in range is '||'\")\n\
                 \n\
                 ^"
            );
        }

        #[test]
        fn trailing_or() {
            assert_eq!(
                rendered(">=1.0.0 ||"),
                "invalid range \">=1.0.0 ||\": expected a constraint after `||` (blang: \"Last element in range is '||'\")\n\
                 >=1.0.0 ||\n\
                 \x20       ^^"
            );
        }

        #[test]
        fn missing_version() {
            assert_eq!(
                rendered(">=1.0.0 <= "),
                "invalid range \">=1.0.0 <= \": expected a version after `<=`\n\
                 >=1.0.0 <=\n\
                 \x20       ^^^"
            );
        }

        #[test]
        fn wildcard_expansion_of_a_prerelease() {
            assert_eq!(
                rendered("=1.2.3-alpha.x"),
                "invalid range \"=1.2.3-alpha.x\": blang expands `=1.2.3-alpha.x` (it contains an `x`) to `<`, then: expected a version after `<`\n\
                 =1.2.3-alpha.x\n\
                 ^^^^^^^^^^^^^^\n\
                 hint: blang reads every `x` as a wildcard, even in a prerelease or build metadata"
            );
        }

        #[test]
        fn grammar_is_blang() {
            assert_eq!(err("1.2").grammar(), crate::version::Grammar::Blang);
            assert!(!err("1.2").is_limit());
        }

        #[test]
        fn non_ascii_aligns_by_char() {
            assert_eq!(
                rendered("≥≥ >=1.0.0 ~1.0.0"),
                "invalid range \"≥≥ >=1.0.0 ~1.0.0\": expected a version in `≥≥`\n\
                 ≥≥ >=1.0.0 ~1.0.0\n\
                 ^^"
            );
            assert_eq!(
                rendered("≥≥1.0.0 ~1.0.0"),
                "invalid range \"≥≥1.0.0 ~1.0.0\": unknown comparator `≥≥`\n\
                 ≥≥1.0.0 ~1.0.0\n\
                 ^^^^^^^"
            );
            assert_eq!(
                rendered(">=1.0.0 é ~1.0.0"),
                "invalid range \">=1.0.0 é ~1.0.0\": expected a version in `é`\n\
                 >=1.0.0 é ~1.0.0\n\
                 \x20       ^"
            );
        }
    }
}
