#!/usr/bin/env python3
"""Generate src/convert/roundtrip/omitempty.rs from the Kubernetes Go API types.

Go's encoding/json drops a field tagged `omitempty` when its value is the zero value of its
type, but only for kinds that can be "empty": bool, numbers, strings, slices and maps (never a
struct). A pointer field is empty only when nil, so `replicas: 0` (`*int32`) is kept while
`priority: 0` (`int32`) goes. The OpenAPI schema that k8s-openapi is generated from does not
say which fields are pointers, so this script reads it from the Go source of the Kubernetes
release that k8s-openapi's feature names (v1_36 -> release-1.36):

  scripts/omitempty-from-go.py --api K8S_API --apiextensions APIEXT --apimachinery APIMACH \
      > src/convert/roundtrip/omitempty.rs

where each argument is a checkout of kubernetes/api, kubernetes/apiextensions-apiserver and
kubernetes/apimachinery at release-1.36 (or a directory holding the same relative paths).
Only the packages whose structs OLM v1 round-trips are read (see roundtrip/mod.rs).
"""

import argparse
import re
import sys
from pathlib import Path

FILES = {
    "api": [
        "core/v1/types.go",
        "apps/v1/types.go",
        "rbac/v1/types.go",
        "admissionregistration/v1/types.go",
    ],
    "apiextensions": [
        "pkg/apis/apiextensions/v1/types.go",
        "pkg/apis/apiextensions/v1/types_jsonschema.go",
    ],
    "apimachinery": ["pkg/apis/meta/v1/types.go"],
}

# Types from packages not read here, by what encoding/json sees of them.
EXTERNAL = {
    "types.UID": "s",
    "metav1.Time": "struct",
    "metav1.MicroTime": "struct",
    "metav1.Duration": "struct",
    "resource.Quantity": "struct",
    "intstr.IntOrString": "struct",
    "runtime.RawExtension": "struct",
    "Time": "struct",  # meta/v1's own Time, declared in time.go
    "MicroTime": "struct",
    "Duration": "struct",
    "FieldsV1": "struct",  # declared in types.go, listed for clarity
}

SCALARS = {"string": "s", "bool": "b"}
NUMBER = re.compile(r"^(u?int(8|16|32|64)?|float(32|64)|byte|rune)$")

STRUCT_START = re.compile(r"^type\s+(\w+)\s+struct\s*\{")
NAMED = re.compile(r"^type\s+(\w+)\s+(\S.*?)\s*(//.*)?$")
FIELD = re.compile(r"^\s+(\w+)\s+([^\s`]+)\s+`([^`]*)`")
EMBEDDED = re.compile(r"^\s+([\w.*]+)\s+`([^`]*)`")
JSON_TAG = re.compile(r'json:"([^"]*)"')


def parse(text, structs, named):
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        m = STRUCT_START.match(line)
        if m:
            name = m.group(1)
            fields = []
            depth = 1
            i += 1
            while i < len(lines) and depth > 0:
                body = lines[i]
                stripped = body.strip()
                if stripped.startswith("//"):
                    i += 1
                    continue
                depth += body.count("{") - body.count("}")
                if depth <= 0:
                    break
                if depth == 1:
                    f = FIELD.match(body)
                    e = EMBEDDED.match(body) if not f else None
                    if f:
                        tag = JSON_TAG.search(f.group(3))
                        if tag:
                            fields.append(("field", f.group(1), f.group(2), tag.group(1)))
                    elif e:
                        tag = JSON_TAG.search(e.group(2))
                        if tag and tag.group(1).startswith(",inline"):
                            fields.append(("inline", None, e.group(1), tag.group(1)))
                i += 1
            structs[name] = fields
        else:
            m = NAMED.match(line)
            if m and not m.group(2).startswith(("struct", "interface", "=", "(")):
                named[m.group(1)] = m.group(2)
        i += 1


ALL_STRUCTS = set()


def kind(go_type, structs, named, seen=()):
    """'s', 'b', 'n', 'l' (slice), 'm' (map), 'struct', 'ptr' or None (unknown)."""
    if go_type.startswith("*"):
        return "ptr"
    if go_type == "[]byte":
        return "s"  # base64 text; empty is ""
    if go_type.startswith("[]"):
        return "l"
    if go_type.startswith("map["):
        return "m"
    if go_type in SCALARS:
        return SCALARS[go_type]
    if NUMBER.match(go_type):
        return "n"
    if go_type in EXTERNAL:
        return EXTERNAL[go_type]
    if go_type in structs:
        return "struct"
    if go_type in named and go_type not in seen:
        return kind(named[go_type], structs, named, seen + (go_type,))
    # A struct of another package read here (apps/v1 names core/v1's as `v1.PodTemplateSpec`).
    if "." in go_type and go_type.split(".", 1)[1] in ALL_STRUCTS:
        return "struct"
    return None


def droppable(name, structs, named, unknown, seen=()):
    """The struct's JSON fields that encoding/json drops when empty: {json name: kind}."""
    out = {}
    for what, _go_name, go_type, tag in structs.get(name, []):
        if what == "inline":
            inner = go_type.lstrip("*")
            if inner in structs and inner not in seen:
                out.update(droppable(inner, structs, named, unknown, seen + (name,)))
            continue
        parts = tag.split(",")
        json_name, options = parts[0], parts[1:]
        if json_name == "-" or not json_name or "omitempty" not in options:
            continue
        k = kind(go_type, structs, named)
        if k is None:
            unknown.add(f"{name}.{json_name}: {go_type}")
            continue
        if k in ("s", "b", "n", "l", "m"):
            out[json_name] = k
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--api", required=True)
    ap.add_argument("--apiextensions", required=True)
    ap.add_argument("--apimachinery", required=True)
    ap.add_argument("--release", default="release-1.35")
    args = ap.parse_args()

    # Each package separately: type names repeat across packages (ServiceReference).
    per_package = []
    for root_name, files in FILES.items():
        root = Path(getattr(args, root_name))
        by_dir = {}
        for f in files:
            by_dir.setdefault(str(Path(f).parent), []).append(f)
        for d, fs in by_dir.items():
            structs, named = {}, {}
            for f in fs:
                parse((root / f).read_text(), structs, named)
            per_package.append((f"{root_name}/{d}", structs, named))

    for _pkg, structs, _named in per_package:
        ALL_STRUCTS.update(structs)
    unknown = set()
    tables = {}  # struct name -> list of {field: kind} (one per package declaring it)
    for _pkg, structs, named in per_package:
        for name in structs:
            tables.setdefault(name, []).append(droppable(name, structs, named, unknown))
    for u in sorted(unknown):
        print(f"warning: type not resolved, field kept: {u}", file=sys.stderr)

    # A name declared in two packages keeps only what both drop (k8s-openapi names a struct
    # without its package, so the stricter reading is the safe one).
    merged = {}
    for name, variants in tables.items():
        common = dict(variants[0])
        for v in variants[1:]:
            common = {k: kd for k, kd in common.items() if v.get(k) == kd}
        if common:
            merged[name] = common

    kinds = {"s": "String", "b": "Bool", "n": "Number", "l": "List", "m": "Map"}
    out = []
    out.append("// @generated by scripts/omitempty-from-go.py from the Kubernetes Go types of")
    out.append(f"// {args.release} (kubernetes/api, apiextensions-apiserver, apimachinery). Do not edit.")
    out.append("")
    out.append("use super::zero::Zero;")
    out.append("")
    out.append("/// The fields of the struct k8s-openapi names `name` that Go's `encoding/json` drops when")
    out.append("/// they hold their zero value (`omitempty` on a non-pointer bool, number, string, slice")
    out.append("/// or map), with the kind of that zero value.")
    out.append("#[rustfmt::skip]")
    out.append("pub(super) fn fields(name: &str) -> &'static [(&'static str, Zero)] {")
    out.append("    match name {")
    for name in sorted(merged):
        entries = ", ".join(
            f'("{f}", Zero::{kinds[k]})' for f, k in sorted(merged[name].items())
        )
        out.append(f'        "{name}" => &[{entries}],')
    out.append("        _ => &[],")
    out.append("    }")
    out.append("}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
