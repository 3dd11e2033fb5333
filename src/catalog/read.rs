//! Reading one catalog file (operator-registry `WalkMetasReader`): a file whose first
//! non-whitespace byte is `{` is a JSON stream ([`super::jsonstream`]); if its first object
//! does not decode, the file is read again as YAML (apimachinery's fallback, allowed while at
//! most one object has decoded). Anything else is YAML multi-doc ([`super::yamlstream`]).
//! Every document goes to a `DocSink`, in file order; the file's sha256 is computed while it
//! is read when asked for.
//!
//! Also the untyped walk: [`read_file`] and [`walk`] keep each document the filter wants as a
//! [`Meta`] (routing keys plus raw blob), one file at a time.
//!
//! Memory while reading is one read chunk plus one document (JSON) or one batch of documents
//! (YAML); a document over the cap is refused while its end is looked for ([`super::files`]).

use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use sha2::{Digest, Sha256};

use super::fbc::{Meta, meta_of, meta_of_value, routing, routing_of_value};
use super::files::{Caps, HashingReader, catalog_files, combine_digest};
use super::jsonstream::{JsonFailure, read_json};
use super::sink::{DocSink, YamlPlace};
use super::yamlstream::read_yaml;
use super::{Error, PackageFilter};

/// What reading one file produced.
#[derive(Debug)]
pub struct FileDocs {
    /// sha256 of the file's bytes.
    pub sha256: [u8; 32],
    /// Documents the filter kept, in file order.
    pub metas: Vec<Meta>,
    /// Documents read (kept or not).
    pub read: usize,
}

/// Keeps [`Meta`]s.
struct MetaSink<'f> {
    filter: &'f PackageFilter,
    out: FileDocs,
}

impl MetaSink<'_> {
    fn new(filter: &PackageFilter) -> MetaSink<'_> {
        MetaSink {
            filter,
            out: FileDocs {
                sha256: [0; 32],
                metas: Vec::new(),
                read: 0,
            },
        }
    }
}

impl DocSink for MetaSink<'_> {
    fn doc(
        &mut self,
        path: &Arc<Path>,
        line: usize,
        _offset: Option<u64>,
        doc: &[u8],
    ) -> Result<(), Error> {
        let (schema, r, kept) = routing(path, line, doc, self.filter)?;
        self.out.read += 1;
        if kept {
            self.out.metas.push(meta_of(path, line, doc, schema, r)?);
        }
        Ok(())
    }
    fn reset(&mut self) {
        self.out.metas.clear();
        self.out.read = 0;
    }
    type Yaml = Option<Meta>;
    fn decode_yaml(
        &self,
        path: &Arc<Path>,
        line: usize,
        value: serde_json::Value,
    ) -> Result<Option<Meta>, Error> {
        let (schema, r, kept) = routing_of_value(path, line, &value, self.filter)?;
        if !kept {
            return Ok(None);
        }
        meta_of_value(path, line, &value, schema, r).map(Some)
    }
    fn decode_yaml_json(&self, path: &Arc<Path>, line: usize, json: &[u8]) -> Option<Option<Meta>> {
        let (schema, r, kept) = routing(path, line, json, self.filter).ok()?;
        if !kept {
            return Some(None);
        }
        meta_of(path, line, json, schema, r).ok().map(Some)
    }
    fn take_yaml(&mut self, item: Option<Meta>, _place: Option<YamlPlace>) {
        self.out.read += 1;
        self.out.metas.extend(item);
    }
    fn elides_csv_metadata(&self) -> bool {
        // A `Meta` keeps the whole text.
        false
    }
}

/// Read one file's documents, keeping those the filter wants.
pub fn read_file(path: &Path, filter: &PackageFilter) -> Result<FileDocs, Error> {
    let mut sink = MetaSink::new(filter);
    sink.out.sha256 = read_with(&Arc::from(path), &mut sink, true, Caps::DEFAULT)?;
    Ok(sink.out)
}

thread_local! {
    /// The buffer of the last file read on this thread, kept for the next one: its memory is
    /// mapped already, so a catalog of many files does not fault every page in again.
    static READ_BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The largest read buffer kept for the next file (a YAML batch and a read chunk fit).
const KEPT_BUFFER: usize = 8 << 20;

/// A read buffer taken from [`READ_BUFFER`], given back when dropped (if not too large).
struct Lent(Vec<u8>);

impl Drop for Lent {
    fn drop(&mut self) {
        if self.0.capacity() <= KEPT_BUFFER {
            READ_BUFFER.set(std::mem::take(&mut self.0));
        }
    }
}

/// Read one file, feeding each document to `sink`; returns the file's sha256 (zeros when
/// `digest` is false).
pub(super) fn read_with<S: DocSink + Sync>(
    path: &Arc<Path>,
    sink: &mut S,
    digest: bool,
    caps: Caps,
) -> Result<[u8; 32], Error> {
    let io_err = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    // Regular files only, capped by bytes read (issue 14), and refused before reading when
    // they report more than the cap.
    let open = || -> Result<_, Error> {
        Ok(HashingReader {
            inner: crate::fsread::open_capped(path, caps.file, None).map_err(io_err)?,
            hasher: digest.then(Sha256::new),
        })
    };
    let mut reader = open()?;
    let mut lent = Lent(READ_BUFFER.take());
    let buf = &mut lent.0;
    buf.clear();
    // Sniff the first non-whitespace byte. Whitespace beyond the document cap is read as the
    // start of a YAML document, which the cap then refuses (so this buffer stays bounded).
    let first = loop {
        let n = reader
            .by_ref()
            .take(64 * 1024)
            .read_to_end(buf)
            .map_err(io_err)?;
        if let Some(b) = buf.iter().find(|b| !b.is_ascii_whitespace()) {
            break Some(*b);
        }
        if n == 0 || buf.len() > caps.document {
            break None;
        }
    };
    if first == Some(b'{') {
        match read_json(path, &mut reader, buf, sink, caps) {
            Ok(()) => {}
            Err(JsonFailure::Fatal(e)) => return Err(e),
            Err(JsonFailure::Fallback(json_err)) => {
                // apimachinery falls back to YAML when the first object does not decode.
                // The file is read again from the start, streamed like any YAML file (the
                // only case with a second read).
                let mut reader = open()?;
                sink.reset();
                buf.clear();
                return match read_yaml(path, &mut reader, buf, sink, caps) {
                    Ok(()) => Ok(reader
                        .hasher
                        .map(|h| h.finalize().into())
                        .unwrap_or_default()),
                    Err(e @ Error::Io { .. }) => Err(e),
                    // Neither JSON nor YAML: the JSON error says more about a `{` file.
                    Err(_) => Err(*json_err),
                };
            }
        }
    } else {
        read_yaml(path, &mut reader, buf, sink, caps)?;
    }
    Ok(reader
        .hasher
        .map(|h| h.finalize().into())
        .unwrap_or_default())
}

/// Walk a catalog one document at a time, in the loader's order, calling `f` for every
/// document the filter keeps. Returns the content digest.
pub fn walk(
    path: &Path,
    filter: &PackageFilter,
    mut f: impl FnMut(Meta) -> Result<(), Error>,
) -> Result<String, Error> {
    let files = catalog_files(path)?;
    let mut digests = Vec::with_capacity(files.files.len());
    for (file, rel) in &files.files {
        let docs = read_file(file, filter)?;
        digests.push((rel.as_str(), docs.sha256));
        for m in docs.metas {
            f(m)?;
        }
    }
    Ok(combine_digest(files.single_file, &digests))
}

#[cfg(test)]
mod tests {
    //! The size caps: a document over the cap is refused while its end is looked for
    //! (small caps here, so no test writes GiBs), and a file reporting more than the
    //! file cap is refused before it is read.
    use super::*;
    use crate::catalog::files::{CHUNK, MAX_CATALOG_FILE_BYTES, digest_only};
    use crate::catalog::jsonstream::JsonFailure;
    use crate::catalog::loader::load;
    use crate::catalog::tests::written::{C, P};

    /// Read `text` as file `name` with `caps`.
    fn load_capped(name: &str, text: &str, caps: Caps) -> Result<FileDocs, Error> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let filter = PackageFilter::All;
        let mut sink = MetaSink::new(&filter);
        read_with(&Arc::from(path.as_path()), &mut sink, false, caps).map(|_| sink.out)
    }

    fn doc_caps(document: usize) -> Caps {
        Caps {
            file: MAX_CATALOG_FILE_BYTES,
            document,
        }
    }

    /// A reader that counts the bytes it gives.
    struct Counting<R> {
        inner: R,
        read: usize,
    }

    impl<R: Read> Read for Counting<R> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.inner.read(buf)?;
            self.read += n;
            Ok(n)
        }
    }

    /// `head` followed by `x`s for `total` bytes in all.
    fn endless(head: &'static [u8], total: u64) -> Counting<impl Read> {
        Counting {
            inner: head.chain(std::io::repeat(b'x')).take(total),
            read: 0,
        }
    }

    fn sink(filter: &PackageFilter) -> MetaSink<'_> {
        MetaSink::new(filter)
    }

    /// A JSON package document of exactly `len` bytes.
    fn json_doc(name: &str, len: usize) -> String {
        let head = format!(r#"{{"schema":"olm.package","name":"{name}","description":""#);
        format!("{head}{}\"}}", "x".repeat(len - head.len() - 2))
    }

    #[test]
    fn a_json_document_over_the_cap_is_refused_naming_its_line() {
        let caps = doc_caps(100);
        let dc = load_capped("c.json", &format!("{P}\n{}\n", json_doc("b", 100)), caps).unwrap();
        assert_eq!(dc.metas.len(), 2);
        let e =
            load_capped("c.json", &format!("{P}\n\n{}\n", json_doc("b", 101)), caps).unwrap_err();
        assert!(
            matches!(e, Error::DocumentTooLarge { ref origin, limit: 100 } if origin.line == 3),
            "{e}"
        );
        assert!(
            e.to_string()
                .ends_with("c.json:3: the document starting here is larger than 100 bytes, the most one catalog document may hold (real ones, bundles with their manifests embedded, are at most a few MB); check that this file is a catalog"),
            "{e}"
        );
        // Later in the file (no YAML fallback) it is refused just the same.
        let text = format!("{P}\n{C}\n{}\n", json_doc("b", 101));
        let e = load_capped("c.json", &text, caps).unwrap_err();
        assert!(
            matches!(e, Error::DocumentTooLarge { ref origin, .. } if origin.line == 3),
            "{e}"
        );
    }

    #[test]
    fn an_endless_json_document_is_refused_after_the_cap_and_one_chunk() {
        // 64 chunks of one unterminated string: without the cap all of it is read and
        // held, and the error is a truncated object.
        let mut reader = endless(
            br#"{"schema":"olm.package","description":""#,
            64 * CHUNK as u64,
        );
        let filter = PackageFilter::All;
        let mut sink = sink(&filter);
        let e = match read_json(
            &Arc::from(Path::new("c.json")),
            &mut reader,
            &mut Vec::new(),
            &mut sink,
            doc_caps(CHUNK),
        ) {
            Err(JsonFailure::Fallback(e)) => *e,
            Err(JsonFailure::Fatal(e)) => e,
            Ok(()) => panic!("read"),
        };
        assert!(
            matches!(e, Error::DocumentTooLarge { ref origin, .. } if origin.line == 1),
            "{e}"
        );
        assert!(reader.read <= 2 * CHUNK, "{} bytes read", reader.read);
    }

    #[test]
    fn a_yaml_document_over_the_cap_is_refused_after_the_ones_before_it() {
        let caps = doc_caps(200);
        let small = "schema: olm.package\nname: a\n";
        // A document of exactly `len` bytes, its content starting on its second line.
        let doc = |len: usize| {
            let head = "# big\nschema: olm.package\nname: b\ndescription: ";
            format!("{head}{}\n", "x".repeat(len - head.len() - 1))
        };
        let dc = load_capped(
            "c.yaml",
            &format!("{small}---\n{}---\n{small}", doc(200)),
            caps,
        )
        .unwrap();
        assert_eq!(dc.metas.len(), 3);
        let e = load_capped(
            "c.yaml",
            &format!("{small}---\n{}---\n{small}", doc(201)),
            caps,
        )
        .unwrap_err();
        assert!(
            matches!(e, Error::DocumentTooLarge { ref origin, limit: 200 } if origin.line == 5),
            "{e}"
        );
        assert!(
            e.to_string()
                .contains("c.yaml:5: the document starting here is larger than 200 bytes"),
            "{e}"
        );
        // The last document, and one that is the whole file.
        let e = load_capped("c.yaml", &format!("{small}---\n{}", doc(201)), caps).unwrap_err();
        assert!(
            matches!(e, Error::DocumentTooLarge { ref origin, .. } if origin.line == 5),
            "{e}"
        );
        let e = load_capped("c.yaml", &doc(201), caps).unwrap_err();
        assert!(
            matches!(e, Error::DocumentTooLarge { ref origin, .. } if origin.line == 2),
            "{e}"
        );
        // An error in a document before it is reported first.
        let e = load_capped(
            "c.yaml",
            &format!("name: nameless\n---\n{}", doc(201)),
            caps,
        )
        .unwrap_err();
        assert!(matches!(e, Error::MissingSchema { .. }), "{e}");
    }

    #[test]
    fn a_yaml_document_at_the_cap_is_read_when_its_separator_straddles_a_read() {
        // The document ends two bytes before the first read chunk does; its `---` line is
        // cut by the end of the chunk, so the unfinished line must not count as the
        // document's.
        let head = "schema: olm.package\nname: a\ndescription: ";
        let first = format!("{head}{}\n", "x".repeat(CHUNK - 2 - head.len() - 1));
        assert_eq!(first.len(), CHUNK - 2);
        let text = format!("{first}---\nschema: olm.package\nname: b\n");
        let filter = PackageFilter::All;
        let read = |cap: usize| {
            let mut sink = sink(&filter);
            let path = &Arc::from(Path::new("c.yaml"));
            read_yaml(
                path,
                &mut text.as_bytes(),
                &mut Vec::new(),
                &mut sink,
                doc_caps(cap),
            )
            .map(|()| sink.out.metas.len())
        };
        assert_eq!(read(CHUNK - 2).unwrap(), 2);
        let e = read(CHUNK - 3).unwrap_err();
        assert!(
            matches!(e, Error::DocumentTooLarge { ref origin, .. } if origin.line == 1),
            "{e}"
        );
    }

    /// An endless YAML stream starting with `head`, read with a one-chunk document cap:
    /// the line of the refused document, and how much was read.
    fn endless_yaml_refusal(head: &'static [u8]) -> (usize, usize) {
        let mut reader = endless(head, 64 * CHUNK as u64);
        let filter = PackageFilter::All;
        let e = read_yaml(
            &Arc::from(Path::new("c.yaml")),
            &mut reader,
            &mut Vec::new(),
            &mut sink(&filter),
            doc_caps(CHUNK),
        )
        .unwrap_err();
        match e {
            Error::DocumentTooLarge { origin, .. } => (origin.line, reader.read),
            other => panic!("not refused for its size: {other}"),
        }
    }

    #[test]
    fn an_endless_yaml_line_is_refused_after_the_cap_and_one_chunk() {
        let (line, read) = endless_yaml_refusal(b"schema: olm.package\ndescription: ");
        assert_eq!(line, 1);
        assert!(read <= 2 * CHUNK, "{read} bytes read");
        // A separator line as long: refused too, at its line.
        let (line, read) = endless_yaml_refusal(b"schema: olm.package\nname: a\n---");
        assert_eq!(line, 3);
        assert!(read <= 2 * CHUNK, "{read} bytes read");
    }

    #[test]
    fn a_json_file_falling_back_to_yaml_is_refused_by_the_yaml_cap_too() {
        // The first object is over the cap, so the file is read again as YAML, where the
        // same bytes are one document over the cap: the JSON error is reported.
        let text = format!("{}\n{P}\n", json_doc("b", 300));
        let e = load_capped("c.json", &text, doc_caps(200)).unwrap_err();
        assert!(
            matches!(e, Error::DocumentTooLarge { ref origin, .. } if origin.line == 1),
            "{e}"
        );
    }

    #[test]
    fn leading_whitespace_over_the_cap_is_refused() {
        let text = format!("{}{P}\n", " ".repeat(300 * 1024));
        let e = load_capped("c.json", &text, doc_caps(100 * 1024)).unwrap_err();
        assert!(
            matches!(e, Error::DocumentTooLarge { ref origin, .. } if origin.line == 1),
            "{e}"
        );
        load_capped("c.json", &text, doc_caps(400 * 1024)).unwrap();
    }

    #[test]
    fn a_file_reporting_more_than_the_file_cap_is_refused_before_reading() {
        // A sparse file one byte over the 1 GiB cap. Read, it would be a line of NUL bytes
        // refused by the document cap instead.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.json");
        std::fs::File::create(&path)
            .unwrap()
            .set_len(MAX_CATALOG_FILE_BYTES + 1)
            .unwrap();
        let e = load(&path, &PackageFilter::All).unwrap_err();
        assert!(
            matches!(e, Error::Io { ref source, .. } if source.kind() == std::io::ErrorKind::FileTooLarge),
            "{e}"
        );
        let e = digest_only(&path).unwrap_err();
        assert!(matches!(e, Error::Io { .. }), "{e}");
    }
}
