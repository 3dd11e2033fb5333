//! OLM v1 version ranges: Masterminds/semver v3.5 `NewConstraint` and `Constraints.Check`.
//!
//! Source of truth: Masterminds/semver v3.5 `constraints.go` (and `version.go` for
//! `NewVersion`), as summarised in `reference/catalogs-and-conversion.md` §3.2 and measured in
//! §3.3. operator-controller uses this grammar for `ClusterExtension.spec.source.catalog.version`.
//!
//! Grammar, in the order Masterminds applies it:
//! 1. Input longer than 512 bytes is an error (`MaxConstraintLen`).
//! 2. Hyphen ranges `a - b` (blanks around `-` required) are rewritten to `>= a, <= b `, by a
//!    left-to-right scan like Go's `FindAllStringSubmatch` of
//!    `\s*(ver)\s+-\s+(ver)\s*`. The scan may start in the middle of a token, and it eats
//!    the blanks before `a`, so `>=1 1 - 2` becomes `>=1>= 1, <= 2 `, an error, as upstream.
//! 3. The text is split on `||` (no blanks needed); more than 32 groups is an error.
//! 4. A group is `\s* op \s* ver \s*` followed by more of them, each separated by blanks
//!    and/or one comma. Blanks are Go's `\s`: space, `\t`, `\n`, `\f`, `\r`.
//! 5. Operators: none, `=`, `!=`, `>`, `<`, `>=`, `=>`, `<=`, `=<`, `~`, `~>`, `^`.
//! 6. Versions: optional `v`, one to three parts of `[0-9xX*|]+`, optional `-pre`, `+build`.
//!    The first `x`/`X`/`*` or missing part makes the constraint a wildcard and the parts
//!    after it are not looked at; the parts before it must be numbers (leading zeros are
//!    coerced, as `NewVersion` does since v3.4).
//!
//! Matching (`Check`): a version matches if every constraint of some group holds. A version
//! with a prerelease only matches in a group where some constraint has a prerelease (the
//! v3.4+ rule; v3.3 required it of each constraint). Comparison is SemVer precedence; build
//! metadata never counts, so `=1.2.3` matches `1.2.3+anything`.

use std::fmt;
use std::ops::Range as Span;

use semver::{Prerelease, Version};

use super::error::{ErrorKind, GroupPlace, RangeParseError};

/// Longest range Masterminds v3.5 accepts, in bytes (`MaxConstraintLen`).
pub const MAX_LEN: usize = 512;

/// Most `||` groups Masterminds v3.5 accepts (`MaxConstraintGroups`).
pub const MAX_GROUPS: usize = 32;

/// A parsed Masterminds range, e.g. `>=1.12.0 <1.14.0` or `~1.2 || ^2`.
///
/// ```
/// use po_manifests::version::masterminds::Range;
///
/// let range = Range::parse(">=1.12.0, <1.14.0 || 2.x").unwrap();
/// assert!(range.matches(&semver::Version::new(1, 13, 2)));
/// assert!(range.matches(&"2.7.0+build.1".parse().unwrap()));
/// // A prerelease needs a prerelease in its `||` group.
/// assert!(!range.matches(&"1.13.0-rc.1".parse().unwrap()));
/// assert!(Range::parse("==1.2.3").is_err());
/// ```
#[derive(Debug, Clone)]
pub struct Range {
    text: String,
    groups: Vec<Group>,
}

/// One `||` alternative: constraints that must all hold.
#[derive(Debug, Clone)]
struct Group {
    constraints: Vec<Constraint>,
    /// Some constraint of the group has a prerelease, so prerelease versions may match.
    has_pre: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    /// none or `=`: equal, or tilde when the version is a wildcard.
    TildeOrEqual,
    NotEqual,
    Greater,
    Less,
    GreaterEq,
    LessEq,
    Tilde,
    Caret,
}

/// Which part of the constraint version is the first wildcard (`dirty`, `minorDirty`,
/// `patchDirty` upstream).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wild {
    /// `1.2.3`
    None,
    /// `*`, `x`, `X.1.2`: dirty, but neither minor- nor patch-dirty.
    Major,
    /// `1`, `1.x`
    Minor,
    /// `1.2`, `1.2.x`
    Patch,
}

#[derive(Debug, Clone)]
struct Constraint {
    op: Op,
    /// The version with wildcards replaced by 0 and build metadata dropped.
    con: Version,
    wild: Wild,
}

impl Range {
    /// Parse a range as Masterminds v3.5 `NewConstraint` does. Accepts exactly what it
    /// accepts; the error points at the offending token.
    pub fn parse(text: &str) -> Result<Range, RangeParseError> {
        if text.len() > MAX_LEN {
            return Err(RangeParseError::new(
                text,
                MAX_LEN..text.len(),
                ErrorKind::TooLong {
                    len: text.len(),
                    max: MAX_LEN,
                },
            ));
        }
        let rewritten = rewrite_hyphen_ranges(text);
        let bars = find_bars(rewritten.text.as_bytes());
        let group_count = bars.len() + 1;
        if group_count > MAX_GROUPS {
            // The `||` that opens the first group over the limit.
            let bar = bars[MAX_GROUPS - 1];
            return Err(rewritten.error(
                text,
                bar..bar + 2,
                ErrorKind::TooManyGroups {
                    groups: group_count,
                    max: MAX_GROUPS,
                },
            ));
        }

        let mut groups = Vec::with_capacity(group_count);
        let mut start = 0;
        for index in 0..group_count {
            let end = bars.get(index).copied().unwrap_or(rewritten.text.len());
            let place = match (index, group_count) {
                (_, 1) => GroupPlace::Whole,
                (0, _) => GroupPlace::First,
                (i, n) if i + 1 == n => GroupPlace::Last,
                _ => GroupPlace::Middle,
            };
            let mut parser = Parser {
                text: &rewritten.text,
                bytes: rewritten.text.as_bytes(),
                pos: start,
                end,
            };
            let atoms = parser.group().map_err(|(span, kind)| {
                let span = match kind {
                    // Point at the `||` around the empty group (or the blank input).
                    ErrorKind::EmptyGroup { .. } => match place {
                        GroupPlace::Whole => 0..rewritten.text.len(),
                        GroupPlace::First | GroupPlace::Middle => end..end + 2,
                        GroupPlace::Last => start - 2..start,
                    },
                    _ => span,
                };
                let kind = match kind {
                    ErrorKind::EmptyGroup { .. } => ErrorKind::EmptyGroup { place },
                    other => other,
                };
                rewritten.error(text, span, kind)
            })?;
            let mut constraints = Vec::with_capacity(atoms.len());
            for atom in &atoms {
                let constraint = atom
                    .constraint(&rewritten.text)
                    .map_err(|(span, kind)| rewritten.error(text, span, kind))?;
                constraints.push(constraint);
            }
            let has_pre = constraints.iter().any(|c| !c.con.pre.is_empty());
            groups.push(Group {
                constraints,
                has_pre,
            });
            start = end + 2;
        }
        Ok(Range {
            text: text.to_owned(),
            groups,
        })
    }

    /// Whether `v` satisfies the range (`Constraints.Check`).
    pub fn matches(&self, v: &Version) -> bool {
        self.groups
            .iter()
            .any(|g| g.constraints.iter().all(|c| c.check(v, g.has_pre)))
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

impl Constraint {
    /// The constraint functions of `constraints.go` (`tildeOrEqualPred`, `notEqualPred`, ...).
    fn check(&self, v: &Version, include_pre: bool) -> bool {
        // A prerelease version matches only if the group asked for prereleases.
        if !v.pre.is_empty() && !include_pre {
            return false;
        }
        let con = &self.con;
        let cmp = v.cmp_precedence(con);
        let dirty = self.wild != Wild::None;
        let minor_dirty = self.wild == Wild::Minor;
        let patch_dirty = self.wild == Wild::Patch;
        match self.op {
            Op::TildeOrEqual if dirty => self.tilde(v),
            Op::TildeOrEqual => cmp.is_eq(),
            Op::NotEqual => {
                if dirty {
                    if con.major != v.major {
                        return true;
                    }
                    if con.minor != v.minor && !minor_dirty {
                        return true;
                    } else if minor_dirty {
                        return false;
                    } else if con.patch != v.patch && !patch_dirty {
                        return true;
                    } else if patch_dirty {
                        return v.pre != con.pre;
                    }
                    // Copied on purpose: `!=*` falls through to plain inequality with
                    // 0.0.0, so it matches everything but 0.0.0.
                }
                cmp.is_ne()
            }
            Op::Greater => {
                if !dirty {
                    return cmp.is_gt();
                }
                if v.major != con.major {
                    return v.major > con.major;
                }
                if minor_dirty {
                    // `>1` needs 2.0.0 or more.
                    return false;
                }
                if patch_dirty {
                    // `>1.2` needs 1.3.0 or more.
                    return v.minor > con.minor;
                }
                cmp.is_gt()
            }
            Op::Less => cmp.is_lt(),
            Op::GreaterEq => cmp.is_ge(),
            Op::LessEq => {
                if !dirty {
                    return cmp.is_le();
                }
                // `<=1.2` means `<1.3.0`, `<=1` means `<2.0.0`. Copied on purpose: `<=*`
                // (major wildcard, not minor-dirty) therefore means `<0.1.0`.
                if v.major > con.major {
                    return false;
                }
                !(v.major == con.major && v.minor > con.minor && !minor_dirty)
            }
            Op::Tilde => self.tilde(v),
            Op::Caret => {
                if v.cmp_precedence(con).is_lt() {
                    return false;
                }
                if con.major > 0 || minor_dirty {
                    return v.major == con.major;
                }
                if v.major > 0 {
                    return false;
                }
                if con.minor > 0 || patch_dirty {
                    return v.minor == con.minor;
                }
                if v.minor > 0 {
                    return false;
                }
                // Copied on purpose: `^*` ends here too and so only matches 0.0.0.
                v.patch == con.patch
            }
        }
    }

    fn tilde(&self, v: &Version) -> bool {
        let con = &self.con;
        if v.cmp_precedence(con).is_lt() {
            return false;
        }
        let minor_dirty = self.wild == Wild::Minor;
        let patch_dirty = self.wild == Wild::Patch;
        // `~0.0.0` (and `~*`) accept everything.
        if con.major == 0 && con.minor == 0 && con.patch == 0 && !minor_dirty && !patch_dirty {
            return true;
        }
        if v.major != con.major {
            return false;
        }
        v.minor == con.minor || minor_dirty
    }
}

/// Go regexp `\s` (ASCII): space, `\t`, `\n`, `\f`, `\r`. Not `\v`.
fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\x0c' | b'\r')
}

/// `[0-9|x|X|\*]`: the character class of a version part, `|` included (upstream quirk).
fn is_part(b: u8) -> bool {
    b.is_ascii_digit() || matches!(b, b'x' | b'X' | b'*' | b'|')
}

/// `[0-9A-Za-z\-]`: prerelease and build identifier characters.
fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-'
}

fn is_op(b: u8) -> bool {
    matches!(b, b'=' | b'!' | b'<' | b'>' | b'~' | b'^')
}

fn is_wildcard(part: &str) -> bool {
    matches!(part, "x" | "X" | "*")
}

/// Where the greedy match of the version regex starting at `i` ends (regex semantics: an
/// optional part that cannot continue is simply not taken).
fn version_regex_end(s: &[u8], mut i: usize) -> Option<usize> {
    if s.get(i) == Some(&b'v') {
        i += 1;
    }
    if !s.get(i).copied().is_some_and(is_part) {
        return None;
    }
    while s.get(i).copied().is_some_and(is_part) {
        i += 1;
    }
    for _ in 0..2 {
        if s.get(i) == Some(&b'.') && s.get(i + 1).copied().is_some_and(is_part) {
            i += 1;
            while s.get(i).copied().is_some_and(is_part) {
                i += 1;
            }
        }
    }
    for sep in [b'-', b'+'] {
        if s.get(i) == Some(&sep) && s.get(i + 1).copied().is_some_and(is_ident) {
            i += 1;
            loop {
                while s.get(i).copied().is_some_and(is_ident) {
                    i += 1;
                }
                if s.get(i) == Some(&b'.') && s.get(i + 1).copied().is_some_and(is_ident) {
                    i += 1;
                } else {
                    break;
                }
            }
        }
    }
    Some(i)
}

/// The range text after hyphen-range rewriting, with a map back to the input.
struct Rewritten {
    text: String,
    /// `map[i]` is the input byte offset of rewritten byte `i`; one extra entry for the end.
    map: Vec<usize>,
}

impl Rewritten {
    fn to_input(&self, span: Span<usize>) -> Span<usize> {
        let last = self.map.len() - 1;
        let start = self.map[span.start.min(last)];
        if span.end <= span.start {
            return start..start;
        }
        let end = self.map[(span.end - 1).min(last)] + 1;
        start..end.max(start)
    }

    fn error(&self, input: &str, span: Span<usize>, kind: ErrorKind) -> RangeParseError {
        RangeParseError::new(input, self.to_input(span), kind)
    }
}

/// Rewrite every hyphen range `a - b` to `>= a, <= b ` (`rewriteRange`), scanning left to
/// right for the leftmost match of `\s*(ver)\s+-\s+(ver)\s*` like Go's `FindAll`.
fn rewrite_hyphen_ranges(input: &str) -> Rewritten {
    let s = input.as_bytes();
    let mut text = String::with_capacity(input.len() + 16);
    let mut map = Vec::with_capacity(input.len() + 17);
    let mut copied = 0;
    let mut p = 0;
    while p < s.len() {
        let Some(found) = hyphen_range_at(s, p) else {
            p += 1;
            continue;
        };
        text.push_str(&input[copied..p]);
        map.extend(copied..p);
        // `>= a, <= b `: inserted text maps to `a`, to the `-`, and to the end of `b`.
        push_mapped(&mut text, &mut map, ">= ", found.a.start);
        text.push_str(&input[found.a.clone()]);
        map.extend(found.a.clone());
        push_mapped(&mut text, &mut map, ", <= ", found.dash);
        text.push_str(&input[found.b.clone()]);
        map.extend(found.b.clone());
        push_mapped(&mut text, &mut map, " ", found.b.end);
        copied = found.end;
        p = found.end;
    }
    text.push_str(&input[copied..]);
    map.extend(copied..s.len());
    map.push(s.len());
    Rewritten { text, map }
}

fn push_mapped(text: &mut String, map: &mut Vec<usize>, inserted: &str, at: usize) {
    text.push_str(inserted);
    map.extend(std::iter::repeat_n(at, inserted.len()));
}

struct HyphenRange {
    a: Span<usize>,
    dash: usize,
    b: Span<usize>,
    /// End of the whole match, trailing blanks included.
    end: usize,
}

fn hyphen_range_at(s: &[u8], p: usize) -> Option<HyphenRange> {
    let mut i = p;
    while i < s.len() && is_blank(s[i]) {
        i += 1;
    }
    let a_start = i;
    // `ver` must be followed by blanks, so it must cover the whole non-blank run.
    let a_end = version_regex_end(s, a_start)?;
    if !s.get(a_end).copied().is_some_and(is_blank) {
        return None;
    }
    i = a_end;
    while i < s.len() && is_blank(s[i]) {
        i += 1;
    }
    if s.get(i) != Some(&b'-') {
        return None;
    }
    let dash = i;
    i += 1;
    if !s.get(i).copied().is_some_and(is_blank) {
        return None;
    }
    while i < s.len() && is_blank(s[i]) {
        i += 1;
    }
    let b_start = i;
    let b_end = version_regex_end(s, b_start)?;
    let mut end = b_end;
    while end < s.len() && is_blank(s[end]) {
        end += 1;
    }
    Some(HyphenRange {
        a: a_start..a_end,
        dash,
        b: b_start..b_end,
        end,
    })
}

/// Offsets of each `||` (non-overlapping, left to right, like `strings.Split`).
fn find_bars(s: &[u8]) -> Vec<usize> {
    let mut bars = Vec::new();
    let mut i = 0;
    while i + 1 < s.len() {
        if s[i] == b'|' && s[i + 1] == b'|' {
            bars.push(i);
            i += 2;
        } else {
            i += 1;
        }
    }
    bars
}

/// One constraint as written: spans into the rewritten text.
struct Atom {
    op: Op,
    major: Span<usize>,
    minor: Option<Span<usize>>,
    patch: Option<Span<usize>>,
    /// Without the leading `-`.
    pre: Option<Span<usize>>,
}

type ParseResult<T> = Result<T, (Span<usize>, ErrorKind)>;

/// A parser over the bytes of one `||` group (`pos..end` of the rewritten text).
struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    end: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        (self.pos < self.end).then(|| self.bytes[self.pos])
    }

    fn peek_at(&self, i: usize) -> Option<u8> {
        (i < self.end).then(|| self.bytes[i])
    }

    fn skip_blanks(&mut self) {
        while self.peek().is_some_and(is_blank) {
            self.pos += 1;
        }
    }

    fn char_span(&self, at: usize) -> Span<usize> {
        let len = self.text[at..].chars().next().map_or(1, char::len_utf8);
        at..at + len
    }

    /// `^(\s*op\s*ver\s*)((?:\s+|,\s*)op\s*ver\s*)*$` (`validConstraintRegex`).
    fn group(&mut self) -> ParseResult<Vec<Atom>> {
        self.skip_blanks();
        match self.peek() {
            None => {
                return Err((
                    self.pos..self.pos,
                    ErrorKind::EmptyGroup {
                        place: GroupPlace::Whole,
                    },
                ));
            }
            Some(b',') => return Err((self.pos..self.pos + 1, ErrorKind::LeadingComma)),
            Some(_) => {}
        }
        let mut atoms = vec![self.atom()?];
        loop {
            let before = self.pos;
            self.skip_blanks();
            match self.peek() {
                None => return Ok(atoms),
                Some(b',') => {
                    let comma = self.pos;
                    self.pos += 1;
                    self.skip_blanks();
                    match self.peek() {
                        None => return Err((comma..comma + 1, ErrorKind::TrailingComma)),
                        Some(b',') => {
                            return Err((self.pos..self.pos + 1, ErrorKind::EmptyBetweenCommas));
                        }
                        Some(_) => atoms.push(self.atom()?),
                    }
                }
                Some(_) if self.pos == before => {
                    return Err((self.char_span(self.pos), ErrorKind::MissingSeparator));
                }
                Some(_) => atoms.push(self.atom()?),
            }
        }
    }

    /// `op \s* ver`, where `ver` must run up to a blank, a comma or the end of the group.
    fn atom(&mut self) -> ParseResult<Atom> {
        let op_start = self.pos;
        while self.peek().is_some_and(is_op) {
            self.pos += 1;
        }
        let op_span = op_start..self.pos;
        let op_text = &self.text[op_span.clone()];
        let op = match op_text {
            "" | "=" => Some(Op::TildeOrEqual),
            "!=" => Some(Op::NotEqual),
            ">" => Some(Op::Greater),
            "<" => Some(Op::Less),
            ">=" | "=>" => Some(Op::GreaterEq),
            "<=" | "=<" => Some(Op::LessEq),
            "~" | "~>" => Some(Op::Tilde),
            "^" => Some(Op::Caret),
            _ => None,
        };
        self.skip_blanks();
        let Some(op) = op else {
            // Offer the following version text for the hint, if it looks like one.
            let version_start = self.pos;
            let version_end = self.token_end(version_start);
            let version = version_regex_end(&self.bytes[..self.end], version_start)
                .filter(|e| *e == version_end && version_end > version_start)
                .map(|_| self.text[version_start..version_end].to_owned());
            return Err((
                op_span,
                ErrorKind::MmUnknownOperator {
                    op: op_text.to_owned(),
                    version,
                },
            ));
        };
        match self.peek() {
            None | Some(b',') => {
                return Err((
                    op_span,
                    ErrorKind::MissingVersion {
                        op: op_text.to_owned(),
                    },
                ));
            }
            Some(_) => {}
        }
        self.version(op)
    }

    /// End of the run of bytes that are neither blanks nor commas.
    fn token_end(&self, mut i: usize) -> usize {
        while self.peek_at(i).is_some_and(|b| !is_blank(b) && b != b',') {
            i += 1;
        }
        i
    }

    fn version(&mut self, op: Op) -> ParseResult<Atom> {
        let start = self.pos;
        let token = start..self.token_end(start);
        let bad = |this: &Self, at: usize, problem: String| {
            (
                this.char_span(at),
                ErrorKind::BadVersionSyntax {
                    version: this.text[token.clone()].to_owned(),
                    problem,
                },
            )
        };
        if self.peek() == Some(b'v') {
            self.pos += 1;
            if !self.peek().is_some_and(is_part) {
                return Err(bad(
                    self,
                    start,
                    "expected a number or a wildcard after `v`".to_owned(),
                ));
            }
        }
        if !self.peek().is_some_and(is_part) {
            // `atom` only calls us on a byte that is not a blank, a comma or the end.
            let found = self.text[self.pos..].chars().next().unwrap_or(' ');
            return Err((
                self.char_span(self.pos),
                ErrorKind::ExpectedVersion { found },
            ));
        }
        let major = self.part();
        let mut parts = [None, None];
        for slot in &mut parts {
            if self.peek() != Some(b'.') {
                break;
            }
            let dot = self.pos;
            self.pos += 1;
            if !self.peek().is_some_and(is_part) {
                return Err(bad(
                    self,
                    dot,
                    "expected a number or a wildcard after `.`".to_owned(),
                ));
            }
            *slot = Some(self.part());
        }
        let mut pre = None;
        for (sep, what) in [(b'-', "prerelease"), (b'+', "build metadata")] {
            if self.peek() != Some(sep) {
                continue;
            }
            let mut at = self.pos;
            self.pos += 1;
            let ids_start = self.pos;
            loop {
                if !self.peek().is_some_and(is_ident) {
                    let after = self.bytes[at] as char;
                    return Err(bad(
                        self,
                        at,
                        format!("expected a {what} identifier of [0-9A-Za-z-] after `{after}`"),
                    ));
                }
                while self.peek().is_some_and(is_ident) {
                    self.pos += 1;
                }
                if self.peek() == Some(b'.') {
                    at = self.pos;
                    self.pos += 1;
                } else {
                    break;
                }
            }
            if sep == b'-' {
                pre = Some(ids_start..self.pos);
            }
        }
        match self.peek() {
            None | Some(b',') => {}
            Some(b) if is_blank(b) => {}
            Some(b) if is_op(b) => {
                return Err((self.char_span(self.pos), ErrorKind::MissingSeparator));
            }
            Some(_) => {
                let found = self.text[self.pos..].chars().next().unwrap_or(' ');
                return Err(bad(
                    self,
                    self.pos,
                    format!("unexpected character `{found}`"),
                ));
            }
        }
        Ok(Atom {
            op,
            major,
            minor: parts[0].clone(),
            patch: parts[1].clone(),
            pre,
        })
    }

    fn part(&mut self) -> Span<usize> {
        let start = self.pos;
        while self.peek().is_some_and(is_part) {
            self.pos += 1;
        }
        start..self.pos
    }
}

impl Atom {
    /// `parseConstraint`: turn wildcards into zeros and build the constraint version with
    /// `NewVersion` (which coerces leading zeros since v3.4).
    fn constraint(&self, text: &str) -> ParseResult<Constraint> {
        let number = |span: &Span<usize>| -> ParseResult<u64> {
            let part = &text[span.clone()];
            if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
                return Err((
                    span.clone(),
                    ErrorKind::BadComponent {
                        component: part.to_owned(),
                    },
                ));
            }
            part.parse::<u64>().map_err(|_| {
                (
                    span.clone(),
                    ErrorKind::NumberTooLarge {
                        component: part.to_owned(),
                    },
                )
            })
        };
        let wild_at = |span: &Option<Span<usize>>| {
            span.as_ref().is_none_or(|s| is_wildcard(&text[s.clone()]))
        };
        let (major, minor, patch, wild) = if is_wildcard(&text[self.major.clone()]) {
            (0, 0, 0, Wild::Major)
        } else if wild_at(&self.minor) {
            (number(&self.major)?, 0, 0, Wild::Minor)
        } else if wild_at(&self.patch) {
            let minor = self.minor.as_ref().map_or(Ok(0), number)?;
            (number(&self.major)?, minor, 0, Wild::Patch)
        } else {
            let major = number(&self.major)?;
            let minor = self.minor.as_ref().map_or(Ok(0), number)?;
            let patch = self.patch.as_ref().map_or(Ok(0), number)?;
            (major, minor, patch, Wild::None)
        };
        let pre = match &self.pre {
            None => Prerelease::EMPTY,
            Some(span) => Prerelease::new(&text[span.clone()]).map_err(|_| {
                (
                    span.clone(),
                    ErrorKind::BadPrerelease {
                        prerelease: text[span.clone()].to_owned(),
                    },
                )
            })?,
        };
        Ok(Constraint {
            op: self.op,
            con: Version {
                major,
                minor,
                patch,
                pre,
                build: semver::BuildMetadata::EMPTY,
            },
            wild,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    range_test_helpers!();

    /// Each row of reference §3.3, "MM 3.5" column (measured on Masterminds/semver v3.5).
    mod reference_table_masterminds_v3_5 {
        use super::*;

        #[test]
        fn and_by_space() {
            assert!(check(">=1.2.3 <2.0.0", "1.5.0"));
        }

        #[test]
        fn and_by_comma() {
            assert!(check(">=1.2.3, <2.0.0", "1.5.0"));
        }

        #[test]
        fn or() {
            assert!(check("<2.0.0 || >=3.0.0", "3.1.0"));
            assert!(!check("<2.0.0 || >=3.0.0", "2.5.0"));
        }

        #[test]
        fn single_bar_is_an_error() {
            err("<2.0.0 | >=3.0.0");
        }

        #[test]
        fn equal_ignores_build() {
            assert!(check("1.2.3", "1.2.3+build.7"));
        }

        #[test]
        fn double_equal_and_bang_are_errors() {
            err("==1.2.3");
            err("!1.2.3");
        }

        #[test]
        fn v_prefix() {
            assert!(check("v1.2.3", "1.2.3"));
        }

        #[test]
        fn partial_version() {
            assert!(check("1.2", "1.2.9"));
        }

        #[test]
        fn x_wildcard() {
            assert!(check("1.2.x", "1.2.9"));
            assert!(!check("1.2.x", "1.3.0"));
        }

        #[test]
        fn upper_x_and_star() {
            assert!(check("1.2.X", "1.2.9"));
            assert!(check("1.2.*", "1.2.9"));
        }

        #[test]
        fn x_x() {
            assert!(check("1.x.x", "1.5.0"));
        }

        #[test]
        fn not_equal_wildcard() {
            assert!(check("!=1.2.x", "1.3.0"));
        }

        #[test]
        fn tilde() {
            assert!(check("~1.2.3", "1.2.9"));
            assert!(!check("~1.2.3", "1.3.0"));
        }

        #[test]
        fn caret() {
            assert!(check("^0.2.3", "0.2.9"));
            assert!(!check("^0.2.3", "0.3.0"));
        }

        #[test]
        fn hyphen_range_is_inclusive() {
            assert!(check("1.0.0 - 2.0.0", "2.0.0"));
        }

        #[test]
        fn prerelease_excluded_without_prerelease_in_group() {
            assert!(!check(">=1.0.0 <2.0.0", "1.5.0-rc.1"));
        }

        #[test]
        fn prerelease_in_group_admits_prereleases() {
            // v3.4+ rule; v3.3.1 says false.
            assert!(check(">=1.0.0-0 <2.0.0", "1.5.0-rc.1"));
        }

        #[test]
        fn prerelease_below_lower_bound() {
            assert!(!check(">=4.1.0 <4.2.0", "4.1.0-rc.1"));
            assert!(check(">=4.1.0-0 <4.2.0", "4.1.0-rc.1"));
        }

        #[test]
        fn prerelease_below_upper_bound() {
            assert!(!check(">=4.1.0 <4.2.0", "4.2.0-rc.1"));
            assert!(!check(">=4.1.0 <4.2.0-0", "4.2.0-rc.1"));
        }

        #[test]
        fn greater_ignores_build() {
            assert!(!check(">1.0.0", "1.0.0+build"));
        }

        #[test]
        fn blank_after_operator() {
            assert!(check(">= 1.2.3", "1.2.3"));
            err("> = 1.2.3");
        }

        #[test]
        fn or_without_blanks() {
            assert!(check("<2.0.0||>=3.0.0", "3.1.0"));
        }

        #[test]
        fn trailing_one() {
            assert!(check(">=1.0.0 1", "1.0.0"));
        }

        #[test]
        fn prerelease_on_one_constraint_counts_for_the_group() {
            // v3.4+; v3.3.1 says false.
            assert!(check(">1.2.3-rc.1 <2", "1.2.4-alpha"));
        }

        #[test]
        fn empty_range() {
            err("");
        }
    }

    mod wildcards {
        use super::*;

        #[test]
        fn greater_partial() {
            assert_matches(">1.2", &["1.3.0", "2.0.0"], &["1.2.9", "1.2.0"]);
            assert_matches(">1", &["2.0.0"], &["1.9.9", "1.0.0"]);
            assert_matches(">1.x", &["2.0.0"], &["1.9.9"]);
        }

        #[test]
        fn less_equal_partial() {
            assert_matches("<=1.2", &["1.2.9", "1.0.0", "0.1.0"], &["1.3.0"]);
            assert_matches("<=1", &["1.9.9"], &["2.0.0"]);
        }

        #[test]
        fn less_partial() {
            assert_matches("<1.2", &["1.1.9"], &["1.2.0", "1.2.1"]);
        }

        #[test]
        fn greater_equal_partial() {
            assert_matches(">=1.2", &["1.2.0", "5.0.0"], &["1.1.9"]);
        }

        #[test]
        fn star_and_x_match_everything_released() {
            assert_matches("*", &["0.0.0", "1.2.3", "99.0.0"], &["1.0.0-rc.1"]);
            assert_matches("x", &["3.0.0"], &[]);
            assert_matches("X.1.2", &["3.0.0"], &[]);
        }

        #[test]
        fn parts_after_the_first_wildcard_are_not_read() {
            // Copied on purpose: the character class includes `|`, and nothing after the
            // first wildcard is parsed.
            assert_matches("1.x.|", &["1.5.0"], &["2.0.0"]);
            assert_matches("*.9.9", &["0.1.0"], &[]);
        }

        #[test]
        fn tilde_table() {
            assert_matches("~1", &["1.0.0", "1.9.9"], &["2.0.0", "0.9.9"]);
            assert_matches("~1.x", &["1.9.9"], &["2.0.0"]);
            assert_matches("~1.2", &["1.2.0", "1.2.9"], &["1.3.0", "1.1.9"]);
            assert_matches("~>1.2.3", &["1.2.3", "1.2.9"], &["1.3.0", "1.2.2"]);
            assert_matches("~0.0.0", &["0.0.0", "5.0.0"], &[]);
            assert_matches("~0", &["0.9.9"], &["1.0.0"]);
        }

        #[test]
        fn caret_table() {
            assert_matches("^1.2.3", &["1.2.3", "1.9.0"], &["2.0.0", "1.2.2"]);
            assert_matches("^1.2", &["1.2.0", "1.9.9"], &["2.0.0", "1.1.0"]);
            assert_matches("^1", &["1.0.0", "1.9.9"], &["2.0.0"]);
            assert_matches("^1.x", &["1.0.0", "1.9.9"], &["2.0.0"]);
            assert_matches("^0.2.3", &["0.2.3", "0.2.9"], &["0.3.0", "0.2.2"]);
            assert_matches("^0.2", &["0.2.0", "0.2.9"], &["0.3.0"]);
            assert_matches("^0.0.3", &["0.0.3"], &["0.0.4", "0.0.2", "0.1.0"]);
            assert_matches("^0.0", &["0.0.0", "0.0.9"], &["0.1.0"]);
            assert_matches("^0", &["0.0.0", "0.9.9"], &["1.0.0"]);
        }

        #[test]
        fn caret_star_only_matches_zero() {
            // Copied on purpose: upstream documents `^*` as "any", but its code ends in the
            // 0.0.z branch.
            assert_matches("^*", &["0.0.0"], &["0.0.1", "1.0.0"]);
        }

        #[test]
        fn less_equal_star_is_below_zero_one() {
            // Copied on purpose (see `Op::LessEq`).
            assert_matches("<=*", &["0.0.5"], &["0.1.0", "1.0.0"]);
        }

        #[test]
        fn not_equal_table() {
            assert_matches("!=1.2.3", &["1.2.4", "1.2.2"], &["1.2.3", "1.2.3+b"]);
            assert_matches("!=1.2", &["1.3.0", "2.2.0"], &["1.2.0", "1.2.7"]);
            assert_matches("!=1", &["2.0.0"], &["1.5.0"]);
            // `!=*` matches everything but 0.0.0 (copied on purpose).
            assert_matches("!=*", &["0.0.1", "1.0.0"], &["0.0.0"]);
        }

        #[test]
        fn equal_partial_is_tilde() {
            assert_matches("=1.2", &["1.2.0", "1.2.9"], &["1.3.0"]);
            assert_matches("1", &["1.0.0", "1.9.0"], &["2.0.0"]);
        }

        #[test]
        fn leading_zeros_are_coerced() {
            // v3.4+ (v3.3.1 rejects them).
            assert_matches(">=01.0.0", &["1.0.0"], &["0.9.0"]);
            assert_matches("=1.02.3", &["1.2.3"], &[]);
        }

        #[test]
        fn operators() {
            assert_matches("=>1.2.3", &["1.2.3"], &["1.2.2"]);
            assert_matches("=<1.2.3", &["1.2.3"], &["1.2.4"]);
            assert_matches("=1.2.3", &["1.2.3", "1.2.3+x"], &["1.2.4"]);
            assert_matches("<1.2.3", &["1.2.2"], &["1.2.3"]);
            assert_matches(">1.2.3", &["1.2.4"], &["1.2.3"]);
        }
    }

    mod grammar {
        use super::*;

        #[test]
        fn separators() {
            assert!(check(">=1.0.0,<2", "1.5.0"));
            assert!(check(">=1.0.0 , <2", "1.5.0"));
            assert!(check("\t>=1.0.0\n<2\r", "1.5.0"));
            assert!(check(">= 1.0.0 ,\t< 2", "1.5.0"));
        }

        #[test]
        fn vertical_tab_is_not_a_blank() {
            // Go's `\s` has no `\v`.
            err(">=1.0.0\x0b<2");
        }

        #[test]
        fn or_groups() {
            assert_matches("1.0.0||2.0.0", &["1.0.0", "2.0.0"], &["1.5.0"]);
            assert_matches(
                "<1 || 1.5.x || >=3",
                &["0.5.0", "1.5.2", "3.0.0"],
                &["1.6.0"],
            );
        }

        #[test]
        fn prerelease_rule_is_per_group() {
            let range = ">=1.0.0-0 <2.0.0 || >=3.0.0";
            assert_matches(range, &["1.5.0-rc.1"], &["3.1.0-rc.1"]);
            assert!(check(range, "3.1.0"));
        }

        #[test]
        fn hyphen_ranges() {
            assert_matches("1 - 2", &["1.0.0", "2.9.9"], &["3.0.0", "0.9.0"]);
            assert_matches("1.2 - 1.4.5", &["1.2.0", "1.4.5"], &["1.4.6"]);
            assert_matches("1.0.0 - 2.0.0 <1.5", &["1.4.0"], &["1.5.0"]);
            assert_matches("1.0.0 - 2.0.0 || 5.0.0", &["5.0.0", "1.0.0"], &["3.0.0"]);
            assert_matches("1.0.0-rc.1 - 2.0.0", &["1.0.0-rc.2", "1.5.0-rc.1"], &[]);
        }

        #[test]
        fn hyphen_range_eats_the_blank_before_it() {
            // Copied on purpose: the rewrite swallows the blank, gluing two constraints.
            err(">=1.0.0 1.0.0 - 2.0.0");
            err(">= 1.0.0 - 2.0.0");
        }

        #[test]
        fn invalid_groups() {
            for range in [
                ",",
                ",1",
                "1,",
                "1,,2",
                "1, ,2",
                ">=",
                ">=1.0.0 <=",
                "1 ||",
                "|| 1",
                "1 || || 2",
                "   ",
                "1.2.3.4",
                "1.2.3a",
                "1..2",
                "1.",
                "1.0.0-",
                "1.0.0+",
                "1.0.0-a..b",
                ">=1<2",
                "~=1",
                ">~1",
                "1x",
                "1|",
                "1.0.0-01",
                "a",
                "v",
                "18446744073709551616",
                "1 - ",
                "1 -2",
            ] {
                err(range);
            }
        }

        #[test]
        fn big_numbers() {
            assert!(check("18446744073709551615", "18446744073709551615.0.0"));
            err("1.18446744073709551616");
        }

        #[test]
        fn limits() {
            let max = format!(">={}", "0".repeat(MAX_LEN - 2));
            assert_eq!(max.len(), 512);
            Range::parse(&max).unwrap();
            let groups = vec!["1.0.0"; 32].join("||");
            Range::parse(&groups).unwrap();
        }
    }

    mod errors {
        use super::*;
        use crate::version::error::ErrorKind as K;

        #[track_caller]
        fn rendered(range: &str) -> String {
            err(range).to_string()
        }

        #[test]
        fn double_comma() {
            assert_eq!(
                rendered(">=1.0.0,,<2"),
                "invalid range \">=1.0.0,,<2\": expected a constraint between the commas\n\
                 >=1.0.0,,<2\n\
                 \x20       ^"
            );
            assert_eq!(
                rendered(">=1.2.3,, <2"),
                "invalid range \">=1.2.3,, <2\": expected a constraint between the commas\n\
                 >=1.2.3,, <2\n\
                 \x20       ^"
            );
            assert_eq!(err(">=1.2.3,, <2").span(), 8..9);
        }

        #[test]
        fn double_equal_has_a_hint() {
            assert_eq!(
                rendered("==1.2.3"),
                "invalid range \"==1.2.3\": unknown operator `==`\n\
                 ==1.2.3\n\
                 ^^\n\
                 hint: did you mean `=1.2.3`?"
            );
        }

        #[test]
        fn bang_has_a_hint() {
            assert_eq!(
                rendered(">=1.0.0 !1.2.3"),
                "invalid range \">=1.0.0 !1.2.3\": unknown operator `!`\n\
                 >=1.0.0 !1.2.3\n\
                 \x20       ^\n\
                 hint: did you mean `!=1.2.3`?"
            );
        }

        #[test]
        fn too_long() {
            let range = format!(">={}", "1".repeat(511));
            assert_eq!(range.len(), 513);
            let e = err(&range);
            assert!(e.is_limit());
            assert_eq!(e.span(), 512..513);
            assert_eq!(
                e.reason(),
                "the range is 513 bytes long, Masterminds accepts at most 512"
            );
            assert_eq!(
                e.to_string(),
                format!(
                    "invalid range {range:?}: the range is 513 bytes long, Masterminds accepts at most 512\n{range}\n{}^",
                    " ".repeat(512)
                )
            );
        }

        #[test]
        fn too_many_groups() {
            let range = vec!["1"; 33].join("||");
            let e = err(&range);
            assert!(e.is_limit());
            // The 32nd `||`, which opens group 33.
            assert_eq!(e.span(), 94..96);
            assert_eq!(
                e.to_string(),
                format!(
                    "invalid range {range:?}: the range has 33 `||` groups, Masterminds accepts at most 32\n{range}\n{}^^",
                    " ".repeat(94)
                )
            );
        }

        #[test]
        fn empty_groups() {
            assert_eq!(
                rendered(""),
                "invalid range \"\": expected a constraint, found an empty range\n\n^"
            );
            assert_eq!(
                rendered("1.0.0 ||"),
                "invalid range \"1.0.0 ||\": expected a constraint after `||`\n\
                 1.0.0 ||\n\
                 \x20     ^^"
            );
            assert_eq!(
                rendered("|| 1.0.0"),
                "invalid range \"|| 1.0.0\": expected a constraint before `||`\n\
                 || 1.0.0\n\
                 ^^"
            );
            assert_eq!(
                *err("1 || || 2").kind(),
                K::EmptyGroup {
                    place: GroupPlace::Middle
                }
            );
        }

        #[test]
        fn trailing_operator() {
            assert_eq!(
                rendered(">=1.0.0 <="),
                "invalid range \">=1.0.0 <=\": expected a version after `<=`\n\
                 >=1.0.0 <=\n\
                 \x20       ^^"
            );
        }

        #[test]
        fn glued_constraints() {
            assert_eq!(
                rendered(">=1.0.0<2"),
                "invalid range \">=1.0.0<2\": expected whitespace or a comma between two constraints\n\
                 >=1.0.0<2\n\
                 \x20      ^"
            );
        }

        #[test]
        fn single_bar_hint() {
            assert_eq!(
                rendered("<2.0.0 | >=3.0.0"),
                "invalid range \"<2.0.0 | >=3.0.0\": `|` is neither a number nor a wildcard (`x`, `X` or `*`)\n\
                 <2.0.0 | >=3.0.0\n\
                 \x20      ^\n\
                 hint: an OR needs two bars: `||`"
            );
        }

        #[test]
        fn bad_version() {
            assert_eq!(
                rendered("1.2.3a"),
                "invalid range \"1.2.3a\": invalid version `1.2.3a`: unexpected character `a`\n\
                 1.2.3a\n\
                 \x20    ^"
            );
            assert_eq!(
                *err(">=1.0.0-01").kind(),
                K::BadPrerelease {
                    prerelease: "01".to_owned()
                }
            );
        }

        #[test]
        fn non_ascii_aligns_by_char() {
            assert_eq!(
                rendered("é ≥1.0.0"),
                "invalid range \"é ≥1.0.0\": expected a version, found `é`\n\
                 é ≥1.0.0\n\
                 ^"
            );
            assert_eq!(
                rendered("1.0.0 ≥1.0.0"),
                "invalid range \"1.0.0 ≥1.0.0\": expected a version, found `≥`\n\
                 1.0.0 ≥1.0.0\n\
                 \x20     ^"
            );
            assert_eq!(
                rendered("é,,1"),
                "invalid range \"é,,1\": expected a version, found `é`\n\
                 é,,1\n\
                 ^"
            );
        }

        #[test]
        fn span_inside_a_rewritten_hyphen_range() {
            // The error is found after rewriting; the caret still points into the input.
            let e = err("1.0.0 - 2.0.0-01");
            assert_eq!(e.span(), 14..16);
            assert_eq!(&e.input()[e.span()], "01");
        }
    }
}
