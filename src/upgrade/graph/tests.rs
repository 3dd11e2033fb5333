use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;

fn cv(s: &str) -> ClusterVersion {
    ClusterVersion::parse(s).unwrap()
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata/update-graph")
            .join(name),
    )
    .unwrap()
}

/// The three-channel fixture: stable-4.16, stable-4.17, stable-4.18.
fn three_channels() -> UpdateGraph {
    let mut b = Builder::new();
    for f in ["stable-4.16.json", "stable-4.17.json", "stable-4.18.json"] {
        b.add(f, &fixture(f), None).unwrap();
    }
    b.finish()
}

fn query<'a>(from: &'a ClusterVersion, to: &'a ClusterVersion) -> Query<'a> {
    Query {
        from,
        to,
        channel: None,
        allow_not_recommended: false,
    }
}

fn versions(p: &Path) -> Vec<String> {
    let mut v: Vec<String> = p.hops.iter().map(|h| h.from.version.clone()).collect();
    v.extend(p.hops.last().map(|h| h.to.version.clone()));
    v
}

/// A graph document: nodes by version, recommended edges by version, conditional edges as
/// (from, to, risk names; a name starting with `!` has an `Always` rule).
fn doc(nodes: &[&str], edges: &[(&str, &str)], conditional: &[(&str, &str, &[&str])]) -> Vec<u8> {
    let idx = |v: &str| nodes.iter().position(|n| *n == v).unwrap();
    let risk = |name: &str| -> Value {
        match name.strip_prefix('!') {
            Some(n) => {
                json!({"name": n, "url": "https://r", "message": "m", "matchingRules": [{"type": "Always"}]})
            }
            None => {
                json!({"name": name, "url": "https://r", "message": "m", "matchingRules": [{"type": "PromQL", "promql": {"promql": "up"}}]})
            }
        }
    };
    serde_json::to_vec(&json!({
        "nodes": nodes.iter().map(|v| json!({"version": v, "payload": format!("quay.io/x@sha256:{v}"), "metadata": {CHANNELS_KEY: "stable-4.1"}})).collect::<Vec<_>>(),
        "edges": edges.iter().map(|(a, b)| json!([idx(a), idx(b)])).collect::<Vec<_>>(),
        "conditionalEdges": conditional.iter().map(|(a, b, risks)| json!({"edges": [{"from": a, "to": b}], "risks": risks.iter().map(|r| risk(r)).collect::<Vec<_>>()})).collect::<Vec<_>>(),
    }))
    .unwrap()
}

fn graph(bytes: &[u8]) -> UpdateGraph {
    let mut b = Builder::new();
    b.add("g.json", bytes, None).unwrap();
    b.finish()
}

#[test]
fn three_channels_patch_first_then_the_conditional_hop() {
    let g = three_channels();
    assert_eq!(g.nodes().len(), 7);
    assert_eq!(g.default_channel(), None);
    assert_eq!(g.channels(), ["stable-4.16", "stable-4.17", "stable-4.18"]);
    let (from, to) = (cv("4.16.3"), cv("4.18"));
    let p = g.path(&query(&from, &to)).unwrap();
    assert_eq!(versions(&p), ["4.16.3", "4.16.20", "4.17.12", "4.18.6"]);
    assert_eq!(p.tier, EdgeKind::Conditional);
    let kinds: Vec<EdgeKind> = p.hops.iter().map(|h| h.edge).collect();
    assert_eq!(
        kinds,
        [
            EdgeKind::Recommended,
            EdgeKind::Conditional,
            EdgeKind::Recommended
        ]
    );
    let risk = &p.hops[1].risks[0];
    assert_eq!(risk.name, "NodeDrainStalls");
    assert_eq!(risk.rules[0].kind, "PromQL");
    assert!(
        risk.rules[0]
            .promql
            .as_deref()
            .unwrap()
            .contains("kube_poddisruptionbudget")
    );
    assert!(
        p.hops[0]
            .to
            .image
            .starts_with("quay.io/openshift-release-dev/ocp-release@sha256:")
    );
    let why = p.why.join("\n");
    assert!(why.contains("no path over recommended edges only"), "{why}");
    assert!(
        why.contains("a patch update to 4.16.20 comes first"),
        "{why}"
    );
    assert!(why.contains("target 4.18.6"), "{why}");
}

#[test]
fn recommended_edges_win_over_conditional_ones() {
    let g = three_channels();
    let (from, to) = (cv("4.17.5"), cv("4.18.6"));
    let p = g.path(&query(&from, &to)).unwrap();
    assert_eq!(p.tier, EdgeKind::Recommended);
    // Two equally short paths (via 4.17.12 or 4.18.2): the newer intermediate wins.
    assert_eq!(versions(&p), ["4.17.5", "4.18.2", "4.18.6"]);
    assert!(
        p.why.iter().any(|w| w.contains("2 equally short paths")),
        "{:?}",
        p.why
    );
}

#[test]
fn an_always_risk_is_used_only_when_allowed() {
    let g = three_channels();
    let (from, to) = (cv("4.16.10"), cv("4.17.5"));
    let err = g.path(&query(&from, &to)).unwrap_err();
    assert!(
        matches!(&err, Error::NotRecommendedOnly { risks, .. } if risks == "EtcdDefragRegression"),
        "{err}"
    );
    assert!(err.to_string().contains("--allow-not-recommended"), "{err}");
    let mut q = query(&from, &to);
    q.allow_not_recommended = true;
    let p = g.path(&q).unwrap();
    assert_eq!(p.tier, EdgeKind::NotRecommended);
    assert_eq!(p.hops[0].edge, EdgeKind::NotRecommended);
}

#[test]
fn unreachable_targets_name_the_nearest_reachable_releases() {
    let g = three_channels();
    let (from, to) = (cv("4.16.3"), cv("4.18.6"));
    let mut q = query(&from, &to);
    q.channel = Some("stable-4.16");
    let err = g.path(&q).unwrap_err();
    assert!(
        matches!(err, Error::NotInGraph { .. } | Error::Unreachable { .. }),
        "{err}"
    );
    let to = cv("4.17");
    let mut q = query(&from, &to);
    q.channel = Some("stable-4.16");
    let err = g.path(&q).unwrap_err().to_string();
    assert!(err.contains("in channel stable-4.16"), "{err}");
    assert!(
        err.contains("the graph has no 4.17 release") || err.contains("nearest: 4.16.10, 4.16.20"),
        "{err}"
    );
    let to = cv("4.19");
    let err = g.path(&query(&from, &to)).unwrap_err().to_string();
    assert!(err.contains("the graph has no 4.19 release"), "{err}");
    assert!(err.contains("nearest: 4.17.12, 4.18.2, 4.18.6"), "{err}");
    let from = cv("4.15.9");
    let err = g.path(&query(&from, &to)).unwrap_err().to_string();
    assert!(
        err.contains("the current release 4.15.9 is not in the update graph"),
        "{err}"
    );
    assert!(err.contains("nearest: 4.16.3"), "{err}");
}

#[test]
fn unknown_channel_lists_the_known_ones() {
    let g = three_channels();
    let (from, to) = (cv("4.16.3"), cv("4.18"));
    let mut q = query(&from, &to);
    q.channel = Some("stable-9.9");
    let err = g.path(&q).unwrap_err().to_string();
    assert!(
        err.contains("--channel stable-9.9") && err.contains("eus-4.18"),
        "{err}"
    );
}

#[test]
fn a_channel_restricts_the_releases_of_the_path() {
    let g = three_channels();
    let (from, to) = (cv("4.17.5"), cv("4.18.6"));
    let mut q = query(&from, &to);
    q.channel = Some("stable-4.17");
    // 4.18.6 is not in stable-4.17.
    assert!(g.path(&q).is_err());
    q.channel = Some("stable-4.18");
    assert!(g.path(&q).is_ok());
}

#[test]
fn the_requested_channel_is_the_narrowest_every_release_shares() {
    let mut b = Builder::new();
    b.add("a.json", &fixture("stable-4.17.json"), None).unwrap();
    b.add(
        "b.json",
        &fixture("stable-4.17.json"),
        Some("stable-4.17".into()),
    )
    .unwrap();
    let g = b.finish();
    assert_eq!(g.default_channel(), Some("stable-4.17"));
    assert_eq!(
        channel_of_url(
            "https://osus.example.com/api/upgrades_info/graph?arch=amd64&channel=eus-4.18"
        ),
        Some("eus-4.18".into())
    );
    assert_eq!(channel_of_url("https://x/graph?channel=a%22b"), None);
    assert_eq!(channel_of_url("https://x/graph"), None);
}

#[test]
fn syntax_and_field_errors_name_file_line_and_field() {
    let mut b = Builder::new();
    let err = b
        .add(
            "g.json",
            b"{\n  \"nodes\": [\n    {\"version\": 4}\n  ]\n}",
            None,
        )
        .unwrap_err();
    assert!(matches!(err, Error::Syntax { line: 3, .. }), "{err:?}");
    assert!(
        err.to_string().starts_with("update graph g.json:3:"),
        "{err}"
    );
    let err = b
        .add("g.json", br#"{"nodes": [{"version": "4.x"}]}"#, None)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("nodes[0].version") && err.contains("\"4.x\""),
        "{err}"
    );
    let err = b
        .add(
            "g.json",
            br#"{"nodes": [{"version": "4.1.0"}], "edges": [[0, 7]]}"#,
            None,
        )
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("edges[0]") && err.contains("(1 nodes)"),
        "{err}"
    );
    let err = b
        .add("g.json", br#"{"conditionalEdges": [{"edges": [{"from": "4.1.0", "to": "4.1.1"}], "risks": []}]}"#, None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("conditionalEdges[0].risks"), "{err}");
    let err = b
        .add("g.json", br#"{"nodes": [{"version": "4.1.0", "metadata": {"io.openshift.upgrades.graph.release.channels": 3}}]}"#, None)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("metadata.io.openshift.upgrades.graph.release.channels"),
        "{err}"
    );
    let err = b.add("g.json", b"\xff\xfe", None).unwrap_err();
    assert!(matches!(err, Error::Syntax { .. }), "{err:?}");
}

#[test]
fn union_merges_nodes_and_refuses_two_payloads_for_one_release() {
    let mut b = Builder::new();
    b.add(
        "a.json",
        &doc(&["4.1.0", "4.1.1"], &[("4.1.0", "4.1.1")], &[]),
        None,
    )
    .unwrap();
    b.add(
        "b.json",
        &doc(&["4.1.1", "4.2.0"], &[], &[("4.1.1", "4.2.0", &["R"])]),
        None,
    )
    .unwrap();
    let g = b.finish();
    assert_eq!(g.nodes().len(), 3);
    let (from, to) = (cv("4.1.0"), cv("4.2.0"));
    assert_eq!(
        versions(&g.path(&query(&from, &to)).unwrap()),
        ["4.1.0", "4.1.1", "4.2.0"]
    );
    let mut b = Builder::new();
    b.add("a.json", &doc(&["4.1.0"], &[], &[]), None).unwrap();
    let other = br#"{"nodes": [{"version": "4.1.0", "payload": "quay.io/y@sha256:1"}]}"#;
    let err = b.add("b.json", other, None).unwrap_err().to_string();
    assert!(
        err.contains("nodes[0].payload") && err.contains("a.json"),
        "{err}"
    );
}

#[test]
fn an_edge_conditional_in_any_document_is_conditional() {
    let mut b = Builder::new();
    b.add(
        "a.json",
        &doc(&["4.1.0", "4.2.0"], &[("4.1.0", "4.2.0")], &[]),
        None,
    )
    .unwrap();
    b.add(
        "b.json",
        &doc(&["4.1.0", "4.2.0"], &[], &[("4.1.0", "4.2.0", &["R"])]),
        None,
    )
    .unwrap();
    let g = b.finish();
    let e = g.edges_from("4.1.0");
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].1, EdgeKind::Conditional);
}

#[test]
fn conditional_ties_go_to_fewer_risks_then_newer_releases() {
    let g = graph(&doc(
        &["4.1.0", "4.1.1", "4.1.2", "4.1.3", "4.2.0"],
        &[],
        &[
            ("4.1.0", "4.1.3", &["A", "B"]),
            ("4.1.3", "4.2.0", &["C"]),
            ("4.1.0", "4.1.1", &["A"]),
            ("4.1.1", "4.2.0", &["C"]),
            ("4.1.0", "4.1.2", &["A"]),
            ("4.1.2", "4.2.0", &["C"]),
        ],
    ));
    let (from, to) = (cv("4.1.0"), cv("4.2.0"));
    let p = g.path(&query(&from, &to)).unwrap();
    assert_eq!(versions(&p), ["4.1.0", "4.1.2", "4.2.0"]);
}

#[test]
fn same_release_is_an_empty_path_and_prereleases_are_not_minor_targets() {
    let g = graph(&doc(
        &["4.1.0", "4.2.0-rc.1", "4.2.0"],
        &[("4.1.0", "4.2.0-rc.1"), ("4.1.0", "4.2.0")],
        &[],
    ));
    let (from, to) = (cv("4.1.0"), cv("4.1.0"));
    assert!(g.path(&query(&from, &to)).unwrap().hops.is_empty());
    let to = cv("4.2");
    assert_eq!(
        versions(&g.path(&query(&from, &to)).unwrap()),
        ["4.1.0", "4.2.0"]
    );
    let to = cv("4.2.0-rc.1");
    assert_eq!(
        versions(&g.path(&query(&from, &to)).unwrap()),
        ["4.1.0", "4.2.0-rc.1"]
    );
}

/// Breadth-first distances over every edge usable in `tier` (the oracle).
fn bfs(n: usize, edges: &[(usize, usize, u8)], tier: u8, from: usize) -> Vec<Option<usize>> {
    let mut d = vec![None; n];
    d[from] = Some(0);
    let mut q = std::collections::VecDeque::from([from]);
    while let Some(u) = q.pop_front() {
        for &(a, b, k) in edges {
            if a == u && k <= tier && d[b].is_none() {
                d[b] = Some(d[u].unwrap() + 1);
                q.push_back(b);
            }
        }
    }
    d
}

proptest! {
    /// On random graphs (edges recommended, conditional or not recommended): a path is found
    /// exactly when one exists; it is a chain of edges of the graph; it is as short as the
    /// shortest in the first tier that reaches the target, and it uses no edge of a later
    /// tier.
    #[test]
    fn path_exists_exactly_when_the_graph_has_one_and_is_shortest(
        n in 2usize..9,
        raw in proptest::collection::vec((0usize..9, 0usize..9, 0u8..3), 0..24),
        allow in any::<bool>(),
    ) {
        let names: Vec<String> = (0..n).map(|i| format!("4.1.{i}")).collect();
        let mut edges: Vec<(usize, usize, u8)> = Vec::new();
        for (a, b, k) in raw {
            let (a, b) = (a % n, b % n);
            if a != b && !edges.iter().any(|e| (e.0, e.1) == (a, b)) {
                edges.push((a, b, k));
            }
        }
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let plain: Vec<(&str, &str)> = edges.iter().filter(|e| e.2 == 0).map(|e| (refs[e.0], refs[e.1])).collect();
        let cond_risks: &[&str] = &["R"];
        let always: &[&str] = &["!A"];
        let cond: Vec<(&str, &str, &[&str])> = edges
            .iter()
            .filter(|e| e.2 > 0)
            .map(|e| (refs[e.0], refs[e.1], if e.2 == 1 { cond_risks } else { always }))
            .collect();
        let g = graph(&doc(&refs, &plain, &cond));
        let from = cv(&names[0]);
        let to = cv(&names[n - 1]);
        let mut q = query(&from, &to);
        q.allow_not_recommended = allow;
        let got = g.path(&q);
        let tiers: &[u8] = if allow { &[0, 1, 2] } else { &[0, 1] };
        let first = tiers.iter().find_map(|&t| bfs(n, &edges, t, 0)[n - 1].map(|d| (t, d)));
        match (first, got) {
            (Some((tier, d)), Ok(p)) => {
                prop_assert_eq!(p.hops.len(), d);
                for h in &p.hops {
                    let (a, b) = (
                        names.iter().position(|x| *x == h.from.version).unwrap(),
                        names.iter().position(|x| *x == h.to.version).unwrap(),
                    );
                    let e = edges.iter().find(|e| (e.0, e.1) == (a, b));
                    prop_assert!(e.is_some_and(|e| e.2 <= tier), "{a}->{b} not an edge of tier {tier}");
                }
                prop_assert_eq!(p.hops.first().map(|h| h.from.version.clone()), Some(names[0].clone()));
                prop_assert_eq!(p.hops.last().map(|h| h.to.version.clone()), Some(names[n - 1].clone()));
            }
            (None, Err(e)) => {
                let reachable_at_all = bfs(n, &edges, 2, 0)[n - 1].is_some();
                prop_assert_eq!(matches!(e, Error::NotRecommendedOnly { .. }), reachable_at_all && !allow);
            }
            (want, got) => prop_assert!(false, "oracle {want:?}, planner {got:?}"),
        }
    }
}

/// Issue 34 item 6: two documents naming one release with tens of thousands of channels each,
/// and releases sharing them all, merge in time linear in the channels (this took minutes
/// when each channel was looked for in the list so far); the result is the sorted union.
#[test]
fn many_channels_merge_linearly_into_their_sorted_union() {
    let channels = |range: std::ops::Range<usize>| {
        range
            .map(|i| format!("stable-{i:06}"))
            .collect::<Vec<_>>()
            .join(",")
    };
    let doc = |range: std::ops::Range<usize>| {
        let names = channels(range);
        let nodes: Vec<Value> = ["4.16.1", "4.16.2", "4.16.3", "4.16.4"]
            .iter()
            .map(|v| {
                json!({"version": v, "payload": format!("quay.io/x@sha256:{v}"),
                    "metadata": {CHANNELS_KEY: names}})
            })
            .collect();
        serde_json::to_vec(&json!({"nodes": nodes, "edges": [[0, 1], [1, 2], [2, 3]]})).unwrap()
    };
    let mut b = Builder::new();
    b.add("a.json", &doc(0..50_000), None).unwrap();
    b.add("b.json", &doc(25_000..75_000), None).unwrap();
    let g = b.finish();
    let node = g.node("4.16.1").unwrap();
    assert_eq!(node.channels.len(), 75_000);
    assert!(node.channels.windows(2).all(|w| w[0] < w[1]));
    // Every channel holds all four releases: the first of each document's is its channel.
    assert_eq!(g.sources()[0].channel.as_deref(), Some("stable-000000"));
    assert_eq!(g.sources()[1].channel.as_deref(), Some("stable-025000"));
    let (from, to) = (cv("4.16.1"), cv("4.16.4"));
    let q = Query {
        channel: Some("stable-074999"),
        ..query(&from, &to)
    };
    assert_eq!(versions(&g.path(&q).unwrap()).len(), 4);
}

/// The same name of a risk on one edge in many documents is kept once, without a scan of the
/// risks so far.
#[test]
fn risks_repeated_over_documents_are_kept_once() {
    let names: Vec<String> = (0..10_000).map(|i| format!("Risk{i}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut b = Builder::new();
    for f in ["a.json", "b.json"] {
        let d = doc(&["4.16.1", "4.16.2"], &[], &[("4.16.1", "4.16.2", &names)]);
        b.add(f, &d, None).unwrap();
    }
    let g = b.finish();
    let edges = g.edges_from("4.16.1");
    assert_eq!(edges.len(), 1);
    assert_eq!(edges[0].2.len(), 10_000);
    assert_eq!(edges[0].2[0].name, "Risk0");
}
