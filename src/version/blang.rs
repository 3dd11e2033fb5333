//! PLACEHOLDER (blang)
#![allow(missing_docs, unused_variables)]
#[derive(Debug, Clone)]
pub struct Range;
impl Range {
    pub fn parse(text: &str) -> Result<Range, super::RangeParseError> {
        todo!()
    }
    pub fn matches(&self, v: &semver::Version) -> bool {
        todo!()
    }
}
