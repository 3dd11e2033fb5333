//! OpenShift's update graph (Cincinnati) and the path a cluster takes through it.
//!
//! Input: one or more responses of `GET <update service>/api/upgrades_info/graph?channel=…`
//! (`Accept: application/json`): `{"nodes": [{"version", "payload", "metadata"}], "edges":
//! [[from, to], …], "conditionalEdges": [{"edges": [{"from", "to"}], "risks": [{"url", "name",
//! "message", "matchingRules": [{"type": "PromQL", "promql": {"promql"}} | {"type":
//! "Always"}]}]}]}`. `edges` index `nodes`; conditional edges name versions. Several responses
//! (one per channel) are one graph ([`Builder`]): nodes by version, edges by version pair; an
//! edge that is conditional in any response is conditional, with every risk.
//!
//! The path ([`UpdateGraph::path`]), as the cluster-version operator's recommendations allow:
//! 1. the shortest path over recommended edges only;
//! 2. else the shortest that also takes conditional edges, fewest risks among those;
//! 3. else, only with `allow_not_recommended`, one that also takes edges with a risk whose
//!    rules are all `Always` (the update service marks those not recommended for every
//!    cluster).
//!
//! Ties go to the newer releases: from the current release, each next hop goes to the newest
//! release that still lies on an optimal path. A `--to X.Y` target is the newest release of
//! that minor the best tier reaches. A patch update of the current minor comes first when no
//! edge leaves the current z-stream toward the target: the search finds it, since that is the
//! only way on. PromQL risks cannot be evaluated offline: the plan lists them to evaluate on
//! the cluster.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, VecDeque};

use serde::{Deserialize, Serialize};

use crate::openshift::ClusterVersion;

/// The node metadata key listing a release's channels, comma-separated.
pub const CHANNELS_KEY: &str = "io.openshift.upgrades.graph.release.channels";

/// The largest graph document read, in bytes (the public service's whole graph is a few MB).
pub const MAX_GRAPH_BYTES: u64 = 64 * 1024 * 1024;

/// The most nodes in a graph (the public service has a few thousand releases).
pub const MAX_NODES: usize = 200_000;

/// A release in the graph.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Node {
    /// Version text.
    pub version: String,
    /// The release image (by digest).
    pub payload: String,
    /// Channels that hold it.
    pub channels: Vec<String>,
    #[serde(skip)]
    parsed: semver::Version,
}

/// A rule of a conditional risk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MatchingRule {
    /// `PromQL`, `Always`, or another type the update service may add.
    #[serde(rename = "type")]
    pub kind: String,
    /// The PromQL query (`PromQL` rules).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub promql: Option<String>,
}

/// A risk of a conditional edge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Risk {
    /// Risk name.
    pub name: String,
    /// Where it is described.
    pub url: String,
    /// What it is.
    pub message: String,
    /// When it applies.
    pub rules: Vec<MatchingRule>,
}

impl Risk {
    /// Whether it applies to every cluster: rules that are all `Always`.
    pub fn always(&self) -> bool {
        !self.rules.is_empty() && self.rules.iter().all(|r| r.kind == "Always")
    }
}

/// How an edge is recommended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum EdgeKind {
    /// An unconditional edge.
    Recommended,
    /// Recommended unless one of its risks applies to the cluster.
    Conditional,
    /// A risk applies to every cluster (`Always`).
    NotRecommended,
}

impl EdgeKind {
    /// The word for it.
    pub fn word(self) -> &'static str {
        match self {
            EdgeKind::Recommended => "recommended",
            EdgeKind::Conditional => "conditional",
            EdgeKind::NotRecommended => "not recommended",
        }
    }
}

/// A graph that cannot be read, or a path that cannot be found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// Not JSON of the graph's shape.
    #[error("update graph {file}:{line}:{column}: {message}")]
    Syntax {
        /// The file or URL.
        file: String,
        /// Line (from 1).
        line: usize,
        /// Column (from 1).
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A field with a bad value.
    #[error("update graph {file}: {field}: {message}")]
    Field {
        /// The file or URL.
        file: String,
        /// The field (`nodes[3].version`).
        field: String,
        /// What is wrong.
        message: String,
    },
    /// The current release is not a node.
    #[error(
        "{what} {version} is not in the update graph ({sources}){}",
        nearest_note(nearest)
    )]
    NotInGraph {
        /// `the current release` or `the target`.
        what: String,
        /// The release.
        version: String,
        /// The graph's sources.
        sources: String,
        /// Releases of the graph nearest to it.
        nearest: Vec<String>,
    },
    /// No path.
    #[error(
        "OpenShift {from} cannot reach {to} on the update graph{}: {why}{}",
        channel_note(channel),
        nearest_note(nearest)
    )]
    Unreachable {
        /// Current release.
        from: String,
        /// Target.
        to: String,
        /// The channel the path was restricted to.
        channel: Option<String>,
        /// Why.
        why: String,
        /// The reachable releases nearest to the target.
        nearest: Vec<String>,
    },
    /// The only paths take edges that are not recommended.
    #[error(
        "OpenShift {from} reaches {to} only through updates that are not recommended for any cluster (a risk with an `Always` rule: {risks}); give --allow-not-recommended to plan that path anyway"
    )]
    NotRecommendedOnly {
        /// Current release.
        from: String,
        /// Target.
        to: String,
        /// The risks on the way.
        risks: String,
    },
    /// The channel holds no release.
    #[error(
        "--channel {channel}: no release of the update graph is in that channel (channels: {known})"
    )]
    UnknownChannel {
        /// The channel.
        channel: String,
        /// Channels the graph has.
        known: String,
    },
}

fn nearest_note(nearest: &[String]) -> String {
    if nearest.is_empty() {
        String::new()
    } else {
        format!("; nearest: {}", nearest.join(", "))
    }
}

fn channel_note(channel: &Option<String>) -> String {
    channel
        .as_ref()
        .map(|c| format!(" in channel {c}"))
        .unwrap_or_default()
}

#[derive(Deserialize)]
struct RawGraph {
    #[serde(default)]
    nodes: Vec<RawNode>,
    #[serde(default)]
    edges: Vec<(u64, u64)>,
    #[serde(default, rename = "conditionalEdges")]
    conditional_edges: Vec<RawConditional>,
}

#[derive(Deserialize)]
struct RawNode {
    version: String,
    #[serde(default)]
    payload: String,
    #[serde(default)]
    metadata: BTreeMap<String, serde_json::Value>,
}

#[derive(Deserialize)]
struct RawConditional {
    #[serde(default)]
    edges: Vec<RawEdge>,
    #[serde(default)]
    risks: Vec<RawRisk>,
}

#[derive(Deserialize)]
struct RawEdge {
    from: String,
    to: String,
}

#[derive(Deserialize)]
struct RawRisk {
    #[serde(default)]
    url: String,
    name: String,
    #[serde(default)]
    message: String,
    #[serde(default, rename = "matchingRules")]
    matching_rules: Vec<RawRule>,
}

#[derive(Deserialize)]
struct RawRule {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    promql: Option<RawPromql>,
}

#[derive(Deserialize)]
struct RawPromql {
    #[serde(default)]
    promql: String,
}

/// Reads graph documents into one [`UpdateGraph`].
#[derive(Debug, Default)]
pub struct Builder {
    nodes: BTreeMap<semver::Version, Node>,
    /// Where each node came from first (for conflicts).
    node_source: HashMap<semver::Version, String>,
    /// Version pair → risks (empty: recommended), risks unique by name.
    edges: BTreeMap<(semver::Version, semver::Version), EdgeRisks>,
    sources: Vec<(Source, BTreeSet<String>)>,
    notes: Vec<String>,
}

/// The risks of one edge (none: recommended), unique by name, the first kept; the set of their
/// names keeps adding one linear.
#[derive(Debug, Default)]
struct EdgeRisks {
    risks: Vec<Risk>,
    names: HashSet<String>,
}

/// One document of the graph.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Source {
    /// File or URL.
    pub name: String,
    /// The channel it was requested for (`?channel=` of a URL), else the one every release
    /// in it shares (the narrowest, when several).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
}

impl Builder {
    /// An empty graph.
    pub fn new() -> Builder {
        Builder::default()
    }

    /// Add one document: `name` (a file or URL) for messages, `channel` when the request
    /// said which.
    pub fn add(&mut self, name: &str, bytes: &[u8], channel: Option<String>) -> Result<(), Error> {
        let raw: RawGraph = serde_json::from_slice(bytes).map_err(|e| Error::Syntax {
            file: name.to_string(),
            line: e.line(),
            column: e.column(),
            message: strip_position(&e.to_string()),
        })?;
        let field = |field: String, message: String| Error::Field {
            file: name.to_string(),
            field,
            message,
        };
        if self.nodes.len().saturating_add(raw.nodes.len()) > MAX_NODES {
            return Err(field(
                "nodes".into(),
                format!("more than {MAX_NODES} releases"),
            ));
        }
        let mut versions = Vec::with_capacity(raw.nodes.len());
        let mut in_file: Vec<BTreeSet<String>> = Vec::new();
        for (i, n) in raw.nodes.into_iter().enumerate() {
            let v = semver::Version::parse(n.version.trim()).map_err(|e| {
                field(
                    format!("nodes[{i}].version"),
                    format!("{:?} is not a release version: {e}", n.version),
                )
            })?;
            let channels: Vec<String> = match n.metadata.get(CHANNELS_KEY) {
                None => Vec::new(),
                Some(serde_json::Value::String(s)) => s
                    .split(',')
                    .map(str::trim)
                    .filter(|c| !c.is_empty())
                    .map(str::to_string)
                    .collect(),
                Some(other) => {
                    return Err(field(
                        format!("nodes[{i}].metadata.{CHANNELS_KEY}"),
                        format!("expected a comma-separated string, found {other}"),
                    ));
                }
            };
            in_file.push(channels.iter().cloned().collect());
            match self.nodes.get_mut(&v) {
                Some(existing) => {
                    if !n.payload.is_empty()
                        && !existing.payload.is_empty()
                        && existing.payload != n.payload
                    {
                        return Err(field(
                            format!("nodes[{i}].payload"),
                            format!(
                                "release {v} is {} here but {} in {}",
                                n.payload,
                                existing.payload,
                                self.node_source.get(&v).map(String::as_str).unwrap_or("")
                            ),
                        ));
                    }
                    if existing.payload.is_empty() {
                        existing.payload = n.payload;
                    }
                    // Both lists sorted and unique after this: O(n log n) in the channels of
                    // both, however many documents name the release.
                    existing.channels.extend(channels);
                    existing.channels.sort_unstable();
                    existing.channels.dedup();
                }
                None => {
                    let mut channels = channels;
                    channels.sort();
                    channels.dedup();
                    self.node_source.insert(v.clone(), name.to_string());
                    self.nodes.insert(
                        v.clone(),
                        Node {
                            version: v.to_string(),
                            payload: n.payload,
                            channels,
                            parsed: v.clone(),
                        },
                    );
                }
            }
            versions.push(v);
        }
        for (i, (a, b)) in raw.edges.into_iter().enumerate() {
            let get = |k: u64| usize::try_from(k).ok().and_then(|k| versions.get(k));
            let (Some(from), Some(to)) = (get(a), get(b)) else {
                return Err(field(
                    format!("edges[{i}]"),
                    format!(
                        "[{a}, {b}] names a node the document does not have ({} nodes)",
                        versions.len()
                    ),
                ));
            };
            self.edges.entry((from.clone(), to.clone())).or_default();
        }
        let mut unknown = 0usize;
        for (i, c) in raw.conditional_edges.into_iter().enumerate() {
            let risks: Vec<Risk> = c
                .risks
                .into_iter()
                .map(|r| Risk {
                    name: r.name,
                    url: r.url,
                    message: r.message,
                    rules: r
                        .matching_rules
                        .into_iter()
                        .map(|m| MatchingRule {
                            promql: m.promql.map(|p| p.promql),
                            kind: m.kind,
                        })
                        .collect(),
                })
                .collect();
            if risks.is_empty() {
                return Err(field(
                    format!("conditionalEdges[{i}].risks"),
                    "a conditional edge without risks".into(),
                ));
            }
            for (j, e) in c.edges.iter().enumerate() {
                let parse = |s: &str, which: &str| {
                    semver::Version::parse(s.trim()).map_err(|err| {
                        field(
                            format!("conditionalEdges[{i}].edges[{j}].{which}"),
                            format!("{s:?} is not a release version: {err}"),
                        )
                    })
                };
                let (from, to) = (parse(&e.from, "from")?, parse(&e.to, "to")?);
                if !self.nodes.contains_key(&from) || !self.nodes.contains_key(&to) {
                    unknown += 1;
                    continue;
                }
                let slot = self.edges.entry((from, to)).or_default();
                for r in &risks {
                    if slot.names.insert(r.name.clone()) {
                        slot.risks.push(r.clone());
                    }
                }
            }
        }
        if unknown > 0 {
            self.notes.push(format!(
                "{name}: {unknown} conditional edge{} name releases that are not nodes of the graph; ignored",
                if unknown == 1 { "" } else { "s" }
            ));
        }
        // The channels every release of the document is in: one of them is the channel it
        // was requested for (chosen in `finish`, against the whole graph).
        let mut common = in_file.first().cloned().unwrap_or_default();
        for set in in_file.iter().skip(1) {
            common = common.intersection(set).cloned().collect();
        }
        self.sources.push((
            Source {
                name: name.to_string(),
                channel,
            },
            common,
        ));
        Ok(())
    }

    /// The graph.
    pub fn finish(self) -> UpdateGraph {
        let nodes: Vec<Node> = self.nodes.into_values().collect();
        let index: HashMap<semver::Version, usize> = nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.parsed.clone(), i))
            .collect();
        let mut out: Vec<Vec<(usize, usize)>> = vec![Vec::new(); nodes.len()];
        let mut risks = Vec::new();
        for ((a, b), r) in self.edges {
            if let (Some(&a), Some(&b)) = (index.get(&a), index.get(&b)) {
                out[a].push((b, risks.len()));
                risks.push(r.risks);
            }
        }
        // Releases per channel, counted once over every node's channels.
        let mut releases: HashMap<&str, usize> = HashMap::new();
        for n in &nodes {
            for c in &n.channels {
                *releases.entry(c.as_str()).or_default() += 1;
            }
        }
        let size = |c: &String| releases.get(c.as_str()).copied().unwrap_or(0);
        let sources = self
            .sources
            .into_iter()
            .map(|(mut s, common)| {
                if s.channel.is_none() {
                    // The narrowest: fewest releases, then stable before eus, fast, candidate.
                    s.channel = common
                        .into_iter()
                        .min_by_key(|c| (size(c), channel_rank(c), c.clone()));
                }
                s
            })
            .collect();
        UpdateGraph {
            nodes,
            index,
            out,
            risks,
            sources,
            notes: self.notes,
        }
    }
}

fn channel_rank(c: &str) -> u8 {
    ["stable-", "eus-", "fast-", "candidate-"]
        .iter()
        .position(|p| c.starts_with(p))
        .map_or(4, |i| i as u8)
}

/// serde_json's message without its own " at line L column C" (the error names them).
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

/// The update graph: releases sorted by version, and their edges.
#[derive(Debug, Clone)]
pub struct UpdateGraph {
    nodes: Vec<Node>,
    index: HashMap<semver::Version, usize>,
    /// Per node: (target node, index into `risks`).
    out: Vec<Vec<(usize, usize)>>,
    risks: Vec<Vec<Risk>>,
    sources: Vec<Source>,
    notes: Vec<String>,
}

/// One hop of a path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PathHop {
    /// From this release.
    pub from: Release,
    /// To this one.
    pub to: Release,
    /// How the edge is recommended.
    pub edge: EdgeKind,
    /// Its risks.
    pub risks: Vec<Risk>,
}

/// A release by version and image.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Release {
    /// Version.
    pub version: String,
    /// Release image (by digest), from the graph's `payload`.
    pub image: String,
    /// The channels that hold it (not part of the plan's data).
    #[serde(skip)]
    pub channels: Vec<String>,
}

/// The path and why it won.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Path {
    /// Hops in order.
    pub hops: Vec<PathHop>,
    /// The channel the path stays in, when restricted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    /// The most cautious edge it takes.
    pub tier: EdgeKind,
    /// Why this path: the search's decisions, in order.
    pub why: Vec<String>,
}

/// What to search.
#[derive(Debug, Clone)]
pub struct Query<'a> {
    /// The current release (an exact release).
    pub from: &'a ClusterVersion,
    /// The target: an exact release, or `X.Y` for the newest reachable release of that minor.
    pub to: &'a ClusterVersion,
    /// Only releases of this channel (besides the current one).
    pub channel: Option<&'a str>,
    /// Also take edges that are not recommended for any cluster.
    pub allow_not_recommended: bool,
}

impl UpdateGraph {
    /// Every release, oldest first.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The documents it was read from.
    pub fn sources(&self) -> &[Source] {
        &self.sources
    }

    /// Notes from reading it (ignored edges).
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The release with this version.
    pub fn node(&self, version: &str) -> Option<&Node> {
        let v = semver::Version::parse(version).ok()?;
        self.index.get(&v).map(|&i| &self.nodes[i])
    }

    /// The channel every document was requested for, when they agree.
    pub fn default_channel(&self) -> Option<&str> {
        let first = self.sources.first()?.channel.as_deref()?;
        self.sources
            .iter()
            .all(|s| s.channel.as_deref() == Some(first))
            .then_some(first)
    }

    /// The channels of the documents (each once, sorted).
    pub fn channels(&self) -> Vec<String> {
        let mut c: Vec<String> = self
            .sources
            .iter()
            .filter_map(|s| s.channel.clone())
            .collect();
        c.sort();
        c.dedup();
        c
    }

    /// Edges leaving the release `version`: (target version, kind, risks).
    pub fn edges_from(&self, version: &str) -> Vec<(&str, EdgeKind, &[Risk])> {
        let Some(n) = self.node(version) else {
            return Vec::new();
        };
        let i = self.index[&n.parsed];
        self.out[i]
            .iter()
            .map(|&(t, r)| {
                (
                    self.nodes[t].version.as_str(),
                    kind_of(&self.risks[r]),
                    self.risks[r].as_slice(),
                )
            })
            .collect()
    }

    fn sources_text(&self) -> String {
        self.sources
            .iter()
            .map(|s| match &s.channel {
                Some(c) => format!("{} ({c})", s.name),
                None => s.name.clone(),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Releases nearest to `v` (up to three): the newest at or below it, then the oldest
    /// above.
    fn nearest(&self, v: &semver::Version, keep: impl Fn(usize) -> bool) -> Vec<String> {
        let below: Vec<&Node> = self
            .nodes
            .iter()
            .enumerate()
            .filter(|(i, n)| keep(*i) && n.parsed <= *v)
            .map(|(_, n)| n)
            .collect();
        let above = self
            .nodes
            .iter()
            .enumerate()
            .find(|(i, n)| keep(*i) && n.parsed > *v)
            .map(|(_, n)| n);
        let mut out: Vec<String> = below
            .iter()
            .rev()
            .take(if above.is_some() { 2 } else { 3 })
            .map(|n| n.version.clone())
            .collect();
        out.reverse();
        if let Some(a) = above {
            out.push(a.version.clone());
        }
        out
    }

    /// The path from `q.from` to `q.to` (see the module comment for the rules).
    pub fn path(&self, q: &Query<'_>) -> Result<Path, Error> {
        let from_v = exact(q.from);
        let from = from_v
            .as_ref()
            .and_then(|v| self.index.get(v).copied())
            .ok_or_else(|| Error::NotInGraph {
                what: "the current release".into(),
                version: q.from.text.clone(),
                sources: self.sources_text(),
                nearest: from_v
                    .as_ref()
                    .map(|v| self.nearest(v, |_| true))
                    .unwrap_or_default(),
            })?;
        let channel = q.channel.map(str::to_string);
        if let Some(c) = &channel
            && !self.nodes.iter().any(|n| n.channels.contains(c))
        {
            let mut known: Vec<&String> = self.nodes.iter().flat_map(|n| &n.channels).collect();
            known.sort();
            known.dedup();
            return Err(Error::UnknownChannel {
                channel: c.clone(),
                known: known
                    .into_iter()
                    .map(String::as_str)
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        let allowed: Vec<bool> = self
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| i == from || channel.as_ref().is_none_or(|c| n.channels.contains(c)))
            .collect();
        // Targets, newest first.
        let targets: Vec<usize> = match exact(q.to) {
            Some(v) => {
                let Some(&t) = self.index.get(&v) else {
                    return Err(Error::NotInGraph {
                        what: "the target".into(),
                        version: q.to.text.clone(),
                        sources: self.sources_text(),
                        nearest: self.nearest(&v, |i| allowed[i]),
                    });
                };
                vec![t]
            }
            None => (0..self.nodes.len())
                .rev()
                .filter(|&i| {
                    let p = &self.nodes[i].parsed;
                    (p.major, p.minor) == (q.to.major, q.to.minor) && p.pre.is_empty()
                })
                .collect(),
        };
        let mut why = Vec::new();
        if targets == [from] {
            return Ok(Path {
                hops: Vec::new(),
                channel,
                tier: EdgeKind::Recommended,
                why,
            });
        }
        let mut tiers = vec![EdgeKind::Recommended, EdgeKind::Conditional];
        if q.allow_not_recommended {
            tiers.push(EdgeKind::NotRecommended);
        }
        for &tier in &tiers {
            let reach = self.reachable(from, &allowed, tier);
            let Some(&target) = targets.iter().find(|&&t| reach[t] && allowed[t]) else {
                continue;
            };
            let nodes = self.best_path(from, target, &allowed, tier);
            match tier {
                EdgeKind::Recommended => why.push(format!(
                    "the shortest path over recommended edges only: {} hop{}",
                    nodes.len() - 1,
                    if nodes.len() == 2 { "" } else { "s" }
                )),
                EdgeKind::Conditional => why.push(format!(
                    "no path over recommended edges only; the shortest that also takes conditional edges, with the fewest risks: {} hop{}",
                    nodes.len() - 1,
                    if nodes.len() == 2 { "" } else { "s" }
                )),
                EdgeKind::NotRecommended => why.push(format!(
                    "no path over recommended or conditional edges; with --allow-not-recommended, the shortest that also takes edges not recommended for any cluster: {} hop{}",
                    nodes.len() - 1,
                    if nodes.len() == 2 { "" } else { "s" }
                )),
            }
            if exact(q.to).is_none() {
                why.push(format!(
                    "target {}: the newest {} release reachable this way",
                    self.nodes[target].version,
                    q.to.minor_text()
                ));
            }
            let ties = self.count_best(from, target, &allowed, tier);
            if ties > 1 {
                why.push(format!(
                    "{} equally short paths{}; at each hop the newest release that stays on one of them",
                    if ties >= COUNT_CAP {
                        format!("{COUNT_CAP} or more")
                    } else {
                        ties.to_string()
                    },
                    if tier == EdgeKind::Recommended {
                        ""
                    } else {
                        " with as few risks"
                    }
                ));
            }
            let hops: Vec<PathHop> = nodes
                .windows(2)
                .map(|w| {
                    let r = self.edge_risks(w[0], w[1]).unwrap_or(&[]);
                    PathHop {
                        from: self.release(w[0]),
                        to: self.release(w[1]),
                        edge: kind_of(r),
                        risks: r.to_vec(),
                    }
                })
                .collect();
            if let (Some(first), Some(target_v)) = (hops.first(), Some(&self.nodes[target].parsed))
            {
                let f = &self.nodes[from].parsed;
                let first_to = semver::Version::parse(&first.to.version).ok();
                if target_v.minor > f.minor
                    && first_to.is_some_and(|v| (v.major, v.minor) == (f.major, f.minor))
                {
                    why.push(format!(
                        "a patch update to {} comes first: no shorter way leads from {} itself toward {}",
                        first.to.version,
                        self.nodes[from].version,
                        q.to.minor_text()
                    ));
                }
            }
            let tier = hops
                .iter()
                .map(|h| h.edge)
                .max()
                .unwrap_or(EdgeKind::Recommended);
            return Ok(Path {
                hops,
                channel,
                tier,
                why,
            });
        }
        // Nothing within the allowed tiers.
        let any = self.reachable(from, &allowed, EdgeKind::NotRecommended);
        if let Some(&t) = targets.iter().find(|&&t| any[t] && allowed[t]) {
            let nodes = self.best_path(from, t, &allowed, EdgeKind::NotRecommended);
            let mut names: Vec<String> = nodes
                .windows(2)
                .flat_map(|w| self.edge_risks(w[0], w[1]).unwrap_or(&[]).to_vec())
                .filter(Risk::always)
                .map(|r| r.name)
                .collect();
            names.dedup();
            return Err(Error::NotRecommendedOnly {
                from: self.nodes[from].version.clone(),
                to: self.nodes[t].version.clone(),
                risks: names.join(", "),
            });
        }
        let to_v =
            exact(q.to).unwrap_or_else(|| semver::Version::new(q.to.major, q.to.minor, u64::MAX));
        let why = if targets.is_empty() {
            format!("the graph has no {} release", q.to.minor_text())
        } else if self.out[from].is_empty() {
            format!("no edge leaves {}", self.nodes[from].version)
        } else {
            "no path of edges leads there".into()
        };
        Err(Error::Unreachable {
            from: self.nodes[from].version.clone(),
            to: q.to.text.clone(),
            channel,
            why,
            nearest: self.nearest(&to_v, |i| any[i] && allowed[i] && i != from),
        })
    }

    fn release(&self, i: usize) -> Release {
        Release {
            version: self.nodes[i].version.clone(),
            image: self.nodes[i].payload.clone(),
            channels: self.nodes[i].channels.clone(),
        }
    }

    fn edge_risks(&self, a: usize, b: usize) -> Option<&[Risk]> {
        self.out[a]
            .iter()
            .find(|(t, _)| *t == b)
            .map(|&(_, r)| self.risks[r].as_slice())
    }

    /// Edges usable in `tier`, with their cost (1 hop, risks).
    fn usable(&self, r: usize, tier: EdgeKind) -> Option<(u64, u64)> {
        let risks = &self.risks[r];
        (kind_of(risks) <= tier).then_some((1, risks.len() as u64))
    }

    fn reachable(&self, from: usize, allowed: &[bool], tier: EdgeKind) -> Vec<bool> {
        let mut seen = vec![false; self.nodes.len()];
        seen[from] = true;
        let mut queue = VecDeque::from([from]);
        while let Some(u) = queue.pop_front() {
            for &(v, r) in &self.out[u] {
                if allowed[v] && !seen[v] && self.usable(r, tier).is_some() {
                    seen[v] = true;
                    queue.push_back(v);
                }
            }
        }
        seen
    }

    /// The least cost (hops, risks) from each node to `target`, over reversed edges.
    fn costs_to(&self, target: usize, allowed: &[bool], tier: EdgeKind) -> Vec<Option<(u64, u64)>> {
        let mut incoming: Vec<Vec<(usize, usize)>> = vec![Vec::new(); self.nodes.len()];
        for (u, out) in self.out.iter().enumerate() {
            for &(v, r) in out {
                incoming[v].push((u, r));
            }
        }
        let mut cost: Vec<Option<(u64, u64)>> = vec![None; self.nodes.len()];
        cost[target] = Some((0, 0));
        let mut heap = BinaryHeap::from([Reverse(((0u64, 0u64), target))]);
        while let Some(Reverse((c, v))) = heap.pop() {
            if cost[v].is_some_and(|best| best < c) {
                continue;
            }
            for &(u, r) in &incoming[v] {
                if !allowed[u] {
                    continue;
                }
                let Some((h, k)) = self.usable(r, tier) else {
                    continue;
                };
                let next = (c.0 + h, c.1 + k);
                if cost[u].is_none_or(|best| next < best) {
                    cost[u] = Some(next);
                    heap.push(Reverse((next, u)));
                }
            }
        }
        cost
    }

    /// An optimal path, taking at each hop the newest release that stays optimal.
    fn best_path(
        &self,
        from: usize,
        target: usize,
        allowed: &[bool],
        tier: EdgeKind,
    ) -> Vec<usize> {
        let cost = self.costs_to(target, allowed, tier);
        let mut path = vec![from];
        let mut u = from;
        while u != target {
            let Some(cu) = cost[u] else { break };
            let next = self.out[u]
                .iter()
                .filter(|&&(v, _)| allowed[v])
                .filter_map(|&(v, r)| {
                    let (h, k) = self.usable(r, tier)?;
                    let cv = cost[v]?;
                    ((cv.0 + h, cv.1 + k) == cu).then_some(v)
                })
                .max_by(|&a, &b| self.nodes[a].parsed.cmp(&self.nodes[b].parsed));
            let Some(v) = next else { break };
            path.push(v);
            u = v;
        }
        path
    }

    /// How many optimal paths there are (capped at [`COUNT_CAP`]).
    fn count_best(&self, from: usize, target: usize, allowed: &[bool], tier: EdgeKind) -> u64 {
        let cost = self.costs_to(target, allowed, tier);
        let mut memo: Vec<Option<u64>> = vec![None; self.nodes.len()];
        // Costs strictly fall along optimal edges, so visiting by rising cost is a topological
        // order of them.
        let mut order: Vec<usize> = (0..self.nodes.len())
            .filter(|&i| cost[i].is_some())
            .collect();
        order.sort_by_key(|&i| cost[i]);
        for u in order {
            if u == target {
                memo[u] = Some(1);
                continue;
            }
            let cu = cost[u].unwrap_or_default();
            let mut n = 0u64;
            for &(v, r) in &self.out[u] {
                if !allowed[v] {
                    continue;
                }
                let (Some((h, k)), Some(cv)) = (self.usable(r, tier), cost[v]) else {
                    continue;
                };
                if (cv.0 + h, cv.1 + k) == cu {
                    n = n.saturating_add(memo[v].unwrap_or(0)).min(COUNT_CAP);
                }
            }
            memo[u] = Some(n);
        }
        memo[from].unwrap_or(0)
    }
}

/// Where [`UpdateGraph::path`] stops counting tied paths.
pub const COUNT_CAP: u64 = 1000;

fn kind_of(risks: &[Risk]) -> EdgeKind {
    if risks.is_empty() {
        EdgeKind::Recommended
    } else if risks.iter().any(Risk::always) {
        EdgeKind::NotRecommended
    } else {
        EdgeKind::Conditional
    }
}

/// The exact release a version names, when it has a patch.
fn exact(v: &ClusterVersion) -> Option<semver::Version> {
    v.patch?;
    let t = v.text.trim();
    let t = t.strip_prefix('v').unwrap_or(t);
    semver::Version::parse(t)
        .ok()
        .or_else(|| Some(semver::Version::new(v.major, v.minor, v.patch?)))
}

/// The channel a graph URL was requested for (`?channel=`).
pub fn channel_of_url(url: &str) -> Option<String> {
    let query = url.split_once('?')?.1;
    let query = query.split('#').next().unwrap_or(query);
    query
        .split('&')
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == "channel")
        .map(|(_, v)| v.to_string())
        .filter(|v| {
            !v.is_empty()
                && v.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.')
        })
}

#[cfg(test)]
mod tests;
