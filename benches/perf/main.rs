//! Large-catalog benchmarks (issue 8): a generator of realistic catalogs and a harness that
//! times every step of the pipeline beside the parse floor, each in its own process so that
//! its peak memory is its own. Not run by `cargo test` (the binary does nothing without a
//! command) and never in CI.
//!
//! ```text
//! cargo bench --bench perf -- run [--sizes 10M,100M,500M] [--layout dir|file|jsonl|yaml|yaml-file|yaml-objects] [--seed 1]
//!                                  [--runs N] [--work DIR] [--only PHASE,…]
//! cargo bench --bench perf -- run --sizes 25k,50k,100k --layout channels   # counts, not bytes
//! cargo bench --bench perf -- run --sizes 250k,500k,1M --layout bundles
//! cargo bench --bench perf -- gen --size 1G [--layout dir|file|jsonl] [--seed 1] --out DIR
//! ```
//!
//! `graph --sizes 15k,30k,60k,1M [--runs N]` is the update-graph shape (issue 34 item 6): two
//! Cincinnati graph documents naming the same four releases, each release in `size` channels
//! (half of them shared by the two documents), merged by `upgrade::graph::Builder` in this
//! process; the table shows the time per channel, flat when the merge is linear.
//!
//! The `channels` and `bundles` layouts are shapes (issue 26 item 9): `--sizes` counts
//! channels of one package, or tiny bundles, and the table adds the time and peak memory per
//! item, which stay flat when the cost grows linearly.
//!
//! Phases, each a child process (wall time measured inside the child around the work itself;
//! peak RSS of the whole child from `wait4`):
//!
//! * `floor`: for a YAML catalog (`--layout yaml|yaml-file|yaml-objects`), the YAML tokenising floor
//!   instead: the parser's event stream with every event thrown away (`floor2`: documents
//!   split on `---` lines and parsed on both cores, as the loader does). For JSON:
//!   map every file (`mmap`, populated: no copy, no page faults while parsing) and
//!   check it as a JSON stream into `serde::de::IgnoredAny`, one file after another on one
//!   core; `floor2`: the same, files spread over both cores (no gain for a single file).
//! * `read`: every file read into memory (`std::fs::read`), one after another on one core:
//!   the read floor.
//! * `base64`: every `olm.bundle.object`'s base64 checked with the validator the loader uses
//!   (`catalog::model::is_standard_base64`), one core, over the mapped files (the time of the
//!   check alone; the detail gives the base64 bytes checked): the base64 floor.
//! * `load`: `catalog::load(path, PackageFilter::All)`.
//! * `validate`: `catalog::validate::validate_path` (`opm validate`, bundle objects checked).
//! * `validatecli`: `po-manifests catalog validate PATH` end to end, wall clock around the
//!   whole process (what a user waits for; compare with `opm`).
//! * `opm`: `$OPM validate PATH` end to end, when the `OPM` environment variable names an
//!   `opm` binary (skipped otherwise; see docs/performance.md for getting one).
//! * `resolve`: what `create` does before rendering: load with the 20 packages' filter, resolve
//!   20 operators, check each winner.
//! * `load+validate+resolve`: one process validating the whole catalog and resolving 20
//!   operators against it (the first target).
//! * `decode`: every bundle's `Bundle::bundle_objects()` (after an untimed load).
//! * `convert`: every bundle's objects decoded, routed (`RegistryV1::from_objects`) and
//!   converted (`convert::convert`, AllNamespaces) (after an untimed load).
//! * `renderall`: `po-manifests bundle render --catalog PATH --all` end to end, wall clock
//!   around the whole process (compare with `convert`).
//! * `create`: the release `po-manifests create` end to end for the 20 operators, wall clock
//!   around the whole process (for a YAML catalog, `--offline`, with the bundles of the 20
//!   packages unpacked into a cache beside the catalog, as earlier pulls would have left them).
//!
//! `pulls` is the bundle-pull shape (`pulls.rs`): `create` for 50 operators whose bundle images
//! come from a registry on loopback behind a proxy that adds latency, with `--jobs` 1, 6 and 50,
//! beside the slowest single pull.

mod generate;
mod pulls;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use po_manifests::catalog::{self, PackageFilter, validate};
use po_manifests::openshift::ClusterVersion;
use po_manifests::resolve::{self, Cluster, LoadedCatalog, Request};
use rayon::prelude::*;
use serde::de::IgnoredAny;

use generate::{Layout, Spec};

const USAGE: &str = "usage:
  cargo bench --bench perf -- run [--sizes 10M,100M,500M] [--layout dir|file|jsonl|yaml|yaml-file|yaml-objects] [--seed N] [--runs N] [--work DIR] [--only PHASES]
  cargo bench --bench perf -- run --sizes 25k,50k,100k --layout channels|bundles   (counts)
  cargo bench --bench perf -- gen --size SIZE [--layout dir|file|jsonl] [--seed N] --out DIR
  cargo bench --bench perf -- graph [--sizes 15k,30k,60k,1M] [--runs N]   (channels per release)
  cargo bench --bench perf -- pulls [--images 50] [--latency 25ms] [--bandwidth 0] [--jobs 1,6,50] [--runs 3] [--command resolve|create]";

/// Bump when the generator's output changes, so cached catalogs are regenerated.
const GENERATOR_VERSION: u32 = 3;

/// The operators resolved by `resolve`, `load+validate+resolve` and `create`.
const OPERATORS: usize = 20;

/// Cluster version of the benchmark install (ClusterExtension profile).
const CLUSTER_VERSION: &str = "4.18.0";

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let result = match args.first().map(String::as_str) {
        Some("run") => run(&args[1..]),
        Some("gen") => gen_cmd(&args[1..]),
        Some("phase") => phase(&args[1..]),
        Some("graph") => graph_shape(&args[1..]),
        Some("pulls") => pulls::pulls(&args[1..]),
        // `cargo test --benches` runs the binary without a command: nothing to do.
        _ => {
            eprintln!("{USAGE}");
            Ok(())
        }
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}

type Result<T> = std::result::Result<T, String>;

/// The update-graph shape (issue 34 item 6): for each size N, two graph documents of the same
/// four releases, each release in N channels (the second document's channels start at N/2),
/// merged into one graph; best of `--runs`.
fn graph_shape(args: &[String]) -> Result<()> {
    use po_manifests::upgrade::graph::{Builder, CHANNELS_KEY};
    let sizes = flag(args, "--sizes").unwrap_or("15k,30k,60k,1M");
    let runs: usize = flag(args, "--runs")
        .unwrap_or("3")
        .parse()
        .map_err(|e| format!("--runs: {e}"))?;
    println!("# update graph: two documents, four releases, N channels each\n");
    println!(
        "| channels per release | documents (MB) | merge (s), best of {runs} | µs per channel | channels after the merge |"
    );
    println!("|---:|---:|---:|---:|---:|");
    for size in sizes.split(',') {
        let n = generate::parse_size(size)
            .ok_or_else(|| format!("--sizes: {size} is not a count"))? as usize;
        let doc = |first: usize| {
            let channels = (first..first + n)
                .map(|i| format!("stable-{i:08}"))
                .collect::<Vec<_>>()
                .join(",");
            let nodes: Vec<serde_json::Value> = ["4.16.1", "4.16.2", "4.16.3", "4.16.4"]
                .iter()
                .map(|v| {
                    serde_json::json!({"version": v, "payload": format!("quay.io/x@sha256:{v}"),
                        "metadata": {CHANNELS_KEY: channels}})
                })
                .collect();
            serde_json::to_vec(
                &serde_json::json!({"nodes": nodes, "edges": [[0, 1], [1, 2], [2, 3]]}),
            )
            .map_err(|e| e.to_string())
        };
        let (a, b) = (doc(0)?, doc(n / 2)?);
        let mut best = f64::MAX;
        let mut merged = 0;
        for _ in 0..runs.max(1) {
            let start = Instant::now();
            let mut builder = Builder::new();
            builder.add("a.json", &a, None).map_err(|e| e.to_string())?;
            builder.add("b.json", &b, None).map_err(|e| e.to_string())?;
            let g = builder.finish();
            best = best.min(start.elapsed().as_secs_f64());
            merged = g.node("4.16.1").map_or(0, |node| node.channels.len());
        }
        println!(
            "| {n} | {:.1} | {best:.3} | {:.2} | {merged} |",
            (a.len() + b.len()) as f64 / 1e6,
            best * 1e6 / (2 * n) as f64
        );
    }
    Ok(())
}

fn flag<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(String::as_str)
}

fn layout_flag(args: &[String]) -> Result<Layout> {
    let s = flag(args, "--layout").unwrap_or("dir");
    Layout::parse(s).ok_or_else(|| {
        format!("--layout {s}: expected dir, file, jsonl, yaml, yaml-file, yaml-objects, channels or bundles")
    })
}

fn seed_flag(args: &[String]) -> Result<u64> {
    flag(args, "--seed")
        .unwrap_or("1")
        .parse()
        .map_err(|e| format!("--seed: {e}"))
}

fn gen_cmd(args: &[String]) -> Result<()> {
    let size = flag(args, "--size").ok_or("--size is required")?;
    let size = generate::parse_size(size).ok_or_else(|| format!("--size {size}: not a size"))?;
    let out = PathBuf::from(flag(args, "--out").ok_or("--out is required")?);
    let spec = Spec {
        size,
        seed: seed_flag(args)?,
        layout: layout_flag(args)?,
    };
    let start = Instant::now();
    let g = generate::generate(&spec, &out).map_err(|e| e.to_string())?;
    write_operators(&out, &g)?;
    eprintln!(
        "generated {} ({} bytes, {} packages, {} bundles) in {:.1}s; operators in {}",
        g.catalog.display(),
        g.bytes,
        g.packages.len(),
        g.bundles,
        start.elapsed().as_secs_f64(),
        out.join("operators.txt").display()
    );
    Ok(())
}

fn write_operators(out: &Path, g: &generate::Generated) -> Result<()> {
    let ops = g.pick_operators(OPERATORS).join("\n") + "\n";
    std::fs::write(out.join("operators.txt"), ops).map_err(|e| e.to_string())?;
    let stamp = format!(
        "{} bytes={} packages={} bundles={}\n",
        g.catalog.display(),
        g.bytes,
        g.packages.len(),
        g.bundles
    );
    std::fs::write(out.join("generated.txt"), stamp).map_err(|e| e.to_string())
}

/// A generated catalog ready for the phases.
struct Prepared {
    label: String,
    catalog: PathBuf,
    dir: PathBuf,
    bytes: u64,
    files: usize,
    packages: usize,
    bundles: usize,
    operators: Vec<String>,
    /// A YAML layout (its first target is load+validate against the YAML floor).
    yaml: bool,
    /// For a catalog of `olm.csv.metadata` bundles: the cache holding its operators' bundles
    /// ([`BUNDLE_CACHE`]), which `create` reads offline.
    bundle_cache: Option<PathBuf>,
    /// For a shape (`--layout channels|bundles`): what is counted and how many there are,
    /// so the table shows the cost per item.
    per: Option<(&'static str, usize)>,
}

fn prepare(work: &Path, size_text: &str, layout: Layout, seed: u64) -> Result<Prepared> {
    let size = generate::parse_size(size_text)
        .ok_or_else(|| format!("--sizes: {size_text} is not a size"))?;
    let label = format!("{}-{}-s{seed}", layout.name(), size_text);
    let dir = work.join(&label);
    let key = format!(
        "v{GENERATOR_VERSION} size={size} seed={seed} layout={}",
        layout.name()
    );
    let key_file = dir.join("key.txt");
    if std::fs::read_to_string(&key_file).ok().as_deref() != Some(key.as_str()) {
        eprintln!("generating {label} …");
        let start = Instant::now();
        let _ = std::fs::remove_file(&key_file);
        let g =
            generate::generate(&Spec { size, seed, layout }, &dir).map_err(|e| e.to_string())?;
        write_operators(&dir, &g)?;
        std::fs::write(&key_file, &key).map_err(|e| e.to_string())?;
        eprintln!(
            "  {} bytes, {} packages, {} bundles in {:.1}s",
            g.bytes,
            g.packages.len(),
            g.bundles,
            start.elapsed().as_secs_f64()
        );
    }
    let catalog = layout.catalog_path(&dir);
    let bundle_cache = layout.csv_metadata().then(|| dir.join(BUNDLE_CACHE));
    if layout.csv_metadata() && !dir.join(BUNDLE_CACHE).is_dir() {
        write_bundle_cache(&dir, &Spec { size, seed, layout })?;
    }
    let stamp = std::fs::read_to_string(dir.join("generated.txt")).map_err(|e| e.to_string())?;
    let field = |k: &str| -> usize {
        stamp
            .split_whitespace()
            .find_map(|w| w.strip_prefix(k))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    let operators: Vec<String> = std::fs::read_to_string(dir.join("operators.txt"))
        .map_err(|e| e.to_string())?
        .lines()
        .map(String::from)
        .collect();
    let files = catalog::files::catalog_files(&catalog)
        .map_err(|e| e.to_string())?
        .files;
    Ok(Prepared {
        label,
        bytes: files
            .iter()
            .map(|(p, _)| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0))
            .sum(),
        files: files.len(),
        catalog,
        dir,
        packages: field("packages="),
        bundles: field("bundles="),
        operators,
        yaml: layout.is_yaml(),
        bundle_cache,

        per: match layout {
            Layout::Channels => Some(("channel", size as usize)),
            Layout::Bundles => Some(("bundle", field("bundles="))),
            _ => None,
        },
    })
}

/// Where a YAML catalog's benchmark keeps the bundle content of its operators' packages: a
/// po-manifests cache (`bundles/sha256-<digest>/`, named by the catalog's image references),
/// so that `create` finds every bundle image unpacked, offline.
const BUNDLE_CACHE: &str = "bundle-cache";

/// Unpack every bundle of the benchmark operators' packages into `dir`'s [`BUNDLE_CACHE`].
fn write_bundle_cache(dir: &Path, spec: &Spec) -> Result<()> {
    let operators: Vec<String> = std::fs::read_to_string(dir.join("operators.txt"))
        .map_err(|e| e.to_string())?
        .lines()
        .map(String::from)
        .collect();
    let staging = dir.join(format!("{BUNDLE_CACHE}.tmp"));
    let _ = std::fs::remove_dir_all(&staging);
    for content in generate::bundle_contents(spec, &operators) {
        let hex = content
            .image
            .rsplit_once("@sha256:")
            .map(|(_, hex)| hex)
            .ok_or_else(|| format!("{}: not pinned by digest", content.image))?;
        content
            .write(&staging.join("bundles").join(format!("sha256-{hex}")))
            .map_err(|e| e.to_string())?;
    }
    std::fs::rename(&staging, dir.join(BUNDLE_CACHE)).map_err(|e| e.to_string())
}

/// One measurement.
#[derive(Debug, Clone, Copy)]
struct Measure {
    seconds: f64,
    peak_kib: u64,
    /// User + system CPU time of the whole child process.
    cpu: f64,
}

const PHASES: &[&str] = &[
    "floor",
    "floor2",
    "read",
    "base64",
    "load",
    "validate",
    "load-saphyr",
    "validate-saphyr",
    "validatecli",
    "opm",
    "resolve",
    "lvr",
    "decode",
    "convert",
    "renderall",
    "create",
];

/// The phases that need bundles with manifests: a YAML (`olm.csv.metadata`) catalog's
/// bundles embed none, so decoding and converting every bundle are left out for it (`create`
/// takes its operators' bundles from the benchmark's cache, see [`BUNDLE_CACHE`]).
const MANIFEST_PHASES: &[&str] = &["decode", "convert", "renderall"];

/// The phases of a shape (`--layout channels|bundles`): what must grow linearly with the
/// count (issue 26 item 9).
const SHAPE_PHASES: &[&str] = &["floor", "load", "validate"];

fn phase_title(p: &str) -> &'static str {
    match p {
        "floor" => "parse floor (1 core)",
        "floor2" => "parse floor (2 cores)",
        "read" => "read floor: read every file (1 core)",
        "base64" => "base64 floor: check every bundle object (1 core)",
        "load" => "load",
        "validate" => "validate",
        "validatecli" => "`catalog validate` end to end",
        "opm" => "`opm validate` end to end ($OPM)",
        "load-saphyr" => "load, serde-saphyr only (no fast YAML reader)",
        "validate-saphyr" => "validate, serde-saphyr only",
        "resolve" => "resolve 20 operators",
        "lvr" => "load+validate+resolve",
        "decode" => "decode every bundle's objects",
        "convert" => "convert every bundle",
        "renderall" => "`bundle render --all` end to end",
        "create" => "`create` end to end",
        _ => "?",
    }
}

fn run(args: &[String]) -> Result<()> {
    let sizes = flag(args, "--sizes").unwrap_or("10M,100M,500M");
    let layout = layout_flag(args)?;
    let seed = seed_flag(args)?;
    let runs: usize = flag(args, "--runs")
        .unwrap_or("1")
        .parse()
        .map_err(|e| format!("--runs: {e}"))?;
    let work = flag(args, "--work")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("perf-catalogs"));
    let only: Vec<&str> = match flag(args, "--only") {
        Some(s) => s.split(',').collect(),
        None if layout.is_yaml() => PHASES
            .iter()
            .copied()
            .filter(|p| !MANIFEST_PHASES.contains(p))
            .collect(),
        None if layout.is_shape() => SHAPE_PHASES.to_vec(),
        None => PHASES.to_vec(),
    };
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    println!(
        "# po-manifests large-catalog benchmark\n\nlayout {}, seed {seed}, {} core(s), best of {runs} run(s), catalog files in the page cache (the first floor run reads them).\n",
        layout.name(),
        std::thread::available_parallelism().map_or(1, |n| n.get()),
    );
    let mut summary = Vec::new();
    for size in sizes.split(',') {
        let p = prepare(&work, size, layout, seed)?;
        // Warm the page cache, in small reads: this process must stay small, since a child's
        // peak RSS as `wait4` reports it starts from its parent's size at the fork.
        let mut chunk = vec![0u8; 1 << 20];
        for (f, _) in catalog::files::catalog_files(&p.catalog)
            .map_err(|e| e.to_string())?
            .files
        {
            let mut file = std::fs::File::open(f).map_err(|e| e.to_string())?;
            while std::io::Read::read(&mut file, &mut chunk).map_err(|e| e.to_string())? > 0 {}
        }
        let mut results: Vec<(&str, Measure, String)> = Vec::new();
        for &ph in PHASES.iter().filter(|ph| only.contains(ph)) {
            let mut best: Option<(Measure, String)> = None;
            for _ in 0..runs {
                let (m, detail) = if ph == "create" {
                    run_create(&p)?
                } else if ph == "validatecli" {
                    run_validate_cli(&p)?
                } else if ph == "opm" {
                    match std::env::var_os("OPM") {
                        Some(opm) => run_opm(&p, Path::new(&opm))?,
                        None => break,
                    }
                } else if ph == "renderall" {
                    run_render_all(&p)?
                } else {
                    run_phase(&exe, ph, &p)?
                };
                if best.as_ref().is_none_or(|(b, _)| m.seconds < b.seconds) {
                    best = Some((m, detail));
                }
            }
            let Some((m, detail)) = best else {
                eprintln!("  {ph:<10} skipped: set OPM to an opm binary to time `opm validate`");
                continue;
            };
            eprintln!(
                "  {:<10} {:>8.3}s {:>8.1} MB peak  {detail}",
                ph,
                m.seconds,
                m.peak_kib as f64 / 1024.0
            );
            results.push((ph, m, detail));
        }
        let get = |name: &str| results.iter().find(|r| r.0 == name).map(|r| r.1);
        let channels = match p.per {
            Some(("channel", n)) => format!(", {n} channels"),
            _ => String::new(),
        };
        println!(
            "## {} — {:.1} MB on disk, {} files, {} packages{channels}, {} bundles\n",
            p.label,
            p.bytes as f64 / 1e6,
            p.files,
            p.packages,
            p.bundles
        );
        println!("| phase | time (s) | MB/s | process CPU (s) | peak RSS (MB) | ratio |");
        println!("|---|---:|---:|---:|---:|---|");
        let floor = get("floor");
        let floor2 = get("floor2");
        for (ph, m, _) in &results {
            let ratio = match *ph {
                "lvr" | "load" | "validate" | "load-saphyr" | "validate-saphyr" => floor
                    .map(|f| {
                        let mut s = format!("{:.2}× floor", m.seconds / f.seconds);
                        if let Some(f2) = floor2 {
                            s += &format!(" ({:.2}× 2-core floor)", m.seconds / f2.seconds);
                        }
                        s
                    })
                    .unwrap_or_default(),
                "validatecli" => get("opm")
                    .map(|o| format!("{:.1}× faster than opm", o.seconds / m.seconds))
                    .unwrap_or_default(),
                "renderall" => get("convert")
                    .map(|c| format!("{:.2}× convert", m.seconds / c.seconds))
                    .unwrap_or_default(),
                "convert" => get("decode")
                    .map(|d| format!("{:.2}× decode", m.seconds / d.seconds))
                    .unwrap_or_default(),
                "create" => format!(
                    "peak {:.2}× catalog size",
                    m.peak_kib as f64 * 1024.0 / p.bytes as f64
                ),
                _ => String::new(),
            };
            // A shape: the cost per item, which stays flat when growth is linear.
            let ratio = match p.per {
                Some((unit, n)) if n > 0 && *ph != "floor" && *ph != "floor2" => format!(
                    "{:.2} µs and {:.0} B of peak per {unit}, peak {:.2}× size; {ratio}",
                    m.seconds * 1e6 / n as f64,
                    m.peak_kib as f64 * 1024.0 / n as f64,
                    m.peak_kib as f64 * 1024.0 / p.bytes as f64
                ),
                _ => ratio,
            };
            println!(
                "| {} | {:.3} | {:.0} | {:.2} | {:.1} | {} |",
                phase_title(ph),
                m.seconds,
                p.bytes as f64 / 1e6 / m.seconds,
                m.cpu,
                m.peak_kib as f64 / 1024.0,
                ratio
            );
        }
        println!();
        let first = if p.yaml { get("validate") } else { get("lvr") };
        summary.push((
            p,
            floor,
            floor2,
            first,
            get("decode"),
            get("convert"),
            get("create"),
            get("renderall"),
        ));
    }
    // A shape's figures are the per-item columns above; the size targets do not apply.
    if layout.is_shape() {
        return Ok(());
    }
    println!("## Targets\n");
    println!(
        "| catalog | load+validate+resolve ≤ 3× floor (YAML: load+validate ≤ 4× floor) | create peak ≤ 0.5× size | convert ≤ 2× decode | render --all ≤ 1.5× convert |"
    );
    println!("|---|---|---|---|---|");
    for (p, floor, _floor2, lvr, decode, convert, create, render_all) in &summary {
        let verdict = |ok: bool| if ok { "met" } else { "NOT met" };
        let limit = if p.yaml { 4.0 } else { 3.0 };
        let t1 = match (lvr, floor) {
            (Some(l), Some(f)) => {
                let r = l.seconds / f.seconds;
                format!("{r:.2}× ({})", verdict(r <= limit))
            }
            _ => "-".into(),
        };
        let t4 = match (render_all, convert) {
            (Some(a), Some(c)) => {
                let r = a.seconds / c.seconds;
                format!("{r:.2}× ({})", verdict(r <= 1.5))
            }
            _ => "-".into(),
        };
        let t2 = match create {
            Some(c) => {
                let r = c.peak_kib as f64 * 1024.0 / p.bytes as f64;
                format!("{r:.3}× ({})", verdict(r <= 0.5))
            }
            None => "-".into(),
        };
        let t3 = match (convert, decode) {
            (Some(c), Some(d)) => {
                let r = c.seconds / d.seconds;
                format!("{r:.2}× ({})", verdict(r <= 2.0))
            }
            _ => "-".into(),
        };
        println!("| {} | {t1} | {t2} | {t3} | {t4} |", p.label);
        clear_set_aside(&p.dir);
    }
    Ok(())
}

/// Take `path` out of the way of the next measured run without deleting it: renamed into
/// `set-aside/` in `work`, which [`clear_set_aside`] removes once the measuring is over.
/// Deleting a tree frees its inodes, and on ext4 without a journal every file created in the
/// next minutes is allocated past each of them (the kernel's `recently_deleted` reads the
/// inode of every free candidate): a run right after the deletion pays for the bench's own
/// clean-up, more the more it deleted.
pub fn set_aside(work: &Path, path: &Path) {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    if std::fs::symlink_metadata(path).is_err() {
        return;
    }
    let aside = work.join("set-aside");
    let _ = std::fs::create_dir_all(&aside);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    if std::fs::rename(path, aside.join(n.to_string())).is_err() {
        let _ = std::fs::remove_dir_all(path);
    }
}

/// Remove what [`set_aside`] kept, when no measured run follows.
pub fn clear_set_aside(work: &Path) {
    let _ = std::fs::remove_dir_all(work.join("set-aside"));
}

/// Spawn a child and wait for it with `wait4`, returning its stdout, peak RSS (KiB), wall
/// time and CPU time (user + system).
fn spawn_measured(cmd: &mut Command) -> Result<(String, u64, f64, f64)> {
    let start = Instant::now();
    let child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("spawn {cmd:?}: {e}"))?;
    let pid = child.id() as libc::pid_t;
    // Read the pipes on threads so the child never blocks on a full pipe.
    let mut child = child;
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let t_out = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut out, &mut s).ok();
        s
    });
    let t_err = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut err, &mut s).ok();
        s
    });
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = start.elapsed().as_secs_f64();
    if rc != pid {
        return Err(format!("wait4 failed: {}", std::io::Error::last_os_error()));
    }
    let stdout = t_out.join().unwrap_or_default();
    let stderr = t_err.join().unwrap_or_default();
    // The child is reaped; std's Child must not wait again.
    std::mem::forget(child);
    if !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0) {
        return Err(format!(
            "{cmd:?} failed (status {status}):\n{stderr}{stdout}"
        ));
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    let cpu = secs(usage.ru_utime) + secs(usage.ru_stime);
    Ok((stdout, usage.ru_maxrss as u64, wall, cpu))
}

fn run_phase(exe: &Path, phase: &str, p: &Prepared) -> Result<(Measure, String)> {
    let (stdout, peak, _, cpu) = spawn_measured(
        Command::new(exe)
            .arg("phase")
            .arg(phase)
            .arg(&p.catalog)
            .arg(p.operators.join(",")),
    )?;
    let mut lines = stdout.lines();
    let seconds: f64 = lines
        .next()
        .and_then(|l| l.parse().ok())
        .ok_or_else(|| format!("phase {phase}: no timing in {stdout:?}"))?;
    // The child's own high-water mark (its address space after exec), else wait4's figure.
    let own_peak: Option<u64> = lines.next().and_then(|l| l.parse().ok());
    let detail = lines.collect::<Vec<_>>().join("; ");
    Ok((
        Measure {
            seconds,
            peak_kib: own_peak.unwrap_or(peak),
            cpu,
        },
        detail,
    ))
}

/// The install-config of the benchmark installs (`create` checks the install against it).
const INSTALL_CONFIG: &str = "apiVersion: v1\nbaseDomain: example.com\nmetadata:\n  name: bench\nplatform:\n  none: {}\npullSecret: '{\"auths\":{}}'\n";

/// The install directory for `create`: a config with the 20 operators and an install-config.
fn install_dir(p: &Prepared) -> Result<PathBuf> {
    let dir = p.dir.join("install");
    set_aside(&p.dir, &dir);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let mut yaml = format!(
        "platformOperators:\n  clusterVersion: \"{CLUSTER_VERSION}\"\n  catalogs:\n  - name: bench-operators\n    source: {}\n    image: registry.example.com/bench/catalog@sha256:{}\n  operators:\n",
        p.catalog.display(),
        "0".repeat(64)
    );
    for (i, pkg) in p.operators.iter().enumerate() {
        yaml += &format!("  - name: op-{i:02}\n    package: {pkg}\n    channel: stable\n");
    }
    std::fs::write(dir.join("platform-operators.yaml"), yaml).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("install-config.yaml"), INSTALL_CONFIG).map_err(|e| e.to_string())?;
    Ok(dir)
}

/// `po-manifests bundle render --catalog PATH --all` into a fresh directory, wall clock
/// around the whole process (catalog load included, as for a user).
fn run_render_all(p: &Prepared) -> Result<(Measure, String)> {
    let out = p.dir.join("render-all");
    set_aside(&p.dir, &out);
    let (_, peak, wall, cpu) = spawn_measured(
        Command::new(env!("CARGO_BIN_EXE_po-manifests"))
            .args(["bundle", "render", "--namespace", "bench-system", "--all"])
            .arg("--catalog")
            .arg(&p.catalog)
            .arg("--output-dir")
            .arg(&out)
            .env("NO_COLOR", "1"),
    )?;
    let written = std::fs::read_dir(&out).map(|d| d.count()).unwrap_or(0);
    set_aside(&p.dir, &out);
    Ok((
        Measure {
            seconds: wall,
            peak_kib: peak,
            cpu,
        },
        format!("{written} bundle directories"),
    ))
}

/// `po-manifests catalog validate` as a user runs it: the whole process.
fn run_validate_cli(p: &Prepared) -> Result<(Measure, String)> {
    let (out, peak, wall, cpu) = spawn_measured(
        Command::new(env!("CARGO_BIN_EXE_po-manifests"))
            .args(["catalog", "validate"])
            .arg(&p.catalog)
            .env("NO_COLOR", "1"),
    )?;
    Ok((
        Measure {
            seconds: wall,
            peak_kib: peak,
            cpu,
        },
        out.lines().last().unwrap_or("whole process").to_owned(),
    ))
}

/// `opm validate` on the same catalog (directories only, as opm takes them), for the
/// comparison; `opm` is not part of this repository (see docs/performance.md).
fn run_opm(p: &Prepared, opm: &Path) -> Result<(Measure, String)> {
    let (_, peak, wall, cpu) = spawn_measured(Command::new(opm).arg("validate").arg(&p.catalog))?;
    Ok((
        Measure {
            seconds: wall,
            peak_kib: peak,
            cpu,
        },
        opm.display().to_string(),
    ))
}

fn run_create(p: &Prepared) -> Result<(Measure, String)> {
    let dir = install_dir(p)?;
    let (_, peak, wall, cpu) = spawn_measured(
        Command::new(env!("CARGO_BIN_EXE_po-manifests"))
            .arg("create")
            .arg("--dir")
            .arg(&dir)
            .args(match &p.bundle_cache {
                Some(cache) => vec![
                    "--offline".into(),
                    "--cache-dir".into(),
                    cache.clone().into_os_string(),
                ],
                None => Vec::new(),
            })
            .env("NO_COLOR", "1"),
    )?;
    let written = std::fs::read_dir(dir.join("manifests"))
        .map(|d| d.count())
        .unwrap_or(0);
    Ok((
        Measure {
            seconds: wall,
            peak_kib: peak,
            cpu,
        },
        format!("{written} manifests"),
    ))
}

// ---------------------------------------------------------------------------------------
// Phases, run in the child.

fn phase(args: &[String]) -> Result<()> {
    let [name, catalog, operators] = args else {
        return Err("phase NAME CATALOG OPERATORS".into());
    };
    let path = Path::new(catalog);
    let operators: Vec<String> = operators.split(',').map(String::from).collect();
    // The `-saphyr` phases time the same work with the fast YAML reader turned off.
    let name = match name.strip_suffix("-saphyr") {
        Some(base) => {
            catalog::yamlstream::set_fast_yaml(false);
            base
        }
        None => name.as_str(),
    };
    let (seconds, detail) = match name {
        "floor" => floor(path, false)?,
        "floor2" => floor(path, true)?,
        "read" => read_floor(path)?,
        "base64" => base64_floor(path)?,
        "load" => {
            let t = Instant::now();
            let c = catalog::load(path, &PackageFilter::All).map_err(|e| e.to_string())?;
            let s = t.elapsed().as_secs_f64();
            (s, format!("{} packages", c.packages.len()))
        }
        "fbc" => {
            // Diagnostics: the parallel read/parse alone, then the linking, then the drop.
            let t = Instant::now();
            let dc = catalog::loader::load(path, &PackageFilter::All).map_err(|e| e.to_string())?;
            let t_fbc = t.elapsed().as_secs_f64();
            let (c, _) = catalog::link::build(dc, &catalog::link::BuildOptions::default())
                .map_err(|e| e.to_string())?;
            let t_build = t.elapsed().as_secs_f64();
            drop(c);
            let t_drop = t.elapsed().as_secs_f64();
            (
                t_fbc,
                format!(
                    "fbc {t_fbc:.3}s, build {:.3}s, drop {:.3}s",
                    t_build - t_fbc,
                    t_drop - t_build
                ),
            )
        }
        "validate" => {
            let t = Instant::now();
            let r = validate::validate_path(path, &validate::Options::default())
                .map_err(|e| e.to_string())?;
            let s = t.elapsed().as_secs_f64();
            (s, problems_detail(&r))
        }
        "resolve" => {
            let t = Instant::now();
            let mut pkgs = operators.clone();
            pkgs.sort();
            pkgs.dedup();
            let c = catalog::load(path, &PackageFilter::Only(pkgs)).map_err(|e| e.to_string())?;
            let d = resolve_all(c, &operators)?;
            (t.elapsed().as_secs_f64(), d)
        }
        "lvr" => {
            let t = Instant::now();
            let (c, r) = validate::load_and_validate(path, &validate::Options::default())
                .map_err(|e| e.to_string())?;
            let d = resolve_all(c, &operators)?;
            (
                t.elapsed().as_secs_f64(),
                format!("{}; {d}", problems_detail(&r)),
            )
        }
        "decode" | "convert" => {
            let c = catalog::load(path, &PackageFilter::All).map_err(|e| e.to_string())?;
            let convert = name == "convert";
            let t = Instant::now();
            let mut objects = 0usize;
            let mut converted = 0usize;
            let mut failed = 0usize;
            for pkg in &c.packages {
                for b in &pkg.bundles {
                    let objs = b.bundle_objects().map_err(|e| e.to_string())?;
                    objects += objs.len();
                    if !convert {
                        std::hint::black_box(&objs);
                        continue;
                    }
                    let out = po_manifests::bundle::RegistryV1::from_objects(&pkg.name, objs)
                        .map_err(|e| e.to_string())
                        .and_then(|content| {
                            po_manifests::convert::convert_owned(
                                content,
                                &po_manifests::convert::Options {
                                    install_namespace: format!("{}-system", pkg.name),
                                    ..Default::default()
                                },
                            )
                            .map_err(|e| e.to_string())
                        });
                    match out {
                        Ok(o) => {
                            converted += o.len();
                            std::hint::black_box(o);
                        }
                        Err(_) => failed += 1,
                    }
                }
            }
            let s = t.elapsed().as_secs_f64();
            if convert {
                (
                    s,
                    format!("{objects} objects in, {converted} out, {failed} bundles refused"),
                )
            } else {
                (s, format!("{objects} objects"))
            }
        }
        "yamlopts" => yaml_candidates(path)?,
        other => return Err(format!("unknown phase {other}")),
    };
    let hwm = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map_or_else(|| "-".to_string(), |k| k.to_string());
    println!("{seconds}\n{hwm}\n{detail}");
    Ok(())
}

fn problems_detail(r: &validate::Report) -> String {
    let mut s = format!("{} problems", r.problems.len());
    for p in r.problems.iter().take(3) {
        s += &format!(" [{p}]");
    }
    s
}

fn resolve_all(c: catalog::model::Catalog, operators: &[String]) -> Result<String> {
    let catalogs = vec![LoadedCatalog {
        name: "bench-operators".into(),
        priority: 0,
        image: None,
        location: String::new(),
        catalog: c,
    }];
    let cluster = Cluster {
        version: Some(ClusterVersion::parse(CLUSTER_VERSION)?),
    };
    let channels = vec!["stable".to_string()];
    // Like `create` (cli::invocation::resolve_all): operators resolve on every core.
    use rayon::prelude::*;
    let chosen = operators
        .par_iter()
        .map(|op| {
            let request = Request {
                package: op,
                channels: &channels,
                range: None,
                catalog: None,
            };
            let r = resolve::resolve(&request, &catalogs, &cluster)
                .map_err(|e| format!("{op}: {e}"))?;
            let (problems, _) = resolve::check_installable(r.bundle);
            match problems.first() {
                Some(p) => Err(format!("{op}: {p}")),
                None => Ok(()),
            }
        })
        .collect::<std::result::Result<Vec<()>, String>>()?
        .len();
    Ok(format!("{chosen} resolved"))
}

fn floor(path: &Path, parallel: bool) -> Result<(f64, String)> {
    let files = catalog::files::catalog_files(path)
        .map_err(|e| e.to_string())?
        .files;
    let t = Instant::now();
    let check = |f: &PathBuf| -> std::result::Result<(u64, usize), String> {
        let bytes = Mapped::open(f)?;
        if bytes.bytes().iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
            let docs =
                yaml_floor(bytes.bytes(), parallel).map_err(|e| format!("{}: {e}", f.display()))?;
            return Ok((bytes.bytes().len() as u64, docs));
        }
        let mut docs = 0;
        for doc in serde_json::Deserializer::from_slice(bytes.bytes()).into_iter::<IgnoredAny>() {
            doc.map_err(|e| format!("{}: {e}", f.display()))?;
            docs += 1;
        }
        Ok((bytes.bytes().len() as u64, docs))
    };
    let parts: Vec<std::result::Result<(u64, usize), String>> = if parallel {
        files.par_iter().map(|(f, _)| check(f)).collect()
    } else {
        files.iter().map(|(f, _)| check(f)).collect()
    };
    let s = t.elapsed().as_secs_f64();
    let mut bytes = 0;
    let mut docs = 0;
    for p in parts {
        let (b, d) = p?;
        bytes += b;
        docs += d;
    }
    Ok((s, format!("{bytes} bytes, {docs} documents")))
}

/// Every file of the catalog read into memory, one after another (the read floor).
fn read_floor(path: &Path) -> Result<(f64, String)> {
    let files = catalog::files::catalog_files(path)
        .map_err(|e| e.to_string())?
        .files;
    let t = Instant::now();
    let mut bytes = 0usize;
    for (f, _) in &files {
        bytes += std::hint::black_box(std::fs::read(f).map_err(|e| e.to_string())?).len();
    }
    Ok((t.elapsed().as_secs_f64(), format!("{bytes} bytes read")))
}

/// Every bundle object's base64 checked, one core (the base64 floor): the values are found
/// first (`data: ` in YAML, `"data":"` or `"data": "` in JSON, up to the end of the line or
/// the closing quote), then only the check is timed.
fn base64_floor(path: &Path) -> Result<(f64, String)> {
    let maps = Mapped::catalog(path)?;
    let mut values: Vec<&[u8]> = Vec::new();
    for m in &maps {
        let b = m.bytes();
        for key in [&b"data: "[..], b"\"data\":\"", b"\"data\": \""] {
            for at in memchr::memmem::find_iter(b, key) {
                let start = at + key.len();
                let end =
                    memchr::memchr3(b'\n', b'"', b' ', &b[start..]).map_or(b.len(), |i| start + i);
                values.push(&b[start..end]);
            }
        }
    }
    let t = Instant::now();
    let valid = values
        .iter()
        .filter(|v| catalog::model::is_standard_base64(std::hint::black_box(v)))
        .count();
    let s = t.elapsed().as_secs_f64();
    let bytes: usize = values.iter().map(|v| v.len()).sum();
    Ok((
        s,
        format!(
            "{bytes} bytes of base64 in {} values ({valid} valid), {:.0} MB/s",
            values.len(),
            bytes as f64 / 1e6 / s
        ),
    ))
}

/// The YAML tokenising floor: the parser's event stream (granit-parser, the one serde-saphyr
/// drives) with every event thrown away; returns the number of documents. With `parallel`,
/// the text is split on lines starting with `---` and the documents are parsed on every core
/// (as the loader does); otherwise the whole stream is parsed in one go.
fn yaml_floor(bytes: &[u8], parallel: bool) -> std::result::Result<usize, String> {
    use serde_saphyr::granit_parser::{Event, Parser};
    let text = std::str::from_utf8(bytes).map_err(|e| e.to_string())?;
    let events = |text: &str| -> std::result::Result<usize, String> {
        let mut docs = 0;
        for next in Parser::new_from_str(text) {
            let (event, _span) = next.map_err(|e| e.to_string())?;
            if matches!(event, Event::DocumentStart(..)) {
                docs += 1;
            }
            std::hint::black_box(event);
        }
        Ok(docs)
    };
    if !parallel {
        return events(text);
    }
    let mut starts = vec![0];
    starts.extend(memchr::memmem::find_iter(bytes, b"\n---").map(|i| i + 1));
    starts.push(bytes.len());
    let parts: Vec<std::result::Result<usize, String>> = starts
        .par_windows(2)
        .map(|w| events(&text[w[0]..w[1]]))
        .collect();
    parts.into_iter().sum()
}

/// Diagnostics for choosing the YAML reading (not in the default phases): the documents of
/// every file read with serde-saphyr under several options and with the fast reader
/// ([`catalog::fastyaml`], falling back to serde-saphyr), one core, CPU seconds each.
fn yaml_candidates(path: &Path) -> Result<(f64, String)> {
    let maps = Mapped::catalog(path)?;
    let docs: Vec<&str> = maps
        .iter()
        .flat_map(|m| {
            let b = m.bytes();
            let mut starts = vec![0];
            starts.extend(memchr::memmem::find_iter(b, b"\n---").map(|i| i + 1));
            starts.push(b.len());
            let text = std::str::from_utf8(b).unwrap();
            starts
                .windows(2)
                .map(|w| text[w[0]..w[1]].trim_start_matches("---"))
                .collect::<Vec<_>>()
        })
        .collect();
    fn base() -> serde_saphyr::Options {
        serde_saphyr::options! {
            duplicate_keys: serde_saphyr::DuplicateKeyPolicy::LastWins,
        }
    }
    fn no_comments() -> serde_saphyr::Options {
        serde_saphyr::options! {
            duplicate_keys: serde_saphyr::DuplicateKeyPolicy::LastWins,
            emit_comments: false,
        }
    }
    fn no_budget() -> serde_saphyr::Options {
        serde_saphyr::options! {
            duplicate_keys: serde_saphyr::DuplicateKeyPolicy::LastWins,
            emit_comments: false,
            budget: None,
        }
    }
    let time = |f: &dyn Fn(&str)| {
        let t = Instant::now();
        for d in &docs {
            f(d);
        }
        t.elapsed().as_secs_f64()
    };
    let floor = time(&|d| {
        for e in serde_saphyr::granit_parser::Parser::new_from_str(d) {
            std::hint::black_box(e.unwrap());
        }
    });
    let value = |o: fn() -> serde_saphyr::Options| {
        time(&|d| {
            let v: serde_json::Value = serde_saphyr::from_str_with_options(d, o()).unwrap();
            std::hint::black_box(v);
        })
    };
    let a = value(base);
    let b = value(no_comments);
    let c = value(no_budget);
    let ignored = time(&|d| {
        let v: IgnoredAny = serde_saphyr::from_str_with_options(d, no_comments()).unwrap();
        std::hint::black_box(v);
    });
    // The loader's reading: the fast reader, serde-saphyr for what it leaves.
    let fast_docs = std::sync::atomic::AtomicUsize::new(0);
    let fast = time(&|d| {
        let v = match catalog::fastyaml::to_value(d) {
            Some(v) => {
                fast_docs.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                v
            }
            None => serde_saphyr::from_str_with_options(d, no_comments()).unwrap(),
        };
        std::hint::black_box(v);
    });
    let fast_docs = fast_docs.into_inner();
    Ok((
        a,
        format!(
            "{} docs: events {floor:.3}s; Value {a:.3}s; Value without comments {b:.3}s; \
             also without budget {c:.3}s; IgnoredAny without comments {ignored:.3}s; \
             fast reader (with fallback) {fast:.3}s, {fast_docs} docs on the fast road",
            docs.len()
        ),
    ))
}

/// A file mapped read-only and populated: the cheapest way to have its bytes (no copy out of
/// the page cache, no page faults while parsing), so the floor is a true floor.
struct Mapped {
    ptr: *mut libc::c_void,
    len: usize,
}

// SAFETY: the mapping is read-only and owned by this value.
unsafe impl Send for Mapped {}
unsafe impl Sync for Mapped {}

impl Mapped {
    /// Every file of the catalog at `path`, mapped.
    fn catalog(path: &Path) -> Result<Vec<Mapped>> {
        catalog::files::catalog_files(path)
            .map_err(|e| e.to_string())?
            .files
            .iter()
            .map(|(f, _)| Mapped::open(f))
            .collect()
    }

    fn open(path: &Path) -> Result<Mapped> {
        use std::os::fd::AsRawFd;
        let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
        let len = file.metadata().map_err(|e| e.to_string())?.len() as usize;
        if len == 0 {
            return Ok(Mapped {
                ptr: std::ptr::null_mut(),
                len: 0,
            });
        }
        // SAFETY: a fresh private read-only mapping of a file we opened; checked below.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_POPULATE,
                file.as_raw_fd(),
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(format!(
                "mmap {}: {}",
                path.display(),
                std::io::Error::last_os_error()
            ));
        }
        Ok(Mapped { ptr, len })
    }

    fn bytes(&self) -> &[u8] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: the mapping is `len` bytes long and lives as long as `self`.
        unsafe { std::slice::from_raw_parts(self.ptr as *const u8, self.len) }
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        if self.len > 0 {
            // SAFETY: unmapping our own mapping once.
            unsafe { libc::munmap(self.ptr, self.len) };
        }
    }
}
