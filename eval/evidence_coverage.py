"""How many evidence strings of a QA file survive the app's loaders and chunker.

Usage: .venv/bin/python eval/evidence_coverage.py --corpus PATH [FILE] [--chunk-size N --overlap N]

`eval search` scores `evidence` by looking for each string (normalised as
`docsassistant.evaluation.normalise_text` does) in the text of the retrieved chunks. A
string the loaders rewrite (a heading, a table row) can never be found, however good the
retrieval; this prints how many strings sit inside one chunk of their source, how many
only across a chunk boundary, and which are lost. For paraphrase questions it also prints
the content words the question shares with the whole chunk holding its evidence (the
checker only compares with the evidence itself). No database or embedder is needed.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

from docsassistant.chunking import chunk_document
from docsassistant.evaluation import normalise_text
from docsassistant.loaders import load_document


def _check_qa():
    """eval/check_qa.py as a module (eval/ is a folder of scripts, not a package)."""
    spec = importlib.util.spec_from_file_location("check_qa", Path(__file__).with_name("check_qa.py"))
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def chunk_texts(path: Path, chunk_size: int, overlap: int) -> list[str]:
    """The normalised text of each chunk the app would index for `path`."""
    drafts = chunk_document(load_document(path), chunk_size, overlap)
    return [normalise_text(d.content) for d in drafts]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", nargs="?", type=Path, default=Path(__file__).with_name("docs_qa.jsonl"))
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--chunk-size", type=int, default=1000)
    parser.add_argument("--overlap", type=int, default=150)
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"error: corpus folder {args.corpus} not found", file=sys.stderr)
        return 2
    check_qa = _check_qa()
    cache: dict[str, list[str]] = {}
    total = in_chunk = across = 0
    lost: list[str] = []
    paraphrases: list[tuple[str, list[str]]] = []
    for line in args.file.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        record = json.loads(line)
        chunks: list[str] = []
        for source in record.get("sources", []):
            if source not in cache:
                cache[source] = chunk_texts(args.corpus / source, args.chunk_size, args.overlap)
            chunks += cache[source]
        for evidence in record.get("evidence", []):
            total += 1
            wanted = normalise_text(evidence)
            if any(wanted in chunk for chunk in chunks):
                in_chunk += 1
            elif wanted in " ".join(chunks):
                across += 1
            else:
                lost.append(f"{record['id']} ({record.get('split')}): {evidence[:70]!r}")
        if record.get("paraphrase"):
            wanted = [normalise_text(e) for e in record["evidence"]]
            holders = [chunk for chunk in chunks if all(w in chunk for w in wanted)]
            shared = check_qa.shared_content_words(record["question"], holders) if holders else ["(no chunk)"]
            paraphrases.append((record["id"], shared))
    print(
        f"chunks {args.chunk_size}/{args.overlap}: {total} evidence strings; inside one chunk: {in_chunk}; "
        f"only across a chunk boundary: {across}; not in the indexed text: {len(lost)}"
    )
    for item in lost:
        print("  lost", item)
    if paraphrases:
        clean = sum(not shared for _, shared in paraphrases)
        print(
            f"paraphrases sharing no content word with the whole chunk holding their evidence: "
            f"{clean} of {len(paraphrases)}"
        )
        for rid, shared in paraphrases:
            if shared:
                print(f"  {rid}: {', '.join(shared)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
