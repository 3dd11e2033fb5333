//! The YAML batch reader: multi-document YAML split on lines starting with `---` exactly as
//! apimachinery's `YAMLReader` does (empty documents skipped), in place, and parsed in batches
//! on every core; the documents go to the `DocSink` in file order, so the first error in file
//! order is the one reported. Memory stays flat in the file's size: one batch of documents.
//!
//! Each document is read by the fast reader ([`super::fastyaml`]) into JSON text that the sink
//! decodes as it decodes a JSON file; whenever that text does not settle a document at once,
//! and for every error, the document is read into a JSON value first (from the same text, or
//! by serde-saphyr outside the fast subset) and decoded from the value: that fixes the
//! reading of every scalar (YAML 1.2 core schema).

use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use rayon::prelude::*;

use super::Error;
use super::decode::yaml_options;
use super::files::{CHUNK, Caps, fill};
use super::model::Origin;
use super::sink::{DocSink, YamlPlace};

/// How many bytes of complete YAML documents are collected before they are parsed (in
/// parallel); the file is read in [`CHUNK`]s, so memory stays flat in the file's size.
pub(super) const YAML_BATCH: usize = 4 * CHUNK;

/// One YAML document found by [`read_yaml`]: its byte range in the buffer and the line its
/// text starts on (the line after the `---` separator, or 1).
struct YamlDoc {
    start: usize,
    end: usize,
    first_line: usize,
    /// File offset of `start`.
    offset: u64,
}

/// Split YAML into documents on `---` lines (apimachinery `YAMLReader`: a line starting with
/// `---` separates documents; anything but a comment after it is an error) and route each.
///
/// The bytes are split in place (no per-line copy). Documents are parsed in batches of about
/// [`YAML_BATCH`] bytes on every core (each document is independent once its boundaries are
/// known), then handed to the sink in file order, so the first error in file order is the one
/// reported, as when reading one document after another. A document over `caps.document`
/// bytes is refused as soon as that many of it are read, without parsing it; the documents
/// before it are parsed first, so an error in one of them comes first.
pub(super) fn read_yaml<R: Read, S: DocSink + Sync>(
    path: &Arc<Path>,
    reader: &mut R,
    buf: &mut Vec<u8>,
    sink: &mut S,
    caps: Caps,
) -> Result<(), Error> {
    let io_err = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let too_large = |doc: &[u8], first_line: usize| Error::DocumentTooLarge {
        origin: Origin {
            file: path.clone(),
            line: content_line(doc, first_line).unwrap_or(first_line),
        },
        limit: caps.document,
    };
    let mut eof = false;
    let mut pos = 0usize; // start of the next line to look at
    let mut line_no = 1usize; // line number of the line at `pos`
    // `buf[pos..searched]` holds no newline (when `searched > pos`): a line longer than a
    // read is searched once, not from its start again after every read.
    let mut searched = 0usize;
    let mut doc_start = 0usize;
    // File offset of `buf[0]`.
    let mut base = 0u64;
    let mut doc_line = 1usize;
    let mut pending: Vec<YamlDoc> = Vec::new();
    loop {
        // Look at every complete line (or the last, unterminated one at end of file).
        // `stop`: an error that ends the reading once the documents before it are parsed.
        let mut stop = None;
        while pos < buf.len() {
            let from = searched.max(pos);
            let line_end = match memchr::memchr(b'\n', &buf[from..]) {
                Some(i) => from + i + 1,
                None if eof => buf.len(),
                None => {
                    searched = buf.len();
                    break;
                }
            };
            if buf[pos..line_end].starts_with(b"---") {
                let rest = String::from_utf8_lossy(&buf[pos + 3..line_end]);
                let rest = rest.trim();
                if !rest.is_empty() && !rest.starts_with('#') {
                    stop = Some(Error::YamlSeparator {
                        origin: Origin {
                            file: path.clone(),
                            line: line_no,
                        },
                        rest: rest.to_owned(),
                    });
                    break;
                }
                if pos - doc_start > caps.document {
                    stop = Some(too_large(&buf[doc_start..pos], doc_line));
                    break;
                }
                pending.push(YamlDoc {
                    start: doc_start,
                    end: pos,
                    first_line: doc_line,
                    offset: base + doc_start as u64,
                });
                doc_start = line_end;
                doc_line = line_no + 1;
            }
            // Lines without a separator are skipped at memchr speed: jump to the next
            // newline that is followed by `---`.
            pos = line_end;
            line_no += 1;
            if pos < buf.len() && !buf[pos..].starts_with(b"---") {
                match memchr::memmem::find(&buf[pos..], b"\n---") {
                    Some(i) => {
                        line_no += memchr::memchr_iter(b'\n', &buf[pos..pos + i + 1]).count();
                        pos += i + 1;
                    }
                    None => {
                        // No separator in what is read: the rest is the current document.
                        // Keep `pos` at the start of its last line, which may continue.
                        let last = memchr::memrchr(b'\n', &buf[pos..]).map_or(pos, |i| pos + i + 1);
                        line_no += memchr::memchr_iter(b'\n', &buf[pos..last]).count();
                        pos = last;
                        searched = buf.len();
                        if !eof {
                            break;
                        }
                    }
                }
            }
        }
        if stop.is_none() {
            // What is read of the current document: all of the buffer from its start, unless
            // the unfinished line at `pos` may be a separator. Once over the cap, it is
            // refused (a document only grows).
            let partial = &buf[pos..];
            let may_separate = partial.starts_with(b"---") || b"---".starts_with(partial);
            let doc_end = if may_separate { pos } else { buf.len() };
            if doc_end - doc_start > caps.document {
                stop = Some(too_large(&buf[doc_start..doc_end], doc_line));
            } else if partial.len() > caps.document {
                // A separator line longer than any document may be: refused like one.
                stop = Some(too_large(partial, line_no));
            } else if eof {
                pending.push(YamlDoc {
                    start: doc_start,
                    end: buf.len(),
                    first_line: doc_line,
                    offset: base + doc_start as u64,
                });
            }
        }
        let batch_bytes =
            pending.last().map_or(0, |d| d.end) - pending.first().map_or(0, |d| d.start);
        if eof || stop.is_some() || batch_bytes >= YAML_BATCH {
            yaml_batch(path, buf, &pending, sink)?;
            pending.clear();
            if let Some(e) = stop {
                return Err(e);
            }
            if eof {
                return Ok(());
            }
            // Drop what was parsed; the current document and the unread line stay.
            buf.drain(..doc_start);
            base += doc_start as u64;
            pos -= doc_start;
            searched = searched.saturating_sub(doc_start);
            doc_start = 0;
        }
        eof = fill(reader, buf).map_err(io_err)?;
    }
}

/// The line of a YAML document that starts on `first_line`: its first line that is neither
/// blank nor a comment; `None` when it has none (an empty document).
fn content_line(doc: &[u8], first_line: usize) -> Option<usize> {
    doc.split(|b| *b == b'\n')
        .position(|l| {
            let t = l.trim_ascii_start();
            !t.is_empty() && !t.starts_with(b"#")
        })
        .map(|i| first_line + i)
}

/// Parse a batch of documents on every core, then hand them to the sink in order.
fn yaml_batch<S: DocSink + Sync>(
    path: &Arc<Path>,
    buf: &[u8],
    docs: &[YamlDoc],
    sink: &mut S,
) -> Result<(), Error> {
    let shared: &S = sink;
    let parsed: Vec<YamlRead<S::Yaml>> = docs
        .par_iter()
        .map(|d| yaml_doc(path, d.first_line, d.offset, &buf[d.start..d.end], shared))
        .collect();
    for item in parsed {
        if let Some((item, place)) = item? {
            sink.take_yaml(item, place);
        }
    }
    Ok(())
}

/// What reading one YAML document gives: nothing for an empty one, else the sink's item, with
/// the document's place when the fast reader read it.
type YamlRead<T> = Result<Option<(T, Option<YamlPlace>)>, Error>;

/// Parse one YAML document (at file offset `offset`) and decode it for the sink; `None` for
/// an empty document.
fn yaml_doc<S: DocSink>(
    path: &Arc<Path>,
    first_line: usize,
    offset: u64,
    doc: &[u8],
    sink: &S,
) -> YamlRead<S::Yaml> {
    // The document's line: its first line that is neither blank nor a comment.
    let Some(line) = content_line(doc, first_line) else {
        return Ok(None);
    };
    let origin = || Origin {
        file: path.clone(),
        line,
    };
    let text = std::str::from_utf8(doc).map_err(|_| Error::NotUtf8 { origin: origin() })?;
    // The fast reader takes the block-style subset catalogs are written in and writes it as
    // JSON text (no value is built), which the sink decodes as it decodes a JSON file:
    // property values are slices of that text, copied once. Whenever the text does not
    // settle a document at once, and for every error, the document is read into a JSON value
    // first (from the same text, or by serde-saphyr outside the subset) and decoded from the
    // value, as before: that fixes the reading of every scalar (YAML 1.2 core schema). A
    // sink that only checks that csv metadata values are mappings has them written as `{}`,
    // so they are neither written out nor decoded again (the value read from that text then
    // holds `{}` for them, a mapping as before).
    let fast = if FAST_YAML.load(std::sync::atomic::Ordering::Relaxed) {
        JSON_TEXT.with_borrow_mut(|json| {
            let elided = if sink.elides_csv_metadata() {
                super::fastyaml::to_json_eliding(text, json)?
            } else {
                super::fastyaml::to_json(text, json)?;
                None
            };
            let decoded = if json.first() == Some(&b'{') {
                sink.decode_yaml_json(path, line, json)
            } else {
                None
            };
            let place = YamlPlace {
                offset,
                len: doc.len(),
                elided,
            };
            let read = match decoded {
                Some(item) => Some(Ok((item, Some(place)))),
                None => serde_json::from_slice::<serde_json::Value>(json)
                    .ok()
                    .map(Err),
            };
            if json.capacity() > YAML_BATCH {
                *json = Vec::new();
            }
            read
        })
    } else {
        None
    };
    let fast = match fast {
        Some(Ok(item)) => return Ok(Some(item)),
        Some(Err(value)) => Some(value),
        None => None,
    };
    let value: serde_json::Value = match fast {
        Some(v) => v,
        None => serde_saphyr::from_str_with_options(text, yaml_options()).map_err(|source| {
            Error::Yaml {
                origin: origin(),
                source: Box::new(source),
            }
        })?,
    };
    match &value {
        serde_json::Value::Null => return Ok(None),
        serde_json::Value::Object(_) => {}
        other => {
            return Err(Error::NotAnObject {
                origin: origin(),
                found: match other {
                    serde_json::Value::Array(_) => "an array",
                    serde_json::Value::String(_) => "a string",
                    serde_json::Value::Number(_) => "a number",
                    _ => "a boolean",
                },
            });
        }
    }
    sink.decode_yaml(path, line, value)
        .map(|item| Some((item, None)))
}

thread_local! {
    /// The JSON text of the YAML document being read on this thread (kept between
    /// documents, so that its allocation is reused).
    static JSON_TEXT: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Whether YAML documents go through [`super::fastyaml`] first (on unless a benchmark
/// turns it off).
static FAST_YAML: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Turn the fast YAML reader ([`super::fastyaml`]) on or off for this process, so a benchmark
/// can time serde-saphyr alone on the same catalog. Results are the same either way.
#[doc(hidden)]
pub fn set_fast_yaml(enabled: bool) {
    FAST_YAML.store(enabled, std::sync::atomic::Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::fbc::Bundle;
    use crate::catalog::property::{PROPERTY_MAX_OPENSHIFT_VERSION, PROPERTY_PACKAGE};
    use crate::catalog::tests::written::{load_text, names};

    /// A YAML stream of `n` bundles of about 1 KB each after a package and a channel.
    fn many_bundles(n: usize) -> String {
        let mut text = String::from(
            "schema: olm.package\nname: a\ndefaultChannel: s\n---\nschema: olm.channel\npackage: a\nname: s\nentries: []\n",
        );
        let filler = "x".repeat(900);
        for i in 0..n {
            text += &format!(
                "---\nschema: olm.bundle\npackage: a\nname: a.v{i}\nimage: quay.io/a:{i}\nproperties:\n- type: olm.package\n  value:\n    packageName: a\n    version: 1.0.{i}\n- type: olm.csv.metadata\n  value:\n    description: |\n      {filler}\n"
            );
        }
        text
    }

    #[test]
    fn many_documents_across_batches_keep_order_and_lines() {
        // More than one parsing batch (YAML_BATCH), read in several chunks.
        let n = YAML_BATCH / 800;
        let text = many_bundles(n);
        assert!(text.len() > YAML_BATCH + CHUNK);
        let dc = load_text("c.yaml", &text).unwrap();
        assert_eq!(dc.bundles.len(), n);
        // Each bundle's line: the one after its `---`.
        let lines: Vec<usize> = text
            .lines()
            .enumerate()
            .filter(|(_, l)| *l == "schema: olm.bundle")
            .map(|(i, _)| i + 1)
            .collect();
        for (i, b) in dc.bundles.iter().enumerate() {
            assert_eq!(b.item.name, format!("a.v{i}"));
            assert_eq!(b.origin.line, lines[i], "{}", b.item.name);
        }
        let v = b_prop(&dc.bundles[n - 1].item, PROPERTY_PACKAGE);
        assert_eq!(
            v,
            format!(r#"{{"packageName":"a","version":"1.0.{}"}}"#, n - 1)
        );
    }

    fn b_prop(b: &Bundle, ty: &str) -> String {
        b.properties
            .iter()
            .find(|p| p.ty == ty)
            .and_then(|p| p.value.text())
            .unwrap()
            .to_owned()
    }

    #[test]
    fn first_error_in_file_order_is_reported_after_a_batch() {
        let n = YAML_BATCH / 1000 + 10;
        let mut text = many_bundles(n);
        // A document without a schema far into the file, then a broken one after it.
        text += "---\nname: nameless\n---\nschema: [\n";
        let lines = text.lines().count();
        let e = load_text("c.yaml", &text).unwrap_err();
        assert!(matches!(e, Error::MissingSchema { .. }), "{e}");
        assert!(
            e.to_string().contains(&format!("c.yaml:{}", lines - 2)),
            "{e}"
        );
    }

    #[test]
    fn separator_error_comes_after_the_documents_before_it() {
        // The document just before the bad separator is not parsed (as apimachinery's
        // reader stops there); earlier ones are, in order.
        let e = load_text("c.yaml", "name: nameless\n--- x\n").unwrap_err();
        assert!(matches!(e, Error::YamlSeparator { .. }), "{e}");
        let text = "name: nameless\n---\nschema: olm.package\n--- x\n";
        let e = load_text("c.yaml", text).unwrap_err();
        assert!(matches!(e, Error::MissingSchema { .. }), "{e}");
        let e = load_text("c.yaml", &format!("{}--- x\n", many_bundles(3))).unwrap_err();
        assert!(matches!(e, Error::YamlSeparator { .. }), "{e}");
        assert!(e.to_string().contains("c.yaml:51"), "{e}");
    }

    #[test]
    fn scalars_read_as_before() {
        // Plain scalars follow the YAML 1.2 core schema: `1.10` is a number (so JSON
        // 1.1), `"4.10"` stays a string, `null` and `~` mean unset; a number where a
        // string is expected is a decode error naming the document.
        let text = "schema: olm.package\nname: a\ndefaultChannel: s\n---\nschema: olm.channel\npackage: a\nname: s\nentries: [{name: a.v1, replaces: ~}]\n---\nschema: olm.bundle\npackage: a\nname: a.v1\nimage: null\nproperties:\n- {type: olm.maxOpenShiftVersion, value: 4.10}\n- {type: x, value: \"4.10\"}\n- {type: zz, value: [true, 0x1F, 1e3]}\n";
        let dc = load_text("c.yaml", text).unwrap();
        let b = &dc.bundles[0].item;
        assert_eq!(b.image, "");
        assert_eq!(b_prop(b, PROPERTY_MAX_OPENSHIFT_VERSION), "4.1");
        assert_eq!(b_prop(b, "x"), r#""4.10""#);
        assert_eq!(b_prop(b, "zz"), "[true,31,1000.0]");
        assert_eq!(dc.channels[0].item.entries[0].replaces, "");
        let e = load_text("c.yaml", "schema: olm.package\nname: 1.0\n").unwrap_err();
        assert!(matches!(e, Error::Json { .. }), "{e}");
        let text = "schema: olm.package\nname: a\ndefaultChannel: 1.0\n";
        let e = load_text("c.yaml", text).unwrap_err();
        assert!(matches!(e, Error::Decode { .. }), "{e}");
        assert!(e.to_string().contains("c.yaml:1"), "{e}");
    }

    #[test]
    fn multi_doc_with_separators_and_comments() {
        let text = "---\n# a package\nschema: olm.package\nname: a\ndefaultChannel: s\n---\n---\n# only a comment\n--- # sep with comment\nschema: olm.channel\npackage: a\nname: s\nentries:\n  - name: a.v1\n";
        let dc = load_text("c.yaml", text).unwrap();
        assert_eq!(names(&dc), [("a".into(), 3), ("s".into(), 10)]);
    }
    #[test]
    fn separator_with_content_is_an_error() {
        let e = load_text("c.yaml", "schema: olm.package\nname: a\n--- x\n").unwrap_err();
        assert!(
            matches!(e, Error::YamlSeparator { ref origin, .. } if origin.line == 3),
            "{e}"
        );
    }
    #[test]
    fn missing_schema_names_file_and_line() {
        let e = load_text("c.yaml", "schema: olm.package\nname: a\n---\nname: b\n").unwrap_err();
        assert!(
            matches!(e, Error::MissingSchema { ref origin } if origin.line == 4),
            "{e}"
        );
    }
    #[test]
    fn scalar_document_is_an_error() {
        let e = load_text("README", "This is a catalog.\n").unwrap_err();
        assert!(matches!(e, Error::NotAnObject { .. }), "{e}");
    }
    #[test]
    fn duplicate_keys_keep_the_last_value() {
        let dc = load_text("c.yaml", "schema: olm.package\nname: a\nname: b\n").unwrap();
        assert_eq!(dc.packages[0].item.name, "b");
    }
}
