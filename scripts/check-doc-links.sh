#!/usr/bin/env bash
# Fails when the generated documentation of this workspace's crates holds a link
# rustdoc could not turn into a page: an `href` that is still a Rust path
# (`href="crate::release_deferred"`).
#
# `-D warnings` (rustdoc::broken_intra_doc_links) does not catch these: the path
# resolves, to an item that has no page of its own — a `#[doc(hidden)]` function
# or macro — so rustdoc reports nothing and writes the path as the address. Run
# after `cargo doc` (CI: after the docs step); DOC_DIR is the documentation
# directory (default: target/doc, or $CARGO_TARGET_DIR/doc).
#
# A link into another crate is also left as a path when that crate's pages were
# not written yet: `cargo doc --no-deps` documents the workspace's crates in
# parallel, and rustdoc links to another crate only if its directory exists.
# So a path counts as broken only when no page of the documentation has the
# item (or, for a variant, method or field, the type it belongs to): a hidden
# item has no page anywhere. Blanket implementations are skipped: their docs
# are other crates' (tracing's `Instrument` links `crate::Span`).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
doc=${DOC_DIR:-${CARGO_TARGET_DIR:-$root/target}/doc}
cd "$root"
crates=$(cargo metadata --no-deps --format-version 1 | python3 -c '
import json, sys
for p in json.load(sys.stdin)["packages"]:
    for t in p["targets"]:
        if "lib" in t["kind"] or "proc-macro" in t["kind"] or "bin" in t["kind"]:
            print(t["name"].replace("-", "_"))
' | sort -u)
python3 - "$doc" $crates <<'PY'
import pathlib, re, sys

doc = pathlib.Path(sys.argv[1])
unresolved = re.compile(r'href="((?:crate|self|super|[A-Za-z_][A-Za-z0-9_]*)::[^"]*)"')
# Item names that have a page somewhere (`struct.DpaBox.html` -> `DpaBox`).
documented = {p.name.split(".")[-2] for p in doc.rglob("*.*.html")}


def has_a_page(path):
    names = [n for n in re.split(r"::", path.rstrip("!()")) if n]
    # The item itself, or the type its last segment is a member of.
    return any(n in documented for n in names[-2:])


found, pages = [], 0
for crate in sys.argv[2:]:
    for page in sorted((doc / crate).rglob("*.html")) if (doc / crate).is_dir() else []:
        pages += 1
        text = page.read_text(errors="replace").split('id="blanket-implementations"')[0]
        found += [
            f"{page.relative_to(doc)}: {m}" for m in unresolved.findall(text) if not has_a_page(m)
        ]
if pages == 0:
    sys.exit(f"check-doc-links: FAIL: no documentation of this workspace under {doc} (run cargo doc first)")
if found:
    sys.exit("check-doc-links: FAIL: links rustdoc left as paths, to items with no page "
             "(#[doc(hidden)]?):\n  " + "\n  ".join(sorted(set(found))))
print(f"check-doc-links: {pages} pages, no link left as a path")
PY
