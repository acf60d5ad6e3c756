"""Markdown that makes a browser load an image, in the forms a model could write.

Used by tests/test_safe_text.py (parsed by markdown-it) and tests/test_browser_untrusted.py
(rendered by Streamlit in chromium, where `$$` math, `:::` directives, footnotes and HTML
blocks can hide a code fence from a plain CommonMark parser).
"""

from __future__ import annotations


def hostile_answers(pixel: str) -> list[str]:
    """Each answer loads `pixel` (an image URL with a query string) when rendered as is."""
    return [
        f"The default is 42 [1]. ![status]({pixel})",
        f'![a [nested] alt]({pixel} "title")',
        f"![a [b]({pixel}&inner) d]({pixel}&outer)",
        f"![ref][p]\n\n[p]: {pixel}&ref",
        f"![collapsed][]\n\n[collapsed]: {pixel}&collapsed",
        f"![shortcut]\n\n[shortcut]: <{pixel}&shortcut> 'title'",
        f"> quoted ![q]({pixel}&quote)\n> - listed ![l]({pixel}&listed)",
        f"| a | b |\n|---|---|\n| ![cell]({pixel}&cell) | x |",
        f"[![badge]({pixel}&badge)](http://example.com/target)",
        f"![multi\nline alt](\n{pixel}&multiline\n)",
        f"![code `]` in alt]({pixel}&codealt)",
        f"![x](<{pixel}&angle with space>)",
        f"![x]({pixel}&q=(paren))",
        f"1. step\n   ```\n![after a list fence]({pixel}&listfence)\n```\n",
        f"<!--\n```\n-->\n![after html]({pixel}&html)\n```",
        f"$$\n```\n$$\n![after math]({pixel}&math)\n```",
        f":::note\n```\n:::\n![after a directive]({pixel}&directive)\n```",
        f"[^1]: note\n\n    ![in a footnote]({pixel}&footnote)",
        f"[a]: /u\n    ![after a definition]({pixel}&definition)",
        f"text ![unclosed]({pixel}&unclosed",
        f"\\![escaped bang]({pixel}&escaped)",
        f"![x]({pixel}&x)![y]({pixel}&y)!![z]({pixel}&z)",
        f"![x]\r\n({pixel}&crlf)",
    ]
