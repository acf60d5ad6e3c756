"""Hard-wrapped source lines joined before the checks read sentences (`checks/wrapped_lines.py`)."""

from __future__ import annotations

import pytest

from docsassistant.agent.checks.wrapped_lines import unwrapped, unwrapped_sources


def test_a_wrapped_paragraph_becomes_one_line() -> None:
    text = "The event is **not dropped**:\nit is forwarded unparsed with the tag\n`_parse_timeout`.\n\nNext."
    assert unwrapped(text) == (
        "The event is **not dropped**: it is forwarded unparsed with the tag `_parse_timeout`.\n\nNext."
    )


def test_a_list_items_wrapped_line_joins_its_item() -> None:
    text = "- The agent retries the\n  request three times.\n- It then gives up."
    assert unwrapped(text) == "- The agent retries the request three times.\n- It then gives up."


@pytest.mark.parametrize(
    "text",
    [
        "| Setting | Default |\n| --- | --- |\n| `a` | 5 |",  # table rows
        "Setting | Default\n--- | ---\n`a` | 5",  # a table without leading pipes
        "- one item\n- another item\n1. a step\n2) another step",  # list items
        "Default: 30\nMaximum: 300",  # label lines
        "**Server**: port 7401\n**Worker**: port 7402",  # bold labels
        "# Heading\nThe first line of text",  # a heading
        "---\nid: limits.md\ntitle: Limits\n---",  # front matter
        "Run this:\n\n    retries = 3\n    backoff = 2",  # indented code
        "```yaml\nbroker:\n  listen_port: 5672\n```",  # fenced code
        "[source,java]\n----\n```java\nclass A {\n}\n```\nint b\n----",  # AsciiDoc block, a fence inside
        "The first sentence ends here.\nThe second starts a new line.",  # one sentence a line
        "Line ending with a hard break  \nthe next line",  # Markdown's two-space break
    ],
    ids=[
        "table",
        "pipe-table",
        "lists",
        "labels",
        "bold-labels",
        "heading",
        "front-matter",
        "indented-code",
        "fenced-code",
        "asciidoc-block",
        "sentence-per-line",
        "hard-break",
    ],
)
def test_lines_a_check_reads_one_by_one_are_kept(text: str) -> None:
    assert unwrapped(text) == text


def test_sources_are_copied_with_both_texts_unwrapped() -> None:
    source = {"n": 1, "content": "a wrapped\nline", "prompt_text": "a wrapped\nline", "title": "T"}
    assert unwrapped_sources([source]) == [
        {**source, "content": "a wrapped line", "prompt_text": "a wrapped line"}
    ]
    assert source["content"] == "a wrapped\nline"  # the record keeps the stored text
