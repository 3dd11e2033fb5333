//! What the readers hand a file's documents to: the `DocSink` trait. The readers
//! ([`super::read`], [`super::jsonstream`], [`super::yamlstream`]) call it; the loaders
//! ([`super::read`]'s `Meta` walk, [`super::loader`]'s typed load) implement it. It imports
//! nothing but the shared error, so that neither side imports the other.

use std::path::Path;
use std::sync::Arc;

use super::Error;
use super::fastyaml::ElidedLines;

/// Receives the documents of one file, as JSON text, in order.
/// Where a YAML document that the fast reader read lies in its file, for a sink that may
/// leave it there and read it again later.
#[derive(Debug, Clone)]
pub(super) struct YamlPlace {
    /// File offset of its first byte (the line after its `---`).
    pub(super) offset: u64,
    /// Its length in bytes.
    pub(super) len: usize,
    /// The lines of its one elided csv metadata mapping, relative to its start
    /// ([`super::fastyaml::to_json_eliding`]).
    pub(super) elided: Option<ElidedLines>,
}

pub(super) trait DocSink {
    /// One document starting at `line`, at file offset `offset` when `doc` is the file's
    /// own bytes (JSON), `None` when it was converted (YAML).
    fn doc(
        &mut self,
        path: &Arc<Path>,
        line: usize,
        offset: Option<u64>,
        doc: &[u8],
    ) -> Result<(), Error>;
    /// Forget everything received (the file is being re-read as YAML).
    fn reset(&mut self);
    /// What [`DocSink::decode_yaml`] makes of one document.
    type Yaml: Send;
    /// Decode one YAML document's value, on any thread (documents of a YAML file are parsed
    /// in parallel); the results are handed to [`DocSink::take_yaml`] in file order.
    fn decode_yaml(
        &self,
        path: &Arc<Path>,
        line: usize,
        value: serde_json::Value,
    ) -> Result<Self::Yaml, Error>;
    /// Decode one YAML document that the fast reader wrote as JSON text (an object), on any
    /// thread: what [`DocSink::decode_yaml`] would make of its value, without the value.
    /// `None` when the value must decide instead: every error, and any case the text does not
    /// settle at once, is then decoded from the value as before, so that messages and results
    /// stay the same.
    fn decode_yaml_json(&self, path: &Arc<Path>, line: usize, json: &[u8]) -> Option<Self::Yaml>;
    /// Keep one decoded YAML document; `place` is where it lies in its file when it was
    /// decoded from the fast reader's text ([`DocSink::decode_yaml_json`]).
    fn take_yaml(&mut self, item: Self::Yaml, place: Option<YamlPlace>);
    /// Whether the fast reader may write a bundle's csv metadata mappings as `{}`
    /// ([`super::fastyaml::to_json_eliding`]): the sink only checks that they are mappings
    /// and keeps nothing of them.
    fn elides_csv_metadata(&self) -> bool;
}
