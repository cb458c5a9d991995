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
# Blanket implementations are skipped: their docs are other crates' (tracing's
# `Instrument` links `crate::Span`, which a --no-deps build has no page for).
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
found, pages = [], 0
for crate in sys.argv[2:]:
    for page in sorted((doc / crate).rglob("*.html")) if (doc / crate).is_dir() else []:
        pages += 1
        text = page.read_text(errors="replace").split('id="blanket-implementations"')[0]
        found += [f"{page.relative_to(doc)}: {m}" for m in unresolved.findall(text)]
if pages == 0:
    sys.exit(f"check-doc-links: FAIL: no documentation of this workspace under {doc} (run cargo doc first)")
if found:
    sys.exit("check-doc-links: FAIL: links rustdoc left as paths (a link to a #[doc(hidden)] "
             "item?):\n  " + "\n  ".join(sorted(set(found))))
print(f"check-doc-links: {pages} pages, no link left as a path")
PY
