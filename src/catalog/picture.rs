//! A package's upgrade graph as a picture, for `catalog list channels -o mermaid|dot`: one
//! group per package, one per channel inside it, a node per channel entry and an edge per
//! upgrade edge (`replace`, `skip`, `skipRange(…)` to every entry of the channel whose
//! version the range admits), with channel heads and deprecations marked. The shape follows
//! operator-registry's `opm alpha render-graph` (`alpha/declcfg` Mermaid writer): edges point
//! from the newer bundle to the one it upgrades from.

use super::graph;
use super::model::{Catalog, Package};
use crate::diagram::{Diagram, Edge, Group, Line, Mark, Node};
use crate::version::blang;

fn node_id(package: &str, channel: &str, bundle: &str) -> String {
    // Lengths first: no two (package, channel, bundle) give the same id.
    format!(
        "{}:{package}:{}:{channel}:{bundle}",
        package.len(),
        channel.len()
    )
}

fn package_group(p: &Package, edges: &mut Vec<Edge>) -> Group {
    let mut group = Group {
        id: format!("package {}", p.name),
        label: match &p.deprecation {
            Some(_) => format!("{} (deprecated)", p.name),
            None => p.name.clone(),
        },
        ..Default::default()
    };
    for c in &p.channels {
        let heads = graph::heads(c);
        let mut inner = Group {
            id: format!("channel {}", node_id(&p.name, &c.name, "")),
            label: match &c.deprecation {
                Some(_) => format!("{} (deprecated)", c.name),
                None => c.name.clone(),
            },
            ..Default::default()
        };
        for e in &c.entries {
            let bundle = p.bundle(&e.name);
            let deprecated = bundle.is_some_and(|b| b.deprecation.is_some());
            let mut label = vec![e.name.clone()];
            if deprecated {
                label.push("deprecated".into());
            }
            let head = heads.contains(&e.name.as_str());
            if head {
                label.push("head".into());
            }
            inner.nodes.push(Node {
                id: node_id(&p.name, &c.name, &e.name),
                label,
                mark: if deprecated {
                    Mark::Deprecated
                } else if head {
                    Mark::Head
                } else {
                    Mark::Plain
                },
            });
        }
        let in_channel = |name: &str| c.entries.iter().any(|x| x.name == name);
        for e in &c.entries {
            let from = node_id(&p.name, &c.name, &e.name);
            if let Some(r) = e.replaces.as_deref().filter(|r| in_channel(r)) {
                edges.push(Edge {
                    from: from.clone(),
                    to: node_id(&p.name, &c.name, r),
                    label: "replace".into(),
                    line: Line::Solid,
                });
            }
            for s in e.skips.iter().filter(|s| in_channel(s)) {
                edges.push(Edge {
                    from: from.clone(),
                    to: node_id(&p.name, &c.name, s),
                    label: "skip".into(),
                    line: Line::Dashed,
                });
            }
            let Some(text) = &e.skip_range else { continue };
            let Ok(range) = blang::Range::parse(text) else {
                continue;
            };
            for other in &c.entries {
                if other.name == e.name {
                    continue;
                }
                let Some(v) = p.bundle(&other.name).and_then(|b| b.version.as_ref()) else {
                    continue;
                };
                if range.matches(v) {
                    edges.push(Edge {
                        from: from.clone(),
                        to: node_id(&p.name, &c.name, &other.name),
                        label: format!("skipRange({text})"),
                        line: Line::Dashed,
                    });
                }
            }
        }
        group.groups.push(inner);
    }
    group
}

/// The upgrade graph of `package`, or of every package.
pub fn upgrade_graph(catalog: &Catalog, package: Option<&str>) -> Diagram {
    let mut d = Diagram {
        title: match package {
            Some(p) => format!("upgrade graph of package {p}"),
            None => "upgrade graphs".into(),
        },
        ..Default::default()
    };
    for p in &catalog.packages {
        if package.is_some_and(|name| name != p.name) {
            continue;
        }
        let g = package_group(p, &mut d.edges);
        d.groups.push(g);
    }
    d
}
