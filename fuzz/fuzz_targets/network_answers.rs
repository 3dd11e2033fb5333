//! Fuzz what servers answer (issue 34): the first input byte picks what the rest is.
//! * even: update graph documents (the rest split in two at its middle), merged by
//!   `upgrade::graph::Builder`, then a path asked for between two of their releases;
//! * odd: a registry's `WWW-Authenticate` header and a token service's answer (the rest split
//!   at its first NUL), read by `registry::token`.
//!
//! None may panic; errors are fine. The same inputs run as proptests in CI
//! (`tests/it/fuzz_cli.rs`, with a loopback registry for the token answers).
#![no_main]

use libfuzzer_sys::fuzz_target;
use po_manifests::openshift::ClusterVersion;
use po_manifests::registry::token;
use po_manifests::upgrade::graph::{Builder, Query};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    if pick % 2 == 0 {
        let (a, b) = rest.split_at(rest.len() / 2);
        let mut builder = Builder::new();
        let _ = builder.add("a.json", a, None);
        let _ = builder.add("b.json", b, Some("stable-4.16".into()));
        let graph = builder.finish();
        let versions: Vec<String> = graph.nodes().iter().take(2).map(|n| n.version.clone()).collect();
        if let [from, to] = versions.as_slice()
            && let (Ok(from), Ok(to)) = (ClusterVersion::parse(from), ClusterVersion::parse(to))
        {
            let _ = graph.path(&Query { from: &from, to: &to, channel: None, allow_not_recommended: true });
        }
    } else {
        let (header, body) = match rest.iter().position(|&b| b == 0) {
            Some(i) => (&rest[..i], &rest[i + 1..]),
            None => (rest, &[][..]),
        };
        let header = String::from_utf8_lossy(header);
        if let token::Challenge::Bearer { realm, .. } = token::parse_challenge([header.as_ref()]) {
            let _ = token::check_realm(&realm);
            let _ = token::parse_token(body, &realm);
        }
        let _ = token::parse_token(body, "https://fuzz.test/token");
    }
});
