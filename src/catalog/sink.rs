//! What the readers hand a file's documents to: the `DocSink` trait. The readers
//! ([`super::read`], [`super::jsonstream`], [`super::yamlstream`]) call it; the loaders
//! ([`super::read`]'s `Meta` walk, [`super::loader`]'s typed load) implement it. It imports
//! nothing but the shared error, so that neither side imports the other.

use std::path::Path;
use std::sync::Arc;

use super::Error;

/// Receives the documents of one file, as JSON text, in order.
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
    /// Keep one decoded YAML document.
    fn take_yaml(&mut self, item: Self::Yaml);
}
