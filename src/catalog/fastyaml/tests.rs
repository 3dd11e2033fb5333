use super::{to_json, to_json_eliding, to_value};
use crate::catalog::decode::yaml_options;
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use serde_json::{Value, json};

fn saphyr(doc: &str) -> Result<Value, serde_saphyr::Error> {
    serde_saphyr::from_str_with_options(doc, yaml_options())
}

/// The JSON text the fast reader writes for `doc`.
fn json_text(doc: &str) -> Option<String> {
    let mut out = Vec::new();
    to_json(doc, &mut out)?;
    Some(String::from_utf8(out).expect("the fast reader writes UTF-8"))
}

/// The fast reader takes `doc` and agrees with serde-saphyr, key order included.
#[track_caller]
fn fast(doc: &str) -> Value {
    let want = saphyr(doc).unwrap_or_else(|e| panic!("serde-saphyr refuses {doc:?}: {e}"));
    let got = to_value(doc).unwrap_or_else(|| panic!("fast reader fell back on {doc:?}"));
    assert_eq!(got, want, "{doc:?}");
    assert_eq!(
        json_text(doc),
        Some(serde_json::to_string(&want).unwrap()),
        "{doc:?}"
    );
    got
}

/// The fast reader leaves `doc` to serde-saphyr.
#[track_caller]
fn falls_back(doc: &str) {
    assert_eq!(to_value(doc), None, "{doc:?}");
}

/// The value `to_json_eliding` should give for a document that `to_json` reads as `full`: in
/// an `olm.bundle` (one `schema` key in any case, spelled so) the root's `properties` (one in
/// any case, spelled so), each item whose keys are exactly one `type` and one `value` in any
/// case, spelled so, `type: olm.csv.metadata` first, has a mapping value written as `{}`.
fn elided(full: &Value) -> Value {
    let mut v = full.clone();
    let Some(root) = v.as_object_mut() else {
        return v;
    };
    let count = |m: &serde_json::Map<String, Value>, k: &str| {
        m.keys().filter(|key| key.eq_ignore_ascii_case(k)).count()
    };
    if count(root, "schema") != 1
        || root.get("schema") != Some(&json!("olm.bundle"))
        || count(root, "properties") != 1
    {
        return v;
    }
    let Some(items) = root.get_mut("properties").and_then(Value::as_array_mut) else {
        return v;
    };
    // Whether an elided item may stand: exactly one `type` and one `value` in any case.
    let mut plain = true;
    let mut any = false;
    for item in items.iter_mut().filter_map(Value::as_object_mut) {
        let keys: Vec<&String> = item.keys().collect();
        let type_at = keys.iter().position(|k| *k == "type");
        let value_at = keys.iter().position(|k| *k == "value");
        let csv = item.get("type") == Some(&json!("olm.csv.metadata"));
        if let (Some(t), Some(v), true) = (type_at, value_at, csv)
            && t < v
            && item.get("value").is_some_and(Value::is_object)
        {
            if count(item, "type") != 1 || count(item, "value") != 1 {
                plain = false;
            }
            item.insert("value".into(), json!({}));
            any = true;
        }
    }
    if any && !plain {
        return full.clone();
    }
    v
}

/// `to_json_eliding` answers exactly when `to_json` does, with the same text but for the
/// elided csv metadata mappings.
#[track_caller]
fn elides(doc: &str) -> Result<(), TestCaseError> {
    let mut full = Vec::new();
    let mut short = Vec::new();
    let read = to_json(doc, &mut full);
    prop_assert_eq!(
        read.is_some(),
        to_json_eliding(doc, &mut short).is_some(),
        "{:?}",
        doc
    );
    if read.is_none() {
        return Ok(());
    }
    let full: Value = serde_json::from_slice(&full).unwrap();
    let want = serde_json::to_string(&elided(&full)).unwrap();
    prop_assert_eq!(String::from_utf8(short).unwrap(), want, "{:?}", doc);
    Ok(())
}

/// Whenever the fast reader answers, serde-saphyr reads the document and gives the same value.
fn agrees(doc: &str) -> Result<bool, TestCaseError> {
    let Some(got) = to_value(doc) else {
        return Ok(false);
    };
    let want = saphyr(doc);
    prop_assert!(
        want.is_ok(),
        "fast reader read {doc:?} as {got}, serde-saphyr refuses it: {:?}",
        want.err()
    );
    let want = want.unwrap();
    prop_assert_eq!(&got, &want, "{:?}", doc);
    prop_assert_eq!(
        json_text(doc),
        Some(serde_json::to_string(&want).unwrap()),
        "JSON text (key order, escapes) of {:?}",
        doc
    );
    Ok(true)
}

#[test]
fn block_mappings_and_sequences() {
    let v = fast("a: 1\nb:\n  c: x\n  d:\n  - w\n  - z\ne:\n    - 1\n    - 2\n");
    assert_eq!(
        v,
        json!({"a": 1, "b": {"c": "x", "d": ["w", "z"]}, "e": [1, 2]})
    );
    fast("schema: olm.package\nname: foo\ndefaultChannel: stable\n");
    fast("list:\n- a\n- b\nafter: c\n");
    fast("- a\n- b\n");
    fast("  indented: root\n  b: c\n");
    fast("a:\n  b:\n    c:\n      d: e\n  f: g\nh: i\n");
    fast("a: x\nb:\nc: ~\n");
}

#[test]
fn compact_nodes_in_sequence_items() {
    let v = fast(
        "properties:\n- type: olm.gvk\n  value:\n    group: g\n    kind: K\n- type: olm.package\n  value:\n    packageName: p\n    version: 0.1.0\n",
    );
    assert_eq!(v["properties"][1]["value"]["version"], "0.1.0");
    fast("entries:\n  - name: a\n    skips:\n      - b\n  - name: c\n    skips:\n    - d\n");
    fast("-   key: v\n    other: w\n- x\n");
    fast("- - a\n  - b\n- - c\n");
    fast("- \n- x\n-\n");
    fast("- key:\n- x\n");
    fast("- # comment\n  a: b\n");
}

#[test]
fn plain_scalars() {
    fast("a: hello world\nb: foo:bar\nc: a#b\nd: x # comment\ne: http://example.com/x?y=1\n");
    fast("jsonPath: .status.conditions[?(@.type==\"Ready\")].status\nf: foo[0]\ng: a,b\n");
    fast("a: -foo\nb: -1\nc: 'x'\nd: it's\ne: say \"hi\"\n");
    fast("a: ünïcödé ✓\nb: 日本\n");
    fast("key with spaces: v\nkey   : w\n");
    fast("a: x   \nb: y  # c\n");
}

#[test]
fn plain_scalar_types() {
    let doc = "a: ~\nb: null\nc: Null\nd: NULL\ne: true\nf: True\ng: FALSE\nh: yes\ni: No\nj: on\nk: OFF\nl: y\nm: n\nn: 0\no: 123\np: -45\nq: 0x1F\nr: 0o17\ns: +1\nt: 1e3\nu: 1_000\nv: 1.0\nw: 4.20\nx: .5\ny: 007\nz: 0b11\naa: 1.2.3\nab: v1\nac: nul\nad: inf\nae: nan\naf: .git\nag: 2024-01-01\nah: 12:30\nai: 9223372036854775807\naj: 18446744073709551615\nak: -9223372036854775808\nal: 1e999x\nam: 0X1F\nan: +.nan\nao: -0\nap: '1'\naq: \"true\"\nar: 1.5e-3\n";
    let v = fast(doc);
    assert_eq!(v["a"], Value::Null);
    assert_eq!(v["h"], json!(true));
    assert_eq!(v["o"], json!(123));
    assert_eq!(v["aa"], json!("1.2.3"));
    assert_eq!(v["ap"], json!("1"));
}

#[test]
fn keys_are_text() {
    let v = fast("1: a\ntrue: b\ny: c\n0x10: d\n1.0: e\n\"null\": f\n'~': g\na:b: h\n");
    assert_eq!(v["1"], "a");
    assert_eq!(v["y"], "c");
    assert_eq!(v["null"], "f");
    assert_eq!(v["a:b"], "h");
}

#[test]
fn quoted_scalars() {
    let v = fast(
        "a: 'it''s'\nb: \"tab\\there\\n\\\"q\\\" \\\\ \\/ \\u00e9 \\x41 \\U0001F600\"\nc: ''\nd: \"\"\ne: '  spaced  ' # c\nf: \"#not a comment\"\n",
    );
    assert_eq!(v["a"], "it's");
    assert_eq!(v["b"], "tab\there\n\"q\" \\ / é A 😀");
    fast("\"quoted key\": 1\n'single key': 2\n\"k\" : 3\n");
    fast("a: \"\\0\\a\\b\\v\\f\\r\\e\\ \\N\\_\\L\\P\"\n");
}

#[test]
fn literal_and_folded_blocks() {
    let v = fast("a: |\n  line 1\n  line 2\nb: x\n");
    assert_eq!(v["a"], "line 1\nline 2\n");
    let v = fast("a: |-\n  line 1\n\n    indented\n  # not a comment\nb: x\n");
    assert_eq!(v["a"], "line 1\n\n  indented\n# not a comment");
    let v = fast("a: |+\n  keep\n\n\nb: x\n");
    assert_eq!(v["a"], "keep\n\n\n");
    fast("a: |+\n  keep\n");
    fast("a: |\n  trailing\n\n\n");
    fast("a: |2\n    two more\n  base\n");
    fast("a: |-2\n    lead\n");
    fast("a: |2-\n    lead\n");
    fast("- |\n  in a list\n- |-\n   three\n   spaces\n- x\n");
    fast("- key: |\n    in a compact map\n  other: y\n");
    fast("a: | # comment\n  text\n");
    fast("a: |\n\n  after a blank\n");
    let v = fast("a: >\n  folded\n  text\n\n  para\nb: >-\n  x\n  y\nc: >+\n  k\n\nd: z\n");
    assert_eq!(v["a"], "folded text\npara\n");
    fast(
        "alm-examples: |-\n  [\n    {\n      \"apiVersion\": \"v1\",\n      \"kind\": \"X\"\n    }\n  ]\ndescription: |\n  # Title\n\n  Some *markdown* text: with colons.\n",
    );
}

#[test]
fn multi_line_plain_scalars() {
    let v = fast(
        "- description: CreationTimestamp is a timestamp representing the server time when\n    this object was created. It is not guaranteed\n\n    to be set.\n  name: Age\n",
    );
    assert_eq!(
        v[0]["description"],
        "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed\nto be set."
    );
    fast("a: one\n  two\n   three\nb: x\n");
    fast("- one\n  two\n");
    fast("a: 1\n  2\n");
    // A continuation line may start with an indicator: it is text.
    for c in [
        "[", "{", "'", "\"", "*", "&", "!", "|", ">", "%", "@", "`", ",", "?", "-", "- x", ":x",
    ] {
        let v = fast(&format!("a: foo\n  {c}bar\nb: c\n"));
        assert_eq!(v["a"], format!("foo {c}bar"));
    }
}

#[test]
fn multi_line_quoted_scalars() {
    let v = fast("a: \"one\n  two  \n\n   three\"\nb: 'it''s\n  long'\n");
    assert_eq!(v["a"], "one two\nthree");
    assert_eq!(v["b"], "it's long");
    let v = fast("- d: \"# Title\\n\\nText [a\n    b](x) \\\n    \\ indented\\n\"\n  e: f\n");
    assert_eq!(v[0]["d"], "# Title\n\nText [a b](x)  indented\n");
    fast("a: 'x  \n\n\n  y' # c\n");
    fast("a: \"x\\\n\n  y\"\n");
    fast("a: \"\n  x\"\n");
    fast("a: \"x \\t\n  y\"\n");
}

#[test]
fn comments_blank_lines_and_markers() {
    fast("# head\n\na: b # trailing\n   # indented comment\n\n# between\nc:\n  # before\n  d: e\n");
    fast("---\na: b\n");
    fast("--- # doc\na: b\n");
    fast("a: b\n# last");
    fast("a: []\nb: {}\nc:\n- []\n- {} # c\n");
}

/// A repeated key is left to serde-saphyr in a small mapping (compared one by one) and in a
/// large one (through a set), at every nesting level; the same key in sibling or nested
/// mappings is no repetition.
#[test]
fn repeated_keys_in_small_and_large_mappings() {
    falls_back("a: 1\nb: 2\na: 3\n");
    falls_back("m:\n  a: 1\n  a: 2\n");
    fast("a:\n  a: 1\nb:\n  a: 2\n");
    fast("- a: 1\n  b: 2\n- a: 3\n  b: 4\n");
    for n in [31, 32, 33, 40, 100] {
        let mut doc: String = (0..n).map(|i| format!("k{i}: {i}\n")).collect();
        let v = fast(&doc);
        assert_eq!(v.as_object().map(|m| m.len()), Some(n), "{n} keys");
        // Nested mappings in between do not disturb the outer mapping's keys.
        let nested: String = (0..n)
            .map(|i| format!("k{i}:\n  k{i}: x\n  z: y\n"))
            .collect();
        fast(&nested);
        for dup in [0, n / 2, n - 1] {
            let mut d = doc.clone();
            d.push_str(&format!("k{dup}: again\n"));
            falls_back(&d);
            let mut d = nested.clone();
            d.push_str(&format!("k{dup}: again\n"));
            falls_back(&d);
        }
        doc.push_str("tail: 1\n");
        fast(&doc);
    }
}

#[test]
fn fallbacks() {
    // Anchors, aliases, tags, flow collections, complex and merge keys.
    falls_back("a: &x 1\nb: *x\n");
    falls_back("a: !!str 1\n");
    falls_back("a: [1, 2]\n");
    falls_back("a: {b: c}\n");
    falls_back("? a\n: b\n");
    falls_back("<<: {a: b}\n");
    // Multi-line quoted scalars, tabs, carriage returns, directives, document markers.
    falls_back("a: \"one\ntwo\"\n");
    fast("- 'one\n two'\n");
    falls_back("- 'one\ntwo'\n");
    falls_back("a: \"one\n  two\n");
    falls_back("a:\tb\n");
    falls_back("a: b\r\n");
    falls_back("%YAML 1.2\n---\na: b\n");
    falls_back("a: b\n...\n");
    falls_back("a: b\n---\nc: d\n");
    falls_back("\u{feff}a: b\n");
    falls_back("a: \u{85}\n");
    // Duplicate and null keys, unknown escapes, top-level scalars.
    falls_back("a: 1\na: 2\n");
    falls_back("a: 1\n\"a\": 2\n");
    falls_back("~: 1\n");
    falls_back("null: 1\n");
    falls_back("a: \"\\q\"\n");
    falls_back("a: \"\\uD800\"\n");
    falls_back("just text\n");
    falls_back("");
    falls_back("# only a comment\n");
    // Errors.
    falls_back("a: b: c\n");
    falls_back("a: b\n  c: d\n");
    falls_back("a: - b\n");
    fast("a: b\n - c\n");
    falls_back("a:\n  - b\n c: d\n");
    falls_back("a: 'x' y\n");
    falls_back("a: |\nb: c\n");
    falls_back("a: |\n    x\n  y\n");
    falls_back("a: >\n  x\n    more\n");
    falls_back("- |2\n   x\n");
    falls_back("a: |\n      \n  x\n");
    falls_back("a: |\n  x");
    falls_back("a: ?x\n");
    falls_back("a: @x\n");
    falls_back("a: .inf\n");
    falls_back("a: 1e999\n");
    // Deep nesting.
    let mut deep = String::new();
    for i in 0..60 {
        deep.push_str(&" ".repeat(i));
        deep.push_str("k:\n");
    }
    falls_back(&deep);
    saphyr(&deep).unwrap();
}

#[test]
fn hostile_input_stays_linear_and_bounded() {
    // Very deep nesting of sequences: refused by depth without recursing far.
    let deep = "- ".repeat(100_000) + "x\n";
    falls_back(&deep);
    // Many entries: refused past the entry limit.
    let wide: String = (0..150_000).map(|i| format!("k{i}: v\n")).collect();
    falls_back(&wide);
    // A long line of colons and hashes.
    let long = format!("a: {}\n", "x:y#".repeat(200_000));
    to_value(&long);
}

/// A small YAML tree, rendered below in go-yaml's style with random variations.
#[derive(Debug, Clone)]
enum Node {
    Scalar(&'static str),
    Map(Vec<(&'static str, Node)>),
    Seq(Vec<Node>),
}

const SCALARS: &[&str] = &[
    "",
    "a",
    "foo bar",
    "yes",
    "No",
    "y",
    "n",
    "on",
    "OFF",
    "~",
    "null",
    "Null",
    "NULL",
    "true",
    "True",
    "FALSE",
    "0x10",
    "0o17",
    "0b11",
    "0X1F",
    "1.0",
    "4.20",
    "1e3",
    "1_000",
    "+1",
    "-1",
    "-0",
    "007",
    "0",
    "123",
    ".inf",
    "-.inf",
    ".nan",
    "+.nan",
    ".5",
    "1.",
    "1.2.3",
    "v1",
    "-",
    "-foo",
    "a: b",
    "a #b",
    "#c",
    "it's",
    "say \"hi\"",
    "ünï ✓",
    "a\nb",
    "a\n\nb\n",
    "line\n",
    "two\n\n",
    "\n",
    "  lead",
    "trail  ",
    "key:",
    "[x]",
    "{y}",
    "*a",
    "&b",
    "!t",
    "%p",
    "@x",
    "`x`",
    "a,b",
    "foo[0]",
    "http://x.io/a?b=c",
    "9223372036854775807",
    "18446744073709551616",
    "-9223372036854775808",
    "1e999",
    "2024-01-01",
    "12:30",
    "<<",
    "a\\b",
    "tab\there",
    "é\u{85}",
    "{\n  \"a\": 1\n}",
    "  indented first\nsecond",
    "The quick brown fox jumps over the lazy dog and keeps running far away",
];

const KEYS: &[&str] = &[
    "name",
    "schema",
    "a",
    "b",
    "b b",
    "1",
    "true",
    "y",
    "null",
    "~",
    "x:y",
    "olm.package",
    "-k",
    "<<",
    "é",
    "k#",
    "",
];

fn node() -> impl Strategy<Value = Node> {
    let leaf = prop::sample::select(SCALARS).prop_map(Node::Scalar);
    leaf.prop_recursive(5, 40, 5, |inner| {
        prop_oneof![
            prop::collection::vec((prop::sample::select(KEYS), inner.clone()), 0..5)
                .prop_map(Node::Map),
            prop::collection::vec(inner, 0..5).prop_map(Node::Seq),
        ]
    })
}

/// A tiny deterministic random stream for the renderer's choices.
struct Dice(u64);

impl Dice {
    fn roll(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

struct Style {
    step: usize,
    seq_under_key_indented: bool,
}

fn quote_double(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\u{85}' => out.push_str("\\N"),
            c if !c.is_ascii() => out.push_str(&format!("\\u{:04x}", c as u32 & 0xffff)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Break a quoted scalar over lines at some of its spaces, as go-yaml does for long text
/// (in double quotes, sometimes with an escaped line break).
fn fold_quoted(q: &str, indent: usize, double: bool, d: &mut Dice) -> String {
    let mut out = String::new();
    for c in q.chars() {
        if c == ' ' && d.roll(4) == 0 {
            let pad = " ".repeat(indent + 1 + d.roll(3) as usize);
            if double && d.roll(2) == 0 {
                out.push_str("\\\n");
                out.push_str(&pad);
                out.push_str("\\ ");
            } else {
                out.push('\n');
                if d.roll(5) == 0 {
                    out.push('\n');
                }
                out.push_str(&pad);
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Render a scalar after `key: ` or `- ` (at column `col`, in a collection at `indent`).
fn scalar(out: &mut String, s: &str, indent: usize, d: &mut Dice) {
    match d.roll(9) {
        0..=2 => out.push_str(s),
        3 => {
            let q = format!("'{}'", s.replace('\'', "''"));
            out.push_str(&fold_quoted(&q, indent, false, d));
        }
        4 => out.push_str(&fold_quoted(&quote_double(s), indent, true, d)),
        5..=6 => {
            // A block scalar, as go-yaml writes multi-line text.
            out.push(if d.roll(4) == 0 { '>' } else { '|' });
            let extra = if s.starts_with(' ') || d.roll(6) == 0 {
                out.push('2');
                0
            } else {
                d.roll(3) as usize
            };
            match d.roll(3) {
                0 => out.push('-'),
                1 => out.push('+'),
                _ => {}
            }
            if d.roll(5) == 0 {
                out.push_str(" # c");
            }
            out.push('\n');
            for line in s.split('\n') {
                if !line.is_empty() {
                    out.push_str(&" ".repeat(indent + 2 + extra));
                    out.push_str(line);
                }
                out.push('\n');
            }
            return;
        }
        7 => {
            // A plain scalar folded over lines.
            let mut first = true;
            for word in s.split(' ') {
                if !first {
                    if d.roll(3) == 0 {
                        out.push('\n');
                        out.push_str(&" ".repeat(indent + 1 + d.roll(4) as usize));
                    } else {
                        out.push(' ');
                    }
                }
                first = false;
                out.push_str(word);
            }
        }
        _ => {
            out.push_str(s);
            out.push_str(" # trailing");
        }
    }
    out.push('\n');
}

fn render_key(out: &mut String, k: &str, d: &mut Dice) {
    match d.roll(6) {
        0 => out.push_str(&quote_double(k)),
        1 => {
            out.push('\'');
            out.push_str(&k.replace('\'', "''"));
            out.push('\'');
        }
        _ => out.push_str(k),
    }
    out.push(':');
}

fn noise(out: &mut String, indent: usize, d: &mut Dice) {
    match d.roll(12) {
        0 => out.push('\n'),
        1 => {
            out.push_str(&" ".repeat(d.roll(indent as u64 + 3) as usize));
            out.push_str("# comment: - x\n");
        }
        _ => {}
    }
}

/// Render `n` as a block node whose lines start at column `indent`; the first line's
/// prefix (`key:` or `- `) is already written when `inline` is set.
fn render(out: &mut String, n: &Node, indent: usize, inline: bool, st: &Style, d: &mut Dice) {
    match n {
        Node::Scalar(s) => scalar(out, s, indent, d),
        Node::Map(entries) if entries.is_empty() => out.push_str("{}\n"),
        Node::Seq(items) if items.is_empty() => out.push_str("[]\n"),
        Node::Map(entries) => {
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 || !inline {
                    noise(out, indent, d);
                    out.push_str(&" ".repeat(indent));
                }
                render_key(out, k, d);
                match v {
                    Node::Scalar(_) => {
                        out.push(' ');
                        render(out, v, indent, true, st, d);
                    }
                    Node::Map(e) if e.is_empty() => out.push_str(" {}\n"),
                    Node::Seq(s) if s.is_empty() => out.push_str(" []\n"),
                    Node::Map(_) => {
                        out.push('\n');
                        render(out, v, indent + st.step, false, st, d);
                    }
                    Node::Seq(_) => {
                        out.push('\n');
                        let at = if st.seq_under_key_indented {
                            indent + st.step
                        } else {
                            indent
                        };
                        render(out, v, at, false, st, d);
                    }
                }
            }
        }
        Node::Seq(items) => {
            for (i, v) in items.iter().enumerate() {
                if i > 0 || !inline {
                    noise(out, indent, d);
                    out.push_str(&" ".repeat(indent));
                }
                out.push('-');
                match v {
                    Node::Map(e) if !e.is_empty() => {
                        out.push(' ');
                        render(out, v, indent + 2, true, st, d);
                    }
                    Node::Seq(s) if !s.is_empty() && d.roll(2) == 0 => {
                        out.push(' ');
                        render(out, v, indent + 2, true, st, d);
                    }
                    Node::Seq(s) if !s.is_empty() => {
                        out.push('\n');
                        render(out, v, indent + st.step, false, st, d);
                    }
                    _ => {
                        out.push(' ');
                        render(out, v, indent, true, st, d);
                    }
                }
            }
        }
    }
}

fn document(root: &Node, seed: u64) -> String {
    let mut d = Dice(seed | 1);
    let st = Style {
        step: [2, 2, 4, 3][d.roll(4) as usize],
        seq_under_key_indented: d.roll(2) == 0,
    };
    let mut out = String::new();
    if d.roll(3) == 0 {
        out.push_str("---\n");
    }
    render(&mut out, root, 0, false, &st, &mut d);
    out
}

/// Fragments of lines for the free-form fuzz below.
const FRAGMENTS: &[&str] = &[
    "- ",
    "-",
    "key: ",
    "k2:",
    "- k: ",
    "a",
    "b c",
    "\"q\"",
    "'s'",
    "|",
    "|-",
    "|+",
    ">",
    "|2",
    "[]",
    "{}",
    "# c",
    " # c",
    "&a x",
    "*a",
    "!!str 1",
    "? k",
    ": v",
    "a: b",
    "---",
    "...",
    "  ",
    "1",
    "0x1",
    "true",
    "~",
    "\"a\\",
    "'a''",
    "\"\\u00e9\"",
    "x:y",
    ":",
    "#",
    "é",
    "\"a",
    "b\"",
    "'a",
    "c'",
    "\\",
    " \\",
    "\\ ",
    "\\n",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Documents in go-yaml's style: whenever the fast reader answers, it agrees with
    /// serde-saphyr (value and key order).
    #[test]
    fn agrees_with_serde_saphyr_on_rendered_documents(
        root in prop_oneof![
            prop::collection::vec((prop::sample::select(KEYS), node()), 1..6).prop_map(Node::Map),
            prop::collection::vec(node(), 1..4).prop_map(Node::Seq),
        ],
        seed in any::<u64>(),
    ) {
        let doc = document(&root, seed);
        agrees(&doc)?;
    }

    /// Free-form lines from tricky fragments: the fast reader never gives a value that
    /// serde-saphyr does not.
    #[test]
    fn agrees_with_serde_saphyr_on_line_soup(
        lines in prop::collection::vec(
            (0usize..7, prop::collection::vec(prop::sample::select(FRAGMENTS), 1..4)),
            1..10,
        ),
    ) {
        let mut doc = String::new();
        for (indent, parts) in &lines {
            doc.push_str(&" ".repeat(*indent));
            for p in parts {
                doc.push_str(p);
            }
            doc.push('\n');
        }
        agrees(&doc)?;
    }
}

#[test]
fn csv_metadata_mappings_of_bundles_are_elided() {
    let csv = "- type: olm.csv.metadata\n  value:\n    description: |\n      Two\n      lines\n    keywords:\n    - a\n";
    let bundle = |props: &str, schema: &str| {
        format!(
            "name: b\nproperties:\n- type: olm.package\n  value:\n    packageName: p\n{props}schema: {schema}\n"
        )
    };
    let short = |doc: &str| {
        let mut out = Vec::new();
        to_json_eliding(doc, &mut out).map(|_| String::from_utf8(out).unwrap())
    };
    let doc = bundle(csv, "olm.bundle");
    assert_eq!(
        short(&doc).unwrap(),
        r#"{"name":"b","properties":[{"type":"olm.package","value":{"packageName":"p"}},{"type":"olm.csv.metadata","value":{}}],"schema":"olm.bundle"}"#
    );
    elides(&doc).unwrap();
    // The lines elided, up to the next line with content.
    let lines = to_json_eliding(&doc, &mut Vec::new()).unwrap().unwrap();
    assert_eq!(lines.indent, 4);
    assert_eq!(
        &doc[lines.range],
        "    description: |\n      Two\n      lines\n    keywords:\n    - a\n"
    );
    // Written whole: another schema, `value` before `type`, keys in another case or
    // repeated in another case, a value that is no block mapping.
    for doc in [
        bundle(csv, "olm.package"),
        bundle(
            "- value:\n    a: 1\n  type: olm.csv.metadata\n",
            "olm.bundle",
        ),
        bundle(
            "- Type: olm.csv.metadata\n  value:\n    a: 1\n",
            "olm.bundle",
        ),
        bundle(
            "- type: olm.csv.metadata\n  value:\n    a: 1\n  Type: olm.gvk\n",
            "olm.bundle",
        ),
        bundle(csv, "olm.bundle") + "Properties: []\n",
        bundle(csv, "olm.bundle") + "SCHEMA: olm.package\n",
        bundle("- type: olm.csv.metadata\n  value:\n  - a\n", "olm.bundle"),
        bundle("- type: olm.csv.metadata\n  value: x\n", "olm.bundle"),
        bundle("- type: olm.csv.metadata\n  value: {}\n", "olm.bundle"),
        format!(
            "spec:\n  properties:\n  {}schema: olm.bundle\n",
            csv.replace('\n', "\n  ")
        ),
    ] {
        let mut full = Vec::new();
        to_json(&doc, &mut full).unwrap();
        assert_eq!(short(&doc), Some(String::from_utf8(full).unwrap()), "{doc}");
        elides(&doc).unwrap();
    }
    // A mapping the fast reader leaves to serde-saphyr is left so when elided too.
    let doc = bundle(
        "- type: olm.csv.metadata\n  value:\n    a: 1\n    a: 2\n",
        "olm.bundle",
    );
    assert_eq!(short(&doc), None);
    elides(&doc).unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    /// Bundles whose csv metadata is any rendered node: elided exactly when the rule says.
    #[test]
    fn elides_csv_metadata_of_rendered_bundles(
        csv in node(),
        extra in prop::collection::vec((prop::sample::select(&["type", "Type", "value", "name"][..]), node()), 0..2),
        seed in any::<u64>(),
    ) {
        let mut item = vec![("type", Node::Scalar("olm.csv.metadata")), ("value", csv)];
        item.extend(extra);
        let root = Node::Map(vec![
            ("name", Node::Scalar("a")),
            ("properties", Node::Seq(vec![Node::Map(item)])),
            ("schema", Node::Scalar("olm.bundle")),
        ]);
        elides(&document(&root, seed))?;
    }
}

/// Most rendered documents take the fast road (so the property above tests something).
#[test]
fn rendered_documents_mostly_take_the_fast_road() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = (
        prop::collection::vec(
            (prop::sample::select(&["name", "a", "b b"][..]), node()),
            1..6,
        ),
        any::<u64>(),
    );
    let mut fast_road = 0;
    let total = 500;
    for _ in 0..total {
        let (entries, seed) = strategy.new_tree(&mut runner).unwrap().current();
        let doc = document(&Node::Map(entries), seed);
        if agrees(&doc).unwrap() {
            fast_road += 1;
        }
    }
    eprintln!("{fast_road} of {total} rendered documents took the fast road");
    assert!(fast_road * 10 > total, "{fast_road} of {total}");
}

/// Every document of the real catalogs and manifests under `../shared/realdata`: the same
/// value as serde-saphyr, and most through the fast reader.
#[test]
fn agrees_with_serde_saphyr_on_real_data() {
    let Some(root) = crate::catalog::tests::realdata("fastyaml real data") else {
        return;
    };
    let (mut docs, mut fast_docs, mut fast_bytes, mut bytes) = (0, 0, 0, 0);
    let mut slow = Vec::new();
    for entry in walkdir::WalkDir::new(&root).sort_by_file_name() {
        let entry = entry.unwrap();
        let path = entry.path();
        if !matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml")
        ) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        // Split as the loader does: on lines starting with `---`.
        let mut starts = vec![0];
        starts.extend(memchr::memmem::find_iter(text.as_bytes(), b"\n---").map(|i| i + 1));
        starts.push(text.len());
        for w in starts.windows(2) {
            let mut doc = &text[w[0]..w[1]];
            if doc.starts_with("---") {
                doc = doc.find('\n').map_or("", |i| &doc[i + 1..]);
            }
            if doc
                .lines()
                .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
            {
                continue;
            }
            docs += 1;
            bytes += doc.len();
            elides(doc).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            match to_value(doc) {
                Some(got) => {
                    let want = saphyr(doc).unwrap_or_else(|e| {
                        panic!(
                            "{}: fast reader reads a document serde-saphyr refuses: {e}",
                            path.display()
                        )
                    });
                    assert_eq!(got, want, "{}", path.display());
                    assert_eq!(
                        json_text(doc),
                        Some(serde_json::to_string(&want).unwrap()),
                        "{}",
                        path.display()
                    );
                    fast_docs += 1;
                    fast_bytes += doc.len();
                }
                None => slow.push(
                    path.strip_prefix(&root)
                        .unwrap_or(path)
                        .display()
                        .to_string(),
                ),
            }
        }
    }
    eprintln!(
        "real data: {fast_docs} of {docs} documents ({fast_bytes} of {bytes} bytes) took the fast road"
    );
    slow.dedup();
    for s in slow.iter().take(40) {
        eprintln!("  fallback: {s}");
    }
    assert!(fast_docs * 10 >= docs * 8, "{fast_docs} of {docs}");
}
