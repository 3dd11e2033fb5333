//! Plain text that every layer shares: escaping text from outside (a catalog, a bundle, a
//! registry) before it reaches a terminal. Imports nothing of the crate.

/// `text` in double quotes, `"` and `\\` escaped with a backslash and every unsafe character
/// ([`is_unsafe`]) escaped as [`printable`] does, so content from a catalog cannot drive the
/// terminal when printed, nor end the quotes.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => push_escaped(&mut out, c),
        }
    }
    out.push('"');
    out
}

/// Whether `c` must not reach a reader raw — the one rule of every output, terminal text,
/// JSON, YAML and pictures alike: C0 and C1 control characters and DEL (terminal escapes,
/// carriage returns, newlines), the bidirectional formatting characters that reorder what is
/// shown (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), and the line and paragraph
/// separators (U+2028, U+2029), which end a line for some readers and not for others.
pub fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2028}' | '\u{2029}' | '\u{2066}'..='\u{2069}')
}

/// Push `c`, escaped when it is unsafe: `\n`, `\t`, `\r` for those three, else `\u{…}`.
fn push_escaped(out: &mut String, c: char) {
    if !is_unsafe(c) {
        out.push(c);
        return;
    }
    match c {
        '\n' => out.push_str("\\n"),
        '\t' => out.push_str("\\t"),
        '\r' => out.push_str("\\r"),
        c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
    }
}

/// `text` with every unsafe character ([`is_unsafe`]) but those `keep` accepts written as
/// `\u{…}` (`\n`, `\t`, `\r` for those three); borrowed when there is none.
fn escaped(text: &str, keep: impl Fn(char) -> bool) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(|c| is_unsafe(c) && !keep(c)) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if keep(c) {
            out.push(c);
        } else {
            push_escaped(&mut out, c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// `text` as it is when it has no unsafe character ([`is_unsafe`]), else with them escaped
/// (`\u{1b}`, `\n`): for one line of catalog text, as in a table cell. The one escaping
/// function of every printer, with [`printable_lines`].
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    escaped(text, |_| false)
}

/// [`printable`] that keeps newlines and tabs: for a message of several lines (a diagnostic,
/// a report) that holds text from outside.
pub fn printable_lines(text: &str) -> std::borrow::Cow<'_, str> {
    escaped(text, |c| c == '\n' || c == '\t')
}

/// `text` as one word of a POSIX shell command line: as it is when it holds only characters no
/// shell reads specially (letters, digits and `@%+=:,./_-`, as image references and plain paths
/// do), else in single quotes (a `'` inside written `'\''`), unsafe characters escaped as
/// [`printable`] does.
pub fn shell_word(text: &str) -> std::borrow::Cow<'_, str> {
    let plain = |c: char| c.is_ascii_alphanumeric() || "@%+=:,./_-".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(format!("'{}'", printable(text).replace('\'', "'\\''")))
}

/// A writer that passes text through [`printable_lines`] on its way to `inner`: what a command
/// prints as text on stdout goes through it, so no byte from a catalog, a bundle or a server
/// can drive the terminal. Bytes that are not UTF-8 are written as `\x..`; a character split
/// across two writes is held until its rest arrives.
pub struct EscapingWriter<W: std::io::Write> {
    inner: W,
    pending: Vec<u8>,
}

impl<W: std::io::Write> EscapingWriter<W> {
    /// Escape what is written to `inner`.
    pub fn new(inner: W) -> Self {
        EscapingWriter {
            inner,
            pending: Vec::new(),
        }
    }
}

impl<W: std::io::Write> std::io::Write for EscapingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.pending.extend_from_slice(buf);
        let mut out = String::new();
        let mut rest: &[u8] = &self.pending;
        loop {
            match std::str::from_utf8(rest) {
                Ok(s) => {
                    out.push_str(&printable_lines(s));
                    rest = &[];
                    break;
                }
                Err(e) => {
                    let (good, bad) = rest.split_at(e.valid_up_to());
                    // Checked by from_utf8 above.
                    out.push_str(&printable_lines(
                        std::str::from_utf8(good).unwrap_or_default(),
                    ));
                    match e.error_len() {
                        Some(n) => {
                            for b in &bad[..n] {
                                out.push_str(&format!("\\x{b:02x}"));
                            }
                            rest = &bad[n..];
                        }
                        // An incomplete character at the end: wait for the rest.
                        None => {
                            rest = bad;
                            break;
                        }
                    }
                }
            }
        }
        let keep = rest.to_vec();
        self.inner.write_all(out.as_bytes())?;
        self.pending = keep;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if !self.pending.is_empty() {
            let bytes = std::mem::take(&mut self.pending);
            for b in bytes {
                self.inner.write_all(format!("\\x{b:02x}").as_bytes())?;
            }
        }
        self.inner.flush()
    }
}

impl<W: std::io::Write> Drop for EscapingWriter<W> {
    fn drop(&mut self) {
        let _ = std::io::Write::flush(self);
    }
}

/// `value` as pretty JSON with every unsafe character ([`is_unsafe`]) written as a `\uXXXX`
/// escape, DEL, C1 controls, bidirectional controls and U+2028 included (serde_json escapes
/// only C0 controls): JSON that a terminal, a browser or a JavaScript reader shows as it is.
pub fn json_pretty<T: serde::Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, SafeJson::default());
    value.serialize(&mut ser)?;
    // The formatter writes JSON, which is UTF-8.
    Ok(String::from_utf8(out).unwrap_or_default())
}

/// serde_json's pretty formatter, escaping unsafe characters in strings as `\uXXXX`.
#[derive(Default)]
struct SafeJson(serde_json::ser::PrettyFormatter<'static>);

impl serde_json::ser::Formatter for SafeJson {
    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            if is_unsafe(c) {
                writer.write_all(&fragment.as_bytes()[start..i])?;
                // Every unsafe character is in the Basic Multilingual Plane: one escape.
                write!(writer, "\\u{:04x}", c as u32)?;
                start = i + c.len_utf8();
            }
        }
        writer.write_all(&fragment.as_bytes()[start..])
    }
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object_value(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words_are_quoted_only_when_a_shell_would_read_them() {
        let image = "quay.io/acme/op-bundle@sha256:0123abcd";
        assert_eq!(shell_word(image), image);
        assert_eq!(
            shell_word("oci:bundle-images:a/b:v1.0+x"),
            "oci:bundle-images:a/b:v1.0+x"
        );
        assert_eq!(shell_word(""), "''");
        assert_eq!(shell_word("/tmp/my dir"), "'/tmp/my dir'");
        assert_eq!(shell_word("a;rm -rf ~"), "'a;rm -rf ~'");
        assert_eq!(shell_word("it's $HOME"), r"'it'\''s $HOME'");
        assert_eq!(shell_word("x\u{1b}[2J"), r"'x\u{1b}[2J'");
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(printable("plain"), "plain");
        assert_eq!(printable("a\u{1b}[31mred"), "a\\u{1b}[31mred");
        assert!(!escape("x\ny").contains('\n'));
        // Non-ASCII text that is not a control stays as it is.
        assert_eq!(printable("naïve é\u{1b}"), "naïve é\\u{1b}");
    }

    #[test]
    fn bidi_and_c1_controls_are_escaped() {
        assert_eq!(printable("abc\u{202e}def"), "abc\\u{202e}def");
        assert_eq!(printable("\u{9b}31m"), "\\u{9b}31m");
        assert_eq!(printable("a\u{2066}b\u{2069}"), "a\\u{2066}b\\u{2069}");
        assert_eq!(printable("x\u{7f}"), "x\\u{7f}");
    }

    #[test]
    fn line_separators_are_escaped_and_escape_quotes_by_the_same_rule() {
        assert_eq!(printable("a\u{2028}b\u{2029}"), "a\\u{2028}b\\u{2029}");
        assert_eq!(escape("a\"b\\c\u{202e}\n"), "\"a\\\"b\\\\c\\u{202e}\\n\"");
    }

    #[test]
    fn json_escapes_every_unsafe_character_and_reads_back_the_same() {
        let text = "a\u{7f}\u{9b}\u{202e}\u{2066}\u{2028}\u{1b}\"\\é";
        let json = json_pretty(&serde_json::json!({ text: [text, 1] })).unwrap();
        assert!(!json.chars().any(|c| is_unsafe(c) && c != '\n'), "{json}");
        assert!(
            json.contains("\\u007f\\u009b\\u202e\\u2066\\u2028\\u001b"),
            "{json}"
        );
        assert!(json.contains('é'), "{json}");
        let back: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(back, serde_json::json!({ text: [text, 1] }));
        // The layout is serde_json's pretty one.
        let v = serde_json::json!({"a": [1, {"b": []}], "c": {}});
        assert_eq!(
            json_pretty(&v).unwrap(),
            serde_json::to_string_pretty(&v).unwrap()
        );
    }

    #[test]
    fn lines_keep_newlines_and_tabs() {
        assert_eq!(printable_lines("a\n\tb"), "a\n\tb");
        assert_eq!(
            printable_lines("a\rb\u{1b}]0;t\u{7}"),
            "a\\rb\\u{1b}]0;t\\u{7}"
        );
        assert_eq!(printable("a\nb"), "a\\nb");
    }

    #[test]
    fn the_escaping_writer_holds_split_characters_and_escapes_bad_bytes() {
        use std::io::Write as _;
        let mut out = Vec::new();
        {
            let mut w = EscapingWriter::new(&mut out);
            let e = "é".as_bytes();
            w.write_all(&e[..1]).unwrap();
            w.write_all(&e[1..]).unwrap();
            w.write_all(b"\x1b[2J\n\xff ok\n").unwrap();
        }
        assert_eq!(String::from_utf8(out).unwrap(), "é\\u{1b}[2J\n\\xff ok\n");
    }

    proptest::proptest! {
        /// Whatever is written, nothing unsafe but newlines and tabs comes out, however the
        /// bytes are split into writes.
        #[test]
        fn nothing_unsafe_gets_through(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200), cut in 0usize..200) {
            use std::io::Write as _;
            let mut out = Vec::new();
            {
                let mut w = EscapingWriter::new(&mut out);
                let cut = cut.min(bytes.len());
                w.write_all(&bytes[..cut]).unwrap();
                w.write_all(&bytes[cut..]).unwrap();
            }
            let text = String::from_utf8(out).unwrap();
            proptest::prop_assert!(!text.chars().any(|c| is_unsafe(c) && c != '\n' && c != '\t'));
        }
    }
}
