//! Issue 14's reproductions: hostile catalog content, endless or odd files, and symlinks out of
//! the catalog or template folder. Each is refused with its exit code and a message that says
//! why, and nothing is written.

use std::path::Path;
use std::time::Duration;

use base64::Engine as _;
use serde_json::Value;

use crate::common::{cmd, example, tree};

const CLOUD: &str = "catalog/acme-cloud-controller/catalog.json";
const CERT: &str = "catalog/acme-cert-operator/catalog.json";

/// Rewrite each document of a JSON-stream catalog file.
fn edit_catalog(dir: &Path, file: &str, mut edit: impl FnMut(&mut Value)) {
    let path = dir.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let mut out = String::new();
    for doc in serde_json::Deserializer::from_str(&text).into_iter::<Value>() {
        let mut doc = doc.unwrap();
        edit(&mut doc);
        out.push_str(&serde_json::to_string_pretty(&doc).unwrap());
        out.push('\n');
    }
    std::fs::write(path, out).unwrap();
}

/// Edit the cloud controller bundle's embedded objects (the CSV and the others).
fn edit_cloud_objects(dir: &Path, mut edit: impl FnMut(&mut Vec<Value>)) {
    let b64 = base64::engine::general_purpose::STANDARD;
    edit_catalog(dir, CLOUD, |doc| {
        if doc["schema"] != "olm.bundle" {
            return;
        }
        let props = doc["properties"].as_array_mut().unwrap();
        let mut objects: Vec<Value> = props
            .iter()
            .filter(|p| p["type"] == "olm.bundle.object")
            .map(|p| {
                serde_json::from_slice(&b64.decode(p["value"]["data"].as_str().unwrap()).unwrap())
                    .unwrap()
            })
            .collect();
        edit(&mut objects);
        props.retain(|p| p["type"] != "olm.bundle.object");
        for o in objects {
            props.push(serde_json::json!({
                "type": "olm.bundle.object",
                "value": {"data": b64.encode(serde_json::to_vec(&o).unwrap())}
            }));
        }
    });
}

fn set_suggested_namespace(dir: &Path, ns: &str) {
    edit_cloud_objects(dir, |objects| {
        let csv = objects
            .iter_mut()
            .find(|o| o["kind"] == "ClusterServiceVersion")
            .unwrap();
        csv["metadata"]["annotations"]["operatorframework.io/suggested-namespace"] = ns.into();
    });
}

/// Run create on `dir` and check it exits `code` with every `expect` in stderr and nothing
/// written: no manifests directory, no lock file, nothing else changed.
fn refused(dir: &Path, code: i32, expect: &[&str]) -> String {
    let before = tree(dir);
    let out = cmd()
        .arg("create")
        .arg("--dir")
        .arg(dir)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(code), "{stderr}");
    for e in expect {
        assert!(stderr.contains(e), "expected {e:?} in:\n{stderr}");
    }
    assert!(!dir.join("manifests").exists(), "manifests/ was written");
    assert!(!dir.join("platform-operators.lock.yaml").exists());
    assert_eq!(before, tree(dir));
    stderr
}

mod catalog_content {
    use super::*;

    #[test]
    fn a_path_as_suggested_namespace_is_refused() {
        let d = example();
        set_suggested_namespace(d.path(), "../../../tmp/evil");
        refused(
            d.path(),
            1,
            &["install namespace \"../../../tmp/evil\"", "DNS-1123 label"],
        );
    }

    #[test]
    fn an_invalid_suggested_namespace_is_refused() {
        let d = example();
        set_suggested_namespace(d.path(), "Kube_System!");
        refused(d.path(), 1, &["\"Kube_System!\"", "DNS-1123 label"]);
    }

    #[test]
    fn a_300_character_suggested_namespace_is_refused() {
        let d = example();
        set_suggested_namespace(d.path(), &"a".repeat(300));
        refused(d.path(), 1, &["is 300 characters, more than 63"]);
    }

    #[test]
    fn kube_system_is_taken_only_when_the_config_names_it() {
        let d = example();
        set_suggested_namespace(d.path(), "kube-system");
        refused(
            d.path(),
            1,
            &[
                "install namespace kube-system",
                "belongs to OpenShift or Kubernetes",
                "namespace: kube-system",
            ],
        );
        let config = d.path().join("platform-operators.yaml");
        let text = std::fs::read_to_string(&config).unwrap();
        std::fs::write(
            &config,
            text.replace(
                "    bootstrap: true",
                "    bootstrap: true\n    namespace: kube-system",
            ),
        )
        .unwrap();
        let out = cmd()
            .arg("create")
            .arg("--dir")
            .arg(d.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    #[test]
    fn a_bundle_object_without_a_name_is_refused() {
        for name in [None, Some("")] {
            let d = example();
            edit_cloud_objects(d.path(), |objects| {
                let mut svc = serde_json::json!({"apiVersion": "v1", "kind": "Service", "metadata": {}, "spec": {"ports": [{"port": 443}]}});
                if let Some(n) = name {
                    svc["metadata"]["name"] = n.into();
                }
                objects.push(svc);
            });
            let expect = if name.is_none() {
                "Service has no metadata.name"
            } else {
                "Service name \"\" is empty"
            };
            refused(d.path(), 1, &[expect, "nothing was written"]);
        }
    }

    #[test]
    fn a_core_object_with_an_unknown_top_level_field_is_refused() {
        let d = example();
        edit_cloud_objects(d.path(), |objects| {
            objects.push(serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}, "data": {}, "sneaky": true}));
        });
        refused(
            d.path(),
            1,
            &["ConfigMap settings has the top-level field \"sneaky\""],
        );
    }

    #[test]
    fn terminal_escapes_in_a_display_name_are_printed_escaped() {
        let d = example();
        edit_cloud_objects(d.path(), |objects| {
            let csv = objects
                .iter_mut()
                .find(|o| o["kind"] == "ClusterServiceVersion")
                .unwrap();
            csv["spec"]["displayName"] = "Acme\u{1b}]0;owned\u{7}\u{1b}[2J".into();
        });
        let out = cmd()
            .args(["catalog", "list", "packages"])
            .arg(d.path().join("catalog"))
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success());
        assert!(
            !stdout.contains('\u{1b}') && !stdout.contains('\u{7}'),
            "{stdout:?}"
        );
        assert!(
            stdout.contains("Acme\\u{1b}]0;owned\\u{7}\\u{1b}[2J"),
            "{stdout}"
        );
    }

    /// Issue 26 part 3 item 8: escapes, C1 controls and bidi overrides from a catalog (a
    /// deprecation message, a channel name) never reach the terminal raw, in any printer:
    /// tables, `--explain`, warnings, `catalog validate`, `catalog list`, `upgrade-plan`.
    #[test]
    fn terminal_escapes_from_a_catalog_never_reach_the_terminal_raw() {
        let d = example();
        let hostile = "old\u{1b}[2J\u{9b}31m\u{202e}gnp.exe";
        // A deprecation of the chosen bundle, and a second channel with a hostile name.
        let path = d.path().join(CERT);
        let text = std::fs::read_to_string(&path).unwrap();
        let mut docs: Vec<Value> = serde_json::Deserializer::from_str(&text)
            .into_iter::<Value>()
            .map(|v| v.unwrap())
            .collect();
        docs.push(serde_json::json!({"schema": "olm.deprecations", "package": "acme-cert-operator", "entries": [{"reference": {"schema": "olm.bundle", "name": "acme-cert-operator.v1.2.0"}, "message": hostile}]}));
        docs.push(serde_json::json!({"schema": "olm.channel", "package": "acme-cert-operator", "name": format!("x{hostile}"), "entries": [{"name": "acme-cert-operator.v1.2.0"}]}));
        std::fs::write(
            &path,
            docs.iter().map(|d| format!("{d}\n")).collect::<String>(),
        )
        .unwrap();
        let raw = |text: &str| {
            text.chars()
                .any(|c| matches!(c, '\u{1b}' | '\u{9b}' | '\u{202e}'))
        };
        let runs: &[&[&str]] = &[
            &["resolve", "--explain", "--dir", "."],
            &["resolve", "--explain", "-o", "wide", "--dir", "."],
            &["create", "--explain", "--dir", "."],
            &["catalog", "validate", "catalog"],
            &["catalog", "list", "channels", "catalog"],
            &["catalog", "list", "bundles", "catalog", "-o", "wide"],
        ];
        for args in runs {
            let out = cmd().args(*args).current_dir(d.path()).output().unwrap();
            let (so, se) = (
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr),
            );
            assert!(!raw(&so) && !raw(&se), "{args:?}:\n{so}\n{se}");
            // Where it is shown whole, it is shown escaped.
            if args.contains(&"wide") {
                assert!(
                    so.contains("xold\\u{1b}[2J\\u{9b}31m\\u{202e}gnp.exe"),
                    "{args:?} shows the text escaped:\n{so}\n{se}"
                );
            }
        }
        let out = cmd()
            .args(["upgrade-plan", "--explain", "--to", "4.14.9", "--dir", "."])
            .current_dir(d.path())
            .output()
            .unwrap();
        let (so, se) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert!(!raw(&so) && !raw(&se), "upgrade-plan:\n{so}\n{se}");
    }

    /// Issue 34 item 11: a bundle name opm accepts but Kubernetes does not (ESC and a newline;
    /// 5,000 characters) passes `catalog validate` with a warning naming it escaped, and
    /// `create` refuses it, naming the catalog file, package and field, writing nothing.
    #[test]
    fn a_bundle_name_that_is_no_kubernetes_name_is_warned_about_and_refused() {
        let long = "a".repeat(5000);
        for bad in ["cloud\u{1b}[2J\nv1", long.as_str()] {
            let d = example();
            let mut old = String::new();
            edit_catalog(d.path(), CLOUD, |doc| {
                if doc["schema"] == "olm.bundle" && old.is_empty() {
                    old = doc["name"].as_str().unwrap().to_string();
                }
            });
            let rename = |v: &mut Value| {
                if v.as_str() == Some(old.as_str()) {
                    *v = bad.into();
                }
            };
            edit_catalog(d.path(), CLOUD, |doc| {
                if doc["schema"] == "olm.bundle" {
                    rename(&mut doc["name"]);
                }
                if doc["schema"] == "olm.channel" {
                    for e in doc["entries"].as_array_mut().unwrap() {
                        rename(&mut e["name"]);
                        rename(&mut e["replaces"]);
                    }
                }
            });
            let out = cmd()
                .args(["catalog", "validate", "catalog"])
                .current_dir(d.path())
                .output()
                .unwrap();
            let all = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(out.status.success(), "{all}");
            assert!(
                all.contains("is not a valid Kubernetes object name") && !all.contains('\u{1b}'),
                "{all}"
            );
            let stderr = refused(
                d.path(),
                1,
                &[
                    "acme-cloud-controller",
                    "bundle field `name`",
                    "catalog.json",
                ],
            );
            assert!(!stderr.contains('\u{1b}'), "{stderr}");
        }
    }

    #[test]
    fn a_replaces_cycle_is_warned_about_naming_its_bundles() {
        let d = crate::common::example_without_subscriptions();
        edit_catalog(d.path(), CERT, |doc| {
            if doc["schema"] == "olm.channel" && doc["name"] == "stable" {
                doc["entries"][0]["replaces"] = "acme-cert-operator.v1.2.0".into();
            }
        });
        let cycle = "acme-cert-operator.v1.0.0 -> acme-cert-operator.v1.2.0 -> acme-cert-operator.v1.1.0 -> acme-cert-operator.v1.0.0";
        for command in ["resolve", "create"] {
            let out = cmd()
                .arg(command)
                .arg("--dir")
                .arg(d.path())
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{command}: {stderr}");
            assert!(
                stderr.contains("has a replaces cycle") && stderr.contains(cycle),
                "{command}: {stderr}"
            );
        }
    }
}

#[cfg(unix)]
mod files {
    use super::*;

    fn mkfifo(p: &Path) {
        let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    }

    fn create_with_config(dir: &Path, config: &Path) -> std::process::Output {
        cmd()
            .arg("create")
            .arg("--dir")
            .arg(dir)
            .arg("--config")
            .arg(config)
            .timeout(Duration::from_secs(60))
            .output()
            .unwrap()
    }

    #[test]
    fn config_from_dev_zero_is_refused_at_once() {
        let d = example();
        let out = create_with_config(d.path(), Path::new("/dev/zero"));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{stderr}");
        assert!(
            stderr.contains("/dev/zero") && stderr.contains("character device"),
            "{stderr}"
        );
        assert!(!d.path().join("manifests").exists());
    }

    #[test]
    fn config_from_a_fifo_is_refused_without_blocking() {
        let d = example();
        let fifo = d.path().join("po.yaml");
        mkfifo(&fifo);
        let out = create_with_config(d.path(), &fifo);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{stderr}");
        assert!(stderr.contains("FIFO"), "{stderr}");
        assert!(!d.path().join("manifests").exists());
    }

    #[test]
    fn a_growing_config_stream_stops_at_the_cap() {
        // `--config <(yes …)`: a pipe is not a regular file, so it is refused before reading.
        let d = example();
        let mut yes = std::process::Command::new("yes")
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let fd = std::os::fd::AsRawFd::as_raw_fd(yes.stdout.as_ref().unwrap());
        let out = create_with_config(
            d.path(),
            Path::new(&format!("/proc/{}/fd/{fd}", std::process::id())),
        );
        let _ = yes.kill();
        let _ = yes.wait();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{stderr}");
        assert!(stderr.contains("FIFO"), "{stderr}");
    }

    #[test]
    fn a_catalog_file_that_is_a_fifo_is_refused() {
        let d = example();
        mkfifo(&d.path().join("catalog/acme-cert-operator/extra.json"));
        refused(d.path(), 3, &["extra.json", "FIFO"]);
    }

    #[test]
    fn a_catalog_symlink_to_dev_zero_is_refused() {
        let d = example();
        std::os::unix::fs::symlink(
            "/dev/zero",
            d.path().join("catalog/acme-cert-operator/zero.json"),
        )
        .unwrap();
        refused(d.path(), 3, &["zero.json", "symbolic link that leaves"]);
    }

    #[test]
    fn a_catalog_symlink_to_a_secret_names_the_link_and_never_quotes_it() {
        let d = example();
        let secret = d.path().join("secrets.yaml");
        std::fs::write(&secret, "user: admin\npassword: hunter2\n").unwrap();
        std::os::unix::fs::symlink(
            &secret,
            d.path().join("catalog/acme-cert-operator/more.yaml"),
        )
        .unwrap();
        let stderr = refused(d.path(), 3, &["more.yaml", "symbolic link that leaves"]);
        assert!(
            !stderr.contains("hunter2")
                && !stderr.contains("password")
                && !stderr.contains("secrets.yaml"),
            "{stderr}"
        );
    }

    #[test]
    fn a_symlink_inside_the_catalog_is_followed() {
        let d = example();
        let cert = d.path().join("catalog/acme-cert-operator");
        std::fs::rename(
            cert.join("catalog.json"),
            d.path().join("catalog/cert.json.real"),
        )
        .unwrap();
        std::os::unix::fs::symlink("../cert.json.real", cert.join("catalog.json")).unwrap();
        // cert.json.real is inside the catalog folder too (and read as a file of its own, so
        // the package would appear twice): ignore it.
        let ignore = d.path().join("catalog/.indexignore");
        let text = std::fs::read_to_string(&ignore).unwrap();
        std::fs::write(&ignore, text + "cert.json.real\n").unwrap();
        let out = cmd()
            .arg("create")
            .arg("--dir")
            .arg(d.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    #[test]
    fn a_template_symlink_leaving_the_template_folder_is_refused() {
        let d = example();
        let templates = d.path().join("templates");
        std::fs::create_dir(&templates).unwrap();
        std::fs::write(d.path().join("secrets.yaml"), "password: hunter2\n").unwrap();
        std::os::unix::fs::symlink(
            d.path().join("secrets.yaml"),
            templates.join("namespace.yaml.j2"),
        )
        .unwrap();
        let out = cmd()
            .arg("create")
            .arg("--dir")
            .arg(d.path())
            .arg("--templates")
            .arg(&templates)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_ne!(out.status.code(), Some(0), "{stderr}");
        assert!(
            stderr.contains("namespace.yaml.j2") && stderr.contains("symbolic link that leaves"),
            "{stderr}"
        );
        assert!(!stderr.contains("hunter2"), "{stderr}");
        assert!(!d.path().join("manifests").exists());
    }

    #[test]
    fn a_lock_that_is_a_fifo_is_refused() {
        let d = example();
        mkfifo(&d.path().join("platform-operators.lock.yaml"));
        let before = tree(d.path());
        let out = cmd()
            .arg("create")
            .arg("--dir")
            .arg(d.path())
            .timeout(Duration::from_secs(60))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{stderr}");
        assert!(
            stderr.contains("lock file") && stderr.contains("FIFO"),
            "{stderr}"
        );
        assert!(!d.path().join("manifests").exists());
        assert_eq!(before, tree(d.path()));
    }

    #[test]
    fn a_huge_lock_is_not_read_whole() {
        let d = example();
        let lock = std::fs::File::create(d.path().join("platform-operators.lock.yaml")).unwrap();
        lock.set_len(1 << 30).unwrap();
        let out = cmd()
            .arg("create")
            .arg("--dir")
            .arg(d.path())
            .timeout(Duration::from_secs(60))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{stderr}");
        assert!(stderr.contains("larger than 16777216 bytes"), "{stderr}");
        assert!(!d.path().join("manifests").exists());
    }
}

/// Issue 26 item 9: size refusals before parsing. One document over the 64 MiB cap is refused
/// while its end is looked for, naming the file, the document's line and the cap; nothing is
/// written.
mod sizes {
    use super::*;

    /// One line of `x`s a little over the document cap after `head`, with no end.
    fn huge_line(head: &str) -> String {
        head.to_owned() + &"x".repeat(65 << 20)
    }

    #[test]
    fn a_json_document_over_the_cap_is_refused_naming_file_line_and_cap() {
        let d = example();
        let file = d.path().join("catalog/acme-cert-operator/huge.json");
        let head = "{\"schema\":\"olm.package\",\"name\":\"a\"}\n\n{\"schema\":\"olm.package\",\"name\":\"huge\",\"description\":\"";
        std::fs::write(&file, huge_line(head)).unwrap();
        refused(
            d.path(),
            1,
            &[
                "huge.json:3: the document starting here is larger than 67108864 bytes, the most one catalog document may hold",
            ],
        );
    }

    #[test]
    fn a_yaml_line_over_the_cap_is_refused_naming_file_line_and_cap() {
        let d = tempfile::tempdir().unwrap();
        let file = d.path().join("catalog.yaml");
        std::fs::write(
            &file,
            huge_line("---\n# one long line\nschema: olm.package\nname: a\ndescription: "),
        )
        .unwrap();
        let out = cmd()
            .args(["catalog", "validate"])
            .arg(&file)
            .timeout(Duration::from_secs(60))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(
            stderr.contains(
                "catalog.yaml:3: the document starting here is larger than 67108864 bytes"
            ),
            "{stderr}"
        );
    }
}

/// Issue 34 item 7: one escaping rule for every untrusted string in every output. Terminal
/// escapes (ESC, BEL, CR, BS, DEL), C1 controls, bidirectional controls (U+202E, U+2066) and
/// the line separator U+2028 from a catalog reach no output raw: not the text printers, not
/// `-o json` (where they are `\u` escapes), not `-o yaml`, not `catalog list -o wide`, not
/// `create`'s warnings, not a blang parse error.
mod escapes {
    use super::*;

    const HOSTILE: &str = "x\u{1b}[2J\u{7}\r\u{8}\u{7f}\u{9b}31m\u{202e}\u{2066}\u{2028}y";

    fn raw(text: &str) -> bool {
        text.chars().any(|c| {
            matches!(
                c,
                '\u{1b}'
                    | '\u{7}'
                    | '\r'
                    | '\u{8}'
                    | '\u{7f}'
                    | '\u{9b}'
                    | '\u{202e}'
                    | '\u{2066}'
                    | '\u{2028}'
            )
        })
    }

    /// The example with HOSTILE in the package's description, its deprecation message and the
    /// CSV's display name.
    fn hostile_example() -> tempfile::TempDir {
        let d = example();
        edit_catalog(d.path(), CERT, |doc| {
            if doc["schema"] == "olm.package" {
                doc["description"] = HOSTILE.into();
            }
        });
        let path = d.path().join(CERT);
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str(&format!(
            "{}\n",
            serde_json::json!({"schema": "olm.deprecations", "package": "acme-cert-operator", "entries": [{"reference": {"schema": "olm.package"}, "message": HOSTILE}]})
        ));
        std::fs::write(&path, text).unwrap();
        edit_cloud_objects(d.path(), |objects| {
            let csv = objects
                .iter_mut()
                .find(|o| o["kind"] == "ClusterServiceVersion")
                .unwrap();
            csv["spec"]["displayName"] = HOSTILE.into();
        });
        d
    }

    #[test]
    fn no_output_carries_an_unsafe_character_raw() {
        let d = hostile_example();
        let runs: &[&[&str]] = &[
            &["resolve", "-o", "json", "--dir", "."],
            &["resolve", "-o", "yaml", "--dir", "."],
            &["resolve", "--explain", "-o", "wide", "--dir", "."],
            &["create", "--dir", "."],
            &["catalog", "list", "packages", "catalog", "-o", "wide"],
            &["catalog", "list", "packages", "catalog", "-o", "json"],
            &["catalog", "list", "packages", "catalog", "-o", "yaml"],
            &["catalog", "list", "bundles", "catalog", "-o", "wide"],
        ];
        for args in runs {
            let out = cmd().args(*args).current_dir(d.path()).output().unwrap();
            let (so, se) = (
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr),
            );
            assert!(!raw(&so) && !raw(&se), "{args:?}:\n{so:?}\n{se:?}");
            if args.contains(&"json") && args.contains(&"packages") {
                // JSON escapes them as JSON does, and reads back as the catalog's text.
                assert!(
                    so.contains("\\u007f\\u009b31m\\u202e\\u2066\\u2028y"),
                    "{so}"
                );
                let v: Value = serde_json::from_str(&so).unwrap();
                let names = v.as_array().unwrap();
                assert!(names.iter().any(|p| p["displayName"] == HOSTILE), "{v}");
            }
        }
        // The deprecation warning of `create` names it escaped.
        let out = cmd()
            .args(["create", "--dir", "."])
            .current_dir(d.path())
            .output()
            .unwrap();
        let se = String::from_utf8_lossy(&out.stderr);
        assert!(se.contains("\\u{202e}\\u{2066}\\u{2028}y"), "{se}");
    }

    #[test]
    fn a_blang_parse_error_prints_the_range_escaped() {
        let d = example();
        edit_catalog(d.path(), CERT, |doc| {
            if doc["schema"] == "olm.channel" {
                let entries = doc["entries"].as_array_mut().unwrap();
                entries.last_mut().unwrap()["skipRange"] = format!(">=0.9.0 <{HOSTILE}").into();
            }
        });
        let out = cmd()
            .args(["catalog", "validate", "catalog"])
            .current_dir(d.path())
            .output()
            .unwrap();
        let (so, se) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert_eq!(out.status.code(), Some(1), "{so}\n{se}");
        assert!(!raw(&so) && !raw(&se), "{so:?}\n{se:?}");
        assert!(
            format!("{so}{se}").contains("\\u{1b}[2J\\u{7}\\r\\u{8}\\u{7f}"),
            "{so}\n{se}"
        );
    }
}

/// Issue 34 items 3 and 5: links out of the install directory. The folders po-manifests writes
/// (`manifests/`, `openshift/`) are D's own: one linked out of D is neither written nor
/// emptied, by `create` or its recovery, and `check` does not read it, unless the user passes
/// `--follow-links`. The lock file linked out of D is refused unread by every command.
#[cfg(unix)]
mod links {
    use super::*;

    fn run(dir: &Path, args: &[&str]) -> (Option<i32>, String, String) {
        let out = cmd()
            .args(args)
            .arg("--dir")
            .arg(dir)
            .timeout(Duration::from_secs(120))
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// Write `d` once for `installer`, then move `folder` out of D and link it back.
    fn linked_out(
        d: tempfile::TempDir,
        folder: &str,
        args: &[&str],
    ) -> (tempfile::TempDir, tempfile::TempDir) {
        let (code, _, stderr) = run(d.path(), args);
        assert_eq!(code, Some(0), "{stderr}");
        let outside = tempfile::tempdir().unwrap();
        std::fs::rename(d.path().join(folder), outside.path().join(folder)).unwrap();
        std::os::unix::fs::symlink(outside.path().join(folder), d.path().join(folder)).unwrap();
        (d, outside)
    }

    #[test]
    fn a_manifests_folder_linked_out_of_d_is_written_only_with_follow_links() {
        let (d, outside) = linked_out(example(), "manifests", &["create", "--offline"]);
        // A change, so that the run would write and remove files there.
        let config = d.path().join("platform-operators.yaml");
        let text = std::fs::read_to_string(&config)
            .unwrap()
            .replace("name: cert-operator", "name: cert-operator-b");
        std::fs::write(&config, text).unwrap();
        let (before, before_d) = (tree(outside.path()), tree(d.path()));
        let (code, _, stderr) = run(d.path(), &["create"]);
        assert_eq!(code, Some(3), "{stderr}");
        assert!(
            stderr.contains("manifests is a symbolic link that leaves")
                && stderr.contains("--follow-links")
                && stderr.contains("nothing was read or written"),
            "{stderr}"
        );
        assert!(
            !stderr.contains(&outside.path().display().to_string()),
            "{stderr}"
        );
        assert_eq!(before, tree(outside.path()));
        assert_eq!(before_d, tree(d.path()));

        // check says the same about the folder, and reads it when asked to.
        let (_, stdout, _) = run(d.path(), &["check", "-o", "json"]);
        let report: Value = serde_json::from_str(&stdout).unwrap();
        let unreadable: Vec<&Value> = report["problems"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["rule"] == "unreadable")
            .collect();
        assert_eq!(unreadable.len(), 1, "{unreadable:#?}");
        assert!(
            unreadable[0]["message"]
                .as_str()
                .unwrap()
                .contains("--follow-links"),
            "{unreadable:#?}"
        );
        let (_, stdout, _) = run(d.path(), &["check", "-o", "json", "--follow-links"]);
        let report: Value = serde_json::from_str(&stdout).unwrap();
        assert!(
            !report["problems"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| p["rule"] == "unreadable"),
            "{report:#}"
        );

        // Asked for, the run writes there.
        let (code, _, stderr) = run(d.path(), &["create", "--follow-links"]);
        assert_eq!(code, Some(0), "{stderr}");
        let names: Vec<String> = tree(&outside.path().join("manifests"))
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert!(
            names.iter().any(|n| n.contains("cert-operator-b")),
            "{names:?}"
        );
        assert!(
            !names.iter().any(|n| n.contains("cert-operator_")),
            "{names:?}"
        );
    }

    #[test]
    fn an_openshift_folder_linked_out_of_d_is_neither_written_nor_emptied() {
        // The agent's folder, linked out: refused for the agent...
        let bootstrap = tempfile::tempdir().unwrap();
        crate::common::copy_dir(
            &crate::common::root().join("testdata/bootstrap/external"),
            bootstrap.path(),
        );
        let bundles = crate::common::root().join("testdata/bootstrap/ccm-bundle");
        let create = [
            "create",
            "--offline",
            "--bundles",
            bundles.to_str().unwrap(),
        ];
        let agent = [&create[..], &["--installer", "agent"]].concat();
        let (d, outside) = linked_out(bootstrap, "openshift", &agent);
        let before = tree(outside.path());
        let (code, _, stderr) = run(d.path(), &agent);
        assert_eq!(code, Some(3), "{stderr}");
        assert!(stderr.contains("--follow-links"), "{stderr}");
        // ...and for openshift-install, which would take the lock's files out of it.
        let (code, _, stderr) = run(d.path(), &create);
        assert_eq!(code, Some(3), "{stderr}");
        assert!(
            stderr.contains("openshift is a symbolic link that leaves"),
            "{stderr}"
        );
        assert_eq!(before, tree(outside.path()));
        assert!(!d.path().join("manifests").exists());
    }

    #[test]
    fn a_lock_linked_out_of_d_is_refused_unread_by_every_command() {
        let d = example();
        let outside = tempfile::tempdir().unwrap();
        let secret = outside.path().join("shadow");
        std::fs::write(&secret, "root:$6$SECRET-HASH-1234:19000:0:99999:7:::\n").unwrap();
        std::os::unix::fs::symlink(&secret, d.path().join("platform-operators.lock.yaml")).unwrap();
        for args in [
            &["create", "--offline"][..],
            &["resolve", "--offline"],
            &["upgrade-plan", "--offline", "--to", "4.15.3"],
        ] {
            let (code, stdout, stderr) = run(d.path(), args);
            assert_eq!(code, Some(3), "{args:?}: {stderr}");
            assert!(
                stderr.contains("platform-operators.lock.yaml")
                    && stderr.contains("symbolic link that leaves"),
                "{args:?}: {stderr}"
            );
            for text in [&stdout, &stderr] {
                assert!(
                    !text.contains("SECRET-HASH") && !text.contains("shadow"),
                    "{args:?}: {text}"
                );
            }
        }
        assert!(!d.path().join("manifests").exists());
    }

    /// A file that is not a lock at all, in D: refused without a word of it.
    #[test]
    fn a_file_in_place_of_the_lock_is_never_echoed() {
        let d = example();
        std::fs::write(
            d.path().join("platform-operators.lock.yaml"),
            "root:$6$SECRET-HASH-1234:19000:0:99999:7:::\n",
        )
        .unwrap();
        let (code, stdout, stderr) = run(d.path(), &["create", "--offline"]);
        assert_eq!(code, Some(1), "{stderr}");
        assert!(stderr.contains("platform-operators.lock.yaml"), "{stderr}");
        assert!(
            !stdout.contains("SECRET-HASH") && !stderr.contains("SECRET-HASH"),
            "{stderr}"
        );
    }
}
