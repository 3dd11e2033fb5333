//! A fast reader for the block-style YAML that catalogs are written in: what `opm render -o
//! yaml` (sigs.k8s.io/yaml, go-yaml v2's emitter) writes and what catalog authors write by
//! hand. It owns one question: "is this document in the subset, and if so, what JSON value
//! is it?". [`to_json`] answers with exactly the JSON text `serde_json` writes for the value
//! serde-saphyr gives for the document under [`super::decode::yaml_options`] (read into a
//! `serde_json::Value`), without building that value, or with `None`, and the caller then
//! reads the document with serde-saphyr as before ([`to_value`] is the same answer read back
//! into a value). So every error, with its file and line, still comes from serde-saphyr:
//! anything doubtful, malformed or merely unusual is a `None`, never a guess.
//!
//! The subset: block mappings and block sequences (a sequence under a key at the key's
//! indentation, as go-yaml writes it, or indented), compact nested nodes in sequence items
//! (`- key: v`, `- - v`), plain, single- and double-quoted scalars (also folded over several
//! lines, as go-yaml writes long text), literal (`|`) and folded (`>`) block scalars with
//! chomping and indentation indicators, the empty flow collections `[]` and `{}`, comments,
//! blank lines and a leading `---` line. Outside it (so read by serde-saphyr): anchors,
//! aliases, tags, other flow collections, complex keys, merge
//! keys, tabs, carriage returns and other control characters, directives and document
//! markers in the text, duplicate keys, null keys, deep nesting and very large documents
//! (which could reach serde-saphyr's budget).
//!
//! [`to_json_eliding`] writes the same text except for a bundle's `olm.csv.metadata`
//! mappings, which it reads and checks as usual (a document outside the subset is still
//! `None`) but writes as `{}`: for a load that only asks whether each is a mapping (rule 5 of
//! `opm validate`), most of a small bundle's text need not be written nor read again.
//!
//! A plain scalar's reading (null, boolean, integer, float or string) is decided here only
//! when it is certain: the null and YAML 1.1 boolean spellings serde-saphyr accepts, short
//! decimal integers, and text that no numeric form can match. Any other scalar that might
//! be a number is resolved by serde-saphyr itself, alone. Everything here is linear in the
//! document's size and the recursion depth is bounded: documents are untrusted input.

use std::borrow::Cow;
use std::ops::Range;

use serde_json::Value;

use super::decode::yaml_options;

/// Deepest nesting of collections read here (serde-saphyr's budget stops at 64).
const MAX_DEPTH: usize = 48;
/// Most map entries plus sequence items read here (serde-saphyr's budget: 250 000 nodes,
/// 1 000 000 events).
const MAX_ENTRIES: usize = 100_000;
/// Largest document read here (serde-saphyr's budget: 64 MiB of scalar text).
const MAX_BYTES: usize = 32 << 20;
/// Longest key read here (YAML limits implicit keys to 1024 characters).
const MAX_KEY: usize = 512;

/// Read one YAML document (the text between two `---` lines, or after a leading one) into the
/// JSON value serde-saphyr would give for it, or `None` if the document is outside the subset
/// this reader is sure about (including every malformed document). [`to_json`] read back.
pub fn to_value(doc: &str) -> Option<Value> {
    let mut out = Vec::new();
    to_json(doc, &mut out)?;
    serde_json::from_slice(&out).ok()
}

/// Write one YAML document as compact JSON text into `out` (cleared first): exactly the text
/// `serde_json::to_string` gives for the value serde-saphyr reads (keys in document order, as
/// `serde_json`'s `preserve_order` map keeps them; strings escaped as `serde_json` escapes
/// them), without building the value. `None`, with `out` holding nothing useful, if the
/// document is outside the subset this reader is sure about (see [`to_value`]).
pub fn to_json(doc: &str, out: &mut Vec<u8>) -> Option<()> {
    write_json(doc, out, false).map(|_| ())
}

/// [`to_json`], except that in an `olm.bundle` document each `olm.csv.metadata` property's
/// value that is a block mapping is written as `{}` (read and checked all the same, so the
/// answer is `None` exactly when [`to_json`]'s is). Only the plain form is elided: the root's
/// keys `schema: olm.bundle` and `properties`, an item's `type: olm.csv.metadata` before its
/// `value`, each key spelled so and none repeated in another case (which the typed decoding,
/// matching keys case-insensitively, would read otherwise); anything else is written whole.
///
/// When exactly one mapping was elided, also its lines ([`ElidedLines`]).
pub fn to_json_eliding(doc: &str, out: &mut Vec<u8>) -> Option<Option<ElidedLines>> {
    write_json(doc, out, true)
}

/// The lines of the one csv metadata mapping [`to_json_eliding`] elided. Those lines replaced
/// by one line `x: 0` at the mapping's indentation give a document with the same JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElidedLines {
    /// Bytes from its first line to the next line with content (or the end).
    pub range: Range<usize>,
    /// The column of its keys.
    pub indent: usize,
}

/// [`to_json`] or [`to_json_eliding`]: `Some` with the lines of the one mapping elided, if
/// there is exactly one.
fn write_json(doc: &str, out: &mut Vec<u8>, elide: bool) -> Option<Option<ElidedLines>> {
    out.clear();
    if doc.len() > MAX_BYTES {
        return None;
    }
    let start = skip_marker(doc)?;
    if !clean(&doc.as_bytes()[start..]) {
        return None;
    }
    out.reserve(doc.len());
    let mut r = Reader {
        s: doc,
        pos: start,
        inline: None,
        entries: 0,
        out: std::mem::take(out),
        keys: Vec::new(),
        peeked: None,
        elide,
        quiet: false,
        elide_next: false,
        props: Props::Outside,
        elision: Elision::default(),
    };
    let done = r.root();
    let redo = done.is_some() && r.elision.elided > 0 && !r.elision.plain();
    *out = r.out;
    if redo {
        // Elided where the typed decoding would read keys otherwise: written whole.
        return write_json(doc, out, false);
    }
    done.map(|()| r.elision.lines.filter(|_| r.elision.elided == 1))
}

/// Where the reader is relative to the root's `properties` sequence (elision only).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Props {
    /// Not inside it.
    Outside,
    /// Reading the value of the root's `properties` key.
    Value,
    /// Reading the items of that value, a sequence.
    Items,
}

/// What [`to_json_eliding`] saw of the document's keys, to tell whether its elisions stand.
#[derive(Default)]
struct Elision {
    /// csv metadata mappings written as `{}`.
    elided: usize,
    /// Root keys spelled `schema` in any case, and whether one is exactly `schema: olm.bundle`.
    schema_keys: usize,
    bundle: bool,
    /// Root keys spelled `properties` in any case.
    properties_keys: usize,
    /// An item with an elided value had its `type` or `value` key repeated in another case.
    spoiled: bool,
    /// The lines of the last mapping elided.
    lines: Option<ElidedLines>,
}

impl Elision {
    /// Whether the typed decoding reads the elided values as csv metadata of a bundle.
    fn plain(&self) -> bool {
        !self.spoiled && self.schema_keys == 1 && self.bundle && self.properties_keys == 1
    }
}

/// Where the content starts: after a first line `---` that carries at most a comment.
fn skip_marker(doc: &str) -> Option<usize> {
    let Some(rest) = doc.strip_prefix("---") else {
        return Some(0);
    };
    let (line, next) = match memchr::memchr(b'\n', rest.as_bytes()) {
        Some(i) => (&rest[..i], 3 + i + 1),
        None => (rest, doc.len()),
    };
    if line.is_empty() || tail_ok(line) {
        Some(next)
    } else {
        None
    }
}

/// Whether the text has only characters this reader handles (no tab, no carriage return, no
/// other control character, no Unicode line separator or byte order mark) and no line that
/// starts with a document marker (`---`, `...`) or a directive (`%`).
fn clean(b: &[u8]) -> bool {
    // Whole chunks without an early exit inside, so that the test is vectorised.
    let plain_ascii = b.chunks(64).all(|chunk| {
        chunk.iter().fold(true, |ok, &c| {
            ok & ((0x20..0x7f).contains(&c) | (c == b'\n'))
        })
    });
    if !plain_ascii {
        for &c in b {
            if (c < 0x20 && c != b'\n') || c == 0x7f {
                return false;
            }
        }
        // The bytes came from a `&str`, so they are UTF-8.
        let Ok(s) = std::str::from_utf8(b) else {
            return false;
        };
        if s.chars().any(|c| {
            matches!(
                c,
                '\u{80}'
                    ..='\u{9f}' | '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
            )
        }) {
            return false;
        }
    }
    for marker in [&b"---"[..], b"...", b"%"] {
        if b.starts_with(marker) {
            return false;
        }
    }
    // One pass over the line starts.
    memchr::memchr_iter(b'\n', b).all(|i| {
        let next = &b[i + 1..];
        !(next.starts_with(b"---") || next.starts_with(b"...") || next.starts_with(b"%"))
    })
}

/// One line that carries content.
#[derive(Clone, Copy)]
struct Line {
    /// Byte offset where the line starts.
    phys: usize,
    /// Byte offset of its first non-space byte (or of the compact node read next).
    start: usize,
    /// Byte offset of its end (the `\n` or the end of the text).
    end: usize,
    /// Byte offset of the next line.
    next: usize,
    /// The column of `start`.
    indent: usize,
}

/// Where a value sits: after a mapping key or after a sequence dash.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    MapValue,
    SeqItem,
}

/// How a block scalar's final line breaks are kept.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Chomp {
    Clip,
    Strip,
    Keep,
}

struct Reader<'a> {
    s: &'a str,
    /// Start of the next line to read, or of a compact node within a line (see `inline`).
    pos: usize,
    /// `Some(column)` when `pos` points at a compact node inside a line (`- key: v`).
    inline: Option<usize>,
    entries: usize,
    /// The JSON text written so far.
    out: Vec<u8>,
    /// The keys of the mappings being read, innermost last (for the duplicate-key rule).
    keys: Vec<Cow<'a, str>>,
    /// The last line [`Reader::peek`] found, with the `pos` and `inline` it was found at: a
    /// line is looked at several times before it is consumed.
    peeked: Option<(usize, Option<usize>, Line)>,
    /// Elide csv metadata mappings ([`to_json_eliding`]).
    elide: bool,
    /// Inside an elided mapping: everything is read and checked, nothing written.
    quiet: bool,
    /// The next mapping read is an elided one (cleared by any other node).
    elide_next: bool,
    /// Where the reader is relative to the root's `properties`.
    props: Props,
    /// What elision saw.
    elision: Elision,
}

/// Keys of one mapping compared one by one; past this many, through a hash set.
const LINEAR_KEYS: usize = 32;

impl<'a> Reader<'a> {
    /// The whole document: a block mapping or a block sequence, and nothing after it.
    fn root(&mut self) -> Option<()> {
        let line = self.peek()?;
        let text = self.text(&line);
        if is_seq_item(text) {
            self.seq(line.indent, 1)?
        } else if key(text)?.is_some() {
            self.map(line.indent, 1)?
        } else {
            return None;
        }
        self.peek().is_none().then_some(())
    }

    fn bytes(&self) -> &'a [u8] {
        self.s.as_bytes()
    }

    fn text(&self, line: &Line) -> &'a str {
        &self.s[line.start..line.end]
    }

    /// End of the line starting at `p` and the start of the next one.
    fn line_end(&self, p: usize) -> (usize, usize) {
        let b = self.bytes();
        match memchr::memchr(b'\n', &b[p..]) {
            Some(i) => (p + i, p + i + 1),
            None => (b.len(), b.len()),
        }
    }

    fn spaces(&self, from: usize, to: usize) -> usize {
        self.bytes()[from..to]
            .iter()
            .take_while(|&&c| c == b' ')
            .count()
    }

    /// The next line with content, skipping blank and comment lines; `None` at the end.
    fn peek(&mut self) -> Option<Line> {
        if let Some((pos, inline, line)) = self.peeked
            && pos == self.pos
            && inline == self.inline
        {
            return Some(line);
        }
        let line = self.find_line()?;
        self.peeked = Some((self.pos, self.inline, line));
        Some(line)
    }

    /// [`Reader::peek`] without the memory of the last line.
    fn find_line(&mut self) -> Option<Line> {
        if let Some(col) = self.inline {
            let (end, next) = self.line_end(self.pos);
            return Some(Line {
                phys: self.pos - col,
                start: self.pos,
                end,
                next,
                indent: col,
            });
        }
        let b = self.bytes();
        while self.pos < b.len() {
            let (end, next) = self.line_end(self.pos);
            let indent = self.spaces(self.pos, end);
            let start = self.pos + indent;
            if start == end || b[start] == b'#' {
                self.pos = next;
                continue;
            }
            return Some(Line {
                phys: self.pos,
                start,
                end,
                next,
                indent,
            });
        }
        None
    }

    fn consume(&mut self, line: &Line) {
        self.pos = line.next;
        self.inline = None;
    }

    /// Make the compact node at byte `at` of `line` the next thing read.
    fn enter_inline(&mut self, line: &Line, at: usize) -> usize {
        let col = at - line.phys;
        self.pos = at;
        self.inline = Some(col);
        col
    }

    fn count(&mut self) -> Option<()> {
        self.entries += 1;
        (self.entries <= MAX_ENTRIES).then_some(())
    }

    /// Write JSON text (nothing while quiet).
    fn emit(&mut self, text: &[u8]) {
        if !self.quiet {
            self.out.extend_from_slice(text);
        }
    }

    /// Write a JSON string (nothing while quiet).
    fn emit_str(&mut self, s: &str) {
        if !self.quiet {
            write_str(&mut self.out, s);
        }
    }

    /// Write a one-line plain scalar (nothing while quiet, but read all the same: `None` for
    /// one this reader leaves to serde-saphyr).
    fn emit_plain(&mut self, s: &str) -> Option<()> {
        if self.quiet {
            resolve_plain(s).map(|_| ())
        } else {
            write_plain(&mut self.out, s)
        }
    }

    /// A block mapping whose keys sit at column `n`. A key repeated in it is left to
    /// serde-saphyr.
    fn map(&mut self, n: usize, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        let base = self.keys.len();
        let mut many: Option<std::collections::HashSet<Cow<'a, str>>> = None;
        let mut first = true;
        // An elided csv metadata mapping is written `{}` and read quietly.
        let elided = std::mem::take(&mut self.elide_next);
        self.emit(if elided { b"{}" } else { b"{" });
        // An elided mapping's lines start with its first key's (never a compact one).
        let first_line = if elided {
            self.quiet = true;
            let inline = self.inline.is_some();
            self.peek().filter(|_| !inline).map(|l| l.phys)
        } else {
            None
        };
        let root = self.elide && depth == 1;
        let item = self.elide && !self.quiet && depth == 3 && self.props == Props::Items;
        // An item's `type` and `value` keys in any case; whether its `type` is exactly
        // `olm.csv.metadata`; whether its value was elided.
        let (mut types, mut values, mut csv, mut elided_value) = (0, 0, false, false);
        while let Some(line) = self.peek() {
            if line.indent < n {
                break;
            }
            if line.indent > n {
                return None;
            }
            let (k, after) = key(self.text(&line))??;
            match &mut many {
                Some(set) => {
                    if !set.insert(k.clone()) {
                        return None;
                    }
                }
                None => {
                    if self.keys[base..].contains(&k) {
                        return None;
                    }
                    if self.keys.len() - base == LINEAR_KEYS {
                        let mut set: std::collections::HashSet<Cow<'a, str>> =
                            self.keys.drain(base..).collect();
                        set.insert(k.clone());
                        many = Some(set);
                    } else {
                        self.keys.push(k.clone());
                    }
                }
            }
            if !first {
                self.emit(b",");
            }
            first = false;
            self.emit_str(&k);
            self.emit(b":");
            self.consume(&line);
            let start = self.out.len();
            if root {
                if k.eq_ignore_ascii_case("schema") {
                    self.elision.schema_keys += 1;
                }
                if k.eq_ignore_ascii_case("properties") {
                    self.elision.properties_keys += 1;
                }
                if k == "properties" {
                    self.props = Props::Value;
                }
            }
            let elided_before = self.elision.elided;
            if item {
                types += usize::from(k.eq_ignore_ascii_case("type"));
                values += usize::from(k.eq_ignore_ascii_case("value"));
                self.elide_next = csv && k == "value";
            }
            self.value(&line, line.start + after, n, Ctx::MapValue, depth)?;
            self.elide_next = false;
            if root {
                self.props = Props::Outside;
                if k == "schema" && self.out[start..] == *b"\"olm.bundle\"" {
                    self.elision.bundle = true;
                }
            }
            if item {
                elided_value |= self.elision.elided > elided_before;
                if k == "type" {
                    csv = self.out[start..] == *b"\"olm.csv.metadata\"";
                }
            }
            self.count()?;
        }
        if elided_value && (types != 1 || values != 1) {
            self.elision.spoiled = true;
        }
        self.keys.truncate(base);
        self.emit(b"}");
        if elided {
            self.quiet = false;
            self.elision.elided += 1;
            // Up to the next line with content, which `peek` has found.
            self.elision.lines = first_line.map(|from| ElidedLines {
                range: from..self.pos,
                indent: n,
            });
        }
        Some(())
    }

    /// A block sequence whose dashes sit at column `n`.
    fn seq(&mut self, n: usize, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.elide_next = false;
        let props = self.props;
        if depth == 2 && props == Props::Value {
            self.props = Props::Items;
        }
        self.emit(b"[");
        let mut first = true;
        while let Some(line) = self.peek() {
            if line.indent < n {
                break;
            }
            if line.indent > n {
                return None;
            }
            if !is_seq_item(self.text(&line)) {
                break;
            }
            if !first {
                self.emit(b",");
            }
            first = false;
            self.consume(&line);
            self.value(&line, line.start + 1, n, Ctx::SeqItem, depth)?;
            self.count()?;
        }
        self.emit(b"]");
        self.props = props;
        Some(())
    }

    /// The value after a key's `:` or an item's `-` (byte `at` of `line`, which is consumed),
    /// in a collection at column `n`.
    fn value(&mut self, line: &Line, at: usize, n: usize, ctx: Ctx, depth: usize) -> Option<()> {
        let b = self.bytes();
        let mut i = at;
        while i < line.end && b[i] == b' ' {
            i += 1;
        }
        // The indicator is always followed by a space or the end of the line, so a `#` here
        // starts a comment.
        if i == line.end || b[i] == b'#' {
            return match self.peek() {
                Some(l) if l.indent > n => self.node(n, depth + 1),
                Some(l) if l.indent == n && ctx == Ctx::MapValue && is_seq_item(self.text(&l)) => {
                    self.seq(n, depth + 1)
                }
                _ => {
                    self.emit(b"null");
                    Some(())
                }
            };
        }
        let rest = &self.s[i..line.end];
        match b[i] {
            b'|' | b'>' => self.block(rest, n, ctx),
            b'[' | b'{' => self.scalar(rest, n),
            b'-' if is_seq_item(rest) => {
                if ctx != Ctx::SeqItem {
                    return None;
                }
                let col = self.enter_inline(line, i);
                self.seq(col, depth + 1)
            }
            _ => {
                if ctx == Ctx::SeqItem && key(rest)?.is_some() {
                    let col = self.enter_inline(line, i);
                    return self.map(col, depth + 1);
                }
                self.scalar(rest, n)
            }
        }
    }

    /// A node that starts on a line of its own, more indented than its parent at column `n`.
    fn node(&mut self, n: usize, depth: usize) -> Option<()> {
        let line = self.peek()?;
        let text = self.text(&line);
        if is_seq_item(text) {
            return self.seq(line.indent, depth);
        }
        if key(text)?.is_some() {
            return self.map(line.indent, depth);
        }
        if matches!(text.as_bytes()[0], b'|' | b'>' | b'[' | b'{') {
            return None;
        }
        self.consume(&line);
        self.scalar(text, n)
    }

    /// A flow scalar (or `[]`, `{}`) starting at `rest`, whose line is consumed; a plain
    /// scalar may continue on the following lines that are more indented than `n`.
    fn scalar(&mut self, rest: &str, n: usize) -> Option<()> {
        let b = rest.as_bytes();
        match b[0] {
            b'"' | b'\'' => match quoted_line(rest)? {
                Some((v, used)) => {
                    if !tail_ok(&rest[used..]) {
                        return None;
                    }
                    self.emit_str(&v);
                    Some(())
                }
                None => self.quoted_lines(rest, n),
            },
            b'[' if b.get(1) == Some(&b']') && tail_ok(&rest[2..]) => {
                self.emit(b"[]");
                Some(())
            }
            b'{' if b.get(1) == Some(&b'}') && tail_ok(&rest[2..]) => {
                self.emit(b"{}");
                Some(())
            }
            b'-' if b.len() > 1 && b[1] != b' ' => self.plain(rest, n),
            c if is_indicator(c) => None,
            _ => self.plain(rest, n),
        }
    }

    /// A quoted scalar starting at `rest` (the rest of a consumed line) and going on over the
    /// following lines, which are more indented than `n`: line breaks fold to a space (or to
    /// one line feed per blank line between), except an escaped one in double quotes.
    fn quoted_lines(&mut self, rest: &str, n: usize) -> Option<()> {
        let double = rest.starts_with('"');
        let mut out = String::new();
        let mut keep = 0;
        let mut seg = segment(double, rest, 1, &mut out, &mut keep)?;
        let s = self.s;
        let b = self.bytes();
        let mut p = self.pos;
        let mut empties = 0usize;
        loop {
            let escaped = match seg {
                Seg::Closed(_) => return None,
                Seg::Open { escaped } => escaped,
            };
            if p >= b.len() {
                return None;
            }
            let (lend, next) = self.line_end(p);
            let ind = self.spaces(p, lend);
            if p + ind == lend {
                empties += 1;
                p = next;
                continue;
            }
            if ind <= n {
                return None;
            }
            if !escaped {
                out.truncate(keep);
                if empties == 0 {
                    out.push(' ');
                }
            }
            out.extend(std::iter::repeat_n('\n', empties));
            keep = out.len();
            empties = 0;
            let line = &s[p..lend];
            seg = segment(double, line, ind, &mut out, &mut keep)?;
            p = next;
            if let Seg::Closed(used) = seg {
                if !tail_ok(&line[used..]) {
                    return None;
                }
                self.pos = p;
                self.emit_str(&out);
                return Some(());
            }
        }
    }

    /// A plain scalar starting at `rest` (the rest of a consumed line).
    fn plain(&mut self, rest: &str, n: usize) -> Option<()> {
        let b = rest.as_bytes();
        let mut end = b.len();
        let mut commented = false;
        for j in memchr::memchr2_iter(b':', b'#', b) {
            if b[j] == b':' {
                if j + 1 == b.len() || b[j + 1] == b' ' {
                    return None;
                }
            } else if j > 0 && b[j - 1] == b' ' {
                end = j;
                commented = true;
                break;
            }
        }
        let first = rest[..end].trim_end_matches(' ');
        if commented {
            return self.emit_plain(first);
        }
        // Continuation lines: more indented than the parent, blank lines in between.
        let s = self.s;
        let bytes = self.bytes();
        // The folded text (built only when it is written).
        let mut folded: Option<String> = None;
        let mut is_folded = false;
        let mut empties = 0usize;
        let mut p = self.pos;
        while p < bytes.len() {
            let (lend, next) = self.line_end(p);
            let ind = self.spaces(p, lend);
            if p + ind == lend {
                empties += 1;
                p = next;
                continue;
            }
            if ind <= n || bytes[p + ind] == b'#' {
                break;
            }
            let t = s[p + ind..lend].trim_end_matches(' ');
            let tb = t.as_bytes();
            if tb[tb.len() - 1] == b':'
                || memchr::memmem::find(tb, b": ").is_some()
                || memchr::memmem::find(tb, b" #").is_some()
            {
                return None;
            }
            is_folded = true;
            if !self.quiet {
                let out = folded.get_or_insert_with(|| first.to_owned());
                if empties == 0 {
                    out.push(' ');
                } else {
                    out.extend(std::iter::repeat_n('\n', empties));
                }
                out.push_str(t);
            }
            empties = 0;
            p = next;
            self.pos = next;
        }
        if !is_folded {
            return self.emit_plain(first);
        }
        // Folded text holds a space or a line break: never a null, boolean or number.
        if let Some(f) = folded {
            self.emit_str(&f);
        }
        Some(())
    }

    /// A block scalar whose header is `header` (`|`, `>-`, `|2`, ... with an optional comment),
    /// the value of an entry in a collection at column `n`.
    fn block(&mut self, header: &str, n: usize, ctx: Ctx) -> Option<()> {
        let h = header.as_bytes();
        let literal = h[0] == b'|';
        let mut chomp = Chomp::Clip;
        let mut chomp_seen = false;
        let mut explicit: Option<usize> = None;
        let mut i = 1;
        while i < h.len() && i <= 2 {
            match h[i] {
                b'-' if !chomp_seen => {
                    chomp = Chomp::Strip;
                    chomp_seen = true;
                }
                b'+' if !chomp_seen => {
                    chomp = Chomp::Keep;
                    chomp_seen = true;
                }
                d @ b'1'..=b'9' if explicit.is_none() => explicit = Some(usize::from(d - b'0')),
                _ => break,
            }
            i += 1;
        }
        if !tail_ok(&header[i..]) {
            return None;
        }
        let mut indent = match explicit {
            // Only after a key is the indicator's base certain (the mapping's column).
            Some(d) if ctx == Ctx::MapValue => Some(n + d),
            Some(_) => return None,
            None => None,
        };
        let s = self.s;
        let b = self.bytes();
        // The text (built only when it is written).
        let text = !self.quiet;
        let mut out = String::new();
        let mut p = self.pos;
        let mut empties = 0usize;
        let mut lead_max = 0usize;
        let mut any = false;
        let mut last_newline = true;
        while p < b.len() {
            let (lend, next) = self.line_end(p);
            let ind = self.spaces(p, lend);
            if p + ind == lend {
                // A blank line; one with more spaces than the content's indentation would
                // carry content (or be an error before the first line): not handled here.
                match indent {
                    Some(k) if ind > k => return None,
                    Some(_) => {}
                    None => lead_max = lead_max.max(ind),
                }
                empties += 1;
                p = next;
                continue;
            }
            let k = match indent {
                Some(k) => k,
                None => {
                    if ind <= n {
                        break;
                    }
                    if lead_max > ind {
                        return None;
                    }
                    indent = Some(ind);
                    ind
                }
            };
            if ind < k {
                break;
            }
            if !any && text {
                out.reserve(self.block_extent(p, k));
            }
            // Folding: a more indented line keeps its line breaks; not handled here.
            if !literal && ind > k {
                return None;
            }
            if text {
                let content = &s[p + k..lend];
                if !literal && any && empties == 0 {
                    out.push(' ');
                } else {
                    out.extend(std::iter::repeat_n('\n', empties));
                }
                out.push_str(content);
                if literal {
                    out.push('\n');
                }
            }
            any = true;
            empties = 0;
            last_newline = next > lend;
            p = next;
        }
        if !any {
            return None;
        }
        self.pos = p;
        let at_end = p >= b.len();
        match chomp {
            Chomp::Strip => {
                if literal {
                    out.pop();
                }
            }
            Chomp::Clip => {
                if !last_newline {
                    return None;
                }
                if !literal {
                    out.push('\n');
                }
            }
            Chomp::Keep => {
                if !last_newline || (at_end && !b.ends_with(b"\n")) {
                    return None;
                }
                if !literal {
                    out.push('\n');
                }
                out.extend(std::iter::repeat_n('\n', empties));
            }
        }
        self.emit_str(&out);
        Some(())
    }
}

impl Reader<'_> {
    /// An upper bound of the text of a block scalar whose content lines (indented by `k`)
    /// start at `p`: the bytes up to its first less indented line.
    fn block_extent(&self, p: usize, k: usize) -> usize {
        let b = self.bytes();
        let mut q = p;
        while q < b.len() {
            let (lend, next) = self.line_end(q);
            let ind = self.spaces(q, lend);
            if q + ind != lend && ind < k {
                break;
            }
            q = next;
        }
        q - p
    }
}

/// Whether a line's content is a block sequence entry (`-` then a space or the end).
fn is_seq_item(text: &str) -> bool {
    let b = text.as_bytes();
    b.first() == Some(&b'-') && (b.len() == 1 || b[1] == b' ')
}

/// YAML's indicator characters: a plain scalar read here never starts with one.
fn is_indicator(c: u8) -> bool {
    matches!(
        c,
        b'-' | b'?'
            | b':'
            | b','
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b'#'
            | b'&'
            | b'*'
            | b'!'
            | b'|'
            | b'>'
            | b'\''
            | b'"'
            | b'%'
            | b'@'
            | b'`'
    )
}

/// After a scalar on its line: nothing, or spaces and maybe a comment.
fn tail_ok(t: &str) -> bool {
    match t.as_bytes().first() {
        None => true,
        Some(b' ') => {
            let r = t.trim_start_matches(' ');
            r.is_empty() || r.starts_with('#')
        }
        Some(_) => false,
    }
}

/// If `text` (a line's content) starts with an implicit mapping key: `Some(Some((key, offset
/// just after the colon)))`; `Some(None)` if it is not a key; `None` if it is a key this
/// reader does not handle (or malformed).
fn key(text: &str) -> Option<Option<(Cow<'_, str>, usize)>> {
    let b = text.as_bytes();
    let colon_after = |j: usize| -> Option<Option<usize>> {
        let mut k = j;
        while k < b.len() && b[k] == b' ' {
            k += 1;
        }
        if k < b.len() && b[k] == b':' {
            if k + 1 == b.len() || b[k + 1] == b' ' {
                return Some(Some(k + 1));
            }
            return None;
        }
        Some(None)
    };
    match b.first()? {
        b'"' | b'\'' => match quoted_line(text)? {
            Some((_, used)) if used > MAX_KEY => None,
            Some((k, used)) => Some(colon_after(used)?.map(|after| (Cow::Owned(k), after))),
            // A key is on one line.
            None => Some(None),
        },
        b'-' | b'?' | b':' => {
            // A plain scalar may start so, but not a key read here.
            match plain_key_colon(b) {
                Some(_) => None,
                None => Some(None),
            }
        }
        &c if is_indicator(c) => None,
        _ => {
            let Some(j) = plain_key_colon(b) else {
                return Some(None);
            };
            let k = text[..j].trim_end_matches(' ');
            if k.len() > MAX_KEY || matches!(k, "~" | "null" | "Null" | "NULL" | "<<") {
                return None;
            }
            Some(Some((Cow::Borrowed(k), j + 1)))
        }
    }
}

/// The offset of a plain key's colon (`:` followed by a space or the end), if one comes
/// before any comment.
fn plain_key_colon(b: &[u8]) -> Option<usize> {
    for j in memchr::memchr2_iter(b':', b'#', b) {
        if b[j] == b':' {
            if j + 1 == b.len() || b[j + 1] == b' ' {
                return Some(j);
            }
        } else if j > 0 && b[j - 1] == b' ' {
            return None;
        }
    }
    None
}

/// Where a quoted scalar's text stops on a line.
enum Seg {
    /// At its closing quote; the offset just after it.
    Closed(usize),
    /// At the end of the line, the scalar going on; `escaped` if the line ends with `\`.
    Open { escaped: bool },
}

/// Append to `out` the decoded text of a quoted scalar (`double` or single-quoted) from byte
/// `i` of `line` up to its closing quote or the end of the line. `keep` is set to the length
/// `out` keeps if the line break is folded (raw trailing spaces are dropped, escaped ones
/// are not). `None` for an escape this reader does not handle.
fn segment(
    double: bool,
    line: &str,
    mut i: usize,
    out: &mut String,
    keep: &mut usize,
) -> Option<Seg> {
    let b = line.as_bytes();
    let push_raw = |out: &mut String, raw: &str, keep: &mut usize| {
        out.push_str(raw);
        let trimmed = raw.trim_end_matches(' ');
        if !trimmed.is_empty() {
            *keep = out.len() - (raw.len() - trimmed.len());
        }
    };
    loop {
        let found = if double {
            memchr::memchr2(b'"', b'\\', &b[i..])
        } else {
            memchr::memchr(b'\'', &b[i..])
        };
        let Some(k) = found else {
            push_raw(out, &line[i..], keep);
            return Some(Seg::Open { escaped: false });
        };
        let j = i + k;
        push_raw(out, &line[i..j], keep);
        if !double {
            if b.get(j + 1) == Some(&b'\'') {
                out.push('\'');
                *keep = out.len();
                i = j + 2;
                continue;
            }
            return Some(Seg::Closed(j + 1));
        }
        if b[j] == b'"' {
            return Some(Seg::Closed(j + 1));
        }
        let Some(&e) = b.get(j + 1) else {
            return Some(Seg::Open { escaped: true });
        };
        i = j + 2;
        let c = match e {
            b'0' => '\0',
            b'a' => '\u{7}',
            b'b' => '\u{8}',
            b't' => '\t',
            b'n' => '\n',
            b'v' => '\u{b}',
            b'f' => '\u{c}',
            b'r' => '\r',
            b'e' => '\u{1b}',
            b' ' => ' ',
            b'"' => '"',
            b'/' => '/',
            b'\\' => '\\',
            b'N' => '\u{85}',
            b'_' => '\u{a0}',
            b'L' => '\u{2028}',
            b'P' => '\u{2029}',
            b'x' | b'u' | b'U' => {
                let len = match e {
                    b'x' => 2,
                    b'u' => 4,
                    _ => 8,
                };
                let hex = b.get(i..i + len)?;
                if !hex.iter().all(u8::is_ascii_hexdigit) {
                    return None;
                }
                let code = u32::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?;
                i += len;
                char::from_u32(code)?
            }
            _ => return None,
        };
        out.push(c);
        *keep = out.len();
    }
}

/// A quoted scalar at the start of `text`: `Some(Some((value, bytes used)))` if it closes on
/// this line, `Some(None)` if it goes on past the line, `None` for an escape not handled.
fn quoted_line(text: &str) -> Option<Option<(String, usize)>> {
    let mut out = String::new();
    let mut keep = 0;
    match segment(text.starts_with('"'), text, 1, &mut out, &mut keep)? {
        Seg::Closed(used) => Some(Some((out, used))),
        Seg::Open { .. } => Some(None),
    }
}

/// Write `s` as a JSON string, escaped as `serde_json` escapes it.
fn write_str(out: &mut Vec<u8>, s: &str) {
    // Whole chunks without an early exit inside, so that the test is vectorised.
    let escapes = s.as_bytes().chunks(32).any(|chunk| {
        chunk.iter().fold(false, |any, &c| {
            any | (c < 0x20) | (c == b'"') | (c == b'\\')
        })
    });
    if escapes {
        // Writing into a `Vec` cannot fail.
        let _ = serde_json::to_writer(&mut *out, s);
    } else {
        out.reserve(s.len() + 2);
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    }
}

/// Write the JSON of a one-line plain scalar (trimmed, not empty).
fn write_plain(out: &mut Vec<u8>, s: &str) -> Option<()> {
    match resolve_plain(s)? {
        Plain::Text => write_str(out, s),
        Plain::Verbatim => out.extend_from_slice(s.as_bytes()),
        Plain::Null => out.extend_from_slice(b"null"),
        Plain::Bool(true) => out.extend_from_slice(b"true"),
        Plain::Bool(false) => out.extend_from_slice(b"false"),
        Plain::Other(v) => {
            let _ = serde_json::to_writer(&mut *out, &v);
        }
    }
    Some(())
}

/// How a one-line plain scalar reads.
enum Plain {
    /// As the string it is.
    Text,
    /// As a decimal integer written exactly as JSON writes it.
    Verbatim,
    Null,
    Bool(bool),
    /// As serde-saphyr reads it alone.
    Other(Value),
}

/// The reading of a one-line plain scalar (trimmed, not empty).
fn resolve_plain(s: &str) -> Option<Plain> {
    match s {
        "~" | "null" | "Null" | "NULL" => return Some(Plain::Null),
        _ => {}
    }
    if let Some(b) = yaml11_bool(s) {
        return Some(Plain::Bool(b));
    }
    let b = s.as_bytes();
    let unsigned = match b.first() {
        Some(b'+' | b'-') => &b[1..],
        _ => b,
    };
    match unsigned.first() {
        Some(c) if c.is_ascii_digit() || *c == b'.' => {}
        // No integer or float form starts otherwise (Rust's `inf`/`nan` spellings are not
        // finite, so serde-saphyr keeps them as strings).
        Some(_) => return Some(Plain::Text),
        None => return resolve_alone(s),
    }
    if decimal(s) {
        return Some(Plain::Verbatim);
    }
    // Integers are digits, radix letters, `_` and a sign; floats digits, one `.`, an
    // exponent and signs. Anything else is text.
    let numeric_chars = b
        .iter()
        .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'+' | b'-'));
    if !numeric_chars || b.iter().filter(|&&c| c == b'.').count() > 1 {
        return Some(Plain::Text);
    }
    resolve_alone(s)
}

/// Let serde-saphyr read one plain scalar that might be a number.
fn resolve_alone(s: &str) -> Option<Plain> {
    let v: Value = serde_saphyr::from_str_with_options(s, yaml_options()).ok()?;
    (!v.is_array() && !v.is_object()).then_some(Plain::Other(v))
}

/// `0`, `123` or `-123` (at most 18 digits, no leading zero): an integer that JSON writes
/// exactly as it is spelled.
fn decimal(s: &str) -> bool {
    let (neg, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s),
    };
    let d = digits.as_bytes();
    if d.is_empty() || d.len() > 18 || !d.iter().all(u8::is_ascii_digit) {
        return false;
    }
    !(d[0] == b'0' && (d.len() > 1 || neg))
}

/// The YAML 1.1 boolean spellings serde-saphyr accepts (any case).
fn yaml11_bool(s: &str) -> Option<bool> {
    if s.len() > 5 {
        return None;
    }
    for t in ["true", "yes", "y", "on"] {
        if s.eq_ignore_ascii_case(t) {
            return Some(true);
        }
    }
    for f in ["false", "no", "n", "off"] {
        if s.eq_ignore_ascii_case(f) {
            return Some(false);
        }
    }
    None
}

#[cfg(test)]
mod tests;
