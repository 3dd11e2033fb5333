//! The JSON stream reader: a file of concatenated JSON objects (JSON lines, or objects
//! indented like `opm render` writes them) split into top-level objects without holding the
//! whole file: at most one document (up to the document cap) and one read chunk. Each object
//! goes to the `DocSink` as the file's own bytes, with its line and file offset. A failure
//! while at most one object has decoded asks the caller ([`super::read`]) to read the file as
//! YAML instead.

use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use serde::de::{self, IgnoredAny};

use super::Error;
use super::files::{Caps, fill};
use super::model::Origin;
use super::sink::DocSink;

/// Why a JSON stream was not read.
pub(super) enum JsonFailure {
    /// An error to report.
    Fatal(Error),
    /// The file may be YAML: it is read again as YAML, and this error is reported if it is
    /// not YAML either.
    Fallback(Box<Error>),
}

/// Split a JSON stream into top-level objects without holding the whole file: at most one
/// document (up to `caps.document` bytes) and one read chunk.
pub(super) fn read_json<R: Read, S: DocSink + Sync>(
    path: &Arc<Path>,
    reader: &mut R,
    buf: &mut Vec<u8>,
    sink: &mut S,
    caps: Caps,
) -> Result<(), JsonFailure> {
    let io_err = |source| {
        JsonFailure::Fatal(Error::Io {
            path: path.to_path_buf(),
            source,
        })
    };
    let mut base = 0u64; // file offset of buf[0]
    let mut pos = 0usize; // start of unconsumed data in buf
    let mut line = 1usize; // line number at buf[pos]
    let mut eof = false;
    let mut decoded = 0usize;
    loop {
        // Skip whitespace between documents.
        loop {
            while pos < buf.len() && buf[pos].is_ascii_whitespace() {
                if buf[pos] == b'\n' {
                    line += 1;
                }
                pos += 1;
            }
            if pos < buf.len() || eof {
                break;
            }
            base += buf.len() as u64;
            buf.clear();
            pos = 0;
            eof = fill(reader, buf).map_err(io_err)?;
        }
        if pos >= buf.len() {
            return Ok(());
        }
        let origin = Origin {
            file: path.clone(),
            line,
        };
        // While at most one object has decoded, a failure sends the file to YAML.
        let fail = |e: Error| {
            if decoded <= 1 {
                JsonFailure::Fallback(Box::new(e))
            } else {
                JsonFailure::Fatal(e)
            }
        };
        let too_large = |origin: &Origin| {
            fail(Error::DocumentTooLarge {
                origin: origin.clone(),
                limit: caps.document,
            })
        };
        if buf[pos] != b'{' {
            return Err(fail(Error::NotAnObject {
                origin,
                found: describe_json_start(buf[pos]),
            }));
        }
        // Find the end of the object: track brace depth outside strings.
        let mut scan = pos;
        let mut depth = 0usize;
        let mut in_string = false;
        let end = loop {
            let found = if scan >= buf.len() {
                None
            } else if in_string {
                memchr::memchr2(b'"', b'\\', &buf[scan..])
            } else {
                memchr::memchr3(b'"', b'{', b'}', &buf[scan..])
            };
            match found {
                Some(off) => {
                    let i = scan + off;
                    match buf[i] {
                        b'\\' => scan = i + 2,
                        b'"' => {
                            in_string = !in_string;
                            scan = i + 1;
                        }
                        b'{' => {
                            depth += 1;
                            scan = i + 1;
                        }
                        _ => {
                            depth -= 1;
                            scan = i + 1;
                            if depth == 0 {
                                break Some(scan);
                            }
                        }
                    }
                }
                None => {
                    if eof {
                        break None;
                    }
                    // The document goes on past the cap: refused before more is read.
                    if buf.len() - pos > caps.document {
                        return Err(too_large(&origin));
                    }
                    // Need more data: drop the consumed prefix, read another chunk.
                    if pos > 0 {
                        base += pos as u64;
                        buf.drain(..pos);
                        scan -= pos;
                        pos = 0;
                    }
                    // `scan` may point one past the end (a backslash was the last byte);
                    // it then skips the first byte of the new chunk, as it should.
                    eof = fill(reader, buf).map_err(io_err)?;
                }
            }
        };
        let Some(end) = end else {
            // Truncated object: let serde_json name the problem.
            let source = serde_json::from_slice::<IgnoredAny>(&buf[pos..])
                .err()
                .unwrap_or_else(|| <serde_json::Error as de::Error>::custom("unexpected end"));
            return Err(fail(Error::Json { origin, source }));
        };
        if end - pos > caps.document {
            return Err(too_large(&origin));
        }
        let doc = &buf[pos..end];
        match sink.doc(path, line, Some(base + pos as u64), doc) {
            Ok(()) => decoded += 1,
            Err(e @ Error::Json { .. }) if decoded <= 1 => {
                return Err(JsonFailure::Fallback(Box::new(e)));
            }
            Err(e) => return Err(JsonFailure::Fatal(e)),
        }
        line += memchr::memchr_iter(b'\n', doc).count();
        pos = end;
    }
}

fn describe_json_start(b: u8) -> &'static str {
    match b {
        b'[' => "an array",
        b'"' => "a string",
        b'0'..=b'9' | b'-' => "a number",
        b't' | b'f' => "a boolean",
        b'n' => "null",
        _ => "not JSON",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::files::CHUNK;
    use crate::catalog::tests::written::{C, P, load_text, names};

    #[test]
    fn lines() {
        let dc = load_text("c.json", &format!("{P}\n{C}\n")).unwrap();
        assert_eq!(names(&dc), [("a".into(), 1), ("s".into(), 2)]);
    }
    #[test]
    fn stream_without_newlines() {
        let dc = load_text("c.json", &format!("{P}{C}")).unwrap();
        assert_eq!(names(&dc), [("a".into(), 1), ("s".into(), 1)]);
    }
    #[test]
    fn stream_indented_like_opm_render() {
        let p: serde_json::Value = serde_json::from_str(P).unwrap();
        let c: serde_json::Value = serde_json::from_str(C).unwrap();
        let text = format!(
            "{}\n{}\n",
            serde_json::to_string_pretty(&p).unwrap(),
            serde_json::to_string_pretty(&c).unwrap()
        );
        let dc = load_text("c.json", &text).unwrap();
        assert_eq!(names(&dc), [("a".into(), 1), ("s".into(), 6)]);
    }
    #[test]
    fn braces_and_escapes_inside_strings() {
        let text = r#"{"schema":"olm.package","name":"a","description":"} \" { \\"}  {"schema":"olm.package","name":"b"}"#;
        let dc = load_text("c.json", text).unwrap();
        assert_eq!(dc.packages.len(), 2);
        assert_eq!(dc.packages[0].item.description, r#"} " { \"#);
    }
    #[test]
    fn objects_larger_than_a_read_chunk() {
        // Escapes and braces straddle the 1 MiB chunk boundaries.
        let desc = "\\\"{}".repeat(CHUNK / 2);
        let text = format!(
            "{P}\n{{\"schema\":\"olm.package\",\"name\":\"b\",\"description\":\"{desc}\"}}\n{C}\n"
        );
        let dc = load_text("c.json", &text).unwrap();
        assert_eq!(dc.packages.len(), 2);
        assert_eq!(dc.packages[1].item.description, "\"{}".repeat(CHUNK / 2));
        assert_eq!(dc.channels[0].origin.line, 3);
    }
    #[test]
    fn first_object_not_json_falls_back_to_yaml() {
        let text = "{schema: olm.package, name: a, defaultChannel: s}\n";
        let dc = load_text("c.json", text).unwrap();
        assert_eq!(dc.packages[0].item.default_channel, "s");
    }
    #[test]
    fn later_object_not_json_is_an_error() {
        let text = format!("{P}\n{C}\n{{schema: olm.package}}\n");
        let e = load_text("c.json", &text).unwrap_err();
        assert!(
            matches!(e, Error::Json { ref origin, .. } if origin.line == 3),
            "{e}"
        );
    }
    #[test]
    fn top_level_array_is_an_error() {
        let e = load_text("c.json", &format!("[{P}]")).unwrap_err();
        assert!(
            matches!(
                e,
                Error::NotAnObject {
                    found: "an array",
                    ..
                }
            ),
            "{e}"
        );
    }
    #[test]
    fn missing_schema_names_file_and_line() {
        let e = load_text("c.json", &format!("{P}\n\n{{\"name\":\"x\"}}\n")).unwrap_err();
        assert!(
            matches!(e, Error::MissingSchema { ref origin } if origin.line == 3),
            "{e}"
        );
        assert!(
            e.to_string()
                .ends_with("c.json:3: object is missing root schema field"),
            "{e}"
        );
    }
    #[test]
    fn keys_match_case_insensitively() {
        let dc = load_text(
            "c.json",
            r#"{"Schema":"olm.package","NAME":"a","DefaultChannel":"s"}"#,
        )
        .unwrap();
        assert_eq!(dc.packages[0].item.name, "a");
        assert_eq!(dc.packages[0].item.default_channel, "s");
    }
    #[test]
    fn routing_keys_differing_by_case_are_an_error() {
        let e = load_text(
            "c.json",
            r#"{"schema":"olm.package","name":"a","Name":"b"}"#,
        )
        .unwrap_err();
        assert!(matches!(e, Error::Json { .. }), "{e}");
    }
    #[test]
    fn routing_rules_hold_after_the_sniffed_members() {
        // The routing keys are sniffed from the first members; what follows them still
        // obeys the routing pass: the last duplicate wins, case variants and non-string
        // values are errors.
        let dc = load_text(
            "c.json",
            r#"{"schema":"olm.bundle","package":"a","name":"a.v1","name":"a.v2"}"#,
        )
        .unwrap();
        assert_eq!(dc.bundles[0].item.name, "a.v2");
        for text in [
            r#"{"schema":"olm.bundle","package":"a","name":"x","Name":"y"}"#,
            r#"{"schema":"olm.package","name":"a","package":"x","package":5}"#,
            r#"{"schema":"olm.deprecations","package":"a","name":"x","NAME":"y","entries":[]}"#,
        ] {
            let e = load_text("c.json", text).unwrap_err();
            assert!(matches!(e, Error::Json { .. }), "{text}: {e}");
        }
        // Nested objects keep plain last-wins semantics.
        let dc = load_text(
            "c.json",
            r#"{"schema":"olm.bundle","package":"a","name":"a.v1","relatedImages":[{"name":"x","Name":"y","image":"i"}]}"#,
        )
        .unwrap();
        assert_eq!(dc.bundles[0].item.related_images[0].name, "y");
    }
    #[test]
    fn unknown_schemas_are_counted_and_kept_aside() {
        let dc = load_text(
            "c.json",
            &format!("{P}\n{{\"schema\":\"olm.template.basic\",\"package\":\"a\"}}\n"),
        )
        .unwrap();
        assert_eq!(dc.others_count, 1);
        assert_eq!(dc.others[0].schema, "olm.template.basic");
    }
    #[test]
    fn property_values_stay_raw() {
        let b = r#"{"schema":"olm.bundle","package":"a","name":"a.v1","properties":[{"type":"olm.maxOpenShiftVersion","value":4.10}]}"#;
        let dc = load_text("c.json", b).unwrap();
        assert_eq!(dc.bundles[0].item.properties[0].value.text(), Some("4.10"));
    }
}
