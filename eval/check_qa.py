"""Check a docs QA file (eval/docs_qa.jsonl format) against the corpus it was written from.

Usage: python eval/check_qa.py [--corpus PATH] [FILE]

Without --corpus only the file itself is checked (schema, ids, per-type and per-split
minimums). With --corpus also: every source exists, every evidence string is a verbatim
substring of one of its sources (runs of whitespace normalised, nothing else), every
source of a multi-source question holds some evidence, no file outside the sources
holds all the evidence taken from one source (duplicate pages), count answers equal a recount of
the .md/.adoc files under `scope`, and paraphrase questions share no content word with
their evidence. Prints a summary; exits 1 on any problem. Standard library only, so it
runs without the project's virtual environment.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path

TYPES = ("single", "multi", "count", "unanswerable")
SPLITS = ("dev", "test")
COMPONENTS = ("vector-rag", "spring-ai")
COUNTED_SUFFIXES = (".md", ".adoc")
FIELDS = ("id", "question", "component", "type", "sources", "evidence", "answer", "split", "paraphrase")

# Whole-file minimums (issue 8 item 3) and per-split minimums (half of each, rounded down,
# so a roughly 50/50 stratified split meets them).
MINIMUMS = {"total": 80, "single": 40, "paraphrase": 15, "multi": 20, "unanswerable": 10, "count": 10}
SPLIT_MINIMUMS = {name: n // 2 for name, n in MINIMUMS.items()}

# Function words and question scaffolding; anything else counts as a content word.
_STOPWORD_TEXT = """a about above after again against all am an and any are as at be because been before
    being below between both but by can cannot could did do does doing done down during each
    else even ever every few for from further get gets getting got had has have having he her
    here hers him his how however i if in into is it its itself just let lets like may me might
    more most much must my myself no nor not now of off on once one only or other otherwise our
    ours out over own per put same shall she should so some such than that the their theirs them
    themselves then there these they this those through thus to too under until up upon us very
    was we were what whatever when where whether which while who whom whose why will with within
    without would yet you your yours yourself anything something nothing someone anyone way ways
    want wants need needs really still also already instead rather else able"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
_SUFFIXES = ("ingly", "edly", "ies", "ing", "ed", "es", "ly", "s")
_WORD = re.compile(r"[a-z0-9]+")
_SPACE = re.compile(r"\s+")


def squash(text: str) -> str:
    """Collapse every run of whitespace to one space (the only normalisation allowed)."""
    return _SPACE.sub(" ", text).strip()


def stem(word: str) -> str:
    """Crude suffix stripping, applied until stable (index/indexes/indexing -> index).

    It conflates more than a real stemmer would; for the paraphrase check that only makes
    the check stricter.
    """
    while True:
        for suffix in _SUFFIXES:
            if word.endswith(suffix) and not word.endswith("ss") and len(word) - len(suffix) >= 2:
                word = word[: -len(suffix)] + ("y" if suffix == "ies" else "")
                break
        else:
            if word.endswith("e") and len(word) > 3:
                return word[:-1]
            return word


def content_words(text: str) -> dict[str, str]:
    """Stem -> first surface form, for every content word (not a stopword, 2+ characters)."""
    out: dict[str, str] = {}
    for word in _WORD.findall(text.lower()):
        if len(word) < 2 or word in STOPWORDS:
            continue
        out.setdefault(stem(word), word)
    return out


def shared_content_words(question: str, passages: list[str]) -> list[str]:
    """Content words the question shares with the passages, as 'question word~passage word'."""
    asked = content_words(question)
    found = content_words(" ".join(passages))
    return sorted(
        f"{asked[s]}~{found[s]}" if asked[s] != found[s] else asked[s] for s in asked.keys() & found
    )


def count_files(corpus: Path, scope: str) -> int:
    """Files ending in .md or .adoc anywhere under corpus/scope (the dev set's definition)."""
    folder = corpus / scope
    return sum(1 for p in folder.rglob("*") if p.is_file() and p.name.endswith(COUNTED_SUFFIXES))


def load(path: Path) -> tuple[list[dict], list[str]]:
    """Parse one JSON object a line; problems name the line."""
    records, problems = [], []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            problems.append(f"line {number}: invalid JSON ({exc.msg})")
            continue
        if not isinstance(record, dict):
            problems.append(f"line {number}: not a JSON object")
            continue
        records.append(record)
    return records, problems


def check_record(r: dict) -> list[str]:
    """Schema and per-type shape of one question (no corpus needed)."""
    rid = r.get("id", "?")
    problems = [f"{rid}: missing field {f!r}" for f in FIELDS if f not in r]
    if problems:
        return problems
    kind, sources, evidence = r["type"], r["sources"], r["evidence"]
    if kind not in TYPES:
        problems.append(f"{rid}: unknown type {kind!r}")
    if r["split"] not in SPLITS:
        problems.append(f"{rid}: split must be dev or test, not {r['split']!r}")
    if r["component"] is not None and r["component"] not in COMPONENTS:
        problems.append(f"{rid}: unknown component {r['component']!r}")
    if not isinstance(r["paraphrase"], bool):
        problems.append(f"{rid}: paraphrase must be true or false")
    if not (isinstance(r["question"], str) and r["question"].strip()):
        problems.append(f"{rid}: empty question")
    if not (isinstance(r["answer"], str) and r["answer"].strip()):
        problems.append(f"{rid}: empty answer")
    if not (isinstance(sources, list) and isinstance(evidence, list)):
        return [*problems, f"{rid}: sources and evidence must be lists"]
    if not all(isinstance(s, str) and s for s in [*sources, *evidence]):
        problems.append(f"{rid}: sources and evidence must be non-empty strings")
    if kind in ("single", "multi"):
        wanted = 1 if kind == "single" else 2
        if (kind == "single" and len(sources) != 1) or (kind == "multi" and len(sources) < 2):
            problems.append(
                f"{rid}: a {kind} question needs {'exactly' if kind == 'single' else 'at least'} {wanted} source(s)"
            )
        if len(set(sources)) != len(sources):
            problems.append(f"{rid}: duplicate sources")
        if not evidence:
            problems.append(f"{rid}: no evidence")
        for s in sources:
            if r["component"] is not None and not s.startswith(r["component"] + "/"):
                problems.append(f"{rid}: source {s} is outside component {r['component']}")
    else:
        if sources or evidence:
            problems.append(f"{rid}: a {kind} question has no sources or evidence")
        if r["paraphrase"]:
            problems.append(f"{rid}: only answerable questions can be paraphrases")
    if kind == "unanswerable" and r["answer"] != "not in the documentation":
        problems.append(f"{rid}: an unanswerable question's answer is 'not in the documentation'")
    if kind == "count":
        scope = r.get("scope")
        if not isinstance(scope, str) or not scope:
            problems.append(f"{rid}: a count question needs a scope folder")
        elif (
            r["component"] is not None
            and not scope.startswith(r["component"] + "/")
            and scope != r["component"]
        ):
            problems.append(f"{rid}: scope {scope} is outside component {r['component']}")
        if not str(r["answer"]).strip().isdigit():
            problems.append(f"{rid}: a count answer is a number")
    return problems


def load_corpus(corpus: Path) -> dict[str, str]:
    """Every .md/.adoc file under the corpus, whitespace-squashed, by its path relative to it."""
    return {
        p.relative_to(corpus).as_posix(): squash(p.read_text(encoding="utf-8"))
        for p in sorted(corpus.rglob("*"))
        if p.is_file() and p.name.endswith(COUNTED_SUFFIXES)
    }


def substitutes(r: dict, texts: dict[str, str]) -> list[str]:
    """'source -> other file' where a file outside the sources holds all the evidence taken
    from that source.

    Such a source is not the only right file (a duplicate page, say), so judging recall
    against it would be unfair.
    """
    if r["type"] not in ("single", "multi"):
        return []
    found = []
    for source in r["sources"]:
        taken = [squash(ev) for ev in r["evidence"] if squash(ev) in texts.get(source, "")]
        if not taken:
            continue
        found += [
            f"{source} -> {path}"
            for path, text in texts.items()
            if path not in r["sources"] and all(t in text for t in taken)
        ]
    return found


def check_against_corpus(r: dict, corpus: Path, everything: dict[str, str] | None = None) -> list[str]:
    """Sources exist, evidence is verbatim, counts recount, paraphrases share no content word."""
    rid, problems = r["id"], []
    texts: dict[str, str] = {}
    for source in r["sources"]:
        path = corpus / source
        if not path.is_file():
            problems.append(f"{rid}: source {source} does not exist")
        else:
            texts[source] = squash(path.read_text(encoding="utf-8"))
    if len(texts) == len(r["sources"]):
        covered = set()
        for ev in r["evidence"]:
            holders = [s for s, text in texts.items() if squash(ev) in text]
            if not holders:
                problems.append(f"{rid}: evidence not found verbatim in its sources: {ev[:80]!r}")
            covered.update(holders)
        if r["type"] == "multi":
            problems += [f"{rid}: no evidence comes from {s}" for s in r["sources"] if s not in covered]
    if r["type"] == "count" and isinstance(r.get("scope"), str):
        if not (corpus / r["scope"]).is_dir():
            problems.append(f"{rid}: scope {r['scope']} is not a folder")
        else:
            actual = count_files(corpus, r["scope"])
            if str(actual) != str(r["answer"]).strip():
                problems.append(
                    f"{rid}: answer {r['answer']} but {r['scope']} holds {actual} .md/.adoc files"
                )
    if everything is not None:
        problems += [
            f"{rid}: the evidence from a source is all in another file: {sub}"
            for sub in substitutes(r, everything)
        ]
    if r["paraphrase"]:
        overlap = shared_content_words(r["question"], r["evidence"])
        if overlap:
            problems.append(f"{rid}: paraphrase shares content words with its evidence: {', '.join(overlap)}")
    return problems


def tally(records: list[dict]) -> dict[str, Counter]:
    """Counts per split ('all' too) of total, each type and paraphrases."""
    counts: dict[str, Counter] = {s: Counter() for s in ("all", *SPLITS)}
    for r in records:
        for split in ("all", r.get("split")):
            if split in counts:
                c = counts[split]
                c["total"] += 1
                c[r.get("type")] += 1
                c["paraphrase"] += bool(r.get("paraphrase")) and r.get("type") == "single"
                c["cross-component"] += (
                    r.get("type") == "multi" and len({s.split("/")[0] for s in r.get("sources", [])}) > 1
                )
    return counts


def check(records: list[dict], corpus: Path | None) -> list[str]:
    """Every problem in the file (empty list when it is sound)."""
    problems: list[str] = []
    ids = Counter(r.get("id") for r in records)
    problems += [f"{rid}: id used {n} times" for rid, n in ids.items() if n > 1]
    questions = Counter(squash(str(r.get("question", ""))).lower() for r in records)
    problems += [f"question asked {n} times: {q[:60]!r}" for q, n in questions.items() if n > 1]
    everything = load_corpus(corpus) if corpus is not None else None
    for r in records:
        shape = check_record(r)
        problems += shape
        if corpus is not None and not shape:
            problems += check_against_corpus(r, corpus, everything)
    counts = tally(records)
    for name, minimum in MINIMUMS.items():
        if counts["all"][name] < minimum:
            problems.append(f"only {counts['all'][name]} {name} questions (minimum {minimum})")
        for split in SPLITS:
            if counts[split][name] < SPLIT_MINIMUMS[name]:
                problems.append(
                    f"{split} split: only {counts[split][name]} {name} (minimum {SPLIT_MINIMUMS[name]})"
                )
    return problems


def summary(records: list[dict]) -> str:
    counts = tally(records)
    names = ("total", *TYPES, "paraphrase", "cross-component")
    lines = [f"{'':6}" + "".join(f"{n:>16}" for n in names)]
    for split in ("dev", "test", "all"):
        lines.append(f"{split:6}" + "".join(f"{counts[split][n]:>16}" for n in names))
    files = Counter(s for r in records for s in r.get("sources", []))
    lines.append(
        f"distinct source files: {len(files)}; most used: "
        + ", ".join(f"{s} ({n})" for s, n in files.most_common(3))
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", nargs="?", type=Path, default=Path(__file__).with_name("docs_qa.jsonl"))
    parser.add_argument("--corpus", type=Path, help="the corpus folder (holds vector-rag/ and spring-ai/)")
    args = parser.parse_args(argv)
    if not args.file.is_file():
        print(f"error: {args.file} not found", file=sys.stderr)
        return 2
    if args.corpus is not None and not args.corpus.is_dir():
        print(f"error: corpus folder {args.corpus} not found", file=sys.stderr)
        return 2
    records, problems = load(args.file)
    problems += check(records, args.corpus)
    print(summary(records))
    if args.corpus is None:
        print("corpus checks skipped (no --corpus)")
    for p in problems:
        print("PROBLEM", p)
    print(f"{len(records)} questions, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
